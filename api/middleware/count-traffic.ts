/**
 * Step "count traffic" (mounted before every route, so it sees every
 * answer, matched or not): when the response is finished, counts the request
 * in the data store by method, route TEMPLATE, version, status and actor class
 * (db/traffic.ts). The route inventory reads these counts to tell live
 * routes and versions from dead ones and to decide when a version may go.
 *
 * The version is the one the chain resolved, or else the one the path
 * named (`/api/v9/health` answered 404 still counts under "v9": traffic on
 * an undeclared version is exactly what the inventory must see). Requests
 * matching no route are counted under the single template "(unmatched)",
 * never by their path, so probing cannot grow the table.
 *
 * Calls to a Deprecated or Zombie version are also counted per actor and
 * client (User-Agent product) in `version_callers` (db/version-callers.ts),
 * so `portcullis versions` can say WHO still depends on a version before
 * it is removed. The inventory's own probes are not callers.
 *
 * Counting never affects the answer: it runs after the response and only
 * adds to memory; the store writes behind, holding the counts while the
 * database refuses them (db/write-behind.ts).
 */
import type { NextFunction, Request, Response } from "express";
import type { RequestState } from "../context";
import type { ActorClass } from "../../db";
import type { DataStore } from "../../db/store";
import { clientOf } from "../../db/version-callers";

export const UNMATCHED_TEMPLATE = "(unmatched)";

export function actorClass(roles: readonly string[], id: string): ActorClass {
  if (id === "anonymous") return "anonymous";
  if (roles.includes("admin")) return "admin";
  if (roles.includes("support")) return "support";
  return "member";
}

/** Express path -> template, per mounted path (a bounded set: the registry's paths). */
const templates = new Map<string, string>();

/** `/invoices/:invoice_id` -> `/invoices/{invoice_id}` (the registry's form). */
function templateOf(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  const path = route?.path;
  if (typeof path !== "string") return UNMATCHED_TEMPLATE;
  let template = templates.get(path);
  if (template === undefined) {
    template = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
    templates.set(path, template);
  }
  return template;
}

/**
 * The version a path named, read at the `{version}` segment of its template.
 * (req.params is no help here: the router restores it when a route is left
 * with an error, before the response finishes.)
 */
function pathVersion(req: Request, template: string): string {
  const at = template.split("/").indexOf("{version}");
  const v = at < 0 ? undefined : req.path.split("/")[at];
  // Only a plausible version name is kept: the column is not a place for arbitrary client text.
  return v !== undefined && /^[A-Za-z0-9._-]{1,40}$/.test(v) ? v.toLowerCase() : "";
}

export function countTraffic(db: Pick<DataStore, "traffic" | "versionCallers">) {
  // One listener for all requests (the response is `this`), not a closure per request.
  function counted(this: Response): void {
    try {
      const res = this;
      const req = res.req;
      const state = res.locals.portcullis as RequestState | undefined;
      const template = templateOf(req);
      db.traffic.count({
        method: req.method.slice(0, 10),
        template,
        version: state?.version?.name ?? pathVersion(req, template),
        status: res.statusCode,
        actorClass: state ? actorClass(state.actor.roles, state.actor.id) : "anonymous",
        // Only a VERIFIED test run (the inventory's probes, a matrix run) is counted apart, here and
        // below: a header a client sets could otherwise hide real traffic from the version-removal measure.
        probe: state?.testRun !== undefined,
      });
      const version = state?.version;
      if (state && version && (version.state === "Deprecated" || version.state === "Zombie") && state.testRun === undefined) {
        db.versionCallers.count({ version: version.name, actorId: state.actor.id, tenantId: state.actor.tenant, client: clientOf(req.headers["user-agent"]) });
      }
    } catch {
      // Counting only holds in memory (written behind); a bad hit must not turn into an error after the answer was sent.
    }
  }
  return function countTraffic(_req: Request, res: Response, next: NextFunction): void {
    res.on("finish", counted);
    next();
  };
}
