/**
 * Step "resolve route": attaches the route record the Express route was
 * mounted from, and the API version the request names (path prefix,
 * `Api-Version` header, or `Accept: application/vnd.portcullis.<v>+json`;
 * they must agree). Unknown versions are 404; retired ones (declared so,
 * or past their sunset by the clock) are 410 with a `Link` to the successor
 * version; served deprecated ones get Deprecation, Sunset and the same
 * `Link`. Every answer says which version served it (`Api-Version`).
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf } from "../context";
import type { ApiDeps } from "../deps";
import { Problem } from "../problems";
import type { RouteRecord } from "../registry/types";
import { lifecycleHeaders, resolveVersion, successorOf, versionFromAccept, type VersionRecord } from "../versions";

export function resolveRoute(record: RouteRecord, deps: ApiDeps) {
  const clock = deps.now ?? Date.now;
  /** `Link: <...>; rel="successor-version"` (RFC 5829): the same path under the successor when the path named the version. */
  const successorLink = (req: Request, res: Response, v: VersionRecord, now: number): VersionRecord | undefined => {
    const successor = successorOf(deps.versions, v, now);
    if (!successor) return undefined;
    const target = typeof req.params.version === "string" ? req.path.replace(/^\/api\/[^/]+/, `/api/${successor.name}`) : req.path;
    // The raw path, percent-encoded as sent; anything outside URI path characters (`<`, `>`, `"`) is encoded so the header stays well-formed.
    const safe = target.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@%/]/g, (c) => encodeURIComponent(c));
    res.setHeader("Link", `<${safe}>; rel="successor-version"`);
    return successor;
  };
  return function resolveRoute(req: Request, res: Response, next: NextFunction): void {
    const state = stateOf(res);
    state.route = record;
    const fromPath = typeof req.params.version === "string" ? req.params.version : undefined;
    const header = req.headers["api-version"];
    const resolution = resolveVersion(
      deps.versions,
      {
        path: fromPath,
        header: Array.isArray(header) ? header.join(",") : header,
        accept: req.headers.accept,
      },
      clock(),
    );
    if (!resolution.ok && resolution.problem === "version_retired") {
      const gone = resolution.version;
      const successor = successorLink(req, res, gone, clock());
      const since = gone.sunset ? ` on ${new Date(gone.sunset).toISOString().slice(0, 10)}` : "";
      throw new Problem("version_retired", {
        detail: `API version ${gone.name} was retired${since}${successor ? `; use ${successor.name}` : ""}.`,
        extensions: { version: gone.name, sunset: gone.sunset, successor: successor?.name ?? null },
      });
    }
    if (!resolution.ok) throw new Problem(resolution.problem);
    const version = resolution.version;
    if (record.versions !== "*" && !record.versions.includes(version.name)) throw new Problem("unknown_version");
    state.version = version;
    if (versionFromAccept(req.headers.accept) !== undefined) state.mediaType = `application/vnd.portcullis.${version.name}+json`;
    res.setHeader("Api-Version", version.name);
    const lifecycle = lifecycleHeaders(version);
    for (const name in lifecycle) res.setHeader(name, lifecycle[name]);
    if (lifecycle.Sunset !== undefined) successorLink(req, res, version, clock());
    next();
  };
}
