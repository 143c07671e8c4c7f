/**
 * One probe request against the target, as a persona, and how to read the
 * answer. Every probe carries the run's test-run credential
 * (`Portcullis-Test-Run`, signed with the instance's key: counted apart from
 * real traffic and marked in the decision log) and never follows redirects
 * (a redirect is a fact).
 *
 * Probes must not change data. For methods other than GET the inventory
 * adds an undeclared query parameter (`portcullis_probe=1`): the guard
 * refuses it with 400 invalid_param, but only AFTER the policy allowed
 * (api/README.md "Guards vs. the policy"), so the answer still tells
 * allowed from denied while the action never runs.
 *
 *   const r = await probe(target, { method: "GET", path: "/users/me", persona: "member" });
 *   verdictOf(r)   // "allowed"
 */
import type { Persona, Target } from "./target";
import type { ProbeOutcome } from "./types";

export const PROBE_PARAM = "portcullis_probe";
export const SAMPLE_IDS: Record<string, string> = { invoice_id: "inv_alice_1", user_id: "u_bob", id: "inv_alice_1" };

export interface ProbeRequest {
  method: string;
  path: string;
  persona: Persona;
  headers?: Record<string, string>;
  body?: unknown;
  query?: Record<string, string>;
}

export interface ProbeResponse {
  status: number;
  problem: string | null;
  headers: Record<string, string>;
  json: unknown;
}

/** Fills a template with sample values: `{version}` with the version, ids with seeded rows. */
export function concretePath(template: string, version: string | null): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => (name === "version" ? (version ?? "v2") : (SAMPLE_IDS[name] ?? "probe_id")));
}

export async function probe(target: Target, req: ProbeRequest): Promise<ProbeResponse> {
  const url = new URL(target.baseUrl + req.path);
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { "Portcullis-Test-Run": target.testRun.credential, Accept: "application/json", ...req.headers };
  if (req.persona !== "anonymous") headers.Authorization = `Bearer ${target.tokens[req.persona]}`;
  let body: string | undefined;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers["Content-Type"] = "application/json";
  }
  try {
    const res = await fetch(url, { method: req.method, headers, body, redirect: "manual" });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    const type = json && typeof json === "object" && typeof (json as { type?: unknown }).type === "string" ? (json as { type: string }).type : "";
    const problem = type.startsWith("urn:portcullis:problem:") ? type.slice("urn:portcullis:problem:".length) : null;
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k] = v));
    return { status: res.status, problem, headers: out, json };
  } catch (err) {
    return { status: 0, problem: `network: ${err instanceof Error ? err.message : String(err)}`, headers: {}, json: null };
  }
}

export function verdictOf(r: Pick<ProbeResponse, "status" | "problem">): ProbeOutcome["verdict"] {
  if (r.status === 0 || r.status >= 500) return "error";
  if (r.status === 429) return "limited";
  if (r.status === 410) return "gone";
  if (r.status === 404 && (r.problem === "route_not_found" || r.problem === "unknown_version" || r.problem === null)) return "absent";
  if (r.status === 401 || r.status === 403 || r.status === 404) return "denied";
  // A guard's 400 is answered only after the policy allowed.
  return "allowed";
}

export function outcome(r: ProbeResponse): ProbeOutcome {
  return { status: r.status, problem: r.problem, verdict: verdictOf(r) };
}

/** The auth probe for one operation: non-GET methods carry the probe parameter so nothing runs. */
export function authProbe(target: Target, method: string, path: string, persona: Persona, versionHeader?: string): Promise<ProbeResponse> {
  return probe(target, {
    method,
    path,
    persona,
    headers: versionHeader ? { "Api-Version": versionHeader } : undefined,
    query: method === "GET" ? undefined : { [PROBE_PARAM]: "1" },
  });
}
