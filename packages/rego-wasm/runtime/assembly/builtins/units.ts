/**
 * units.parse and units.parse_bytes (OPA v1/topdown/parse_units.go,
 * parse_bytes.go): "10Ki" -> 10240, "500m" -> 0.5, "1.1KB" -> 1100.
 *
 * Every error (spaces, no amount, unknown unit, a number that does not
 * parse, an exponent of more than 6 digits) makes the call undefined, as
 * builtin errors do in OPA's non-strict mode.
 *
 * The two differ in their arithmetic, and the results show it:
 * - units.parse is exact (Go's big.Rat): the amount times the unit, printed
 *   as an integer when it is one, else rounded to 10 decimals, halves away
 *   from zero ("1.1Ki" -> 1126.4). The milli unit is the float64 nearest
 *   0.001, not 0.001, as in OPA: "1000m" is 1.0000000000000000208...
 *   before rounding, so 1 after it.
 * - units.parse_bytes reads the amount as a 64-bit-mantissa binary float
 *   (Go's big.Float.SetString), multiplies by the unit with the same
 *   rounding, and truncates to an integer ("1.1KiB" -> 1126). The small
 *   binary float below reproduces big.Float's steps, so results agree with
 *   OPA's even where rounding shows.
 */

import { Value, StrV, NumV } from "../value";
import { parseNumberText, formatNumber } from "../number";
import { mulSmall } from "../decimal";
import { strArg } from "./text";
import { bi_lower } from "./strings-edit";

/** big.Float's default precision (bits), which SetString uses. */
const PREC: i32 = 64;
/** Exponents with more digits than this are refused (OPA: "exponent too large"). */
const MAX_EXPONENT_DIGITS: i32 = 6;
/** big.Rat.SetString refuses decimal exponents beyond this magnitude. */
const MAX_RAT_EXP5: i64 = 1000000;

// ------------------------------------------------------------ natural numbers
// Little-endian base-2^32, no high zero words (zero is the empty array).

type Nat = Array<u32>;

function trim(x: Nat): Nat {
  while (x.length > 0 && x[x.length - 1] == 0) x.pop();
  return x;
}

function natOf(v: u64): Nat {
  const x = new Array<u32>();
  x.push(<u32>v);
  x.push(<u32>(v >>> 32));
  return trim(x);
}

function mul(a: Nat, b: Nat): Nat {
  if (a.length == 0 || b.length == 0) return new Array<u32>();
  const out = new Array<u32>(a.length + b.length);
  for (let i = 0; i < a.length; i++) {
    let carry: u64 = 0;
    const ai = <u64>unchecked(a[i]);
    for (let j = 0; j < b.length; j++) {
      const t = ai * <u64>unchecked(b[j]) + <u64>unchecked(out[i + j]) + carry;
      unchecked((out[i + j] = <u32>t));
      carry = t >>> 32;
    }
    unchecked((out[i + b.length] = <u32>carry));
  }
  return trim(out);
}

function bitLen(x: Nat): i64 {
  if (x.length == 0) return 0;
  return <i64>(x.length - 1) * 32 + (32 - clz<u32>(x[x.length - 1]));
}

function testBit(x: Nat, i: i64): bool {
  const w = <i32>(i >>> 5);
  return w < x.length && ((unchecked(x[w]) >>> <u32>(i & 31)) & 1) != 0;
}

/** True when any of the low n bits of x is set. */
function lowBitsSet(x: Nat, n: i64): bool {
  const words = n >>> 5 < <i64>x.length ? <i32>(n >>> 5) : x.length;
  for (let i = 0; i < words; i++) if (unchecked(x[i]) != 0) return true;
  const r = <u32>(n & 31);
  return r != 0 && words < x.length && (unchecked(x[words]) & ((1 << r) - 1)) != 0;
}

