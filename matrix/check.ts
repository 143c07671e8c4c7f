/**
 * Verdicts: one answer compared with one cell's expectation.
 *
 * - status: an expected allow must answer the route's success status (or
 *   the workflow's 409 when the row is in no start state); an expected deny
 *   its status and problem code. A 2xx (or a 409 from the operation itself)
 *   where a deny was expected is an UNEXPECTED ALLOW: the policy let the
 *   request reach the data. A 401/403/404 where an allow was expected is
 *   an UNEXPECTED DENY.
 * - fields: an allowed read returns EXACTLY the matrix's field set (per
 *   object, for lists every row); an extra field is an unexpected allow, a
 *   missing one an unexpected deny.
 * - rows: a targeted read returns exactly its object; a list exactly the
 *   catalogue rows the role may see (its own, or its tenant's).
 */
import type { MatrixResponse } from "./client";
import type { Cell } from "./expand";
import type { Matrix } from "./model";

export type Outcome = "pass" | "unexpected_allow" | "unexpected_deny" | "mismatch" | "n/a";

export interface Verdict {
  outcome: Outcome;
  detail: string;
}

export const PASS: Verdict = { outcome: "pass", detail: "" };

/** `expectedStatus` is the concrete status of an allowed cell (success, or 409 for a workflow row in no start state). */
export function checkStatus(cell: Cell, res: MatrixResponse, expectedStatus: number): Verdict {
  const got = `got ${res.status}${res.code ? ` ${res.code}` : ""}`;
  const e = cell.expect;
  if (e.kind === "allow") {
    if (res.status === expectedStatus && (expectedStatus !== 409 || res.code === "conflict")) return PASS;
    const denied = res.status === 401 || res.status === 403 || res.status === 404;
    return { outcome: denied ? "unexpected_deny" : "mismatch", detail: `expected allow (${expectedStatus}), ${got}` };
  }
  if (e.kind === "deny") {
    if (res.status === e.status && (!e.code || res.code === e.code)) return PASS;
    const reached = res.status < 300 || (res.status === 409 && e.status !== 409);
    return { outcome: reached ? "unexpected_allow" : "mismatch", detail: `expected deny ${e.status}${e.code ? ` ${e.code}` : ""}, ${got}` };
  }
  return { outcome: "n/a", detail: e.why };
}

/** The objects an answer carries: the body, or the rows of its list property. */
export function objectsOf(cell: Cell, body: unknown): Array<Record<string, unknown>> | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body is not a JSON object";
  if (!cell.entry.list) return [body as Record<string, unknown>];
  const rows = (body as Record<string, unknown>)[cell.entry.list];
  if (!Array.isArray(rows)) return `the body has no "${cell.entry.list}" list`;
  return rows as Array<Record<string, unknown>>;
}

export function checkFields(cell: Cell, objects: Array<Record<string, unknown>>): Verdict {
  if (!cell.read) return { outcome: "mismatch", detail: `the matrix lists no read fields for ${cell.persona.role} on ${cell.routeId}` };
  const want = new Set(cell.read);
  for (const o of objects) {
    const keys = Object.keys(o);
    const extra = keys.filter((k) => !want.has(k));
    if (extra.length > 0) return { outcome: "unexpected_allow", detail: `returned fields the matrix does not allow: ${extra.sort().join(", ")}` };
    const absent = cell.read.filter((k) => !keys.includes(k));
    if (absent.length > 0) return { outcome: "unexpected_deny", detail: `fields the matrix expects are missing: ${absent.join(", ")}` };
  }
  return PASS;
}

/** `objectId` is the cell's object with victims and export jobs resolved to the ones the run created. */
export function checkRows(cell: Cell, matrix: Matrix, objects: Array<Record<string, unknown>>, objectId: string | undefined): Verdict {
  const kind = cell.entry.object;
  const got = objects.map((o) => String(o.id)).sort();
  let want: string[];
  if (objectId !== undefined) {
    want = [objectId];
  } else {
    const scope = cell.entry.rows[cell.persona.id] ?? cell.entry.rows[cell.persona.role] ?? cell.entry.rows["*"];
    if (!scope || !kind) return PASS;
    const rows = Object.entries(matrix.objects[kind] ?? {});
    want = rows.filter(([, r]) => (scope === "own" ? r.owner === cell.persona.id : r.tenant === cell.persona.tenant)).map(([id]) => id);
  }
  const sortedWant = [...want].sort();
  if (JSON.stringify(got) === JSON.stringify(sortedWant)) return PASS;
  const extra = got.filter((id) => !sortedWant.includes(id));
  if (extra.length > 0)
    return { outcome: "unexpected_allow", detail: `returned rows out of reach: ${extra.join(", ")} (expected ${sortedWant.join(", ") || "none"})` };
  return { outcome: "unexpected_deny", detail: `rows missing: ${sortedWant.filter((id) => !got.includes(id)).join(", ")}` };
}
