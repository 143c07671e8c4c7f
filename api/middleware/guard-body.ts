/**
 * Step "guard params", body half: reads the JSON body under a size limit and
 * works out which field names the request tries to set.
 *
 * - a route without a body schema accepts no body; a body that is not
 *   `application/json` (in UTF-8), not valid UTF-8, not valid JSON or not
 *   an object is refused;
 * - `__proto__`, `constructor` and `prototype` keys anywhere (nested too) are
 *   refused (400 forbidden_key): they are prototype-pollution probes, never data;
 * - keys that differ from another key only in letter case are refused
 *   (400 forbidden_key): `displayName` + `DisplayName` is smuggling;
 * - the submitted field names for the PDP are the top-level keys PLUS the
 *   policy's name of every protected or retired field (api/fields.ts, read
 *   from the policy data) found at any depth under any spelling: letter
 *   case, `_` and `-` are ignored (`{"profile": {"Owner-Id": 1}}` submits
 *   `profile` and `owner_id`). The policy refuses every name that is not
 *   writable with 403 field_not_writable: ONE behaviour for protected
 *   fields, whatever the nesting, spelling or route.
 *
 * Refusals are recorded and answered after the PDP (see guard-params.ts);
 * an oversized body is refused at once (413) since it is never read.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { stateOf } from "../context";
import { Problem } from "../problems";
import { spellingKey, UNWRITABLE_FIELDS } from "../fields";
import type { RouteRecord } from "../registry/types";

/** Any spelling of a protected or retired field -> the policy's name for it. */
const UNWRITABLE_BY_SPELLING = new Map(UNWRITABLE_FIELDS.map((f) => [spellingKey(f), f]));
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const MAX_DEPTH = 16;
/** JSON is UTF-8 (RFC 8259 §8.1): invalid bytes throw instead of becoming U+FFFD; a BOM is kept, so JSON.parse refuses it as before. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** No charset parameter, or utf-8: JSON in any other charset is not JSON (RFC 8259 §8.1). */
function isUtf8Charset(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? "");
  return charset === null || charset[1].toLowerCase() === "utf-8" || charset[1].toLowerCase() === "utf8";
}

export function readBody(limitBytes: number) {
  // Raw bytes for every content type: this step decides what is acceptable, not the parser.
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return function readBody(req: Request, res: Response, next: NextFunction): void {
    // Neither Content-Length nor Transfer-Encoding: no body (the parser's own test, type-is hasBody), so
    // skip its per-request checks and leave what it would leave: req.body undefined.
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
      const target = req as { body?: unknown };
      if (!("body" in target)) target.body = undefined;
      return next();
    }
    raw(req, res, next);
  };
}

export function guardBody(record: RouteRecord) {
  return function guardBody(req: Request, res: Response, next: NextFunction): void {
    const state = stateOf(res);
    const raw: unknown = req.body;
    const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
    if (bytes.length === 0) {
      // No body: fine for every route; required fields are checked after the decision.
      return next();
    }
    const refuse = (problem: Problem): void => {
      state.refusal ??= problem;
      next();
    };
    if (!req.is("application/json") || !isUtf8Charset(req.headers["content-type"])) return refuse(new Problem("unsupported_media_type"));
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      // Never stored with U+FFFD in place of what was sent.
      return refuse(new Problem("invalid_body", { detail: "the request body is not valid UTF-8" }));
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return refuse(new Problem("invalid_body", { detail: "the request body is not valid JSON" }));
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return refuse(new Problem("invalid_body", { detail: "the request body must be a JSON object" }));
    }
    const body = parsed as Record<string, unknown>;
    const submitted = new Set(Object.keys(body));
    const issue = inspect(body, submitted, 0);
    state.submitted = [...submitted];
    state.body = body;
    if (issue) return refuse(issue);
    // Field names of a body sent to a route without one still go to the policy (403 field_not_writable, the
    // one answer for protected fields); an empty object is harmless.
    if (!record.body && submitted.size > 0) return refuse(new Problem("invalid_body", { detail: "this route takes no request body" }));
    next();
  };
}

/** Walks the body: collects protected names at any depth and reports the first forbidden or case-duplicated key. */
function inspect(value: unknown, submitted: Set<string>, depth: number): Problem | null {
  if (depth > MAX_DEPTH) return new Problem("invalid_body", { detail: "the request body is nested too deeply" });
  if (Array.isArray(value)) {
    for (const item of value) {
      const issue = inspect(item, submitted, depth + 1);
      if (issue) return issue;
    }
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const seen = new Map<string, string>();
  let first: Problem | null = null;
  for (const key of Object.keys(value)) {
    const lower = key.toLowerCase();
    const canonical = UNWRITABLE_BY_SPELLING.get(spellingKey(key));
    if (canonical) submitted.add(canonical);
    if (FORBIDDEN_KEYS.has(lower)) {
      submitted.add(key);
      first ??= new Problem("forbidden_key", { detail: `the key ${JSON.stringify(key)} is never accepted`, extensions: { key } });
    }
    const other = seen.get(lower);
    if (other !== undefined)
      first ??= new Problem("forbidden_key", {
        detail: `the keys ${JSON.stringify(other)} and ${JSON.stringify(key)} differ only in letter case`,
        extensions: { key },
      });
    seen.set(lower, key);
    const issue = inspect((value as Record<string, unknown>)[key], submitted, depth + 1);
    first ??= issue;
  }
  return first;
}
