/**
 * Step "keep record" (after decide, before act): a request that changes
 * state acts only once its decision is committed to the decision log. The
 * write runs, and the client hears of it, only after the decision is
 * durable, so a crash (SIGKILL included) can never leave a changed row
 * without its decision on record. Reads take the log's batched path: their
 * decisions reach the store within its batch window (pdp/log/README.md).
 *
 * While the log cannot store decisions (full disk, unwritable store), the
 * configured stance applies (api/trail/config.ts): by default writes are
 * refused with 503 `decision_log_unavailable` and Retry-After, before they
 * change anything; reads go on. A write whose commit cannot be confirmed
 * (the store failed, events were dropped, the wait timed out) is refused
 * the same way.
 */
import type { NextFunction, Request, Response } from "express";
import type { ApiDeps } from "../deps";
import { Problem } from "../problems";
import { changesState } from "../registry/routes";
import type { RouteRecord } from "../registry/types";

/** What a refused client is told to wait: the store's retries run every 100 ms, an operator's fix takes longer. */
export const LOG_RETRY_AFTER_SEC = 10;

/** The routes that report an outage: answered under every stance. */
export const REPORTS_OUTAGES: ReadonlySet<string> = new Set(["health.get", "metrics.get"]);

export function keepRecord(record: RouteRecord, deps: ApiDeps) {
  const writes = changesState(record);
  const stance = deps.logFailure ?? "refuse-writes";
  const refusesWhenDown = stance === "refuse-all" ? !REPORTS_OUTAGES.has(record.id) : stance === "refuse-writes" && writes;
  return function keepRecord(_req: Request, res: Response, next: NextFunction): void | Promise<void> {
    if (refusesWhenDown && !deps.decisionLog.health().persisting)
      throw unavailable(res, "The decision log cannot store decisions now; the request was not carried out.");
    if (!writes) return next();
    return deps.decisionLog.durable().then(
      () => next(),
      () => {
        // fail-open: the decision may be lost (counted by the log, reported by /health and /metrics); act anyway.
        if (stance === "fail-open") return next();
        throw unavailable(res, "The decision for this request could not be stored; the request was not carried out.");
      },
    );
  };
}

function unavailable(res: Response, detail: string): Problem {
  res.setHeader("Retry-After", String(LOG_RETRY_AFTER_SEC));
  return new Problem("decision_log_unavailable", { detail });
}
