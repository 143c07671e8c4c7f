/**
 * Sources "deployed" and "registry": what the running Express app serves,
 * read from its router stack (the same introspection the start-up check
 * uses), and the route records it was mounted from.
 *
 *   deployedSightings(app)         // GET /api/{version}/users/me from the router
 *   registrySightings(ROUTES)      // one per record path, with the record
 *
 * Express paths (`/invoices/:invoice_id`) are turned back into templates so
 * every source speaks the same form.
 */
import type { Express } from "express";
import { servedRoutes } from "../../api/registry/check";
import type { RouteRecord } from "../../api/registry/types";
import type { Sighting } from "../types";

export function deployedSightings(app: Express): Sighting[] {
  return servedRoutes(app).map((served) => {
    const [method, p] = served.split(" ", 2);
    return {
      source: "deployed" as const,
      method: method === "ALL" ? "*" : method,
      path: p.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}"),
      where: "express router",
    };
  });
}

export interface RegistrySighting extends Sighting {
  record: RouteRecord;
}

export function registrySightings(routes: RouteRecord[]): RegistrySighting[] {
  return routes.flatMap((record) =>
    record.paths.map((p) => ({
      source: "registry" as const,
      method: record.method,
      path: p,
      where: `registry:${record.id}`,
      record,
      params: record.params.map((x) => x.name),
    })),
  );
}