function shl(x: Nat, n: i64): Nat {
  if (x.length == 0) return new Array<u32>();
  const words = <i32>(n >>> 5);
  const r = <u32>(n & 31);
  const out = new Array<u32>(words + x.length + 1);
  for (let i = 0; i < x.length; i++) {
    const v = unchecked(x[i]);
    unchecked((out[i + words] |= v << r));
    if (r) unchecked((out[i + words + 1] = v >>> (32 - r)));
  }
  return trim(out);
}

function shr(x: Nat, n: i64): Nat {
  const words = n >>> 5;
  if (words >= <i64>x.length) return new Array<u32>();
  const w = <i32>words;
  const r = <u32>(n & 31);
  const out = new Array<u32>(x.length - w);
  for (let i = 0; i < out.length; i++) {
    let v = unchecked(x[i + w]) >>> r;
    if (r && i + w + 1 < x.length) v |= unchecked(x[i + w + 1]) << (32 - r);
    unchecked((out[i] = v));
  }
  return trim(out);
}

function cmp(a: Nat, b: Nat): i32 {
  if (a.length != b.length) return a.length < b.length ? -1 : 1;
  for (let i = a.length - 1; i >= 0; i--) {
    const x = unchecked(a[i]);
    const y = unchecked(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

/** a - b, in place; a >= b. */
function subInPlace(a: Nat, b: Nat): Nat {
  let borrow: i64 = 0;
  for (let i = 0; i < a.length; i++) {
    let t = <i64>unchecked(a[i]) - (i < b.length ? <i64>unchecked(b[i]) : 0) - borrow;
    borrow = t < 0 ? 1 : 0;
    if (t < 0) t += 0x100000000;
    unchecked((a[i] = <u32>t));
  }
  return trim(a);
}

/** Whether the last div left a non-zero remainder. */
let divRest = false;

/** Quotient of a / b (b non-zero) by binary long division: the operands here are a few hundred bits. */
function div(a: Nat, b: Nat): Nat {
  const n = bitLen(a);
  const q = new Array<u32>(a.length);
  let r = new Array<u32>();
  for (let i = n - 1; i >= 0; i--) {
    r = shl(r, 1);
    if (testBit(a, i)) {
      if (r.length == 0) r.push(1);
      else r[0] |= 1;
    }
    if (cmp(r, b) >= 0) {
      r = subInPlace(r, b);
      q[<i32>(i >>> 5)] |= (<u32>1) << <u32>(i & 31);
    }
  }
  divRest = r.length > 0;
  return trim(q);
}

function natFromDigits(d: string): Nat {
  const x = new Array<u32>();
  for (let i = 0; i < d.length; i++) mulSmall(x, 10, <u32>(d.charCodeAt(i) - 0x30));
  return trim(x);
}

function natToDigits(x: Nat): string {
  if (x.length == 0) return "0";
  const m = x.slice(0);
  const parts = new Array<string>();
  while (m.length > 0) {
    // divide m by 10^9 in place, keeping the remainder
    let rem: u64 = 0;
    for (let i = m.length - 1; i >= 0; i--) {
      const cur = (rem << 32) | <u64>unchecked(m[i]);
      unchecked((m[i] = <u32>(cur / 1000000000)));
      rem = cur % 1000000000;
    }
    trim(m);
    parts.push(m.length > 0 ? rem.toString().padStart(9, "0") : rem.toString());
  }
  // one join: the allocator does not reclaim, so no repeated concatenation
  return parts.reverse().join("");
}

// ------------------------------------------------------------ splitting

/** The amount part of the last split (set by split). */
let amount = "";
/** The unit part of the last split. */
let unit = "";

/**
 * OPA's extractNumAndUnit: the amount runs while characters are digits,
 * '.', '+', '-' or an 'e'/'E' that is followed by a digit or sign (the
 * exponent); the rest is the unit. False when an exponent has more than
 * MAX_EXPONENT_DIGITS digits. Works on UTF-16 units where OPA works on
 * bytes: non-ASCII characters end the amount either way.
 */
function split(s: string): bool {
  const n = s.length;
  let cut = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const numeric = isDigit(c) || c == 0x2e || c == 0x2b || c == 0x2d;
    const e = c == 0x65 || c == 0x45;
    if (!numeric && !e) {
      cut = i;
      break;
    }
    if (!e) continue;
    const next = i + 1 < n ? s.charCodeAt(i + 1) : -1;
    if (!(isDigit(next) || next == 0x2b || next == 0x2d)) {
      cut = i;
      break;
    }
    if (next == 0x2b || next == 0x2d) i++;
    let end = i + 1;
    while (end < n && isDigit(s.charCodeAt(end))) end++;
    if (end - (i + 1) > MAX_EXPONENT_DIGITS) return false;
  }
  amount = cut < 0 ? s : s.substring(0, cut);
  unit = cut < 0 ? "" : s.substring(cut);
  return true;
}

// @ts-ignore: decorator
@inline function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

// ------------------------------------------------------------ number syntax

/** Parts of the last parsed amount: value = (negative ? -1 : 1) * digits * 10^exp10. */
let negative = false;
let mantDigits = "";
let exp10: i64 = 0;

/**
 * Go's decimal float syntax as big.Rat and big.Float read it:
 * [sign] (digits [. [digits]] | . digits) [(e|E) [sign] digits], the whole
 * string. (Base prefixes, underscores, "inf" and fractions a/b cannot occur:
 * the split leaves no such characters in the amount.)
 */
function parseAmount(s: string): bool {
  const n = s.length;
  let i = 0;
  negative = false;
  if (i < n && (s.charCodeAt(i) == 0x2b || s.charCodeAt(i) == 0x2d)) {
    negative = s.charCodeAt(i) == 0x2d;
    i++;
  }
  const start = i;
  let pointAt = -1;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x2e && pointAt < 0) pointAt = i;
    else if (!isDigit(c)) break;
  }
  const seen = i - start - (pointAt < 0 ? 0 : 1);
  const frac = pointAt < 0 ? 0 : i - pointAt - 1;
  // the digits without the point, then without leading zeros (one copy each: nothing is reclaimed)
  let digits = pointAt < 0 ? s.substring(start, i) : s.substring(start, pointAt) + s.substring(pointAt + 1, i);
  let lead = 0;
  while (lead < digits.length && digits.charCodeAt(lead) == 0x30) lead++;
  digits = digits.substring(lead);
  if (seen == 0) return false;
  let exp: i64 = 0;
  if (i < n && (s.charCodeAt(i) | 0x20) == 0x65) {
    i++;
    let expNeg = false;
    if (i < n && (s.charCodeAt(i) == 0x2b || s.charCodeAt(i) == 0x2d)) {
      expNeg = s.charCodeAt(i) == 0x2d;
      i++;
    }
    const expStart = i;
    // at most MAX_EXPONENT_DIGITS digits reach here (split refused more)
    for (; i < n && isDigit(s.charCodeAt(i)); i++) exp = exp * 10 + <i64>(s.charCodeAt(i) - 0x30);
    if (i == expStart) return false;
    if (expNeg) exp = -exp;
  }
  if (i != n) return false;
  mantDigits = digits;
  exp10 = exp - frac;
  return true;
}

