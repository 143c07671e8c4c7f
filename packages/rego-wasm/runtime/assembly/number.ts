/**
 * Number text <-> NumV.
 *
 * Rego numbers are arbitrary precision; ours are f64 plus, when the f64
 * may not reproduce the literal, the literal's text (NumV.text), so a number
 * that is only passed through (input -> result) prints exactly as it came in.
 * Parsing is correctly rounded (fast path here, decimal.ts otherwise), so a
 * literal with at most 15 significant digits prints back as the same number;
 * longer ones keep their text. Arithmetic uses the f64, except that integer
 * arithmetic beyond 2^53 is exact, as in OPA (builtins/numbers.ts); other
 * results are approximate beyond 15 digits.
 *
 * Printing follows Go/JS: whole numbers without a fraction ("3", never
 * "3.0"); other values in the shortest form that round-trips (AssemblyScript's
 * Grisu2, which agrees with JS's Number#toString on all but rare inputs),
 * with JS's switch to exponent notation (1e+21, 1e-7).
 */

import { NumV } from "./value";
import { exactF64, compareDecimalToF64 } from "./decimal";

/** Largest integer below which every integer is exact in f64 (2^53). */
/** 2^53: below it every integer is an exact f64 (and its arithmetic too). */
export const EXACT_INT: f64 = 9007199254740992.0;

/** Formats a number as JSON/Rego text. Non-finite values (never produced by parsing) print as null. */
export function formatNumber(n: NumV): string {
  const text = n.text;
  if (text !== null) return text;
  return formatF64(n.value);
}

/** Formats an f64 the way JS's String(number) does, except that NaN/Infinity give "null". */
export function formatF64(v: f64): string {
  if (!isFinite(v)) return "null";
  if (v == Math.floor(v) && Math.abs(v) < EXACT_INT) return (<i64>v).toString();
  const k = fractionDigits(v);
  if (k > 0) {
    // n < 1e15 is exact as an integer, but 10^k (k up to 21) is not an i64:
    // place the decimal point in n's digits instead of dividing.
    const n = <i64>Math.round(Math.abs(v) * unchecked(POW10[k]));
    let digits = n.toString();
    if (digits.length <= k) digits = "0".repeat(k + 1 - digits.length) + digits;
    const point = digits.length - k;
    return (v < 0 ? "-" : "") + digits.substring(0, point) + "." + digits.substring(point);
  }
  // AssemblyScript's Grisu2 digits round-trip but are not always the
  // shortest (1e23 comes out as 9.999999999999999e+22): take its digits,
  // then try dropping the last one while the result still parses back to v.
  const a = Math.abs(v);
  const s = a.toString();
  const e = s.indexOf("e");
  const mant = e < 0 ? s : s.substring(0, e);
  const dot = mant.indexOf(".");
  let digits = dot < 0 ? mant : mant.substring(0, dot) + mant.substring(dot + 1);
  let point = (dot < 0 ? mant.length : dot) + (e < 0 ? 0 : I32.parseInt(s.substring(e + 1)));
  // value = 0.digits * 10^point
  let lead = 0;
  while (lead < digits.length - 1 && digits.charCodeAt(lead) == 0x30) lead++;
  digits = digits.substring(lead);
  point -= lead;
  digits = stripZeros(digits);
  while (digits.length > 15) {
    const shorter = shorterDigits(digits, point, a);
    if (shorter === null) break;
    if (shorter.length > digits.length - 1) point++; // rounding carried: 99.. -> 100..
    digits = stripZeros(shorter);
  }
  // With 16 or 17 digits several strings may round-trip; JS prints the closest.
  if (digits.length >= 16) {
    const q = point - digits.length; // value = digits * 10^q
    const best = closest(digits, q, a);
    if (best != digits && denotes(best, q + best.length, a)) {
      digits = stripZeros(best);
      point = q + best.length;
    }
  }
  return (v < 0 ? "-" : "") + layout(digits, point);
}

/**
 * The integer nearest to a / 10^q, starting from the guess g (a digit
 * string), by comparing a exactly with the midpoints g +- 1/2; ties go to
 * the even digit, as in JS.
 */
