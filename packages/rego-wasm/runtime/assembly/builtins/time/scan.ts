/**
 * The small readers `parse.ts` is made of, one per Go helper of the same
 * name in `time/format.go` (getnum, atoi, skip, parseTimeZone, ...). Each
 * reads a prefix of the value and returns what it read with the rest.
 */

import { ISO_COLON_SECONDS_TZ, ISO_COLON_TZ, ISO_SECONDS_TZ, ISO_SHORT_TZ, NUM_COLON_SECONDS_TZ, NUM_COLON_TZ, NUM_SECONDS_TZ, NUM_SHORT_TZ } from "./layout";

export function isDigit(s: string, i: i32): bool {
  if (i >= s.length) return false;
  const c = s.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

/** Scratch result of the small readers below: a number and the rest of the value; `ok` false on bad input. */
export class Num {
  ok: bool = true;
  n: i64 = 0;
  rest: string = "";
}

/** Go's `leadingInt`: the leading [0-9]* of s (overflow beyond 2^63 fails). */
export function leadingInt(s: string): Num {
  const r = new Num();
  let x: u64 = 0;
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    if (x > (<u64>1 << 63) / 10) { r.ok = false; return r; }
    x = x * 10 + <u64>(c - 0x30);
    if (x > <u64>1 << 63) { r.ok = false; return r; }
  }
  r.n = <i64>x;
  r.rest = s.substring(i);
  return r;
}

/** Go's `atoi`: optional sign, then digits to the end of s. */
export function atoi(s: string): Num {
  let neg = false;
  if (s.length > 0 && (s.charCodeAt(0) == 0x2d || s.charCodeAt(0) == 0x2b)) {
    neg = s.charCodeAt(0) == 0x2d;
    s = s.substring(1);
  }
  const r = leadingInt(s);
  if (!r.ok || r.rest.length > 0) r.ok = false;
  if (neg) r.n = -r.n;
  return r;
}

/** Go's `getnum`: one or two digits (`fixed` demands two). */
export function getnum(s: string, fixed: bool): Num {
  const r = new Num();
  r.rest = s;
  if (!isDigit(s, 0)) { r.ok = false; return r; }
  if (!isDigit(s, 1)) {
    if (fixed) { r.ok = false; return r; }
    r.n = s.charCodeAt(0) - 0x30;
    r.rest = s.substring(1);
    return r;
  }
  r.n = (s.charCodeAt(0) - 0x30) * 10 + (s.charCodeAt(1) - 0x30);
  r.rest = s.substring(2);
  return r;
}

/** Go's `getnum3`: one to three digits (`fixed` demands three). */
export function getnum3(s: string, fixed: bool): Num {
  const r = new Num();
  let i = 0;
  for (; i < 3 && isDigit(s, i); i++) r.n = r.n * 10 + (s.charCodeAt(i) - 0x30);
  if (i == 0 || (fixed && i != 3)) r.ok = false;
  r.rest = s.substring(i);
  return r;
}

/** Go's `lookup`: index of the name (or its first `len` chars) that prefixes val, ignoring ASCII case. */
export function lookupName(names: string[], len: i32, val: string): Num {
  const r = new Num();
  for (let i = 0; i < names.length; i++) {
    const v = len > 0 ? names[i].substring(0, len) : names[i];
    if (val.length >= v.length && matchFold(val, v)) {
      r.n = i;
      r.rest = val.substring(v.length);
      return r;
    }
  }
  r.ok = false;
  return r;
}

function matchFold(val: string, name: string): bool {
  for (let i = 0; i < name.length; i++) {
    let a = val.charCodeAt(i);
    let b = name.charCodeAt(i);
    if (a != b) {
      a |= 0x20;
      b |= 0x20;
      if (a != b || a < 0x61 || a > 0x7a) return false;
    }
  }
  return true;
}

/** Go's `skip`: removes literal `prefix` from value, a run of spaces matching any run of spaces. Null on mismatch. */
export function skip(value: string, prefix: string): string | null {
  let v = 0;
  let p = 0;
  while (p < prefix.length) {
    if (prefix.charCodeAt(p) == 0x20) {
      if (v < value.length && value.charCodeAt(v) != 0x20) return null;
      while (p < prefix.length && prefix.charCodeAt(p) == 0x20) p++;
      while (v < value.length && value.charCodeAt(v) == 0x20) v++;
      continue;
    }
    if (v >= value.length || value.charCodeAt(v) != prefix.charCodeAt(p)) return null;
    p++;
    v++;
  }
  return value.substring(v);
}

