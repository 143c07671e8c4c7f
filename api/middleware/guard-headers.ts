/**
 * Step "guard headers" (mounted once, right after the log step): node keeps
 * at most `maxHeadersCount` header fields of a request and silently drops
 * the rest, so a request that reaches the limit may have lost fields the
 * chain would have read (Authorization, Api-Version...). It is refused with
 * 431 headers_too_large rather than served with headers missing.
 */
import type { NextFunction, Request, Response } from "express";
import { Problem } from "../problems";

export function guardHeaders(maxHeadersCount: number) {
  return function guardHeaders(req: Request, _res: Response, next: NextFunction): void {
    // rawHeaders holds name, value, name, value...
    if (req.rawHeaders.length >= 2 * maxHeadersCount) throw new Problem("headers_too_large");
    next();
  };
}
