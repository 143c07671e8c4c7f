/**
 * Where the matrix learns which operations exist: (route id, method,
 * version, path templates).
 *
 * In process: the route registry (api/registry) and the version catalogue
 * (api/versions) the app is built from.
 *
 * Against a running instance (--base-url): the instance's /openapi.json
 * gives its published versions (the `version` parameter's enum) and its
 * documented operations; this checkout's catalogue adds the versions that
 * are served but never published (Zombie: its unowned clients still reach
 * it, so the matrix must too); the registry of this checkout gives the
 * undocumented ones (metrics, internal tooling) and the templates. An
 * operation the instance documents but this registry lacks is reported as
 * unknown (it has no expectations, so it fails the run); a registry record
 * the instance does not document is still probed (undocumented routes are
 * exactly what a matrix must not skip).
 */
import { ROUTES } from "../api/registry/routes";
import type { RouteRecord } from "../api/registry/types";
import { isServable, loadVersions, type VersionCatalog } from "../api/versions";

export interface Operation {
  routeId: string;
  method: string;
  version: string;
  /** Path templates the registry serves this operation under. */
  templates: string[];
  successStatus: number;
}

export interface OperationSet {
  operations: Operation[];
  versions: string[];
  /** Operations the instance documents that the registry lacks ("METHOD path (operationId)"). */
  unknown: string[];
  source: string;
}

export function operationsFromRegistry(catalog: VersionCatalog, routes: RouteRecord[] = ROUTES): OperationSet {
  const versions = catalog.versions.filter(isServable).map((v) => v.name);
  return { operations: expandRecords(routes, versions), versions, unknown: [], source: "registry (api/registry) + api/versions/versions.json" };
}

export async function operationsFromInstance(baseUrl: string, routes: RouteRecord[] = ROUTES, catalog: VersionCatalog = loadVersions()): Promise<OperationSet> {
  const res = await fetch(new URL("/openapi.json", baseUrl));
  if (res.status !== 200) throw new Error(`${baseUrl}/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as {
    paths?: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }> }>>;
  };
  const versions = new Set<string>();
  const unknown: string[] = [];
  for (const [template, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      for (const p of op.parameters ?? []) {
        if ((p.name === "version" && p.in === "path") || (p.name === "Api-Version" && p.in === "header")) for (const v of p.schema?.enum ?? []) versions.add(v);
      }
      const id = (op.operationId ?? "").replace(/\.versioned$/, "");
      const known = routes.some((r) => r.id === id && r.method === method.toUpperCase() && r.paths.includes(template));
      if (!known) unknown.push(`${method.toUpperCase()} ${template} (${op.operationId ?? "no operationId"})`);
    }
  }
  if (versions.size === 0) throw new Error(`${baseUrl}/openapi.json names no servable version`);
  for (const v of catalog.versions) if (isServable(v)) versions.add(v.name);
  const list = [...versions];
  return { operations: expandRecords(routes, list), versions: list, unknown, source: `${baseUrl}/openapi.json + registry (api/registry)` };
}

function expandRecords(routes: RouteRecord[], versions: string[]): Operation[] {
  const out: Operation[] = [];
  for (const r of routes) {
    const served = r.versions === "*" ? versions : versions.filter((v) => (r.versions as string[]).includes(v));
    for (const version of served) out.push({ routeId: r.id, method: r.method, version, templates: r.paths, successStatus: r.successStatus });
  }
  return out;
}
