/**
 * Diagnostic routes, each with its own policy: GET /health (public),
 * GET /metrics (staff), GET /openapi.json (public, generated from the
 * registry). Health (health.ts) says whether the instance serves and why
 * it is degraded (the policy bundle, the decision log, the shared rate-limit
 * store), never a bundle's contents or a store's error text; metrics are
 * counters without ids or tenants, plus the last bundle load error, the
 * decision log's state and the rate-limit store's (staff only).
 */
import { assessHealth } from "../health";
import type { ApiDeps } from "../deps";
import type { Metrics } from "../metrics";
import type { RouteHandler } from "./types";

/** Where the budgets are counted and, for Redis, its outage and the hits it could not count. */
function rateLimitStoreMetrics(deps: ApiDeps): Record<string, unknown> {
  const status = deps.rateLimitStore?.status?.();
  if (!status) return { shared: false };
  return {
    shared: true,
    on_failure: status.onFailure,
    failing_since: status.failingSince,
    error: status.lastError,
    insured_hits: status.insuredHits,
    refused_hits: status.refusedHits,
  };
}

/** The data store's backend and whether it answers; the driver's last error for staff. */
function databaseMetrics(deps: ApiDeps) {
  const health = deps.db.health();
  return {
    backend: deps.db.backend,
    available: health.available,
    failing_since: health.available ? null : health.since,
    error: health.available ? null : health.error,
  };
}

export function diagnosticRoutes(metrics: Metrics, openapi: () => Record<string, unknown>): Record<string, RouteHandler> {
  return {
    "health.get": {
      act(ctx) {
        const { httpStatus, body } = assessHealth(ctx.deps);
        return { status: httpStatus, body: { one: body } };
      },
    },
    "metrics.get": {
      act(ctx) {
        const pdp = ctx.deps.pdp.status();
        const trail = ctx.deps.decisionLog;
        const health = trail.health();
        const decisionLog = {
          persisting: health.persisting,
          failing_since: health.failingSince ?? null,
          error: health.error ?? null,
          events_lost: trail.lost(),
          interrupted_runs_found: trail.interruptedRuns.length,
        };
        return {
          status: 200,
          body: {
            one: {
              metrics: {
                ...metrics.snapshot(),
                bundle_revision: pdp.active?.revision ?? null,
                bundle_reloads: pdp.reloads,
                bundle_failures: pdp.failures,
                bundle_last_error: pdp.lastError,
                decision_log: decisionLog,
                // Traffic counts and security events held in memory (a lock held elsewhere) or lost to a full buffer.
                bookkeeping: ctx.deps.db.bookkeeping(),
                rate_limit_store: rateLimitStoreMetrics(ctx.deps),
                database: databaseMetrics(ctx.deps),
              },
            },
          },
        };
      },
    },
    "openapi.get": {
      act() {
        return { status: 200, body: { one: openapi() } };
      },
    },
  };
}
