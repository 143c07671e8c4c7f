/**
 * Aggregates over collections (OPA topdown/aggregates.go): count, sum,
 * product, max, min, sort, all, any.
 *
 * sum/product/max/min/sort/all/any take an array or a set (sets iterate in
 * sorted order); max/min of an empty collection are undefined, as in OPA.
 * sum/product stay exact on integers of any size (see numbers.ts).
 */
import { Value, ArrV, NumV, num, boolV, compare, sortValues, asArr, asSet, asObj, asStr, asNum, asBool, TRUE, T_ARRAY, T_SET, T_OBJECT, T_STRING, T_NUMBER, T_BOOLEAN } from "../value";
import { EXACT_INT } from "../number";
import { numResult, bigOf, bigAdd, bigMul, bigToValue } from "./numbers";

/** Elements of an array or set, or null for any other value. */
function elementsOf(v: Value | null): Array<Value> | null {
  if (v === null) return null;
  if (v.kind == T_ARRAY) return asArr(v).items;
  if (v.kind == T_SET) return asSet(v).items;
  return null;
}

/** Number of Unicode code points in s (a surrogate pair counts once). */
function codePointCount(s: string): i32 {
  const n = s.length;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

export function bi_count(a: Value | null): Value | null {
  if (a === null) return null;
  switch (a.kind) {
    case T_ARRAY:
      return num(<f64>asArr(a).items.length);
    case T_SET:
      return num(<f64>asSet(a).items.length);
    case T_OBJECT:
      return num(<f64>asObj(a).keys.length);
    case T_STRING:
      return num(<f64>codePointCount(asStr(a).value));
  }
  return null;
}

export function bi_sum(a: Value | null): Value | null {
  return accumulate(a, false);
}

export function bi_product(a: Value | null): Value | null {
  return accumulate(a, true);
}

/**
 * sum (mul = false) or product of an array/set of numbers: on f64, redone
 * on exact big integers when all elements are integers and f64 may have
 * rounded (OPA accumulates integers exactly).
 */
function accumulate(a: Value | null, mul: bool): Value | null {
  const items = elementsOf(a);
  if (items === null) return null;
  let acc: f64 = mul ? 1 : 0;
  let inexact = false;
  for (let i = 0; i < items.length; i++) {
    const v = unchecked(items[i]);
    if (v.kind != T_NUMBER) return null;
    const n = asNum(v);
    acc = mul ? acc * n.value : acc + n.value;
    if (n.text !== null || !(Math.abs(n.value) < EXACT_INT) || !(Math.abs(acc) < EXACT_INT)) inexact = true;
  }
  if (!inexact) return numResult(acc);
  let big = bigOf(new NumV(mul ? 1 : 0))!;
  for (let i = 0; i < items.length; i++) {
    const b = bigOf(asNum(unchecked(items[i])));
    if (b === null) return numResult(acc); // a fraction: OPA sums as floats
    big = mul ? bigMul(big, b) : bigAdd(big, b);
  }
  return bigToValue(big);
}

export function bi_max(a: Value | null): Value | null {
  const items = elementsOf(a);
  if (items === null || items.length == 0) return null;
  let best = unchecked(items[0]);
  for (let i = 1; i < items.length; i++) {
    const v = unchecked(items[i]);
    if (compare(best, v) <= 0) best = v;
  }
  return best;
}

export function bi_min(a: Value | null): Value | null {
  const items = elementsOf(a);
  if (items === null || items.length == 0) return null;
  let best = unchecked(items[0]);
  for (let i = 1; i < items.length; i++) {
    const v = unchecked(items[i]);
    if (compare(best, v) >= 0) best = v;
  }
  return best;
}

export function bi_sort(a: Value | null): Value | null {
  if (a === null) return null;
  if (a.kind == T_ARRAY) return new ArrV(sortValues(asArr(a).items));
  if (a.kind == T_SET) return new ArrV(asSet(a).items.slice(0)); // already sorted
  return null;
}

function isTrue(v: Value): bool {
  return v.kind == T_BOOLEAN && asBool(v).value;
}

/** Deprecated `all`: every element is `true` (vacuously true when empty). */
export function bi_all(a: Value | null): Value | null {
  const items = elementsOf(a);
  if (items === null) return null;
  for (let i = 0; i < items.length; i++) if (!isTrue(unchecked(items[i]))) return boolV(false);
  return TRUE;
}

/** Deprecated `any`: some element is `true`. */
export function bi_any(a: Value | null): Value | null {
  const items = elementsOf(a);
  if (items === null) return null;
  for (let i = 0; i < items.length; i++) if (isTrue(unchecked(items[i]))) return TRUE;
  return boolV(false);
}
