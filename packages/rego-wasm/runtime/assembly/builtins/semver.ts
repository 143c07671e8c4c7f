/**
 * semver.is_valid and semver.compare (OPA v1/topdown/semver.go with its
 * internal/semver parser): Semantic Versioning 2.0.0, strictly. A leading
 * "v" is dropped (as OPA does); the rest must be MAJOR.MINOR.PATCH, each a
 * 64-bit integer without leading zeroes, then an optional "-" pre-release
 * and an optional "+" build metadata, each a non-empty dot-separated list of
 * non-empty [0-9A-Za-z-] identifiers; a numeric pre-release identifier has
 * no leading zeroes. Build metadata plays no part in precedence.
 */

import { Value, num, boolV } from "../value";
import { strArg } from "./text";

class Version {
  constructor(
    public major: i64,
    public minor: i64,
    public patch: i64,
    /** Empty when there is none. */
    public pre: string,
  ) {}
}

// @ts-ignore: decorator
@inline function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

// @ts-ignore: decorator
@inline function isIdentChar(c: i32): bool {
  return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d;
}

function allDigits(s: string): bool {
  if (s.length == 0) return false;
  for (let i = 0; i < s.length; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}

/**
 * A dot-separated list of identifiers: none empty, all [0-9A-Za-z-]; with
 * `numericNoLeadingZero` (pre-release), an all-digit identifier is "0" or
 * starts with 1-9.
 */
function validIdentifiers(s: string, numericNoLeadingZero: bool): bool {
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length && s.charCodeAt(i) != 0x2e) {
      if (!isIdentChar(s.charCodeAt(i))) return false;
      continue;
    }
    const n = i - start;
    if (n == 0) return false;
    if (numericNoLeadingZero && n > 1 && s.charCodeAt(start) == 0x30 && allDigits(s.substring(start, i))) return false;
    start = i + 1;
  }
  return true;
}

/** Set by parseNumber: false when its text was not a valid version number. */
let numberOk: bool = false;

/** A major/minor/patch number: digits, no leading zero, within int64 (Go's ParseInt range). */
function parseNumber(s: string): i64 {
  numberOk = false;
  if (!allDigits(s) || (s.length > 1 && s.charCodeAt(0) == 0x30)) return 0;
  if (s.length > 19 || (s.length == 19 && s > "9223372036854775807")) return 0;
  let v: i64 = 0;
  for (let i = 0; i < s.length; i++) v = v * 10 + <i64>(s.charCodeAt(i) - 0x30);
  numberOk = true;
  return v;
}

/** The version, or null when s is not a valid SemVer. */
function parse(s: string): Version | null {
  if (s.startsWith("v")) s = s.substring(1);
  // Metadata is cut off at the first "+", then the pre-release at the first
  // "-" of what is left (identifiers may contain further "-").
  const plus = s.indexOf("+");
  if (plus >= 0) {
    if (!validIdentifiers(s.substring(plus + 1), false)) return null;
    s = s.substring(0, plus);
  }
  let pre = "";
  const dash = s.indexOf("-");
  if (dash >= 0) {
    pre = s.substring(dash + 1);
    if (!validIdentifiers(pre, true)) return null;
    s = s.substring(0, dash);
  }
  const dot1 = s.indexOf(".");
  const dot2 = dot1 < 0 ? -1 : s.indexOf(".", dot1 + 1);
  if (dot2 < 0 || s.indexOf(".", dot2 + 1) >= 0) return null;
  const major = parseNumber(s.substring(0, dot1));
  if (!numberOk) return null;
  const minor = parseNumber(s.substring(dot1 + 1, dot2));
  if (!numberOk) return null;
  const patch = parseNumber(s.substring(dot2 + 1));
  if (!numberOk) return null;
  return new Version(major, minor, patch, pre);
}

// @ts-ignore: decorator
@inline function cmpI64(a: i64, b: i64): i32 {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Plain ASCII order (identifiers are ASCII): -1, 0 or 1. */
function cmpAscii(a: string, b: string): i32 {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** SemVer 2.0.0 precedence of two pre-release strings, both non-empty. */
function comparePre(a: string, b: string): i32 {
  const as = a.split(".");
  const bs = b.split(".");
  const n = min(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const x = unchecked(as[i]);
    const y = unchecked(bs[i]);
    const xNum = allDigits(x);
    const yNum = allDigits(y);
    // Numeric identifiers rank below alphanumeric ones.
    if (xNum != yNum) return xNum ? -1 : 1;
    // Numeric ones have no leading zeroes, so the longer is the larger.
    const c = xNum && x.length != y.length ? (x.length < y.length ? -1 : 1) : cmpAscii(x, y);
    if (c != 0) return c;
  }
  // Equal so far: more identifiers rank higher.
  return cmpI64(as.length, bs.length);
}

function compareVersions(a: Version, b: Version): i32 {
  let c = cmpI64(a.major, b.major);
  if (c == 0) c = cmpI64(a.minor, b.minor);
  if (c == 0) c = cmpI64(a.patch, b.patch);
  if (c != 0) return c;
  if (a.pre == b.pre) return 0;
  // A version without pre-release ranks above the same one with.
  if (a.pre.length == 0) return 1;
  if (b.pre.length == 0) return -1;
  return comparePre(a.pre, b.pre);
}

/** False for a non-string, like OPA (never an error). */
export function bi_semver_is_valid(a: Value | null): Value | null {
  if (a === null) return null;
  const s = strArg(a);
  return boolV(s !== null && parse(s) !== null);
}

/** -1, 0 or 1; undefined (OPA: an error) when either is not a string or not a valid SemVer. */
export function bi_semver_compare(a: Value | null, b: Value | null): Value | null {
  const sa = strArg(a);
  const sb = strArg(b);
  if (sa === null || sb === null) return null;
  const va = parse(sa);
  if (va === null) return null;
  const vb = parse(sb);
  if (vb === null) return null;
  return num(<f64>compareVersions(va, vb));
}
