/**
 * String builtins, searching (OPA v1/topdown/strings.go): contains,
 * startswith, endswith, indexof, indexof_n, strings.count and the
 * prefix/suffix set matches strings.any_prefix_match / any_suffix_match.
 * Indices are in code points, as in OPA, which converts to []rune;
 * searching on UTF-16 gives the same matches as Go's byte-wise search
 * because both encodings are self-synchronising.
 *
 * The other string builtins: strings-split.ts (joining, splitting,
 * slicing), strings-edit.ts (trimming, case, reversing, replacing).
 */

import { Value, ArrV, T_ARRAY, T_SET, T_STRING, asArr, asSet, boolV, num } from "../value";
import { strArg, codePoints, codePointCount, indexOfString } from "./text";

export function bi_contains(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const sub = strArg(b);
  if (s === null || sub === null) return null;
  return boolV(indexOfString(s, sub) >= 0);
}

export function bi_startswith(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const p = strArg(b);
  if (s === null || p === null) return null;
  return boolV(s.startsWith(p));
}

export function bi_endswith(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const p = strArg(b);
  if (s === null || p === null) return null;
  return boolV(s.endsWith(p));
}

/**
 * Index of the first (or every, when `all`) occurrence of needle in
 * haystack, in code points; overlapping matches are all reported, as OPA's
 * rune-by-rune scan does.
 */
function codePointMatches(hay: Array<i32>, needle: Array<i32>, all: bool): Array<i32> {
  const out = new Array<i32>();
  const n = needle.length;
  for (let i = 0; i + n <= hay.length; i++) {
    let k = 0;
    while (k < n && unchecked(hay[i + k]) == unchecked(needle[k])) k++;
    if (k == n) {
      out.push(i);
      if (!all) break;
    }
  }
  return out;
}

/** indexof(haystack, needle): code point index of the first match, -1 if none; an empty needle is an error. */
export function bi_indexof(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const sub = strArg(b);
  if (s === null || sub === null || sub.length == 0) return null;
  const m = codePointMatches(codePoints(s), codePoints(sub), false);
  return num(m.length > 0 ? <f64>m[0] : -1);
}

/** indexof_n(haystack, needle): code point indices of all (overlapping) matches. */
export function bi_indexof_n(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const sub = strArg(b);
  if (s === null || sub === null || sub.length == 0) return null;
  const m = codePointMatches(codePoints(s), codePoints(sub), true);
  const items = new Array<Value>(m.length);
  for (let i = 0; i < m.length; i++) unchecked((items[i] = num(<f64>m[i])));
  return new ArrV(items);
}

/** strings.count(s, sub): Go's strings.Count (non-overlapping; "" counts code points + 1). */
export function bi_strings_count(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const sub = strArg(b);
  if (s === null || sub === null) return null;
  if (sub.length == 0) return num(<f64>(codePointCount(s) + 1));
  let n = 0;
  let at = indexOfString(s, sub, 0);
  while (at >= 0) {
    n++;
    at = indexOfString(s, sub, at + sub.length);
  }
  return num(<f64>n);
}

// ------------------------------------------------------------ prefix/suffix sets

// ------------------------------------------------------------ prefix/suffix sets

/** A string, or an array or set of strings, as a list; null on a type error. */
function stringList(v: Value | null): Array<string> | null {
  if (v === null) return null;
  if (v.kind == T_STRING) return [strArg(v)!];
  let items: Array<Value>;
  if (v.kind == T_ARRAY) items = asArr(v).items;
  else if (v.kind == T_SET) items = asSet(v).items;
  else return null;
  const out = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const s = strArg(unchecked(items[i]));
    if (s === null) return null;
    unchecked((out[i] = s));
  }
  return out;
}

function anyMatch(a: Value | null, b: Value | null, suffix: bool): Value | null {
  const strs = stringList(a);
  const fixes = stringList(b);
  if (strs === null || fixes === null) return null;
  for (let i = 0; i < strs.length; i++) {
    const s = unchecked(strs[i]);
    for (let j = 0; j < fixes.length; j++) {
      if (suffix ? s.endsWith(unchecked(fixes[j])) : s.startsWith(unchecked(fixes[j]))) return boolV(true);
    }
  }
  return boolV(false);
}

/** strings.any_prefix_match(strings, prefixes): some string starts with some prefix. */
export function bi_strings_any_prefix_match(a: Value | null, b: Value | null): Value | null {
  return anyMatch(a, b, false);
}

export function bi_strings_any_suffix_match(a: Value | null, b: Value | null): Value | null {
  return anyMatch(a, b, true);
}
