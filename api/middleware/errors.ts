/**
 * The chain's end: every error becomes problem+json with the request's
 * decision id. Unmatched paths are 404 route_not_found; a path the router
 * cannot percent-decode is 400 invalid_param; body-parser limits are 413;
 * a data store locked by another writer is 503 database_busy with
 * Retry-After (nothing was written); a data store that cannot be reached in
 * time (PostgreSQL down, connection lost, pool exhausted) is 503
 * database_unavailable with Retry-After; anything unexpected is a 500 whose
 * message goes to the log only.
 *
 * This handler must never throw: Express would answer a throw here with its
 * own HTML page and a stack trace. What it cannot answer normally, it
 * answers with a fixed problem+json text.
 */
import type { NextFunction, Request, Response } from "express";
import { DatabaseBusyError, DatabaseUnavailableError, isBusy } from "../../db";
import { initState, type RequestState } from "../context";
import type { ApiDeps } from "../deps";
import { Problem, sendProblem } from "../problems";

/** The Retry-After (seconds) of a 503 database_busy: the lock was held for the whole wait already. */
const BUSY_RETRY_AFTER_SEC = 1;
/** The Retry-After (seconds) of a 503 database_unavailable: a restart or failover takes seconds, not milliseconds. */
export const UNAVAILABLE_RETRY_AFTER_SEC = 5;

export function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new Problem("route_not_found"));
}

export function problemHandler(deps: ApiDeps) {
  return function problemHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
    let state: RequestState | undefined;
    try {
      // The log step runs first for every request; this is the safety net if something failed before it.
      state = (res.locals.portcullis as RequestState | undefined) ?? unloggedState(req, res, deps);
      const problem = problemFor(err, req, res, state, deps);
      state.problem = problem.code;
      if (res.headersSent) return;
      // An error answer must not carry what a half-finished success may have set.
      res.removeHeader("Content-Type");
      sendProblem(res, problem, state.decisionId);
    } catch (failure) {
      lastResort(res, state, deps, failure);
    }
  };
}

function problemFor(err: unknown, req: Request, res: Response, state: RequestState, deps: ApiDeps): Problem {
  if (err instanceof Problem) return err;
  if (isBodyError(err, "entity.too.large")) return new Problem("payload_too_large");
  if (isBodyError(err)) return new Problem("invalid_body", { detail: "the request body could not be read" });
  if (err instanceof URIError) {
    // The router percent-decodes path parameters before any step runs (`/invoices/%ff`).
    return new Problem("invalid_param", { detail: "a path parameter is not valid percent-encoded UTF-8" });
  }
  if (err instanceof DatabaseBusyError || isBusy(err)) {
    res.setHeader("Retry-After", String(BUSY_RETRY_AFTER_SEC));
    deps.logger({
      level: "warn",
      event: "db.busy",
      path: req.path,
      decision_id: state.decisionId,
      waited_ms: err instanceof DatabaseBusyError ? err.waitedMs : 0,
    });
    return new Problem("database_busy");
  }
  if (err instanceof DatabaseUnavailableError) {
    res.setHeader("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SEC));
    // The driver's message (host, port, SQLSTATE text) is for the log only; it never names the password.
    deps.logger({ level: "error", event: "db.unavailable", path: req.path, decision_id: state.decisionId, message: err.message });
    return new Problem("database_unavailable");
  }
  if (isClientError(err)) return new Problem("malformed_request");
  deps.logger({
    level: "error",
    event: "http.unhandled_error",
    path: req.path,
    decision_id: state.decisionId,
    message: err instanceof Error ? err.message : String(err),
  });
  return new Problem("internal_error");
}

/** A 4xx the framework attached to its own error (http-errors' `status`): the client's fault, not ours. */
function isClientError(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const status = (err as { status?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
  return typeof status === "number" && status >= 400 && status < 500;
}

function unloggedState(req: Request, res: Response, deps: ApiDeps): RequestState {
  const address = req.socket.remoteAddress ?? "unknown";
  const state = initState(res, address, `${address}:${req.socket.remotePort ?? 0}`);
  if (!res.headersSent) res.setHeader("Decision-Id", state.decisionId);
  deps.logger({ level: "error", event: "http.unlogged_request", method: req.method, path: req.path, decision_id: state.decisionId });
  return state;
}

/** The answer when answering failed: fixed text, nothing from the request or the error. */
function lastResort(res: Response, state: RequestState | undefined, deps: ApiDeps, failure: unknown): void {
  try {
    deps.logger({
      level: "error",
      event: "http.error_handler_failed",
      decision_id: state?.decisionId ?? null,
      message: failure instanceof Error ? failure.message : String(failure),
    });
  } catch {
    // The logger itself failed: the answer below still goes out.
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const decisionId = state?.decisionId ?? null;
  const body = JSON.stringify({
    type: "urn:portcullis:problem:internal_error",
    title: "Internal Server Error",
    status: 500,
    detail: "The request failed.",
    decision_id: decisionId,
  });
  res.statusCode = 500;
  for (const name of res.getHeaderNames()) if (name !== "decision-id") res.removeHeader(name);
  res.setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.setHeader("Content-Length", String(Buffer.byteLength(body)));
  res.end(body);
}

function isBodyError(err: unknown, type?: string): boolean {
  if (typeof err !== "object" || err === null) return false;
  const t = (err as { type?: unknown }).type;
  return typeof t === "string" && (type === undefined ? t.startsWith("entity.") || t.startsWith("request.") : t === type);
}
