/**
 * Expansion: matrix file x operations (registry, versions) -> explicit
 * cells. One cell per (route, method, version, path template, persona,
 * target), plus one field-probe cell per write cell (the same request with
 * the matrix's probe field added). Every expectation is resolved here, so
 * the report can show each cell on its own.
 *
 * Completeness: an operation without a matrix entry, or a persona/target
 * the entry gives no expectation for, is a MISSING cell (named); a matrix
 * entry naming no operation is STALE. Either fails the run.
 *
 *   const { cells, missing, stale } = expandMatrix(loadMatrix(), operationsFromRegistry(catalog));
 */
import { lookup, parseExpectation, type Expectation, type Matrix, type Persona, type RouteEntry, type Target } from "./model";
import type { OperationSet } from "./registry";

export interface Cell {
  n: number;
  id: string;
  entry: RouteEntry;
  routeId: string;
  method: string;
  version: string;
  template: string;
  persona: Persona;
  target: Target;
  /**
   * The object id the request addresses; `victim:<tenant>` is a user the run
   * invites first, `export:<tenant>` an export job the run starts first.
   */
  object?: string;
  /** Field-probe cells: the name added to the body. */
  probe?: string;
  expect: Expectation;
  successStatus: number;
  /** Exact field set an allowed read returns. */
  read?: string[];
  /** Fields the write accepts (the body the cell sends uses them). */
  write?: string[];
}

export interface Expansion {
  cells: Cell[];
  missing: string[];
  stale: string[];
}

export interface ExpandOptions {
  /** Only these route ids (a targeted run; completeness then covers only them). */
  routes?: string[];
}

export function expandMatrix(matrix: Matrix, ops: OperationSet, options: ExpandOptions = {}): Expansion {
  const cells: Cell[] = [];
  const missing: string[] = ops.unknown.map((u) => `${u}: served by the instance, unknown to the registry`);
  const entries = new Map(matrix.routes.map((r) => [r.key, r]));
  const used = new Set<string>();
  const stale: string[] = [];
  const wanted = (id: string) => !options.routes || options.routes.includes(id);

  for (const op of ops.operations) {
    if (!wanted(op.routeId)) continue;
    const key = `${op.method} ${op.routeId}`;
    const entry = entries.get(key);
    used.add(key);
    for (const template of op.templates) {
      for (const persona of matrix.personas) {
        const where = `${key} ${op.version} ${template} ${persona.id}`;
        if (!entry) {
          missing.push(`${where}: no matrix entry for ${key}`);
          continue;
        }
        for (const target of entry.targets) {
          const text = expectationText(entry, persona, target);
          if (text === undefined) {
            missing.push(`${where} ${target}: no expectation for ${persona.id} (${persona.role})`);
            continue;
          }
          const expect = parseExpectation(text);
          const object = expect.kind === "n/a" ? undefined : resolveObject(matrix, entry, persona, target, expect);
          if (object === null) {
            missing.push(`${where} ${target}: no ${entry.object} in the catalogue fits this target`);
            continue;
          }
          const base = {
            entry,
            routeId: op.routeId,
            method: op.method,
            version: op.version,
            template,
            persona,
            target,
            object,
            successStatus: op.successStatus,
            read: lookup(entry.read, persona),
            write: lookup(entry.write, persona),
          };
          cells.push({ ...base, n: cells.length + 1, id: `${where} ${target}`, expect });
          if (entry.body && Object.keys(entry.write).length > 0) {
            const probe: Expectation =
              expect.kind === "allow"
                ? { kind: "deny", status: 403, code: "field_not_writable" }
                : { kind: "n/a", why: `probe only where the write is allowed (here: ${expect.kind === "n/a" ? expect.why : "denied without the field"})` };
            cells.push({ ...base, n: cells.length + 1, id: `${where} ${target} +${matrix.probeField}`, probe: matrix.probeField, expect: probe });
          }
        }
      }
    }
  }
  for (const key of entries.keys()) {
    const id = key.slice(key.indexOf(" ") + 1);
    if (!used.has(key) && wanted(id)) stale.push(`${key}: matrix entry for an operation the registry does not serve`);
  }
  return { cells, missing, stale };
}

/** persona[target] > persona["*"] > role[target] > role["*"] > "*"[target] > "*"["*"]. */
function expectationText(entry: RouteEntry, persona: Persona, target: Target): string | undefined {
  for (const who of [persona.id, persona.role, "*"]) {
    const byTarget = entry.expect[who];
    if (!byTarget) continue;
    const text = byTarget[target] ?? byTarget["*"];
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The object a target names for a persona; undefined when the route addresses none, null when none fits. */
function resolveObject(matrix: Matrix, entry: RouteEntry, persona: Persona, target: Target, expect: Expectation): string | undefined | null {
  if (target === "none" || !entry.object || entry.object === "invitation") return undefined;
  if (entry.object === "profile") return persona.role === "anonymous" ? undefined : persona.id;
  if (entry.object === "export_job") {
    // Jobs are not seeded: the run starts one per tenant (state.ts). same_tenant: the persona's tenant's job.
    const tenants = Object.keys(matrix.readers);
    const tenant =
      persona.role === "anonymous"
        ? tenants[0]
        : target === "same_tenant"
          ? persona.tenant
          : target === "other_tenant"
            ? tenants.find((t) => t !== persona.tenant)
            : undefined;
    return tenant ? `export:${tenant}` : null;
  }
  const users = matrix.personas.filter((p) => p.role !== "anonymous");
  if (entry.object === "user") {
    if (persona.role === "anonymous") return users[0]?.id ?? null;
    if (target === "own") return persona.id;
    if (target === "same_tenant") {
      // An allowed moderation changes the user for good: it gets a dedicated victim, never a persona.
      if (expect.kind === "allow") return `victim:${persona.tenant}`;
      return users.find((u) => u.tenant === persona.tenant && u.id !== persona.id)?.id ?? null;
    }
    return users.find((u) => u.tenant !== persona.tenant)?.id ?? null;
  }
  const rows = Object.entries(matrix.objects[entry.object] ?? {});
  if (persona.role === "anonymous") return rows[0]?.[0] ?? null;
  const pick = rows.find(([, r]) =>
    target === "own" ? r.owner === persona.id : target === "same_tenant" ? r.tenant === persona.tenant && r.owner !== persona.id : r.tenant !== persona.tenant,
  );
  return pick?.[0] ?? null;
}
