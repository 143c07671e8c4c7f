/**
 * Only methods a route record declares are served, each by its own record
 * and policy. Express would otherwise derive some on its own: it answers
 * HEAD with a route's GET handler (logged, counted and decided as if it
 * were that GET, without a record or policy of its own), and its router
 * answers OPTIONS with an `Allow` list when no handler does.
 *
 * Two guards, so no derived method is served by construction:
 * - `acceptedMethods` (mounted before every route): a method no record
 *   declares never reaches a route layer; it takes the ONE refusal path of
 *   unmatched requests (logged with its Decision-Id, rate-limited per
 *   address, 404 route_not_found problem+json, counted as unmatched traffic);
 * - `onlyMethod` (around each route's chain): a route runs for its record's
 *   method only, so even when a record declares HEAD somewhere, a GET route
 *   elsewhere still does not answer HEAD.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { RouteRecord } from "../registry/types";

export function acceptedMethods(routes: readonly RouteRecord[], refuse: RequestHandler): RequestHandler {
  const declared = new Set(routes.map((r) => r.method));
  return function acceptedMethods(req: Request, res: Response, next: NextFunction): void {
    if (declared.has(req.method as RouteRecord["method"])) return next();
    refuse(req, res, next);
  };
}

export function onlyMethod(method: RouteRecord["method"], handle: RequestHandler): RequestHandler {
  return function onlyMethod(req: Request, res: Response, next: NextFunction): void {
    if (req.method !== method) return next();
    handle(req, res, next);
  };
}
