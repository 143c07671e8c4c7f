/**
 * The chain's end: every error becomes problem+json with the request's
 * decision id. Unmatched paths are 404 route_not_found; body-parser limits
 * are 413; anything unexpected is a 500 whose message goes to the log only.
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf } from "../context";
import type { ApiDeps } from "../deps";
import { Problem, sendProblem } from "../problems";

export function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new Problem("route_not_found"));
}

export function problemHandler(deps: ApiDeps) {
  return function problemHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
    const state = stateOf(res);
    let problem: Problem;
    if (err instanceof Problem) {
      problem = err;
    } else if (isBodyError(err, "entity.too.large")) {
      problem = new Problem("payload_too_large");
    } else if (isBodyError(err)) {
      problem = new Problem("invalid_body", { detail: "the request body could not be read" });
    } else {
      problem = new Problem("internal_error");
      deps.logger({ level: "error", event: "http.unhandled_error", path: req.path, decision_id: state.decisionId, message: err instanceof Error ? err.message : String(err) });
    }
    state.problem = problem.code;
    if (res.headersSent) return;
    // An error answer must not carry what a half-finished success may have set.
    res.removeHeader("Content-Type");
    sendProblem(res, problem, state.decisionId);
  };
}

function isBodyError(err: unknown, type?: string): boolean {
  if (typeof err !== "object" || err === null) return false;
  const t = (err as { type?: unknown }).type;
  return typeof t === "string" && (type === undefined ? t.startsWith("entity.") || t.startsWith("request.") : t === type);
}
