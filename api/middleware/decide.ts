/**
 * Step "decide": builds the PDP input from trusted server-side state only
 * (verified actor, the route record, the resource's tenant/owner looked up
 * by the route's `locate`, submitted field NAMES, parameter NAMES) and asks the
 * PDP. A deny is answered with the policy's status: 401, 403 with its
 * reason, 404 identical to a missing row, 503 when the PDP itself failed
 * (never 200). Only after an allow does a guard's recorded refusal (bad
 * parameter or body) get answered.
 */
import type { NextFunction, Request, Response } from "express";
import type { DecisionInput } from "../../pdp/types";
import { stateOf, type RequestState } from "../context";
import type { ApiDeps } from "../deps";
import { problemForDecision } from "../problems";
import { pathParamError } from "./guard-params";
import type { RouteRecord } from "../registry/types";
import type { RouteHandler } from "../routes/types";

/** The app's request counter (OPA's `req_id` in the decision log): one per app, so two apps in a process never share a sequence. */
export type RequestCounter = () => number;

export function requestCounter(): RequestCounter {
  let last = 0;
  return () => ++last;
}

export function decide(record: RouteRecord, handler: RouteHandler, deps: ApiDeps, nextRequestId: RequestCounter) {
  /** Asks the PDP and answers a deny (or a guard's refusal once allowed); `malformedId`: a path id guard-params refused. */
  function decideNow(res: Response, next: NextFunction, state: RequestState, malformedId: boolean): void {
    const input: DecisionInput = {
      actor: state.actor,
      action: record.action,
      resource: { type: record.resource, ...state.resource },
      route: { id: record.id, method: record.method, version: state.version?.name ?? "" },
      fields: { submitted: state.submitted },
      params: state.params,
    };
    // The request's id (already in the Decision-Id header) becomes the decision's: one id per request.
    const decision = deps.pdp.decide(input, { requestedBy: state.client, reqId: nextRequestId(), decisionId: state.decisionId });
    state.decision = decision;
    if (decision.decisionId !== state.decisionId) {
      state.decisionId = decision.decisionId;
      res.setHeader("Decision-Id", decision.decisionId);
    }
    if (!decision.allow) {
      // A 404 says the row cannot be found; a malformed id names no row at all, so its 400 is the precise answer
      // and reveals nothing more (401 and 403 still win).
      if (decision.status === 404 && malformedId && state.refusal) throw state.refusal;
      throw problemForDecision(decision.status, decision.reason);
    }
    if (state.refusal) throw state.refusal;
    next();
  }

  /** The row's owner and tenant first (routes whose policy needs them), then the decision. */
  async function locateThenDecide(req: Request, res: Response, next: NextFunction, state: RequestState, id: string): Promise<void> {
    Object.assign(state.resource, (await handler.locate!({ req, state, deps, id })) ?? {});
    decideNow(res, next, state, false);
  }

  // Not async: a route that locates nothing decides in the same turn, without a promise.
  return function decide(req: Request, res: Response, next: NextFunction): void | Promise<void> {
    const state = stateOf(res);
    const id = record.idParam ? req.params[record.idParam] : record.idField ? state.body[record.idField] : undefined;
    // A path id guard-params refused (malformed) is never looked up: it is answered invalid_param once the policy allows.
    const malformedId = typeof id === "string" && record.idParam !== undefined && pathParamError(record.idParam, id) !== null;
    if (typeof id === "string" && !malformedId) {
      state.resource.id = id;
      // Only an actor with a tenant can have rows located for it (anonymous callers are 401 anyway).
      if (handler.locate && state.actor.tenant) return locateThenDecide(req, res, next, state, id);
    }
    decideNow(res, next, state, malformedId);
  };
}
