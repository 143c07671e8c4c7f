/**
 * Source "gateway": a Kong declarative configuration (YAML, `_format_version`
 * 3.x) describing what the edge routes to the service, parsed with the
 * `yaml` package.
 *
 *   readGateway("inventory/gateway/kong.yaml")  // -> Sighting[] (source "gateway")
 *
 * Kong paths are either prefixes (`/invoices`: everything below it is
 * exposed) or, with a leading `~`, regular expressions. Regex paths are
 * turned back into templates: anchors dropped, named groups
 * (`(?<invoice_id>[^/]+)`) become `{invoice_id}`. A route without `methods`
 * accepts every method ("*"). A prefix path is kept with a trailing `*`
 * (`/invoices*`) so reconciliation can tell exposure-by-prefix apart.
 */
import * as fs from "node:fs";
import { parse } from "yaml";
import type { Sighting } from "../types";

interface KongRoute {
  name?: string;
  methods?: string[];
  paths?: string[];
}

interface KongService {
  name?: string;
  routes?: KongRoute[];
}

export class GatewayConfigError extends Error {}

/** `~/invoices/(?<invoice_id>[^/]+)$` -> `/invoices/{invoice_id}`; plain `/invoices` -> `/invoices*`. */
export function kongPathToTemplate(kongPath: string): string {
  if (!kongPath.startsWith("~")) return `${kongPath}*`;
  let re = kongPath.slice(1);
  if (re.startsWith("^")) re = re.slice(1);
  if (re.endsWith("$")) re = re.slice(0, -1);
  // Named groups are parameters; their pattern does not matter to the inventory.
  re = re.replace(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>(?:[^()]|\([^()]*\))*\)/g, "{$1}");
  // Escaped literals (`\.`) are literal characters in the template.
  return re.replace(/\\(.)/g, "$1");
}

export function parseGateway(text: string, file = "gateway"): Sighting[] {
  const doc = parse(text) as { _format_version?: unknown; services?: KongService[] } | null;
  if (!doc || typeof doc !== "object") throw new GatewayConfigError(`${file}: not a Kong declarative configuration`);
  if (typeof doc._format_version !== "string") throw new GatewayConfigError(`${file}: _format_version missing (is this a Kong declarative file?)`);
  const out: Sighting[] = [];
  for (const service of doc.services ?? []) {
    for (const [i, route] of (service.routes ?? []).entries()) {
      const name = `${file}#${service.name ?? "service"}/${route.name ?? `route-${i}`}`;
      const methods = route.methods && route.methods.length > 0 ? route.methods.map((m) => m.toUpperCase()) : ["*"];
      for (const p of route.paths ?? []) {
        if (typeof p !== "string" || !(p.startsWith("/") || p.startsWith("~/") || p.startsWith("~^/"))) {
          throw new GatewayConfigError(`${name}: path ${JSON.stringify(p)} is neither a prefix nor an anchored regex`);
        }
        for (const method of methods) out.push({ source: "gateway", method, path: kongPathToTemplate(p), where: name });
      }
    }
  }
  return out;
}

/** `label` names the file in `where` (default: its path as given). */
export function readGateway(file: string, label = file): Sighting[] {
  return parseGateway(fs.readFileSync(file, "utf8"), label);
}
