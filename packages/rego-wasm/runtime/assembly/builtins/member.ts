/**
 * Membership, the builtins behind `x in xs` and `k, v in xs` (OPA
 * topdown/aggregates.go builtinMember/builtinMemberWithKey). Both answer
 * false (never undefined) when xs is not a collection.
 */
import { Value, boolV, equal, asArr, asObj, asSet, asNum, T_ARRAY, T_OBJECT, T_SET, T_NUMBER } from "../value";
import { isIntegral } from "./numbers";

/** internal.member_2(x, xs): x is an array element, a set member or an object value. */
export function bi_internal_member_2(x: Value | null, xs: Value | null): Value | null {
  if (x === null || xs === null) return null;
  switch (xs.kind) {
    case T_SET:
      return boolV(asSet(xs).has(x));
    case T_ARRAY: {
      const items = asArr(xs).items;
      for (let i = 0; i < items.length; i++) if (equal(unchecked(items[i]), x)) return boolV(true);
      return boolV(false);
    }
    case T_OBJECT: {
      const vals = asObj(xs).vals;
      for (let i = 0; i < vals.length; i++) if (equal(unchecked(vals[i]), x)) return boolV(true);
      return boolV(false);
    }
  }
  return boolV(false);
}

/**
 * internal.member_3(k, v, xs): xs[k] == v for an object key or an array
 * index; for a set, k must be a member and equal to v.
 */
export function bi_internal_member_3(k: Value | null, v: Value | null, xs: Value | null): Value | null {
  if (k === null || v === null || xs === null) return null;
  switch (xs.kind) {
    case T_SET:
      return boolV(asSet(xs).has(k) && equal(k, v));
    case T_OBJECT: {
      const got = asObj(xs).get(k);
      return boolV(got !== null && equal(got, v));
    }
    case T_ARRAY: {
      if (k.kind != T_NUMBER) return boolV(false);
      const f = asNum(k).value;
      const items = asArr(xs).items;
      if (!isIntegral(f) || f < 0 || f >= <f64>items.length) return boolV(false);
      return boolV(equal(unchecked(items[<i32>f]), v));
    }
  }
  return boolV(false);
}
