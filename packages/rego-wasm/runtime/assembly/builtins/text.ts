/**
 * Text helpers shared by the string and encoding builtins (not a builtin
 * module itself: index.ts does not re-export it, so nothing here becomes a
 * Wasm export).
 *
 * Rego strings are UTF-8 and counted, indexed and ordered by code point;
 * runtime strings are UTF-16. These helpers bridge the two: code point
 * arrays for index arithmetic, and UTF-8 byte conversions with Go's rules
 * (an invalid byte decodes to U+FFFD and consumes one byte; a lone surrogate
 * encodes as U+FFFD, which is what Go's []byte(string) sees after JSON input).
 */

import { Value, StrV, NumV, T_STRING, T_NUMBER } from "../value";

/** The string of a string value, or null for undefined or another type. */
export function strArg(v: Value | null): string | null {
  if (v === null || v.kind != T_STRING) return null;
  return changetype<StrV>(v).value;
}

/**
 * Index (UTF-16 units) of the first occurrence of `needle` in `s` at or
 * after `from`, -1 if none; an empty needle matches at `from`.
 *
 * Why not String#indexOf: AssemblyScript's compares the whole needle (a
 * memcmp call) at every position. Looking for the needle's first unit, four
 * positions at a time, and comparing the rest only where it occurs is many
 * times faster, and `contains` over a serialised input is on the decision
 * log's hot path. (Boyer-Moore-Horspool was tried: its skips depend on a
 * table load per step, which makes it slower for needles this short.)
 */
export function indexOfString(s: string, needle: string, from: i32 = 0): i32 {
  const n = needle.length;
  const last = s.length - n;
  if (from < 0) from = 0;
  if (n == 0) return from <= s.length ? from : -1;
  const sp = changetype<usize>(s);
  const np = changetype<usize>(needle);
  // Four positions per step: a 64-bit load of four units XORed with the
  // needle's first unit in every lane, ORed with the same for the next four
  // units and the second unit, has a zero lane where the needle's first two
  // units occur (SWAR zero test; it may also flag the lane above a real
  // zero, so each flagged block is checked position by position). Two units
  // at once matter: in JSON text, quotes and common letters start many
  // false candidates.
  const ONES: u64 = 0x0001000100010001;
  // A one-unit needle tests its first unit twice.
  const step2: usize = n > 1 ? 2 : 0;
  const first = <u64>load<u16>(np) * ONES;
  const second = <u64>load<u16>(np + step2) * ONES;
  let i = from;
  for (; i + 3 <= last; i += 4) {
    const at = sp + (<usize>i << 1);
    const v = (load<u64>(at) ^ first) | (load<u64>(at + step2) ^ second);
    if (((v - ONES) & ~v & 0x8000800080008000) == 0) continue;
    for (let j = i; j < i + 4; j++) if (matchesAt(sp, j, np, n)) return j;
  }
  for (; i <= last; i++) if (matchesAt(sp, i, np, n)) return i;
  return -1;
}

/** True when the n units at np occur in the string at sp from unit i. */
// @ts-ignore: decorator
@inline function matchesAt(sp: usize, i: i32, np: usize, n: i32): bool {
  const at = sp + (<usize>i << 1);
  let k = 0;
  while (k < n && load<u16>(at + (<usize>k << 1)) == load<u16>(np + (<usize>k << 1))) k++;
  return k == n;
}

/** The f64 of a number value, or NaN for undefined or another type. */
export function numArg(v: Value | null): f64 {
  if (v === null || v.kind != T_NUMBER) return NaN;
  return changetype<NumV>(v).value;
}

/**
 * The integer of a number value, for operands OPA reads with IntOperand
 * (which rejects fractions and values beyond Go's int). On a type error it
 * returns 0 and clears `intArgOk`.
 */
export function intArg(v: Value | null): i64 {
  const f = numArg(v);
  if (isNaN(f) || !isFinite(f) || Math.floor(f) != f || Math.abs(f) > 9.2e18) {
    intArgOk = false;
    return 0;
  }
  intArgOk = true;
  return <i64>f;
}
/** Whether the last intArg call succeeded (AssemblyScript has no tuples). */
export let intArgOk: bool = false;

/** Whether c (a UTF-16 unit) starts a surrogate pair at s[i]. */
// @ts-ignore: decorator
@inline export function isHighSurrogate(c: i32): bool {
  return (c & 0xfc00) == 0xd800;
}

// @ts-ignore: decorator
@inline export function isLowSurrogate(c: i32): bool {
  return (c & 0xfc00) == 0xdc00;
}

/** Code point at UTF-16 index i; a lone surrogate is returned as itself. */
export function codePointAt(s: string, i: i32): i32 {
  const c = s.charCodeAt(i);
  if (isHighSurrogate(c) && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (isLowSurrogate(d)) return 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
  }
  return c;
}

/** Number of UTF-16 units code point cp takes. */
// @ts-ignore: decorator
@inline export function unitsOf(cp: i32): i32 {
  return cp >= 0x10000 ? 2 : 1;
}

