/**
 * Security parity between versions: for every route and persona, each
 * reachable version is probed the same way and its behaviour reduced to a
 * fingerprint; every pair of versions whose fingerprints differ in an
 * aspect is a defect, named in the report.
 *
 *   const defects = await checkParity(target, ROUTES, ["v1", "v2", "beta"]);
 *
 * Aspects: authentication (what an anonymous caller gets), authorization
 * (status and problem per persona), response field set (keys of a 2xx
 * body, list items included), accepted input (a protected field and an
 * unknown field in the body), validation (an out-of-range parameter or an
 * over-long body string), rate-limit budget (`RateLimit-Policy`) and logging
 * (a `Decision-Id` on the answer, which ties it to its log line and
 * decision). A 429 makes an aspect inconclusive rather than a defect.
 *
 * A route is reached in a version by its `/api/{version}` path when it has
 * one, else by the `Api-Version` header. Non-GET probes carry the probe
 * parameter (nothing runs); see ../probe.ts.
 */
import type { RouteRecord } from "../../api/registry/types";
import { concretePath, PROBE_PARAM, probe, type ProbeResponse } from "../probe";
import { PERSONAS, type Persona, type Target } from "../target";
import type { ParityDefect } from "../types";

type Aspect = ParityDefect["aspect"];
type Fingerprint = Partial<Record<Aspect, string>>;

const UUIDISH = /^[0-9a-f-]{16,64}$/i;

/** Sorted keys of a JSON body; for arrays of objects, `key[].sub`. */
export function fieldSet(json: unknown): string {
  if (!json || typeof json !== "object" || Array.isArray(json)) return "";
  const keys: string[] = [];
  for (const [k, v] of Object.entries(json as Record<string, unknown>)) {
    keys.push(k);
    if (Array.isArray(v)) for (const item of v) if (item && typeof item === "object") for (const sub of Object.keys(item)) keys.push(`${k}[].${sub}`);
  }
  return [...new Set(keys)].sort().join(",");
}

function statusOf(r: ProbeResponse): string {
  return `${r.status}${r.problem ? ` ${r.problem}` : ""}`;
}

function how(route: RouteRecord, version: string): { path: string; headers?: Record<string, string> } {
  const versioned = route.paths.find((p) => p.startsWith("/api/{version}/"));
  if (versioned) return { path: concretePath(versioned, version) };
  return { path: concretePath(route.paths[0], version), headers: { "Api-Version": version } };
}

function invalidQuery(route: RouteRecord): Record<string, string> | undefined {
  for (const p of route.params) {
    if (p.schema.type === "integer" && p.schema.minimum !== undefined) return { [p.name]: String(p.schema.minimum - 1) };
    if (p.schema.type === "string" && p.schema.maxLength !== undefined) return { [p.name]: "x".repeat(p.schema.maxLength + 1) };
  }
  return undefined;
}

function invalidBody(route: RouteRecord): Record<string, unknown> | undefined {
  for (const [name, s] of Object.entries(route.body?.properties ?? {})) {
    if (s.type === "string" && s.maxLength !== undefined) return { [name]: "x".repeat(s.maxLength + 1) };
  }
  return undefined;
}

async function fingerprint(target: Target, route: RouteRecord, version: string, persona: Persona): Promise<{ fp: Fingerprint; limited: Set<Aspect> }> {
  const { path, headers } = how(route, version);
  const safeQuery = route.method === "GET" ? undefined : { [PROBE_PARAM]: "1" };
  const limited = new Set<Aspect>();
  const fp: Fingerprint = {};
  const note = (aspect: Aspect, r: ProbeResponse, value: string) => {
    if (r.status === 429) limited.add(aspect);
    fp[aspect] = value;
  };
  const basic = await probe(target, { method: route.method, path, persona, headers, query: safeQuery });
  note(persona === "anonymous" ? "authentication" : "authorization", basic, statusOf(basic));
  note("fields", basic, basic.status >= 200 && basic.status < 300 ? fieldSet(basic.json) : "(no 2xx body)");
  note("rate-limit", basic, basic.headers["ratelimit-policy"] ?? "(none)");
  note("logging", basic, UUIDISH.test(basic.headers["decision-id"] ?? "") ? "decision-id" : "(no decision id)");
  if (persona !== "member") return { fp, limited };

  if (route.method !== "GET") {
    const prot = await probe(target, { method: route.method, path, persona, headers, query: safeQuery, body: { isAdmin: true } });
    const extra = await probe(target, { method: route.method, path, persona, headers, query: safeQuery, body: { zz_inventory_extra: 1 } });
    note("input", prot, `protected: ${statusOf(prot)}; extra: ${statusOf(extra)}`);
    if (extra.status === 429) limited.add("input");
  }
  const badQuery = invalidQuery(route);
  const badBody = invalidBody(route);
  if (badQuery && route.method === "GET") {
    const r = await probe(target, { method: route.method, path, persona, headers, query: badQuery });
    note("validation", r, statusOf(r));
  } else if (badBody) {
    const r = await probe(target, { method: route.method, path, persona, headers, body: badBody });
    note("validation", r, statusOf(r));
  }
  return { fp, limited };
}

export interface ParityResult {
  defects: ParityDefect[];
  /** Comparisons skipped because a probe was rate-limited. */
  inconclusive: string[];
}

export async function checkParity(target: Target, routes: RouteRecord[], versions: string[], onEach?: () => void): Promise<ParityResult> {
  const defects: ParityDefect[] = [];
  const inconclusive: string[] = [];
  if (versions.length < 2) return { defects, inconclusive };
  for (const route of routes) {
    const routeName = `${route.method} ${route.id}`;
    for (const persona of PERSONAS) {
      const prints = new Map<string, { fp: Fingerprint; limited: Set<Aspect> }>();
      for (const v of versions) {
        if (route.versions !== "*" && !route.versions.includes(v)) continue;
        prints.set(v, await fingerprint(target, route, v, persona));
        onEach?.();
      }
      const names = [...prints.keys()];
      for (let i = 0; i < names.length; i++) {
        for (let j = i + 1; j < names.length; j++) {
          const a = prints.get(names[i]);
          const b = prints.get(names[j]);
          if (!a || !b) continue;
          for (const aspect of new Set([...Object.keys(a.fp), ...Object.keys(b.fp)]) as Set<Aspect>) {
            if (a.fp[aspect] === b.fp[aspect]) continue;
            if (a.limited.has(aspect) || b.limited.has(aspect)) {
              inconclusive.push(`${routeName} ${persona} ${aspect} ${names[i]}/${names[j]}: rate-limited`);
              continue;
            }
            defects.push({
              route: routeName,
              persona,
              aspect,
              versions: [names[i], names[j]],
              detail: `${names[i]}: ${a.fp[aspect] ?? "(not measured)"} | ${names[j]}: ${b.fp[aspect] ?? "(not measured)"}`,
            });
          }
        }
      }
    }
  }
  return { defects, inconclusive };
}

/** Probes one persona × version × route combination count, for progress bars. */
export function parityWork(routes: RouteRecord[], versions: string[]): number {
  return versions.length < 2
    ? 0
    : routes.reduce((n, r) => n + PERSONAS.length * versions.filter((v) => r.versions === "*" || r.versions.includes(v)).length, 0);
}
