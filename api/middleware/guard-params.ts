/**
 * Step "guard params": path parameters must match their schema
 * (registry PATH_PARAMS: ids are 1-64 of `A-Z a-z 0-9 _ -`), and the query
 * string may carry only the parameters the route declares, each once, each
 * valid against its schema. Anything else —
 * unknown names, the security-relevant ones (debug, admin, role, redirect,
 * next, include, expand, fields) unless declared, repeated names (parameter
 * pollution) — is refused with 400 invalid_param.
 *
 * The refusal is recorded here and answered by the decide step AFTER the
 * PDP: a caller the policy denies gets the policy's 401/403 whatever
 * parameters it adds (`?include=all` never turns a 403 into a different
 * answer), and only a caller the policy allows sees the 400. The PDP input
 * carries the parameter NAMES, which the policy deliberately ignores.
 *
 * Names are taken from the raw query string, not from a parsed object, so
 * `a[b]=1` or `__proto__=x` are refused as the names they are. A query
 * string that is not valid percent-encoded UTF-8 (`?q=%ff`, `?%`) is
 * refused whole, never read with replacement characters.
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf } from "../context";
import { Problem } from "../problems";
import { PATH_PARAMS } from "../registry/routes";
import type { RouteRecord } from "../registry/types";
import { validateValue } from "../validate";

/** Parameters that have changed authorization somewhere before; reported as security events when sent. */
export const SECURITY_PARAMS = new Set(["debug", "admin", "role", "redirect", "next", "include", "expand", "fields"]);

/** Parsed, validated query values for the act step. */
export type QueryValues = Record<string, string | number>;

/** Why a path parameter's value is refused, or null (`{version}` is the resolve-route step's). */
export function pathParamError(name: string, value: string): string | null {
  if (name === "version") return null;
  const schema = Object.hasOwn(PATH_PARAMS, name) ? PATH_PARAMS[name] : undefined;
  return schema ? validateValue(schema, value) : "is not a declared path parameter";
}

export function guardParams(record: RouteRecord) {
  const declared = new Map(record.params.map((p) => [p.name, p]));
  return function guardParams(req: Request, res: Response, next: NextFunction): void {
    const state = stateOf(res);
    const params = req.params as Record<string, string>;
    for (const name in params) {
      const error = pathParamError(name, params[name]);
      // An 8 KiB id is a bad parameter, not a bad body; recorded like the query's refusals.
      if (error) state.refusal ??= new Problem("invalid_param", { detail: `path parameter ${JSON.stringify(name)} ${error}`, extensions: { param: name } });
    }
    const q = req.originalUrl.indexOf("?");
    if (q === -1) {
      // No query string (most requests): no names, no values, nothing to parse.
      return next();
    }
    const search = parseQuery(req.originalUrl.slice(q + 1));
    if (search === null) {
      return refuse(new Problem("invalid_param", { detail: "the query string is not valid percent-encoded UTF-8" }));
    }
    const names = search.map(([name]) => name);
    state.params = [...new Set(names)];
    const values: QueryValues = {};
    for (const [name, raw] of search) {
      const param = declared.get(name);
      if (!param) {
        return refuse(
          new Problem("invalid_param", {
            detail: `query parameter ${JSON.stringify(name.slice(0, 64))} is not accepted by this route`,
            extensions: { param: name.slice(0, 64), security_relevant: SECURITY_PARAMS.has(name.toLowerCase()) },
          }),
        );
      }
      if (Object.hasOwn(values, name))
        return refuse(new Problem("invalid_param", { detail: `query parameter ${JSON.stringify(name)} is repeated`, extensions: { param: name } }));
      const value = param.schema.type === "integer" && /^-?\d{1,15}$/.test(raw) ? Number(raw) : raw;
      const error = validateValue(param.schema, value);
      if (error) return refuse(new Problem("invalid_param", { detail: `query parameter ${JSON.stringify(name)} ${error}`, extensions: { param: name } }));
      values[name] = value;
    }
    state.query = values;
    next();

    function refuse(problem: Problem): void {
      state.refusal ??= problem;
      next();
    }
  };
}

/**
 * `a=1&b=x+y` -> [["a", "1"], ["b", "x y"]] as URLSearchParams reads it
 * (empty pairs skipped, `+` is a space), but strict: a `%` not followed by
 * two hex digits, or bytes that are not UTF-8, make the whole query string
 * malformed (null) instead of being kept literally or turned into U+FFFD.
 */
function parseQuery(text: string): Array<[string, string]> | null {
  const pairs: Array<[string, string]> = [];
  for (const part of text.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = decode(eq < 0 ? "" : part.slice(eq + 1));
    if (name === null || value === null) return null;
    pairs.push([name, value]);
  }
  return pairs;
}

function decode(text: string): string | null {
  try {
    // decodeURIComponent throws URIError on a bad escape and on bytes that are not UTF-8 (lone surrogates, overlong forms).
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return null;
  }
}
