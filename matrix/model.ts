/**
 * The matrix file (matrix/authorization.yaml) as typed data: personas,
 * object catalogue, and one entry per registry route with expectations per
 * role x target (and per-persona overrides). Loading validates the file
 * strictly, so a typo is an error with its path, never a silently skipped
 * cell.
 *
 *   const m = loadMatrix();                       // the repository's file
 *   parseExpectation("deny 404 not_found")        // { kind: "deny", status: 404, code: "not_found" }
 */
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { dataFile } from "../config/data-file";

export type Role = "anonymous" | "member" | "support" | "admin";
export type Target = "own" | "same_tenant" | "other_tenant" | "none";
export type ObjectKind = "invoice" | "user" | "invitation" | "profile" | "export_job";

export type Expectation = { kind: "allow" } | { kind: "deny"; status: number; code?: string } | { kind: "n/a"; why: string };

export interface Persona {
  id: string;
  role: Role;
  tenant: string | null;
}

export interface RouteEntry {
  /** "<METHOD> <route id>" as written in the file. */
  key: string;
  method: string;
  routeId: string;
  targets: Target[];
  object?: ObjectKind;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  /** Property of the response holding the rows (lists); absent: the body is one object. */
  list?: string;
  /** Row filter a list must equal, per role: the caller's own rows or its tenant's. */
  rows: Record<string, "own" | "tenant">;
  transition?: { from: string[]; to: string };
  moderation?: string;
  stateless?: string;
  /** Raw expectation tree: role or persona id or "*" -> target or "*" -> expectation text. */
  expect: Record<string, Record<string, string>>;
  /** Fields a read returns, per role/persona/"*". */
  read: Record<string, string[]>;
  /** Fields a write accepts, per role/persona/"*". */
  write: Record<string, string[]>;
}

export interface Matrix {
  file: string;
  personas: Persona[];
  readers: Record<string, string[]>;
  objects: Record<string, Record<string, { tenant: string; owner: string }>>;
  probeField: string;
  routes: RouteEntry[];
}

export const DEFAULT_MATRIX_FILE = path.join(__dirname, "authorization.yaml");
const ROLES: Role[] = ["anonymous", "member", "support", "admin"];
const TARGETS: Target[] = ["own", "same_tenant", "other_tenant", "none"];
const OBJECTS: ObjectKind[] = ["invoice", "user", "invitation", "profile", "export_job"];
const ROUTE_KEYS = new Set(["targets", "object", "query", "body", "list", "rows", "transition", "moderation", "stateless", "expect", "read", "write"]);

export class MatrixFileError extends Error {}

export function loadMatrix(file = DEFAULT_MATRIX_FILE): Matrix {
  const resolved = dataFile(file);
  // YAML 1.1 merge keys (<<) keep the file compact: shared expectations are written once.
  const raw = YAML.parse(fs.readFileSync(resolved, "utf8"), { merge: true }) as Record<string, unknown>;
  return parseMatrix(raw, resolved);
}

export function parseMatrix(raw: Record<string, unknown>, file = "<inline>"): Matrix {
  const fail = (where: string, msg: string): never => {
    throw new MatrixFileError(`${file}: ${where}: ${msg}`);
  };
  const personas: Persona[] = [];
  for (const [id, p] of Object.entries(obj(raw.personas, "personas", fail))) {
    const rec = obj(p, `personas.${id}`, fail);
    if (!ROLES.includes(rec.role as Role)) fail(`personas.${id}.role`, `must be one of ${ROLES.join(", ")}`);
    if (rec.tenant !== null && typeof rec.tenant !== "string") fail(`personas.${id}.tenant`, "must be a tenant id or null");
    personas.push({ id, role: rec.role as Role, tenant: rec.tenant as string | null });
  }
  const routes: RouteEntry[] = [];
  for (const [key, r] of Object.entries(obj(raw.routes, "routes", fail))) {
    const m = /^(GET|POST|PATCH|PUT|DELETE) ([a-z][a-z0-9_.]*)$/.exec(key);
    if (!m) fail(`routes.${key}`, 'key must be "<METHOD> <route id>"');
    const rec = obj(r, `routes.${key}`, fail);
    for (const k of Object.keys(rec)) if (!ROUTE_KEYS.has(k)) fail(`routes.${key}.${k}`, "unknown key");
    const targets = (rec.targets ?? []) as Target[];
    if (!Array.isArray(targets) || targets.length === 0 || targets.some((t) => !TARGETS.includes(t))) {
      fail(`routes.${key}.targets`, `a non-empty list of ${TARGETS.join(", ")}`);
    }
    if (rec.object !== undefined && !OBJECTS.includes(rec.object as ObjectKind)) fail(`routes.${key}.object`, `one of ${OBJECTS.join(", ")}`);
    const expect = obj(rec.expect, `routes.${key}.expect`, fail) as Record<string, Record<string, string>>;
    for (const [who, byTarget] of Object.entries(expect)) {
      for (const [t, text] of Object.entries(obj(byTarget, `routes.${key}.expect.${who}`, fail))) {
        if (t !== "*" && !targets.includes(t as Target)) fail(`routes.${key}.expect.${who}.${t}`, "not a target of this route");
        try {
          parseExpectation(String(text));
        } catch (err) {
          fail(`routes.${key}.expect.${who}.${t}`, (err as Error).message);
        }
      }
    }
    routes.push({
      key,
      method: m![1],
      routeId: m![2],
      targets,
      object: rec.object as ObjectKind | undefined,
      query: rec.query as Record<string, string> | undefined,
      body: rec.body as Record<string, unknown> | undefined,
      list: rec.list as string | undefined,
      rows: (rec.rows ?? {}) as Record<string, "own" | "tenant">,
      transition: rec.transition as RouteEntry["transition"],
      moderation: rec.moderation as string | undefined,
      stateless: rec.stateless as string | undefined,
      expect,
      read: (rec.read ?? {}) as Record<string, string[]>,
      write: (rec.write ?? {}) as Record<string, string[]>,
    });
  }
  return {
    file,
    personas,
    readers: obj(raw.readers, "readers", fail) as Record<string, string[]>,
    objects: obj(raw.objects, "objects", fail) as Matrix["objects"],
    probeField: typeof raw.probe_field === "string" ? raw.probe_field : fail("probe_field", "a field name"),
    routes,
  };
}

export function parseExpectation(text: string): Expectation {
  const t = text.trim();
  if (t === "allow") return { kind: "allow" };
  const na = /^n\/a(?::\s*(.*))?$/.exec(t);
  if (na) return { kind: "n/a", why: na[1] ?? "not applicable" };
  const deny = /^deny (\d{3})(?: ([a-z_]+))?$/.exec(t);
  if (deny) return { kind: "deny", status: Number(deny[1]), code: deny[2] };
  throw new Error(`expectation "${text}" is none of: allow | deny <status> [code] | n/a: <why>`);
}

export function formatExpectation(e: Expectation): string {
  if (e.kind === "allow") return "allow";
  if (e.kind === "n/a") return `n/a: ${e.why}`;
  return `deny ${e.status}${e.code ? ` ${e.code}` : ""}`;
}

/** Most specific first: the persona's own entry, its role's, then "*". */
export function lookup<T>(table: Record<string, T>, persona: Persona): T | undefined {
  return table[persona.id] ?? table[persona.role] ?? table["*"];
}

function obj(v: unknown, where: string, fail: (w: string, m: string) => never): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(where, "must be a mapping");
  return v as Record<string, unknown>;
}
