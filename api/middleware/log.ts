/**
 * Step "log" (mounted first, so it sees every answer): opens the request
 * state, sets `Decision-Id` on every response, and writes one structured JSON
 * line when the response is finished.
 *
 * Logged: method, path WITHOUT the query string (queries may carry search
 * text), route id, version, actor id, status, problem code, decision id,
 * duration. Never logged: the Authorization header, tokens, bodies.
 * The same hook counts metrics and hands the request to the security
 * monitor (suspicious patterns become security events in SQLite).
 */
import type { NextFunction, Request, Response } from "express";
import { initState, stateOf } from "../context";
import type { ApiLogger } from "../deps";
import type { Metrics } from "../metrics";
import type { SecurityMonitor } from "../security/monitor";

export function logRequests(logger: ApiLogger, metrics: Metrics, monitor: SecurityMonitor) {
  // One listener for all requests (the response is `this`), not a closure per request.
  function finished(this: Response): void {
    const res = this;
    const req = res.req;
    const state = stateOf(res);
    metrics.count(state.route?.id, res.statusCode, state.problem);
    monitor.observe(state, res.statusCode);
    logger({
      level: res.statusCode >= 500 ? "error" : "info",
      event: "http.request",
      method: req.method,
      path: req.path,
      route_id: state.route?.id ?? null,
      version: state.version?.name ?? null,
      actor: state.actor.id,
      tenant: state.actor.tenant,
      status: res.statusCode,
      problem: state.problem ?? null,
      reason: state.decision && !state.decision.allow ? state.decision.reason : null,
      decision_id: state.decisionId,
      bundle_revision: state.decision?.revision ?? null,
      duration_ms: Number(process.hrtime.bigint() - state.started) / 1e6,
      client: state.client,
      has_authorization: req.headers.authorization !== undefined,
    });
  }
  return function log(req: Request, res: Response, next: NextFunction): void {
    const state = initState(res, req.socket.remoteAddress ?? "unknown", req.socket.remotePort ?? 0);
    res.setHeader("Decision-Id", state.decisionId);
    res.on("finish", finished);
    next();
  };
}