/** Go's `parseNanoseconds`: `value[0:n]` is a separator and digits; at most 9 digits count. n <= value.length. */
export function parseNanos(value: string, n: i32): Num {
  const c = value.charCodeAt(0);
  if (c != 0x2e && c != 0x2c) {
    const r = new Num();
    r.ok = false;
    return r;
  }
  if (n > 10) n = 10;
  const r = atoi(value.substring(1, n));
  if (r.ok && r.n < 0) r.ok = false; // "fractional second out of range"
  for (let i = 0; i < 10 - n; i++) r.n *= 10;
  return r;
}

/** Go's `parseSignedOffset`: length of a "+hh"/"-h" offset (|h| <= 23) at the start of value, 0 if none. */
function signedOffsetLen(value: string): i32 {
  const sign = value.charCodeAt(0);
  if (sign != 0x2d && sign != 0x2b) return 0;
  const r = leadingInt(value.substring(1));
  if (!r.ok || r.rest.length == value.length - 1 || r.n > 23) return 0;
  return value.length - r.rest.length;
}

/** Go's `parseTimeZone`: length of a zone abbreviation at the start of value, or 0. */
export function timeZoneLen(value: string): i32 {
  if (value.length < 3) return 0;
  if (value.startsWith("ChST") || value.startsWith("MeST")) return 4;
  if (value.startsWith("GMT")) return 3 + (value.length > 3 ? signedOffsetLen(value.substring(3)) : 0);
  const c0 = value.charCodeAt(0);
  if (c0 == 0x2b || c0 == 0x2d) return signedOffsetLen(value);
  let upper = 0;
  while (upper < 6 && upper < value.length && value.charCodeAt(upper) >= 0x41 && value.charCodeAt(upper) <= 0x5a) upper++;
  if (upper == 3) return 3;
  if (upper == 4 && (value.charCodeAt(3) == 0x54 || value.startsWith("WITA"))) return 4;
  if (upper == 5 && value.charCodeAt(4) == 0x54) return 5;
  return 0;
}

/** A numeric zone offset element in seconds east; `ok` false when a field is out of range; null on bad syntax. */
export function parseOffset(std: i32, value: string): Num | null {
  let hh: string, mm = "00", ss = "00";
  let len: i32;
  if (std == ISO_COLON_TZ || std == NUM_COLON_TZ) {
    if (value.length < 6 || value.charCodeAt(3) != 0x3a) return null;
    hh = value.substring(1, 3); mm = value.substring(4, 6); len = 6;
  } else if (std == NUM_SHORT_TZ || std == ISO_SHORT_TZ) {
    if (value.length < 3) return null;
    hh = value.substring(1, 3); len = 3;
  } else if (std == ISO_COLON_SECONDS_TZ || std == NUM_COLON_SECONDS_TZ) {
    if (value.length < 9 || value.charCodeAt(3) != 0x3a || value.charCodeAt(6) != 0x3a) return null;
    hh = value.substring(1, 3); mm = value.substring(4, 6); ss = value.substring(7, 9); len = 9;
  } else if (std == ISO_SECONDS_TZ || std == NUM_SECONDS_TZ) {
    if (value.length < 7) return null;
    hh = value.substring(1, 3); mm = value.substring(3, 5); ss = value.substring(5, 7); len = 7;
  } else {
    if (value.length < 5) return null;
    hh = value.substring(1, 3); mm = value.substring(3, 5); len = 5;
  }
  const h = getnum(hh, true);
  const m = getnum(mm, true);
  const s = getnum(ss, true);
  if (!h.ok || !m.ok || !s.ok) return null;
  const r = new Num();
  // Go allows 24 hours, 60 minutes, 60 seconds here: some people write them.
  r.ok = h.n <= 24 && m.n <= 60 && s.n <= 60;
  r.n = (h.n * 60 + m.n) * 60 + s.n;
  const sign = value.charCodeAt(0);
  if (sign == 0x2d) r.n = -r.n;
  else if (sign != 0x2b) return null;
  r.rest = value.substring(len);
  return r;
}
