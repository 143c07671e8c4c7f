/**
 * String builtins, editing: trimming, case mapping, reversing and replacing
 * (OPA v1/topdown/strings.go, with Go's strings package semantics).
 */

import { Value, StrV, T_OBJECT, asObj } from "../value";
import { casemap } from "~lib/util/casemap";
import { strArg, codePoints, fromCodePoints, codePointAt, unitsOf, pushCodePoint, utf8Bytes, decodeUtf8Lossy } from "./text";

// ------------------------------------------------------------ trimming

/** Go's strings.Trim family: cutset is a set of code points. */
function trimCutset(a: Value | null, b: Value | null, left: bool, right: bool): Value | null {
  const s = strArg(a);
  const cut = strArg(b);
  if (s === null || cut === null) return null;
  const cps = codePoints(s);
  const set = codePoints(cut);
  let from = 0;
  let to = cps.length;
  if (left) while (from < to && set.includes(unchecked(cps[from]))) from++;
  if (right) while (to > from && set.includes(unchecked(cps[to - 1]))) to--;
  if (from == 0 && to == cps.length) return a;
  return new StrV(fromCodePoints(cps, from, to));
}

export function bi_trim(a: Value | null, b: Value | null): Value | null {
  return trimCutset(a, b, true, true);
}

export function bi_trim_left(a: Value | null, b: Value | null): Value | null {
  return trimCutset(a, b, true, false);
}

export function bi_trim_right(a: Value | null, b: Value | null): Value | null {
  return trimCutset(a, b, false, true);
}

export function bi_trim_prefix(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const p = strArg(b);
  if (s === null || p === null) return null;
  return s.startsWith(p) && p.length > 0 ? new StrV(s.substring(p.length)) : a;
}

export function bi_trim_suffix(a: Value | null, b: Value | null): Value | null {
  const s = strArg(a);
  const p = strArg(b);
  if (s === null || p === null) return null;
  return s.endsWith(p) && p.length > 0 ? new StrV(s.substring(0, s.length - p.length)) : a;
}

/** Go's unicode.IsSpace: Latin-1 spaces plus the White_Space property's Z characters. */
function isSpace(c: i32): bool {
  if (c <= 0xff) return c == 0x20 || (c >= 0x09 && c <= 0x0d) || c == 0x85 || c == 0xa0;
  return c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
    c == 0x202f || c == 0x205f || c == 0x3000;
}

export function bi_trim_space(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  // White space is all in the BMP, so UTF-16 units can be tested directly.
  let from = 0;
  let to = s.length;
  while (from < to && isSpace(s.charCodeAt(from))) from++;
  while (to > from && isSpace(s.charCodeAt(to - 1))) to--;
  if (from == 0 && to == s.length) return a;
  return new StrV(s.substring(from, to));
}

// ------------------------------------------------------------ case

/**
 * Go's unicode.ToLower/ToUpper: simple (one-to-one) case mapping per code
 * point, unlike JavaScript's toLowerCase, which applies special casing
 * ("ß" -> "SS", "İ" -> "i̇", final sigma). AssemblyScript's casemap table is
 * musl's simple mapping; circled letters are outside it (as the standard
 * library's own toUpperCase notes) and planes above 1 have no case.
 */
function mapCase(c: i32, upper: bool): i32 {
  if (c < 0x80) {
    if (upper) return c >= 0x61 && c <= 0x7a ? c - 32 : c;
    return c >= 0x41 && c <= 0x5a ? c + 32 : c;
  }
  if (!upper && c >= 0x24b6 && c <= 0x24cf) return c + 26;
  if (upper && c >= 0x24d0 && c <= 0x24e9) return c - 26;
  if (c >= 0x20000 || (c >= 0xd800 && c <= 0xdfff)) return c;
  // musl derives "ß" -> "ẞ" from the reverse mapping; Unicode (and Go) has
  // no simple uppercase for "ß".
  if (upper && c == 0xdf) return c;
  return casemap(<u32>c, upper ? 1 : 0) & 0x1fffff;
}

function caseString(a: Value | null, upper: bool): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const ascii = asciiCase(s, upper);
  if (ascii !== null) return ascii === s ? a : new StrV(ascii);
  const units = new Array<i32>();
  let changed = false;
  for (let i = 0; i < s.length; ) {
    const c = codePointAt(s, i);
    i += unitsOf(c);
    const m = mapCase(c, upper);
    if (m != c) changed = true;
    pushCodePoint(units, m);
  }
  return changed ? new StrV(String.fromCharCodes(units)) : a;
}

