/**
 * Comparison builtins (`==`, `!=`, `<`, `<=`, `>`, `>=` as calls): each
 * compares any two values in Rego's total order (value.ts `compare`) and
 * returns a boolean value, never undefined for defined arguments, as OPA's
 * topdown/comparison.go does (`1 < "a"` is true: numbers sort before strings).
 * Two big integer operands compare exactly (see `cmp`); values nested in
 * collections compare as the value model does (f64).
 */
import { Value, compare, boolV, asNum, T_NUMBER } from "../value";
import { bigOf, bigCmp } from "./numbers";

/**
 * compare(), but exact for two integers when either is beyond f64 (kept
 * literal text): 28857836529306024611913 != 28857836529306024611912.
 */
function cmp(a: Value, b: Value): i32 {
  if (a.kind == T_NUMBER && b.kind == T_NUMBER && (asNum(a).text !== null || asNum(b).text !== null)) {
    const x = bigOf(asNum(a));
    const y = bigOf(asNum(b));
    if (x !== null && y !== null) return bigCmp(x, y);
  }
  return compare(a, b);
}

export function bi_equal(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  return boolV(cmp(a, b) == 0);
}

export function bi_neq(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  return boolV(cmp(a, b) != 0);
}

export function bi_lt(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  return boolV(cmp(a, b) < 0);
}

export function bi_lte(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  return boolV(cmp(a, b) <= 0);
}

export function bi_gt(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  return boolV(cmp(a, b) > 0);
}

export function bi_gte(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  return boolV(cmp(a, b) >= 0);
}