// ------------------------------------------------------------ units.parse

/** The float64 nearest 0.001 (OPA's milli factor) is exactly MILLI_NUM * 2^-60, that is MILLI_NUM * 5^60 * 10^-60. */
const MILLI_NUM: u64 = 1152921504606847;

/** Decimal exponent of the last siFactor: 0, or -60 for milli. */
let unitScale: i64 = 0;

/**
 * The factor of a units.parse unit as an integer (times 10^unitScale), or
 * null for an unknown unit. The unit is matched as OPA does: its first
 * character as written (m is milli, M mega), the rest in lower case.
 */
function siFactor(u: string): Nat | null {
  unitScale = 0;
  if (u.length > 1) {
    if (u.charCodeAt(0) >= 0x80) return null; // no unit starts with a non-ASCII character
    u = u.charAt(0) + changetype<StrV>(bi_lower(new StrV(u.substring(1)))).value;
  }
  if (u == "") return natOf(1);
  if (u == "m") {
    const x = natOf(MILLI_NUM);
    for (let i = 0; i < 60; i++) mulSmall(x, 5, 0);
    unitScale = -60;
    return x;
  }
  // k or K, M (m is milli), g or G, ... alone: powers of 1000; followed by i: of 1024
  const c = u.charCodeAt(0);
  const lower = c >= 0x41 && c <= 0x5a ? c + 32 : c;
  const power = "kmgtpe".indexOf(String.fromCharCode(lower)) + 1;
  if (power == 0) return null;
  if (u.length == 1) return natOf(<u64>Math.pow(1000, power));
  if (u.length == 2 && u.charCodeAt(1) == 0x69) return natOf(<u64>1 << (10 * <u64>power));
  return null;
}

