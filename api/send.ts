/**
 * Writes a JSON text response exactly as `res.status(s).type(t).send(text)`
 * does, without re-deriving the same headers on every request.
 *
 * Express's send parses and re-formats the Content-Type (charset), looks the
 * type up in the mime database twice and checks freshness; for one media
 * type the resulting header is always the same string. The first response of
 * each media type goes through Express and its Content-Type is remembered;
 * later ones set that value and Content-Length (in Express's order) and end.
 *
 * Whenever Express would do more than that, it still does it: HEAD (no
 * body), conditional requests (`If-None-Match` / `If-Modified-Since` can
 * make send answer 304), statuses whose headers send strips (204, 205,
 * 304), a Transfer-Encoding already set, an app that generates ETags, or
 * a response whose send/type/set a wrapping middleware replaced (it expects
 * to see the body go through them).
 */
import type { Response } from "express";

/** Media type -> the Content-Type value Express sent for it. Bounded: the registry's and the catalogue's types only. */
const contentTypes = new Map<string, string>();

export function sendJsonText(res: Response, status: number, mediaType: string, text: string): void {
  res.status(status);
  const contentType = contentTypes.get(mediaType);
  if (contentType !== undefined && isPlain(res)) {
    res.setHeader("Content-Type", contentType);
    res.setHeader("Content-Length", String(Buffer.byteLength(text, "utf8")));
    res.end(text, "utf8");
    return;
  }
  res.type(mediaType).send(text);
  if (contentType === undefined) {
    const sent = res.getHeader("Content-Type");
    if (typeof sent === "string") contentTypes.set(mediaType, sent);
  }
}

function isPlain(res: Response): boolean {
  const req = res.req;
  const s = res.statusCode;
  return (
    !Object.hasOwn(res, "send") &&
    !Object.hasOwn(res, "type") &&
    !Object.hasOwn(res, "set") &&
    req.method !== "HEAD" &&
    req.headers["if-none-match"] === undefined &&
    req.headers["if-modified-since"] === undefined &&
    s !== 204 &&
    s !== 205 &&
    s !== 304 &&
    res.getHeader("Transfer-Encoding") === undefined &&
    typeof res.app.get("etag fn") !== "function"
  );
}
