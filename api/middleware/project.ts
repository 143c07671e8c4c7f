/**
 * Step "project": the only place a response body is written. Public views
 * (built by the route from internal rows) are cut to decision.fields.read,
 * so a field reaches the client only when the policy names it for this
 * caller; internal columns never reach this step at all. A CSV answer is
 * cut the same way first, then its rows are written as RFC 4180 text with
 * the formula-injection guard (api/exports/csv.ts).
 */
import type { Request, Response } from "express";
import { stateOf } from "../context";
import { toCsv } from "../exports/csv";
import { sendJsonText } from "../send";

export function pick(view: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(view, f) && view[f] !== undefined) out[f] = view[f];
  return out;
}

export function project(_req: Request, res: Response): void {
  const state = stateOf(res);
  const result = state.result;
  const read = state.decision?.fields.read ?? [];
  if (!result) throw new Error("project without a result");
  if (result.headers) for (const name in result.headers) res.setHeader(name, result.headers[name]);
  if ("csv" in result.body) {
    const { view, rows, columns, filename } = result.body.csv;
    const cut = pick(view, read)[rows];
    res.setHeader("Content-Disposition", `attachment; filename="${filename}"`);
    sendJsonText(res, result.status, "text/csv", toCsv(columns, Array.isArray(cut) ? (cut as Array<Record<string, unknown>>) : []));
    return;
  }
  let body: unknown;
  if ("one" in result.body) body = pick(result.body.one, read);
  else if ("many" in result.body) body = { [result.body.wrap]: result.body.many.map((v) => pick(v, read)), ...result.body.extra };
  else body = result.body.raw;
  sendJsonText(res, result.status, state.mediaType ?? "application/json", JSON.stringify(body));
}