function closest(g: string, q: i32, a: f64): string {
  for (let i = 0; i < 8; i++) {
    const c = compareDecimalToF64(g + "5", q - 1, a); // midpoint above g vs a
    if (c < 0 || (c == 0 && (g.charCodeAt(g.length - 1) & 1))) {
      g = incrementDigits(g);
      continue;
    }
    const lower = decrementDigits(g);
    const d = compareDecimalToF64(lower + "5", q - 1, a); // midpoint below g vs a
    if (d > 0 || (d == 0 && (g.charCodeAt(g.length - 1) & 1))) {
      g = lower;
      continue;
    }
    break;
  }
  return g;
}

/** g - 1 for a positive digit string, dropping a leading zero. */
function decrementDigits(d: string): string {
  const out = new Array<i32>(d.length);
  let borrow = 1;
  for (let i = d.length - 1; i >= 0; i--) {
    let c = d.charCodeAt(i) - 0x30 - borrow;
    borrow = c < 0 ? 1 : 0;
    if (c < 0) c += 10;
    unchecked((out[i] = 0x30 + c));
  }
  const r = String.fromCharCodes(out);
  return r.length > 1 && r.charCodeAt(0) == 0x30 ? r.substring(1) : r;
}

/**
 * Fast path for printing decimals like 10.5 or 0.001: the smallest k such
 * that v is exactly the double nearest to n / 10^k for an integer n of at
 * most 15 digits, or -1. Such an n / 10^k is what JS prints: 15 digits
 * always round-trip, so no shorter or closer string exists. Only for
 * 1e-6 <= |v| < 1e15, where JS uses plain decimal notation.
 */
export function fractionDigits(v: f64): i32 {
  const a = Math.abs(v);
  if (!(a >= 1e-6 && a < 1e15)) return -1;
  for (let k = 1; k <= 21; k++) {
    const p = unchecked(POW10[k]);
    const n = Math.round(a * p);
    if (n >= 1e15) return -1;
    if (n / p == a) return k;
  }
  return -1;
}

function stripZeros(d: string): string {
  let n = d.length;
  while (n > 1 && d.charCodeAt(n - 1) == 0x30) n--;
  return d.substring(0, n);
}

/** One digit fewer (rounded, else truncated) if that still denotes a, else null. */
function shorterDigits(digits: string, point: i32, a: f64): string | null {
  const cut = digits.substring(0, digits.length - 1);
  const up = digits.charCodeAt(digits.length - 1) >= 0x35 ? incrementDigits(cut) : cut;
  if (denotes(up, point + (up.length > cut.length ? 1 : 0), a)) return up;
  if (up != cut && denotes(cut, point, a)) return cut;
  return null;
}

function incrementDigits(d: string): string {
  const out = new Array<i32>(d.length);
  let carry = 1;
  for (let i = d.length - 1; i >= 0; i--) {
    const c = d.charCodeAt(i) - 0x30 + carry;
    carry = c == 10 ? 1 : 0;
    unchecked((out[i] = 0x30 + (c == 10 ? 0 : c)));
  }
  const r = String.fromCharCodes(out);
  return carry ? "1" + r : r;
}

/** True when 0.digits * 10^point parses to exactly a. */
function denotes(digits: string, point: i32, a: f64): bool {
  const text = String.UTF8.encode("0." + digits + "e" + point.toString());
  return exactF64(changetype<usize>(text), <usize>text.byteLength) == a;
}

/** JS's Number#toString layout of 0.digits * 10^point (positive). */
function layout(digits: string, point: i32): string {
  const k = digits.length;
  if (k <= point && point <= 21) return digits + "0".repeat(point - k);
  if (0 < point && point <= 21) return digits.substring(0, point) + "." + digits.substring(point);
  if (-6 < point && point <= 0) return "0." + "0".repeat(-point) + digits;
  const exp = point - 1;
  const head = k > 1 ? digits.charAt(0) + "." + digits.substring(1) : digits;
  return head + "e" + (exp > 0 ? "+" : "-") + abs<i32>(exp).toString();
}

