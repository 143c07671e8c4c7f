/**
 * Result comparison for conformance cases: result sets are compared as
 * multisets of binding objects, values structurally (object key order is
 * irrelevant, 1 and 1.0 are equal because both parse to the same number).
 */

/** Canonical JSON text: object keys sorted, so equal values give equal text. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value) ?? "undefined";
}

/** `sort_bindings`: binding values that are arrays came from sets; order them before comparing. */
function sortBindingArrays(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = Array.isArray(v)
      ? [...v]
          .map(canonical)
          .sort()
          .map((t) => JSON.parse(t))
      : v;
  }
  return out;
}

export function sameResultSet(actual: Array<Record<string, unknown>>, expected: Array<Record<string, unknown>>, sortBindings: boolean): boolean {
  if (actual.length !== expected.length) return false;
  const norm = (rows: Array<Record<string, unknown>>) => rows.map((r) => canonical(sortBindings ? sortBindingArrays(r) : r)).sort();
  const a = norm(actual);
  const e = norm(expected);
  return a.every((row, i) => row === e[i]);
}
