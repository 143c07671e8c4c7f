/**
 * String builtins, joining, splitting and slicing (OPA
 * v1/topdown/strings.go): concat, split, strings.split_n and substring.
 * Indices and lengths are in code points, as in OPA, which converts to
 * []rune.
 */

import { Value, ArrV, StrV, T_ARRAY, T_SET, asArr, asSet } from "../value";
import { strArg, intArg, intArgOk, codePoints, fromCodePoints, codePointString } from "./text";

/** concat(delimiter, array or set of strings): Go's strings.Join. */
export function bi_concat(delim: Value | null, coll: Value | null): Value | null {
  const sep = strArg(delim);
  if (sep === null || coll === null) return null;
  let items: Array<Value>;
  if (coll.kind == T_ARRAY) items = asArr(coll).items;
  else if (coll.kind == T_SET) items = asSet(coll).items; // sets iterate in sorted order, as OPA's
  else return null;
  const parts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const s = strArg(unchecked(items[i]));
    if (s === null) return null;
    unchecked((parts[i] = s));
  }
  return new StrV(parts.join(sep));
}

/**
 * substring(s, offset, length) in code points: a negative offset is an
 * error, an offset at or past the end gives "", a negative length means "to
 * the end", a length past the end is clipped.
 */
export function bi_substring(a: Value | null, b: Value | null, c: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const start = intArg(b);
  if (!intArgOk) return null;
  const length = intArg(c);
  if (!intArgOk) return null;
  if (start < 0) return null;
  const cps = codePoints(s);
  const n = cps.length;
  if (start >= <i64>n) return new StrV("");
  if (start == 0 && (length < 0 || length >= <i64>n)) return a;
  const end = length < 0 || start + length > <i64>n ? n : <i32>(start + length);
  return new StrV(fromCodePoints(cps, <i32>start, end));
}

/**
 * Go's strings.Split: an empty separator explodes s into its code points;
 * otherwise every non-overlapping separator cuts.
 */
function splitAll(s: string, sep: string): Array<string> {
  const out = new Array<string>();
  if (sep.length == 0) {
    const cps = codePoints(s);
    for (let i = 0; i < cps.length; i++) out.push(codePointString(unchecked(cps[i])));
    return out;
  }
  let from = 0;
  let at = s.indexOf(sep, 0);
  while (at >= 0) {
    out.push(s.substring(from, at));
    from = at + sep.length;
    at = s.indexOf(sep, from);
  }
  out.push(s.substring(from));
  return out;
}

function stringArray(parts: Array<string>, from: i32, to: i32): ArrV {
  const items = new Array<Value>(to - from);
  for (let i = from; i < to; i++) unchecked((items[i - from] = new StrV(unchecked(parts[i]))));
  return new ArrV(items);
}

/** split(s, delimiter): a string without the delimiter splits into itself. */
export function bi_split(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const sep = strArg(b);
  if (s === null || sep === null) return null;
  if (!s.includes(sep)) {
    const one = new Array<Value>(1);
    unchecked((one[0] = a!));
    return new ArrV(one);
  }
  const parts = splitAll(s, sep);
  return stringArray(parts, 0, parts.length);
}

/**
 * strings.split_n(s, delimiter, n): the first n fields of split(s,
 * delimiter) for n > 0, the last |n| for n < 0, all of them when |n| exceeds
 * the field count, and [] for n == 0. n must be an integer.
 */
export function bi_strings_split_n(a: Value | null, b: Value | null, c: Value | null): Value | null {
  const s = strArg(a);
  const sep = strArg(b);
  if (s === null || sep === null) return null;
  const n = intArg(c);
  if (!intArgOk) return null;
  if (n == 0) return new ArrV();
  const parts = s.includes(sep) ? splitAll(s, sep) : [s];
  const len = <i64>parts.length;
  if (n > 0) return stringArray(parts, 0, <i32>(n < len ? n : len));
  const k = -n < len ? -n : len;
  return stringArray(parts, <i32>(len - k), <i32>len);
}
