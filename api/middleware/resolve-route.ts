/**
 * Step "resolve route": attaches the route record the Express route was
 * mounted from, and the API version the request names (path prefix,
 * `Api-Version` header, or `Accept: application/vnd.portcullis.<v>+json`;
 * they must agree). Unknown versions are 404, retired ones 410; served
 * deprecated ones get Deprecation and Sunset headers. Every answer says
 * which version served it (`Api-Version`).
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf } from "../context";
import type { ApiDeps } from "../deps";
import { Problem } from "../problems";
import type { RouteRecord } from "../registry/types";
import { lifecycleHeaders, resolveVersion, versionFromAccept } from "../versions";

export function resolveRoute(record: RouteRecord, deps: ApiDeps) {
  return function resolveRoute(req: Request, res: Response, next: NextFunction): void {
    const state = stateOf(res);
    state.route = record;
    const fromPath = typeof req.params.version === "string" ? req.params.version : undefined;
    const header = req.headers["api-version"];
    const resolution = resolveVersion(deps.versions, {
      path: fromPath,
      header: Array.isArray(header) ? header.join(",") : header,
      accept: req.headers.accept,
    });
    if (!resolution.ok) throw new Problem(resolution.problem);
    const version = resolution.version;
    if (record.versions !== "*" && !record.versions.includes(version.name)) throw new Problem("unknown_version");
    state.version = version;
    if (versionFromAccept(req.headers.accept) !== undefined) state.mediaType = `application/vnd.portcullis.${version.name}+json`;
    res.setHeader("Api-Version", version.name);
    for (const [name, value] of Object.entries(lifecycleHeaders(version))) res.setHeader(name, value);
    next();
  };
}
