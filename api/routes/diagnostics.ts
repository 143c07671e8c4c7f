/**
 * Diagnostic routes, each with its own policy: GET /health (public),
 * GET /metrics (staff), GET /openapi.json (public, generated from the
 * registry). Health (health.ts) says whether the instance serves and why
 * it is degraded, never a bundle's contents; metrics are counters without
 * ids or tenants, plus the last bundle load error (staff only).
 */
import { assessHealth } from "../health";
import type { Metrics } from "../metrics";
import type { RouteHandler } from "./types";

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
        return {
          status: 200,
          body: { one: { metrics: { ...metrics.snapshot(), bundle_revision: pdp.active?.revision ?? null, bundle_reloads: pdp.reloads, bundle_failures: pdp.failures, bundle_last_error: pdp.lastError } } },
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
