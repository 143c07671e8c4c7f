/**
 * Source "openapi": the published document (GET /openapi.json of the
 * target) and the older documents kept in inventory/schemas/ (source
 * "openapi-archive": operations earlier versions published).
 *
 *   sightingsFromOpenApi(doc, "openapi", "/openapi.json")
 *   readArchivedOpenApi("inventory/schemas")   // every openapi-*.json there
 *
 * Each (path, method) operation becomes a sighting with its query
 * parameter names and `deprecated` flag. A document's `servers[0].url` path
 * (`/api/v1`) is prefixed to its paths, as a client would.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Sighting, SourceName } from "../types";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

interface OpenApiOperation {
  operationId?: string;
  deprecated?: boolean;
  parameters?: Array<{ name?: string; in?: string }>;
}

export class OpenApiError extends Error {}

function serverPrefix(doc: Record<string, unknown>): string {
  const servers = doc.servers as Array<{ url?: string }> | undefined;
  const url = servers?.[0]?.url ?? "/";
  const p = url.startsWith("/") ? url : new URL(url).pathname;
  return p.replace(/\/+$/, "");
}

export function sightingsFromOpenApi(doc: unknown, source: SourceName, label: string): Sighting[] {
  if (!doc || typeof doc !== "object") throw new OpenApiError(`${label}: not a JSON object`);
  const d = doc as Record<string, unknown>;
  if (typeof d.openapi !== "string" && typeof d.swagger !== "string") throw new OpenApiError(`${label}: no openapi/swagger version field`);
  const paths = (d.paths ?? {}) as Record<string, Record<string, OpenApiOperation>>;
  const prefix = serverPrefix(d);
  const out: Sighting[] = [];
  for (const [p, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      out.push({
        source,
        method: method.toUpperCase(),
        path: `${prefix}${p}`,
        where: `${label}#${op.operationId ?? `${method} ${p}`}`,
        deprecated: op.deprecated === true,
        params: (op.parameters ?? []).filter((x) => x.in === "query" && typeof x.name === "string").map((x) => x.name as string),
      });
    }
  }
  return out;
}

/** Every `openapi*.json` in the folder, as archived documents. */
export function readArchivedOpenApi(dir: string): Sighting[] {
  if (!fs.existsSync(dir)) return [];
  const out: Sighting[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!/^openapi.*\.json$/.test(name)) continue;
    const file = path.join(dir, name);
    out.push(...sightingsFromOpenApi(JSON.parse(fs.readFileSync(file, "utf8")), "openapi-archive", name));
  }
  return out;
}
