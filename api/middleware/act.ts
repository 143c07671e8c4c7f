/**
 * Step "act": validates the body against the route's schema (the policy has
 * already refused every field name that is not writable), keeps only the
 * decision's write fields, and runs the route's operation through the
 * decision's scope, through the async data store (db/store.ts: SQLite or
 * PostgreSQL). Repository input errors become problems. A write that meets
 * another connection's lock (SQLite) is tried again on timers for a short
 * bound (db/busy.ts), then answered 503 database_busy; a database that
 * cannot be reached (PostgreSQL) is 503 database_unavailable (errors.ts).
 * Either way nothing was written: each attempt is one statement or one
 * transaction.
 */
import type { NextFunction, Request, Response } from "express";
import { DbInputError, retryWhileBusy, ScopeError, toScope } from "../../db";
import { stateOf, type ActResult, type RequestState } from "../context";
import type { ApiDeps } from "../deps";
import { Problem } from "../problems";
import type { RouteRecord } from "../registry/types";
import type { ActContext, RouteHandler } from "../routes/types";
import { validateBody } from "../validate";

export function act(record: RouteRecord, handler: RouteHandler, deps: ApiDeps, routes: ReadonlyMap<string, RouteRecord>) {
  return async function act(req: Request, res: Response, next: NextFunction): Promise<void> {
    const state = stateOf(res);
    const decision = state.decision;
    if (!decision?.allow) throw new Error("act without an allowing decision");
    const received = state.body;
    if (record.body) {
      const error = validateBody(record.body, received);
      if (error) throw new Problem("invalid_body", { detail: error });
    }
    // Defence in depth: the policy refused non-writable names; keep only the write set anyway.
    const body: Record<string, unknown> = {};
    for (const field of decision.fields.write) if (Object.hasOwn(received, field)) body[field] = received[field];
    // Routes without tenant data (health, openapi for anonymous callers) have no scope; reading it there is a bug.
    const scope = decision.scope.tenant_id ? toScope(decision.scope) : null;
    const ctx = new OperationContext(record.id, scope, req, state, deps, state.query, body, state.resource.id, routes);
    // Another connection holding SQLite's write lock fails an attempt at once, having written nothing (one
    // statement or one transaction): it is tried again on timers, never sleeping in SQLite on the thread every
    // request shares. Past the bound, DatabaseBusyError is answered 503 database_busy with Retry-After (errors.ts).
    state.result = await retryWhileBusy(() => run(handler, ctx), { boundMs: deps.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS });
    next();
  };
}

/**
 * The context a route's operation runs with. A class, not an object literal
 * with `get scope()`: V8 gives each such literal its own accessor pair,
 * allocated in OLD space, whose getter (a young closure over this request's
 * frame) then kept the whole request (req, res, state, the response headers)
 * alive through young-generation collections until a full collection: ~6 KiB
 * per request copied and promoted. The getter on the prototype is shared.
 */
class OperationContext implements ActContext {
  readonly #routeId: string;
  readonly #scope: ActContext["scope"] | null;

  constructor(
    routeId: string,
    scope: ActContext["scope"] | null,
    readonly req: Request,
    readonly state: RequestState,
    readonly deps: ApiDeps,
    readonly query: ActContext["query"],
    readonly body: Record<string, unknown>,
    readonly id: string | undefined,
    readonly routes: ReadonlyMap<string, RouteRecord>,
  ) {
    this.#routeId = routeId;
    this.#scope = scope;
  }

  get scope(): ActContext["scope"] {
    if (!this.#scope) throw new Error(`${this.#routeId}: the decision carries no tenant scope to query through`);
    return this.#scope;
  }
}

/** How long a write waits for another connection's lock before 503 database_busy. */
export const DEFAULT_LOCK_WAIT_MS = 1000;

async function run(handler: RouteHandler, ctx: ActContext): Promise<ActResult> {
  const state = ctx.state;
  try {
    const result = await handler.act(ctx);
    if (state.resource.id !== undefined) state.scopeFound = true;
    return result;
  } catch (err) {
    // The policy allowed and the operation reads only through the decision's scope: a not_found
    // here is a query through the scope that found no row (the id is missing, or somebody else's).
    if (err instanceof Problem && err.code === "not_found" && state.resource.id !== undefined) state.scopeFound = false;
    if (err instanceof DbInputError) {
      throw err.code === "conflict" ? new Problem("conflict", { detail: err.message }) : new Problem("invalid_body", { detail: err.message });
    }
    if (err instanceof ScopeError) throw new Error(`scope refused by the data layer: ${err.message}`, { cause: err });
    throw err;
  }
}