export function bi_units_parse(a: Value | null): Value | null {
  const raw = strArg(a);
  if (raw === null) return null;
  const s = raw.replaceAll("\"", "");
  if (s.includes(" ") || !split(s) || amount == "") return null;
  const factor = siFactor(unit);
  if (factor === null || !parseAmount(amount)) return null;
  if (exp10 > MAX_RAT_EXP5 || exp10 < -MAX_RAT_EXP5) return null;
  if (mantDigits.length == 0) return numberValue("0");
  let digits = natToDigits(mul(natFromDigits(mantDigits), factor));
  let scale = exp10 + unitScale;
  // value = digits * 10^scale; drop trailing zeros to see whether it is an integer
  let end = digits.length;
  while (scale < 0 && digits.charCodeAt(end - 1) == 0x30) {
    end--;
    scale++;
  }
  digits = digits.substring(0, end);
  const sign = negative ? "-" : "";
  if (scale >= 0) return numberValue(sign + digits + "0".repeat(<i32>scale));
  return fractionValue(sign + tenDecimals(digits, <i32>-scale));
}

/**
 * digits * 10^-fracLen (positive) rounded to 10 decimals, halves away
 * from zero, as big.Rat.FloatString(10) prints it.
 */
function tenDecimals(digits: string, fracLen: i32): string {
  if (fracLen > digits.length) digits = "0".repeat(fracLen - digits.length) + digits;
  let intPart = digits.length > fracLen ? digits.substring(0, digits.length - fracLen) : "0";
  let frac = digits.substring(digits.length - fracLen);
  if (frac.length <= 10) return intPart + "." + frac.padEnd(10, "0");
  const roundUp = frac.charCodeAt(10) >= 0x35;
  frac = frac.substring(0, 10);
  if (roundUp) {
    const up = natToDigits(mulSmall(natFromDigits(frac), 1, 1));
    if (up.length > 10) {
      intPart = natToDigits(mulSmall(natFromDigits(intPart), 1, 1));
      frac = up.substring(1);
    } else frac = up.padStart(10, "0");
  }
  return intPart + "." + frac;
}

/**
 * The number for this text (JSON number syntax). A result with more digits
 * than an f64 holds keeps its text, as a literal would, so it prints and
 * compares exactly.
 */
function numberValue(text: string): Value | null {
  const n = parseNumberText(text);
  if (n === null) return null;
  if (formatNumber(n) == text) return n;
  return new NumV(n.value, text);
}

/**
 * OPA's FloatString(10) text pads the fraction with zeros (1126.4000000000).
 * Such a number equals the literal 1126.4 in OPA; here a number whose text
 * is kept compares as that exact decimal, and 1126.4 written in a policy is
 * its f64, so the padding is dropped: the value is the literal 1126.4, and
 * prints as OPA prints that literal.
 */
function fractionValue(text: string): Value | null {
  let end = text.length;
  while (text.charCodeAt(end - 1) == 0x30) end--;
  if (text.charCodeAt(end - 1) == 0x2e) end--;
  text = text.substring(0, end);
  return numberValue(text == "-0" ? "0" : text);
}

// ------------------------------------------------------------ units.parse_bytes

