/**
 * Array builtins (OPA topdown/array.go): array.concat, array.slice (indices
 * clamped, never an error for out-of-range integers), array.reverse, and
 * array.flatten (splices nested arrays one level deep; other elements stay).
 */
import { Value, ArrV, asArr, asNum, T_ARRAY } from "../value";
import { isIntValue } from "./numbers";

export function bi_array_concat(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null || a.kind != T_ARRAY || b.kind != T_ARRAY) return null;
  return new ArrV(asArr(a).items.concat(asArr(b).items));
}

export function bi_array_slice(a: Value | null, start: Value | null, stop: Value | null): Value | null {
  if (a === null || a.kind != T_ARRAY || !isIntValue(start) || !isIntValue(stop)) return null;
  const items = asArr(a).items;
  const len = <f64>items.length;
  let hi = asNum(stop!).value;
  let lo = asNum(start!).value;
  // Clamp stop to [0, len], then start to [0, stop]: arr[1:0] is empty, not an error.
  if (hi < 0) hi = 0;
  else if (hi > len) hi = len;
  if (lo < 0) lo = 0;
  else if (lo > hi) lo = hi;
  return new ArrV(items.slice(<i32>lo, <i32>hi));
}

export function bi_array_reverse(a: Value | null): Value | null {
  if (a === null || a.kind != T_ARRAY) return null;
  const items = asArr(a).items;
  const n = items.length;
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) unchecked((out[i] = items[n - 1 - i]));
  return new ArrV(out);
}

export function bi_array_flatten(a: Value | null): Value | null {
  if (a === null || a.kind != T_ARRAY) return null;
  const items = asArr(a).items;
  const out = new Array<Value>();
  for (let i = 0; i < items.length; i++) {
    const v = unchecked(items[i]);
    if (v.kind == T_ARRAY) {
      const inner = asArr(v).items;
      for (let j = 0; j < inner.length; j++) out.push(unchecked(inner[j]));
    } else out.push(v);
  }
  return new ArrV(out);
}
