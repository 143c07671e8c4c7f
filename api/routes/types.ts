/**
 * The contract of a route module: optional `locate` (resource attributes for
 * the decision) and `act` (the operation, through the decision's scope and
 * write fields). Handlers never send responses themselves: they return an
 * ActResult and the project step cuts it to the readable fields.
 */
import type { Request } from "express";
import type { ActResult, RequestState } from "../context";
import type { ApiDeps } from "../deps";
import type { RouteRecord } from "../registry/types";
import type { QueryValues } from "../middleware/guard-params";

export interface ActContext {
  req: Request;
  state: RequestState;
  deps: ApiDeps;
  /** The decision's row filter (tenant_id always; owner_id when owner-scoped). */
  scope: { tenant_id: string; owner_id?: string };
  /** Validated query values. */
  query: QueryValues;
  /** The body, already validated against the route's schema and limited to decision.fields.write. */
  body: Record<string, unknown>;
  /** The object id from the path, when the route has one. */
  id?: string;
  /** The app's registry by route id (decisions as another route: related-decision.ts). */
  routes: ReadonlyMap<string, RouteRecord>;
}

export interface RouteHandler {
  /**
   * Looks up the resource's tenant and owner BEFORE the decision, so the
   * policy can check them (tenancy, owner scope, separation of duties).
   * Only the attributes reach the policy, never the client; a row of
   * another tenant is answered 404 by the policy, exactly like a missing one.
   */
  locate?(ctx: { req: Request; state: RequestState; deps: ApiDeps; id: string }): Promise<{ tenant?: string; owner?: string } | undefined>;
  act(ctx: ActContext): ActResult | Promise<ActResult>;
}