/** A positive binary float: mant * 2^exp. */
class BinFloat {
  constructor(public mant: Nat, public exp: i64) {}
}

/** Rounds to prec bits, to nearest with ties to even; `rest` tells whether non-zero bits below mant were already dropped. */
function round(x: BinFloat, prec: i32, rest: bool = false): BinFloat {
  const n = bitLen(x.mant);
  if (n <= prec) return x;
  const drop = n - prec;
  const half = testBit(x.mant, drop - 1);
  const sticky = rest || lowBitsSet(x.mant, drop - 1);
  let m = shr(x.mant, drop);
  let e = x.exp + drop;
  if (half && (sticky || (m[0] & 1) != 0)) {
    m = mulSmall(m, 1, 1);
    if (bitLen(m) > prec) {
      m = shr(m, 1);
      e++;
    }
  }
  return new BinFloat(m, e);
}

function fmul(x: BinFloat, y: BinFloat, prec: i32): BinFloat {
  return round(new BinFloat(mul(x.mant, y.mant), x.exp + y.exp), prec);
}

/** x / y correctly rounded to prec bits (as big.Float.Quo). */
function fquo(x: BinFloat, y: BinFloat, prec: i32): BinFloat {
  // enough quotient bits that the rounding position lies above the last one
  let k = <i64>prec + 2 + bitLen(y.mant) - bitLen(x.mant);
  if (k < 0) k = 0;
  const q = div(shl(x.mant, k), y.mant);
  return round(new BinFloat(q, x.exp - k - y.exp), prec, divRest);
}

/** 5^n as big.Float's pow5 computes it for a 64-bit number: 128 bits, squaring at 192. */
function pow5(n: i64): BinFloat {
  const prec = PREC + 64;
  if (n <= 27) {
    let p: u64 = 1;
    for (let i: i64 = 0; i < n; i++) p *= 5;
    return new BinFloat(natOf(p), 0);
  }
  let z = new BinFloat(natOf(7450580596923828125), 0); // 5^27, the largest in a u64
  n -= 27;
  let f = new BinFloat(natOf(5), 0);
  while (n > 0) {
    if (n & 1) z = fmul(z, f, prec);
    f = fmul(f, f, prec + 64);
    n >>= 1;
  }
  return z;
}

/** Factor of a (lower-cased) units.parse_bytes unit, or 0 for an unknown one. */
function byteFactor(u: string): u64 {
  if (u == "") return 1;
  const power = "kmgtpe".indexOf(u.charAt(0)) + 1;
  if (power == 0) return 0;
  const rest = u.substring(1);
  if (rest == "" || rest == "b") return <u64>Math.pow(1000, power);
  if (rest == "i" || rest == "ib") return <u64>1 << (10 * <u64>power);
  return 0;
}

export function bi_units_parse_bytes(a: Value | null): Value | null {
  const raw = strArg(a);
  if (raw === null) return null;
  const s = changetype<StrV>(bi_lower(new StrV(raw))).value.replaceAll("\"", "");
  if (s.includes(" ") || !split(s) || amount == "") return null;
  const factor = byteFactor(unit);
  if (factor == 0 || !parseAmount(amount)) return null;
  if (mantDigits.length == 0) return numberValue("0");
  // big.Float.SetString: digits * 2^exp10, then times or divided by 5^|exp10|, rounded to 64 bits
  let x = new BinFloat(natFromDigits(mantDigits), exp10);
  if (exp10 == 0) x = round(x, PREC);
  else if (exp10 > 0) x = fmul(x, pow5(exp10), PREC);
  else x = fquo(x, pow5(-exp10), PREC);
  x = fmul(x, new BinFloat(natOf(factor), 0), PREC);
  // big.Float.Int: truncated toward zero
  const whole = x.exp >= 0 ? shl(x.mant, x.exp) : shr(x.mant, -x.exp);
  const digits = natToDigits(whole);
  return numberValue(negative && digits != "0" ? "-" + digits : digits);
}
