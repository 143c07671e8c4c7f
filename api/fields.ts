/**
 * The field vocabulary, read from the policy's own data: the files the
 * policy bundle is built from (rego/portcullis/fields/data.json: views,
 * protected and retired fields; rego/portcullis/routes/data.json: the view
 * each role's grant reads and writes). The API keeps no list of its own:
 * the body guard's protected names, the OpenAPI document's field sets and
 * the drift test (test/api/field-vocabulary.test.ts) all come from here, so
 * a field renamed or added in the policy data reaches them with no code
 * change, and a view naming a field no response has fails the tests.
 *
 *   readFieldsByRole("invoices.get")   // Map { "admin" => [..., "owner_id", ...], "member" => [...], ... }
 *   writeFields("users.me.update")     // ["displayName"]
 *
 * The per-request answer is still the PDP's (decision.fields): this module
 * computes the same sets as fields.rego for documents and guards, never to
 * authorize a request.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { dataFile } from "../config/data-file";

export interface ProtectedField {
  readable_by: string[];
  why: string;
}

export interface FieldData {
  views: Record<string, string[]>;
  protected: Record<string, ProtectedField>;
  retired: Record<string, string>;
}

export interface Grant {
  read: string;
  write?: string;
  owner_scoped?: boolean;
}

export interface RoutePolicy {
  doc: string;
  methods: string[];
  action: string;
  resource: string;
  tenant_data: boolean;
  grants: Record<string, Grant>;
}

const REGO_DATA = path.join(__dirname, "..", "rego", "portcullis");

function readPolicyData<T>(...segments: string[]): T {
  return JSON.parse(fs.readFileSync(dataFile(path.join(REGO_DATA, ...segments)), "utf8")) as T;
}

export const FIELD_DATA: FieldData = readPolicyData("fields", "data.json");
export const ROUTE_POLICIES: Record<string, RoutePolicy> = readPolicyData("routes", "data.json");

/** Names no body may set, at any depth: the policy's protected and retired fields. */
export const UNWRITABLE_FIELDS: readonly string[] = [...new Set([...Object.keys(FIELD_DATA.protected), ...Object.keys(FIELD_DATA.retired)])];

/**
 * One key per spelling of a name: letter case, `_` and `-` ignored, so
 * `ownerId`, `OWNER_ID` and `owner-id` are all `owner_id` to the body guard.
 */
export function spellingKey(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, "");
}

/** A view's fields minus retired ones and protected ones the role may not read (fields.rego's read_fields). */
function readable(view: string, role: string): string[] {
  return (FIELD_DATA.views[view] ?? []).filter((f) => {
    if (Object.hasOwn(FIELD_DATA.retired, f)) return false;
    const p = Object.hasOwn(FIELD_DATA.protected, f) ? FIELD_DATA.protected[f] : undefined;
    return !p || p.readable_by.includes(role);
  });
}

/** role -> the fields its grant reads on a route, in the view's order; empty when the policy has no such route. */
export function readFieldsByRole(routeId: string): Map<string, string[]> {
  const route = Object.hasOwn(ROUTE_POLICIES, routeId) ? ROUTE_POLICIES[routeId] : undefined;
  const out = new Map<string, string[]>();
  for (const [role, grant] of Object.entries(route?.grants ?? {})) out.set(role, readable(grant.read, role));
  return out;
}

/** Every field any grant may set on a route (fields.rego's write_fields, all roles together). */
export function writeFields(routeId: string): string[] {
  const route = Object.hasOwn(ROUTE_POLICIES, routeId) ? ROUTE_POLICIES[routeId] : undefined;
  const out = new Set<string>();
  for (const grant of Object.values(route?.grants ?? {})) {
    if (grant.write === undefined) continue;
    for (const f of FIELD_DATA.views[grant.write] ?? []) {
      if (!Object.hasOwn(FIELD_DATA.retired, f) && !Object.hasOwn(FIELD_DATA.protected, f)) out.add(f);
    }
  }
  return [...out];
}