/**
 * Parses JSON number text (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
 * null when the text is not exactly one number.
 */
export function parseNumberText(s: string): NumV | null {
  const bytes = String.UTF8.encode(s);
  const ptr = changetype<usize>(bytes);
  const len = <usize>bytes.byteLength;
  if (scanNumber(ptr, ptr + len) != ptr + len) return null;
  return numberFromBytes(ptr, len);
}

/**
 * Length-checked scan of a JSON number starting at ptr: returns the address
 * just past it, or 0 when no valid number starts there.
 */
export function scanNumber(ptr: usize, end: usize): usize {
  let p = ptr;
  if (p < end && load<u8>(p) == 0x2d) p++; // '-'
  if (p >= end) return 0;
  let c = load<u8>(p);
  if (c == 0x30) p++;
  else if (c >= 0x31 && c <= 0x39) {
    while (p < end && isDigit(load<u8>(p))) p++;
  } else return 0;
  if (p < end && load<u8>(p) == 0x2e) {
    p++;
    if (p >= end || !isDigit(load<u8>(p))) return 0;
    while (p < end && isDigit(load<u8>(p))) p++;
  }
  if (p < end && (load<u8>(p) | 0x20) == 0x65) { // 'e' / 'E'
    p++;
    if (p < end && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) p++;
    if (p >= end || !isDigit(load<u8>(p))) return 0;
    while (p < end && isDigit(load<u8>(p))) p++;
  }
  return p;
}

// @ts-ignore: decorator
@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

/** Exact powers of ten representable in f64. */
export const POW10: StaticArray<f64> = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/**
 * Builds a NumV from the bytes of a number already validated by scanNumber.
 *
 * Fast path (Clinger): at most 15 significant digits and a decimal exponent
 * within +-22 means mantissa and power of ten are both exact f64s, so one
 * multiplication or division gives the correctly rounded value. Anything else
 * goes through decimal.ts (exact, slower) and may keep its text.
 */
export function numberFromBytes(ptr: usize, len: usize): NumV {
  const end = ptr + len;
  let p = ptr;
  const neg = load<u8>(p) == 0x2d;
  if (neg) p++;
  let mant: u64 = 0;
  let digits = 0; // significant digits seen (leading zeros excluded)
  let trailingZeros = 0;
  let scale = 0; // decimal exponent contributed by the fraction
  let pointSeen = false;
  let c: u32 = 0;
  for (; p < end; p++) {
    c = load<u8>(p);
    if (c == 0x2e) {
      pointSeen = true;
      continue;
    }
    if (!isDigit(c)) break;
    if (pointSeen) scale--;
    if (c == 0x30 && digits == 0) continue;
    if (digits < 19) mant = mant * 10 + <u64>(c - 0x30);
    digits++;
    trailingZeros = c == 0x30 ? trailingZeros + 1 : 0;
  }
  let exp = 0;
  if (p < end) {
    // exponent: [eE][+-]?digits, already validated
    p++;
    let expNeg = false;
    c = load<u8>(p);
    if (c == 0x2d || c == 0x2b) {
      expNeg = c == 0x2d;
      p++;
    }
    for (; p < end; p++) if (exp < 100000) exp = exp * 10 + <i32>(load<u8>(p) - 0x30);
    if (expNeg) exp = -exp;
  }
  if (digits == 0) return new NumV(neg ? -0.0 : 0.0);
  if (digits <= 15) {
    const e10 = scale + exp;
    if (e10 >= -22 && e10 <= 22) {
      let v = <f64>mant;
      v = e10 >= 0 ? v * unchecked(POW10[e10]) : v / unchecked(POW10[-e10]);
      return new NumV(neg ? -v : v);
    }
  }
  const text = String.UTF8.decodeUnsafe(ptr, len);
  const v = exactF64(ptr, len);
  // Keep the text when the f64 may not reproduce the literal: more than 15
  // significant digits, overflow, or a non-zero literal that underflowed.
  const keep = !isFinite(v) || v == 0 || digits - trailingZeros > 15;
  return new NumV(v, keep ? text : null);
}
