/**
 * Start-up checks: the service refuses to start when what Express serves and
 * what the registry and the policy know disagree.
 *
 * 1. Router introspection: every (method, path) layer of the Express router
 *    must come from a registry record (catches a route added by hand).
 * 2. Policy probe: for every record, one decision with an anonymous actor
 *    through the real PDP. The policy's route-level checks run first (route
 *    id known, method listed, action and resource type match), so any
 *    answer other than no_policy / method_not_allowed / action_not_allowed /
 *    resource_mismatch proves the active bundle has a policy for the route.
 *    A PDP that cannot decide (no bundle: 503) fails start-up too.
 *
 * Probing (rather than reading data.json) checks the bundle that will
 * actually decide, whatever its source; the probes are ordinary decisions
 * and appear in the decision log under route version "startup-check".
 *
 * The policy probe also runs on every bundle the PDP is about to activate
 * (hot reload: `acceptBundles`, given to createPdp by api/service.ts), on
 * the candidate bundle and unlogged: a bundle that lacks a policy for a
 * route of the registry is refused, the active one keeps deciding, and
 * /health says degraded until a good bundle loads.
 */
import type { Express } from "express";
import type { Pdp } from "../../pdp";
import type { Decision, DecisionInput } from "../../pdp/types";
import { ANONYMOUS } from "../context";
import { expressPath, PATH_PARAMS } from "./routes";
import type { RouteRecord } from "./types";

export class StartupCheckError extends Error {
  constructor(readonly problems: string[]) {
    super(`start-up check failed:\n  ${problems.join("\n  ")}`);
  }
}

const ROUTE_LEVEL_DENIALS = new Set(["no_policy", "method_not_allowed", "action_not_allowed", "resource_mismatch"]);

/** The (METHOD path) pairs the Express app serves, from its router stack. */
export function servedRoutes(app: Express): string[] {
  const out: string[] = [];
  const stack = (app.router as unknown as { stack: Array<{ route?: { path: string | string[]; methods: Record<string, boolean> } }> }).stack;
  for (const layer of stack) {
    if (!layer.route) continue;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    for (const method of Object.keys(layer.route.methods)) {
      if (method === "_all") {
        out.push(`ALL ${paths.join(",")}`);
        continue;
      }
      for (const p of paths) out.push(`${method.toUpperCase()} ${p}`);
    }
  }
  return out;
}

export function checkRouter(app: Express, routes: RouteRecord[]): string[] {
  const known = new Set<string>();
  for (const r of routes) for (const t of r.paths) known.add(`${r.method} ${expressPath(t)}`);
  return servedRoutes(app)
    .filter((served) => !known.has(served))
    .map((served) => `Express serves ${served} but no route record declares it`);
}

/** What the policy probe needs: a decision for an input (the running PDP, or a candidate bundle on reload), and the PDP's status when there is one. */
export interface PolicyProbe {
  decide(input: DecisionInput): Pick<Decision, "status" | "reason">;
  status?: Pdp["status"];
}

export function checkPolicies(pdp: PolicyProbe, routes: RouteRecord[]): string[] {
  const problems: string[] = [];
  const lastError = pdp.status?.().lastError;
  // Why no bundle is active, once, before the per-route lines it explains.
  if (lastError && pdp.status?.().active === null) problems.push(`the policy bundle was not loaded: ${lastError.code}: ${lastError.message}`);
  for (const r of routes) {
    const d = pdp.decide({
      actor: ANONYMOUS,
      action: r.action,
      resource: { type: r.resource },
      route: { id: r.id, method: r.method, version: "startup-check" },
      fields: { submitted: [] },
      params: [],
    });
    if (d.status >= 500) problems.push(`${r.method} ${r.id}: the PDP cannot decide (${d.reason}); is a policy bundle loaded?`);
    else if (ROUTE_LEVEL_DENIALS.has(d.reason)) problems.push(`${r.method} ${r.id}: the policy bundle has no policy for it (${d.reason})`);
  }
  return problems;
}

/** The PDP's acceptance check for new bundles: the same policy probe, against the candidate. */
export function acceptBundles(routes: RouteRecord[]): (decide: PolicyProbe["decide"]) => string[] {
  return (decide) => checkPolicies({ decide }, routes);
}

/** Duplicate ids per method, duplicate (method, path) pairs, templates without a leading slash, path parameters without a schema. */
export function checkRegistry(routes: RouteRecord[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const r of routes) {
    if (r.paths.length === 0) problems.push(`${r.id}: no path`);
    for (const t of r.paths) {
      if (!t.startsWith("/")) problems.push(`${r.id}: path ${t} must start with /`);
      const key = `${r.method} ${t}`;
      if (seen.has(key)) problems.push(`${key}: declared twice`);
      seen.add(key);
    }
    if (r.idParam && !r.paths.every((t) => t.includes(`{${r.idParam}}`))) problems.push(`${r.id}: idParam ${r.idParam} missing from a path`);
    for (const t of r.paths) {
      for (const [, name] of t.matchAll(/\{([A-Za-z_]+)\}/g)) {
        if (name !== "version" && !Object.hasOwn(PATH_PARAMS, name)) problems.push(`${r.id}: path parameter {${name}} has no schema in PATH_PARAMS`);
      }
    }
  }
  return problems;
}
