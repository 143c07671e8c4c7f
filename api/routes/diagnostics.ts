/**
 * Diagnostic routes, each with its own policy: GET /health (public),
 * GET /metrics (staff), GET /openapi.json (public, generated from the
 * registry). Health says only whether a policy bundle is active, never its
 * contents; metrics are counters without ids or tenants.
 */
import type { Metrics } from "../metrics";
import type { RouteHandler } from "./types";

export function diagnosticRoutes(metrics: Metrics, openapi: () => Record<string, unknown>): Record<string, RouteHandler> {
  return {
    "health.get": {
      act(ctx) {
        const active = ctx.deps.pdp.status().active !== null;
        return { status: active ? 200 : 503, body: { one: { status: active ? "ok" : "degraded" } } };
      },
    },
    "metrics.get": {
      act(ctx) {
        const pdp = ctx.deps.pdp.status();
        return {
          status: 200,
          body: { one: { metrics: { ...metrics.snapshot(), bundle_revision: pdp.active?.revision ?? null, bundle_reloads: pdp.reloads, bundle_failures: pdp.failures } } },
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