/**
 * The case mapping of an all-ASCII string (s itself when nothing changes),
 * or null when s has a non-ASCII unit and needs the full Unicode mapping.
 * ASCII is the common case: one pass, one copy, no code point array.
 */
function asciiCase(s: string, upper: bool): string | null {
  const n = s.length;
  const sp = changetype<usize>(s);
  const lo = upper ? 0x61 : 0x41; // the range that changes: a-z or A-Z
  let first = -1;
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u16>(sp + (<usize>i << 1));
    if (c >= 0x80) return null;
    if (first < 0 && c >= lo && c < lo + 26) first = i;
  }
  if (first < 0) return s;
  const out = __new(<usize>n << 1, idof<string>());
  memory.copy(out, sp, <usize>n << 1);
  for (let i = first; i < n; i++) {
    const at = out + (<usize>i << 1);
    const c = <i32>load<u16>(at);
    if (c >= lo && c < lo + 26) store<u16>(at, <u16>(c ^ 0x20));
  }
  return changetype<string>(out);
}

export function bi_lower(a: Value | null): Value | null {
  return caseString(a, false);
}

export function bi_upper(a: Value | null): Value | null {
  return caseString(a, true);
}

/** strings.reverse: code points in reverse order. */
export function bi_strings_reverse(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const cps = codePoints(s);
  cps.reverse();
  return new StrV(fromCodePoints(cps, 0, cps.length));
}

// ------------------------------------------------------------ replacing

/**
 * Go's strings.NewReplacer(old1, new1, old2, new2, ...).Replace(s), on UTF-8
 * bytes as Go does it: scanning left to right, at each position the first
 * pair in argument order whose old string matches wins, and its text is
 * skipped; an empty old string matches at every byte position but not twice
 * in a row at the same one. (Working on bytes matters only for an empty old
 * string inside multi-byte characters, where Go splits the character and the
 * stray bytes read back as U+FFFD.)
 */
function replaceAll(s: string, olds: Array<string>, news: Array<string>): string {
  const src = utf8Bytes(s);
  const n = src.length;
  const keys = new Array<Array<u8>>(olds.length);
  const vals = new Array<Array<u8>>(news.length);
  for (let k = 0; k < olds.length; k++) {
    unchecked((keys[k] = utf8Bytes(olds[k])));
    unchecked((vals[k] = utf8Bytes(news[k])));
  }
  const out = new Array<u8>();
  let prevMatchEmpty = false;
  let i = 0;
  while (i <= n) {
    let hit = -1;
    for (let k = 0; k < keys.length && hit < 0; k++) {
      const key = unchecked(keys[k]);
      if (key.length == 0) {
        if (!prevMatchEmpty) hit = k;
        continue;
      }
      if (i + key.length > n) continue;
      let j = 0;
      while (j < key.length && unchecked(src[i + j]) == unchecked(key[j])) j++;
      if (j == key.length) hit = k;
    }
    if (hit >= 0) {
      const key = unchecked(keys[hit]);
      const val = unchecked(vals[hit]);
      for (let j = 0; j < val.length; j++) out.push(unchecked(val[j]));
      prevMatchEmpty = key.length == 0;
      i += key.length;
      continue;
    }
    prevMatchEmpty = false;
    if (i < n) out.push(unchecked(src[i]));
    i++;
  }
  return decodeUtf8Lossy(out);
}

/** replace(s, old, new): every non-overlapping old, left to right. */
export function bi_replace(a: Value | null, b: Value | null, c: Value | null): Value | null {
  const s = strArg(a);
  const o = strArg(b);
  const n = strArg(c);
  if (s === null || o === null || n === null) return null;
  if (o.length > 0) return s.includes(o) ? new StrV(s.replaceAll(o, n)) : a; // same result, no byte round trip
  return new StrV(replaceAll(s, [o], [n]));
}

/**
 * strings.replace_n(patterns, s): one pass of NewReplacer with the object's
 * pairs in key order (so for matches at the same position the smaller key
 * wins); keys and values must be strings.
 */
export function bi_strings_replace_n(p: Value | null, b: Value | null): Value | null {
  if (p === null || p.kind != T_OBJECT) return null;
  const s = strArg(b);
  if (s === null) return null;
  const obj = asObj(p);
  const olds = new Array<string>(obj.keys.length);
  const news = new Array<string>(obj.keys.length);
  for (let i = 0; i < obj.keys.length; i++) {
    const k = strArg(unchecked(obj.keys[i]));
    const v = strArg(unchecked(obj.vals[i]));
    if (k === null || v === null) return null;
    unchecked((olds[i] = k));
    unchecked((news[i] = v));
  }
  return new StrV(replaceAll(s, olds, news));
}
