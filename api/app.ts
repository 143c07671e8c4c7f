/**
 * The API, composed in ONE place. Every route record of the registry is
 * mounted with the same chain, in the order of the architecture's request
 * path:
 *
 *   log -> authenticate -> resolve route -> guard params (query, body)
 *       -> rate limit -> decide -> keep record -> act -> project
 *
 * (the log step opens every request's state once, ahead of the router, so
 * that it runs for every request; each route's log step names its record)
 * and anything else falls through to 404 route_not_found. Nothing is
 * mounted outside this loop, and createApp refuses to return an app whose
 * router serves a path without a record or whose records have no policy.
 *
 *   const app = createApp(deps);          // throws ConfigError (bad deps), StartupCheckError
 *   http.createServer(app).listen(8080);
 */
import express, { type Express } from "express";
import { compose } from "./compose";
import { checkDeps, type ApiDeps } from "./deps";
import { DEFAULT_HTTP_LIMITS } from "./http/limits";
import { Metrics } from "./metrics";
import { acceptedMethods, onlyMethod } from "./middleware/accepted-methods";
import { act } from "./middleware/act";
import { clientAddressResolver } from "./middleware/client-address";
import { authenticate } from "./middleware/authenticate";
import { countTraffic } from "./middleware/count-traffic";
import { decide, requestCounter } from "./middleware/decide";
import { notFound, problemHandler } from "./middleware/errors";
import { guardBody, readBody } from "./middleware/guard-body";
import { guardHeaders } from "./middleware/guard-headers";
import { guardParams } from "./middleware/guard-params";
import { keepRecord } from "./middleware/keep-record";
import { logRequests } from "./middleware/log";
import { project } from "./middleware/project";
import { MemoryRateLimitStore, rateLimit } from "./middleware/rate-limit";
import { resolveRoute } from "./middleware/resolve-route";
import { markTestRun } from "./middleware/test-run";
import { openApiDocument } from "./openapi";
import { checkPolicies, checkRegistry, checkRouter, StartupCheckError } from "./registry/check";
import { expressPath, ROUTES } from "./registry/routes";
import type { RouteRecord } from "./registry/types";
import { adminRoutes } from "./routes/admin";
import { diagnosticRoutes } from "./routes/diagnostics";
import { invoiceRoutes } from "./routes/invoices";
import { searchRoutes } from "./routes/search";
import type { RouteHandler } from "./routes/types";
import { userRoutes } from "./routes/users";
import { SecurityMonitor } from "./security/monitor";

export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

export interface AppOptions {
  /** The registry to serve (default: ROUTES). */
  routes?: RouteRecord[];
  /** Hook for tests of the start-up check: add to the app before it is checked. */
  extend?: (app: Express) => void;
}

export function createApp(deps: ApiDeps, options: AppOptions = {}): Express {
  checkDeps(deps);
  const routes = options.routes ?? ROUTES;
  const metrics = new Metrics();
  const handlers: Record<string, RouteHandler> = {
    ...diagnosticRoutes(metrics, openApiDocument(routes, deps.versions, deps.now)),
    ...invoiceRoutes,
    ...userRoutes,
    ...adminRoutes,
    ...searchRoutes,
  };

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Routes are case- and slash-exact: /Invoices or /invoices/ is not an alias that could dodge a record.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.set("query parser", false);

  const stores = deps.rateLimitStore ?? new MemoryRateLimitStore();
  const log = logRequests(deps.logger, metrics, new SecurityMonitor(deps), deps.pdp, clientAddressResolver(deps.trustedProxies));
  const testRun = markTestRun(deps);
  const authn = authenticate(deps, stores);
  const body = readBody(deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES);
  const limiter = rateLimit(deps.rateLimits, stores);
  const requestIds = requestCounter();
  const routesById = new Map(routes.map((r) => [r.id, r]));

  // Unmatched requests: logged and rate-limited by client address (route probing spends a budget too).
  const unmatched = compose([log(), testRun, limiter, notFound]);

  // Ahead of every route, ONE router layer (compose.ts: the same steps in the same order with Express's
  // contract for each, without the router's per-layer match object, params closure and dispatch, four
  // times a request):
  // - first, before the router so much as decodes a path, the log step: every request gets its state, its
  //   Decision-Id and its log line, whatever fails afterwards (`/invoices/%ff` fails in the router, before
  //   any route); the routes' own log(record) steps then only name their record;
  // - the header-count guard;
  // - the traffic count of each finished request, for the route inventory (inventory/);
  // - methods no record declares (HEAD, OPTIONS, TRACE, ...) take the unmatched path before any route sees them.
  app.use(
    compose([log(), guardHeaders(deps.maxHeadersCount ?? DEFAULT_HTTP_LIMITS.maxHeadersCount), countTraffic(deps.db), acceptedMethods(routes, unmatched)]),
  );
  const problems = checkRegistry(routes);
  for (const record of routes) {
    const handler = handlers[record.id];
    if (!handler) {
      problems.push(`${record.method} ${record.id}: no handler`);
      continue;
    }
    const chain = [
      log(record),
      testRun,
      authn,
      resolveRoute(record, deps),
      guardParams(record),
      body,
      guardBody(record),
      limiter,
      decide(record, handler, deps, requestIds),
      keepRecord(record, deps),
      act(record, handler, deps, routesById),
      project,
    ];
    const method = record.method.toLowerCase() as "get" | "post" | "patch" | "put" | "delete";
    // One composed handler per route: same steps, same order, one router layer instead of ten;
    // run for the record's own method only (Express would run a GET route for HEAD too).
    const handle = onlyMethod(record.method, compose(chain));
    for (const template of record.paths) app[method](expressPath(template), handle);
  }
  options.extend?.(app);

  problems.push(...checkRouter(app, routes), ...checkPolicies(deps.pdp, routes));
  if (problems.length > 0) throw new StartupCheckError(problems);

  app.use(unmatched);
  app.use(problemHandler(deps));
  return app;
}
