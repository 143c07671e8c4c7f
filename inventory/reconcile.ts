/**
 * Reconciliation: every sighting from every source, merged into one draft
 * record per (method, endpoint, version).
 *
 *   const drafts = reconcile({ registry, sightings, traffic, versionNames, expand });
 *
 * Paths are brought to one form first. A template with `{version}` is
 * expanded into one endpoint per version in `expand` (the declared servable
 * versions plus every version a probe found live); a literal versioned path
 * (`/api/v1/users/me` from an archived schema) keeps its version when the
 * segment names a known version; every other path is unversioned (version
 * "*": negotiated by header). Gateway routes without methods ("*") and
 * prefix paths (`/invoices*`) attach to every draft they cover, and only
 * become drafts of their own when they cover nothing.
 *
 * Traffic that was answered (< 400) can create a draft (a path the sources
 * do not know but clients use); refused traffic only adds counts to drafts
 * that exist, so a scanner's 404s do not become routes.
 */
import type { RouteRecord } from "../api/registry/types";
import type { RegistrySighting } from "./sources/deployed";
import type { Observation } from "./sources/traffic";
import type { Sighting, SourceName } from "./types";

export interface Draft {
  method: string;
  endpoint: string;
  version: string;
  /** The `{version}` form of the endpoint, for matching records and traffic. */
  template: string;
  record?: RouteRecord;
  sources: Set<SourceName>;
  where: string[];
  deprecated: boolean;
  /** Query parameters per source that declares them. */
  params: Map<SourceName, string[]>;
  /** A direct Express registration found by the code scan. */
  direct: boolean;
  traffic: number;
  lastSeen: string | null;
}

export interface ReconcileInput {
  registry: RegistrySighting[];
  sightings: Array<Sighting & { direct?: boolean }>;
  /** null when no traffic source was available. */
  traffic: Observation[] | null;
  /** Names recognised as versions in literal `/api/<name>/` paths. */
  versionNames: Set<string>;
  /** Versions `{version}` templates are expanded into. */
  expand: string[];
}

export function expandPath(
  p: string,
  input: Pick<ReconcileInput, "versionNames" | "expand">,
  only?: string[] | "*",
): Array<{ endpoint: string; version: string; template: string }> {
  if (p.includes("{version}")) {
    return input.expand
      .filter((v) => only === undefined || only === "*" || only.includes(v))
      .map((v) => ({ endpoint: p.replace("{version}", v), version: v, template: p }));
  }
  const m = /^\/api\/([^/]+)\//.exec(p);
  if (m && input.versionNames.has(m[1])) return [{ endpoint: p, version: m[1], template: p.replace(`/api/${m[1]}/`, "/api/{version}/") }];
  return [{ endpoint: p, version: "*", template: p }];
}

const keyOf = (method: string, endpoint: string, version: string) => `${method} ${endpoint} @${version}`;

export function reconcile(input: ReconcileInput): Draft[] {
  const drafts = new Map<string, Draft>();
  const get = (method: string, e: { endpoint: string; version: string; template: string }): Draft => {
    const key = keyOf(method, e.endpoint, e.version);
    let d = drafts.get(key);
    if (!d) {
      d = { method, ...e, sources: new Set(), where: [], deprecated: false, params: new Map(), direct: false, traffic: 0, lastSeen: null };
      drafts.set(key, d);
    }
    return d;
  };
  const add = (d: Draft, s: Sighting & { direct?: boolean }) => {
    d.sources.add(s.source);
    if (!d.where.includes(s.where)) d.where.push(s.where);
    if (s.deprecated) d.deprecated = true;
    if (s.params) d.params.set(s.source, s.params);
    if (s.direct) d.direct = true;
  };

  for (const s of input.registry) {
    for (const e of expandPath(s.path, input, s.record.versions)) {
      const d = get(s.method, e);
      d.record = s.record;
      add(d, s);
    }
  }
  const wide: Sighting[] = [];
  for (const s of input.sightings) {
    if (s.method === "*" || s.path.endsWith("*")) {
      wide.push(s);
      continue;
    }
    for (const e of expandPath(s.path, input)) add(get(s.method, e), s);
  }
  // Wide gateway routes after everything else, so they attach rather than duplicate.
  for (const s of wide) {
    const prefix = s.path.endsWith("*") ? s.path.slice(0, -1) : null;
    const covered = [...drafts.values()].filter(
      (d) =>
        (s.method === "*" || d.method === s.method) &&
        (prefix !== null ? d.endpoint.startsWith(prefix) || d.template.startsWith(prefix) : d.template === s.path || d.endpoint === s.path),
    );
    if (covered.length > 0) covered.forEach((d) => add(d, s));
    else for (const e of expandPath(prefix ?? s.path, input)) add(get(s.method, e), s);
  }

  for (const o of input.traffic ?? []) {
    if (o.probe || o.template === "(unmatched)") continue;
    const endpoint = o.template.includes("{version}") && o.version ? o.template.replace("{version}", o.version) : o.template;
    const version = o.template.includes("{version}") ? o.version || "*" : "*";
    const key = keyOf(o.method, endpoint, version);
    let d = drafts.get(key);
    if (!d && o.status < 400) d = get(o.method, { endpoint, version, template: o.template });
    if (!d) continue;
    d.sources.add("traffic");
    d.traffic += o.count;
    if (d.lastSeen === null || o.lastSeen > d.lastSeen) d.lastSeen = o.lastSeen;
  }
  return [...drafts.values()].sort((a, b) => a.endpoint.localeCompare(b.endpoint) || a.method.localeCompare(b.method) || a.version.localeCompare(b.version));
}
