/**
 * GET /health: is this instance fit to serve, and if not quite, why.
 *
 *   { status: "ok" | "degraded", revision: "<active bundle>" | null, reasons: [{ component, code, detail, since }] }
 *
 * The answer is composed from a list of checks, each returning what is
 * wrong with one component right now (nothing when it is fine), so another
 * component (the decision log, a database) adds one function to
 * HEALTH_CHECKS. A reason marked `unavailable` means the instance cannot
 * serve at all (no policy bundle: every decision is a 503 deny): health
 * answers 503 so a load balancer takes it out. Other reasons are
 * `degraded` with 200: the instance still serves correctly (the old bundle
 * keeps deciding after a refused reload) and pulling it would turn a bad
 * policy push into an outage.
 *
 * Reasons carry a stable code and a fixed text, never a raw error message
 * (paths, hosts): health is public. The messages are in /metrics (staff)
 * and the server log.
 */
import type { ApiDeps, DecisionTrail } from "./deps";
import type { LogFailureStance } from "./trail/config";

export interface HealthReason {
  /** What is affected: `policy_bundle`, `decision_log`, ... */
  component: string;
  /** Stable code within the component. */
  code: string;
  detail: string;
  /** RFC 3339: since when (when known). */
  since: string | null;
  /** The instance cannot serve: health answers 503. */
  unavailable?: boolean;
}

export type HealthCheck = (deps: ApiDeps) => HealthReason[];

const BUNDLE_DETAILS: Record<string, string> = {
  bundle_unavailable: "the policy bundle source cannot be read",
  bundle_invalid: "the last policy bundle delivered is not a loadable bundle and was refused",
  entrypoint_missing: "the last policy bundle delivered lacks the decision entrypoint and was refused",
  smoke_failed: "the last policy bundle delivered failed its smoke evaluation and was refused",
  check_failed: "the last policy bundle delivered lacks a policy for a route of the registry and was refused",
};

/** The policy bundle: none active (unavailable), or the last load or reload failed (degraded: the active bundle keeps deciding). */
export const policyBundleHealth: HealthCheck = (deps) => {
  const status = deps.pdp.status();
  const reasons: HealthReason[] = [];
  if (status.active === null) {
    reasons.push({
      component: "policy_bundle",
      code: "no_active_bundle",
      detail: "no policy bundle is active: every request is denied",
      since: status.lastError?.at ?? null,
      unavailable: true,
    });
  }
  if (status.lastError) {
    const e = status.lastError;
    reasons.push({ component: "policy_bundle", code: e.code, detail: BUNDLE_DETAILS[e.code] ?? "the last policy bundle load failed", since: e.at });
  }
  return reasons;
};

/**
 * The decision log: it cannot store decisions now (full disk, size cap,
 * lock). Under the `refuse-all` stance the instance refuses everything but
 * /health and /metrics, so it is unavailable (503); otherwise it still
 * serves reads (and, under `fail-open`, writes): degraded (200).
 */
export const decisionLogHealth = (deps: { decisionLog: Pick<DecisionTrail, "health">; logFailure?: LogFailureStance }): HealthReason[] => {
  const trail = deps.decisionLog.health();
  const reasons = trail.worker?.state === "in-thread" ? [workerGivenUp(trail.worker.lastFailure?.at)] : [];
  if (trail.persisting) return reasons;
  const stance = deps.logFailure ?? "refuse-writes";
  const detail =
    stance === "fail-open"
      ? "decisions cannot be stored: requests are served and their decisions lost"
      : stance === "refuse-all"
        ? "decisions cannot be stored: requests are refused"
        : "decisions cannot be stored: state-changing requests are refused, reads are served";
  return [
    { component: "decision_log", code: "decision_log_unavailable", detail, since: trail.failingSince ?? null, unavailable: stance === "refuse-all" },
    ...reasons,
  ];
};

/**
 * The log's worker thread died again and again and was given up on: every
 * decision is still stored, but built, masked and written on the request
 * thread, which costs each request its share (degraded, 200). A restart of
 * the instance brings the worker back.
 */
function workerGivenUp(since: string | undefined): HealthReason {
  return {
    component: "decision_log",
    code: "decision_log_worker_failed",
    detail: "the decision log's worker thread kept dying and was given up on: decisions are stored from the request thread",
    since: since ?? null,
  };
}

/**
 * The shared rate-limit store (Redis) cannot count hits now. Under the
 * `insurance` stance budgets are counted per instance meanwhile: degraded
 * (200). Under `refuse` every request but the diagnostic ones is refused:
 * unavailable (503).
 */
export const rateLimitStoreHealth: HealthCheck = (deps) => {
  const status = deps.rateLimitStore?.status?.();
  if (!status || status.failingSince === null) return [];
  const refuse = status.onFailure === "refuse";
  const detail = refuse
    ? "the shared rate-limit store cannot be reached: requests are refused"
    : "the shared rate-limit store cannot be reached: budgets are counted per instance";
  return [{ component: "rate_limits", code: "rate_limit_store_unavailable", detail, since: status.failingSince, unavailable: refuse }];
};

/**
 * The data store cannot be reached (PostgreSQL down, connections cut): data
 * routes answer 503 database_unavailable while it lasts, but the instance is
 * not the fault and pulling it would not help (every instance shares the
 * database): degraded, 200. The store probes the database meanwhile, so
 * health turns ok again once it answers, with or without traffic.
 */
export const databaseHealth: HealthCheck = (deps) => {
  const health = deps.db.health();
  if (health.available) return [];
  return [
    { component: "database", code: "database_unavailable", detail: "the data store cannot be reached: requests that need it are refused", since: health.since },
  ];
};

/** Every check /health runs, in order. */
export const HEALTH_CHECKS: HealthCheck[] = [policyBundleHealth, decisionLogHealth, rateLimitStoreHealth, databaseHealth];

export function assessHealth(deps: ApiDeps, checks: readonly HealthCheck[] = HEALTH_CHECKS): { httpStatus: number; body: Record<string, unknown> } {
  const reasons = checks.flatMap((check) => check(deps));
  const unavailable = reasons.some((r) => r.unavailable === true);
  return {
    httpStatus: unavailable ? 503 : 200,
    body: {
      status: reasons.length === 0 ? "ok" : "degraded",
      revision: deps.pdp.status().active?.revision ?? null,
      reasons: reasons.map(({ component, code, detail, since }) => ({ component, code, detail, since })),
    },
  };
}