/** The code points of s. */
export function codePoints(s: string): Array<i32> {
  const out = new Array<i32>();
  for (let i = 0; i < s.length; ) {
    const cp = codePointAt(s, i);
    out.push(cp);
    i += unitsOf(cp);
  }
  return out;
}

export function codePointCount(s: string): i32 {
  let n = 0;
  for (let i = 0; i < s.length; ) {
    i += unitsOf(codePointAt(s, i));
    n++;
  }
  return n;
}

/** The string of code points cps[from, to). */
export function fromCodePoints(cps: Array<i32>, from: i32, to: i32): string {
  const units = new Array<i32>();
  for (let i = from; i < to; i++) pushCodePoint(units, unchecked(cps[i]));
  return String.fromCharCodes(units);
}

/** Appends code point cp to a UTF-16 unit buffer. */
export function pushCodePoint(units: Array<i32>, cp: i32): void {
  if (cp >= 0x10000) {
    const v = cp - 0x10000;
    units.push(0xd800 + (v >> 10));
    units.push(0xdc00 + (v & 0x3ff));
  } else units.push(cp);
}

/** The string of a single code point. */
export function codePointString(cp: i32): string {
  const units = new Array<i32>();
  pushCodePoint(units, cp);
  return String.fromCharCodes(units);
}

// ------------------------------------------------------------ UTF-8

/** The UTF-8 bytes of s (lone surrogates become U+FFFD). */
export function utf8Bytes(s: string): Array<u8> {
  const out = new Array<u8>();
  for (let i = 0; i < s.length; ) {
    let cp = codePointAt(s, i);
    i += unitsOf(cp);
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    appendUtf8(out, cp);
  }
  return out;
}

export function appendUtf8(out: Array<u8>, cp: i32): void {
  if (cp < 0x80) out.push(<u8>cp);
  else if (cp < 0x800) {
    out.push(<u8>(0xc0 | (cp >> 6)));
    out.push(<u8>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push(<u8>(0xe0 | (cp >> 12)));
    out.push(<u8>(0x80 | ((cp >> 6) & 0x3f)));
    out.push(<u8>(0x80 | (cp & 0x3f)));
  } else {
    out.push(<u8>(0xf0 | (cp >> 18)));
    out.push(<u8>(0x80 | ((cp >> 12) & 0x3f)));
    out.push(<u8>(0x80 | ((cp >> 6) & 0x3f)));
    out.push(<u8>(0x80 | (cp & 0x3f)));
  }
}

/**
 * Decodes one UTF-8 sequence at bytes[i] like Go's utf8.DecodeRune: the code
 * point goes to `decodedRune`, the return value is the byte length; an
 * invalid or truncated sequence (overlong forms, surrogates, > U+10FFFF
 * included) yields U+FFFD with length 1.
 */
export function decodeRuneAt(bytes: Array<u8>, i: i32): i32 {
  const n = bytes.length;
  const b0 = <i32>bytes[i];
  decodedRune = 0xfffd;
  if (b0 < 0x80) {
    decodedRune = b0;
    return 1;
  }
  let need = 0;
  let cp = 0;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    need = 1;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    cp = b0 & 0x0f;
    if (b0 == 0xe0) lo = 0xa0; // overlong
    if (b0 == 0xed) hi = 0x9f; // surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    cp = b0 & 0x07;
    if (b0 == 0xf0) lo = 0x90; // overlong
    if (b0 == 0xf4) hi = 0x8f; // > U+10FFFF
  } else return 1;
  if (i + need >= n) return 1; // truncated
  for (let k = 1; k <= need; k++) {
    const b = <i32>bytes[i + k];
    if (b < lo || b > hi) return 1;
    lo = 0x80;
    hi = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
  }
  decodedRune = cp;
  return need + 1;
}
export let decodedRune: i32 = 0;

/** Decodes UTF-8 bytes into a string, each invalid byte becoming U+FFFD (Go's conversion, as JSON output shows it). */
export function decodeUtf8Lossy(bytes: Array<u8>): string {
  const units = new Array<i32>();
  for (let i = 0; i < bytes.length; ) {
    i += decodeRuneAt(bytes, i);
    pushCodePoint(units, decodedRune);
  }
  return String.fromCharCodes(units);
}

const UPPER_HEX = "0123456789ABCDEF";

/** url.QueryEscape: only letters, digits and -_.~ stay; space becomes '+'. */
export function queryEscape(s: string): string {
  const b = utf8Bytes(s);
  const out = new Array<i32>();
  for (let i = 0; i < b.length; i++) {
    const c = <i32>b[i];
    const keep = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
      c == 0x2d || c == 0x5f || c == 0x2e || c == 0x7e;
    if (keep) out.push(c);
    else if (c == 0x20) out.push(0x2b);
    else {
      out.push(0x25);
      out.push(UPPER_HEX.charCodeAt(c >> 4));
      out.push(UPPER_HEX.charCodeAt(c & 15));
    }
  }
  return String.fromCharCodes(out);
}
