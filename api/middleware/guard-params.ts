/**
 * Step "guard params": the query string may carry only the parameters the
 * route declares, each once, each valid against its schema. Anything else —
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
 * `a[b]=1` or `__proto__=x` are refused as the names they are.
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf } from "../context";
import { Problem } from "../problems";
import type { RouteRecord } from "../registry/types";
import { validateValue } from "../validate";

/** Parameters that have changed authorization somewhere before; reported as security events when sent. */
export const SECURITY_PARAMS = new Set(["debug", "admin", "role", "redirect", "next", "include", "expand", "fields"]);

/** Parsed, validated query values for the act step. */
export type QueryValues = Record<string, string | number>;

export function guardParams(record: RouteRecord) {
  const declared = new Map(record.params.map((p) => [p.name, p]));
  return function guardParams(req: Request, res: Response, next: NextFunction): void {
    const state = stateOf(res);
    const q = req.originalUrl.indexOf("?");
    if (q === -1) {
      // No query string (most requests): no names, no values, nothing to parse.
      return next();
    }
    const search = new URLSearchParams(req.originalUrl.slice(q + 1));
    const names = [...search.keys()];
    state.params = [...new Set(names)];
    const values: QueryValues = {};
    for (const name of names) {
      const param = declared.get(name);
      if (!param) {
        return refuse(new Problem("invalid_param", {
          detail: `query parameter ${JSON.stringify(name.slice(0, 64))} is not accepted by this route`,
          extensions: { param: name.slice(0, 64), security_relevant: SECURITY_PARAMS.has(name.toLowerCase()) },
        }));
      }
      if (Object.hasOwn(values, name)) return refuse(new Problem("invalid_param", { detail: `query parameter ${JSON.stringify(name)} is repeated`, extensions: { param: name } }));
      const raw = search.get(name) ?? "";
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
