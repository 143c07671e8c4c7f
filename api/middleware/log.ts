/**
 * Step "log" (mounted first, so it sees every answer): opens the request
 * state, sets `Decision-Id` on every response, and when the response is
 * finished (or the connection closed first):
 *
 * - puts the request on the auditor's record (pdp/log): a request refused
 *   before the policy was asked (bad token, unknown version, rate limit, no
 *   such route, a body that cannot be read...) gets its own event under its
 *   Decision-Id, marked as not evaluated; and EVERY request gets its
 *   outcome (status, problem, whether the scoped query found the row),
 *   stored beside its decision, so `portcullis decisions --id` finds every
 *   Decision-Id the API returns and shows what the client got;
 * - writes one structured JSON line;
 * - counts metrics and hands the request to the security monitor.
 *
 * Logged: method, path WITHOUT the query string (queries may carry search
 * text), route id, version, actor id, status, problem code, decision id,
 * duration. Never logged: the Authorization header, tokens, bodies.
 */
import type { NextFunction, Request, Response } from "express";
import type { RefusalInput } from "../../pdp/types";
import { initState, stateOf, type RequestState } from "../context";
import type { ClientAddressResolver } from "./client-address";
import type { ApiDeps, ApiLogger } from "../deps";
import type { Metrics } from "../metrics";
import type { RouteRecord } from "../registry/types";
import type { SecurityMonitor } from "../security/monitor";

/** The step of the chain that answers each problem when the policy was not asked. */
const REFUSED_BY: Record<string, string> = {
  invalid_token: "authenticate",
  account_inactive: "authenticate",
  unknown_version: "resolve-route",
  version_retired: "resolve-route",
  version_conflict: "resolve-route",
  not_acceptable: "resolve-route",
  invalid_param: "guard",
  invalid_body: "guard",
  forbidden_key: "guard",
  unsupported_media_type: "guard",
  payload_too_large: "guard",
  rate_limited: "rate-limit",
  rate_limit_unavailable: "rate-limit",
  route_not_found: "router",
  invalid_test_run: "test-run",
  // The store could not be reached before the policy was asked (the actor's identity, the resource's tenant).
  database_unavailable: "data-store",
};

/**
 * The log step for one route record (`log(record)`: the record is known
 * from the start, so a refusal made before route resolution, e.g. a bad
 * token, still says which route was called), or for unmatched paths (`log()`).
 */
export function logRequests(logger: ApiLogger, metrics: Metrics, monitor: SecurityMonitor, pdp: ApiDeps["pdp"], clientAddress: ClientAddressResolver) {
  /** The refusal (when no policy was asked) and the outcome, once per request. */
  function record(res: Response, state: RequestState, aborted: boolean): void {
    if (state.outcomeRecorded) return;
    state.outcomeRecorded = true;
    const req = res.req;
    const status = aborted && !res.headersSent ? 0 : res.statusCode;
    // An abandoned request that never reached the policy was answered nothing: only its outcome is kept.
    if (!state.decision && !aborted) {
      pdp.refuse(
        refusalInput(state),
        { requestedBy: state.client, decisionId: state.decisionId },
        {
          stage: REFUSED_BY[state.problem ?? ""] ?? "api",
          status,
          problem: state.problem ?? "none",
        },
      );
    }
    pdp.outcome({
      decisionId: state.decisionId,
      method: req.method,
      path: req.path,
      routeId: state.route?.id ?? null,
      version: state.version?.name ?? null,
      actorId: state.actor.id,
      status,
      problem: state.problem ?? null,
      scopeFound: state.scopeFound ?? null,
      testRun: state.testRun ?? null,
      aborted,
    });
  }

  // One listener for all requests (the response is `this`), not a closure per request.
  function finished(this: Response): void {
    const res = this;
    const req = res.req;
    const state = stateOf(res);
    record(res, state, false);
    metrics.count(state.route?.id, res.statusCode, state.problem);
    monitor.observe(state, res.statusCode);
    const line: Record<string, unknown> = {
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
    };
    if (state.testRun) line.test_run = state.testRun;
    logger(line);
  }

  /** The connection closed: when the response did not finish, the request was abandoned (its decision, if any, stays on the record with this outcome). */
  function closed(this: Response): void {
    if (!this.writableFinished) record(this, stateOf(this), true);
  }

  return (record?: RouteRecord) =>
    function log(req: Request, res: Response, next: NextFunction): void {
      // Opened once per request, by the log() mounted ahead of the router (app.ts), so that a request failing
      // before any route (a path the router cannot decode) has its state too; a route's log(record) names its record.
      const opened = res.locals.portcullis as RequestState | undefined;
      if (opened) {
        if (record) opened.route = record;
        return next();
      }
      const peer = `${req.socket.remoteAddress ?? "unknown"}:${req.socket.remotePort ?? 0}`;
      const forwarded = req.headers["x-forwarded-for"];
      const address = clientAddress(req.socket.remoteAddress ?? "unknown", Array.isArray(forwarded) ? forwarded.join(",") : forwarded);
      const state = initState(res, address, peer.startsWith(`${address}:`) ? peer : `${address} (via ${peer})`);
      if (record) state.route = record;
      res.setHeader("Decision-Id", state.decisionId);
      res.on("finish", finished);
      res.on("close", closed);
      next();
    };
}

/** The decision input as far as the chain had built it when it refused (no route: no action, resource or route). */
function refusalInput(state: RequestState): RefusalInput {
  const route = state.route;
  return {
    actor: state.actor,
    action: route?.action ?? null,
    resource: route ? { type: route.resource, ...state.resource } : null,
    route: route ? { id: route.id, method: route.method, version: state.version?.name ?? "" } : null,
    fields: { submitted: state.submitted },
    params: state.params,
  };
}
