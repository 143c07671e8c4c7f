/**
 * Number formatting as Go's strconv does it, for sprintf and format_int:
 * exact decimal expansion of numbers, correctly rounded %e/%f/%g, hex and
 * binary float forms, and integer digits in bases 2/8/10/16 at any size.
 * A helper module (index.ts does not re-export it); the builtins using it
 * are in sprintf.ts.
 *
 * A number is turned into a `Dec` (decimal digits + decimal point position,
 * Go's strconv `decimal`): exactly from its literal text when the value kept
 * one (big integers, long fractions), else exactly from the f64's binary
 * value. Rounding is on those exact digits, half to even on exact ties, which
 * is what strconv's correctly rounded conversions produce.
 */

import { NumV } from "../value";
import { EXACT_INT, formatF64 } from "../number";

/** value = 0.d[0]d[1]... x 10^dp; digits are 0..9, no trailing zeros; nd == 0 means zero. */
export class Dec {
  neg: bool = false;
  d: Array<i32> = new Array<i32>();
  dp: i32 = 0;
}

function trim(a: Dec): void {
  let n = a.d.length;
  while (n > 0 && a.d[n - 1] == 0) n--;
  a.d.length = n;
  if (n == 0) a.dp = 0;
}

// ------------------------------------------------------------ exact expansions

/** Little-endian base-1e9 big natural number helpers. */
function mulSmall(limbs: Array<u32>, m: u64): void {
  let carry: u64 = 0;
  for (let i = 0; i < limbs.length; i++) {
    const x = <u64>unchecked(limbs[i]) * m + carry;
    unchecked((limbs[i] = <u32>(x % 1000000000)));
    carry = x / 1000000000;
  }
  while (carry > 0) {
    limbs.push(<u32>(carry % 1000000000));
    carry /= 1000000000;
  }
}

function limbDigits(limbs: Array<u32>): Array<i32> {
  const out = new Array<i32>();
  for (let i = limbs.length - 1; i >= 0; i--) {
    let x = unchecked(limbs[i]);
    const chunk = new Array<i32>(9);
    for (let k = 8; k >= 0; k--) {
      unchecked((chunk[k] = <i32>(x % 10)));
      x /= 10;
    }
    for (let k = 0; k < 9; k++) if (out.length > 0 || chunk[k] != 0) out.push(chunk[k]);
  }
  return out;
}

/** The exact decimal value of a finite f64. */
export function decFromF64(v: f64): Dec {
  const a = new Dec();
  const bits = reinterpret<u64>(v);
  a.neg = (bits >> 63) != 0;
  const e = <i32>((bits >> 52) & 0x7ff);
  let mant = bits & 0xfffffffffffff;
  let exp2: i32;
  if (e == 0) exp2 = -1074;
  else {
    mant |= <u64>1 << 52;
    exp2 = e - 1075;
  }
  if (mant == 0) return a;
  const limbs = new Array<u32>();
  limbs.push(<u32>(mant % 1000000000));
  if (mant >= 1000000000) limbs.push(<u32>((mant / 1000000000) % 1000000000));
  if (mant >= 1000000000000000000) limbs.push(<u32>(mant / 1000000000000000000));
  if (exp2 >= 0) {
    for (let k = exp2; k > 0; k -= 29) mulSmall(limbs, <u64>1 << <u64>(k < 29 ? k : 29));
    a.d = limbDigits(limbs);
    a.dp = a.d.length;
  } else {
    // m * 2^-k = m * 5^k / 10^k
    for (let k = -exp2; k > 0; k -= 13) {
      let p: u64 = 1;
      for (let j = 0; j < (k < 13 ? k : 13); j++) p *= 5;
      mulSmall(limbs, p);
    }
    a.d = limbDigits(limbs);
    a.dp = a.d.length + exp2;
  }
  trim(a);
  return a;
}

/** The exact value of JSON number text; null when it is not one. */
export function decFromText(s: string): Dec | null {
  const a = new Dec();
  let i = 0;
  const n = s.length;
  if (i < n && s.charCodeAt(i) == 0x2d) {
    a.neg = true;
    i++;
  }
  let sawDigit = false;
  let sawDot = false;
  let dp = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x2e) {
      if (sawDot) return null;
      sawDot = true;
      continue;
    }
    if (c < 0x30 || c > 0x39) break;
    sawDigit = true;
    if (c == 0x30 && a.d.length == 0) {
      if (sawDot) dp--; // leading zeros of a fraction shift the point
      continue;
    }
    a.d.push(c - 0x30);
    if (!sawDot) dp++;
  }
  if (!sawDigit) return null;
  if (i < n) {
    if ((s.charCodeAt(i) | 0x20) != 0x65) return null;
    i++;
    let eneg = false;
    if (i < n && (s.charCodeAt(i) == 0x2b || s.charCodeAt(i) == 0x2d)) eneg = s.charCodeAt(i++) == 0x2d;
    if (i >= n) return null;
    let e = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return null;
      if (e < 100000000) e = e * 10 + (c - 0x30);
    }
    dp += eneg ? -e : e;
  }
  a.dp = dp;
  trim(a);
  return a;
}

/**
 * The decimal a number value stands for: its literal text when it kept one;
 * else, below 2^53, the f64's exact value; else the f64's shortest decimal
 * form, since the value model guarantees literals of up to 15 significant
 * digits survive as exactly that form (1.5e30 is 1500...0 to OPA, not the
 * binary 1499999999999999889...).
 */
export function decOf(n: NumV): Dec {
  const t = n.text;
  if (t !== null) {
    const d = decFromText(t);
    if (d !== null) return d;
  }
  if (Math.abs(n.value) >= EXACT_INT) return shortestDec(n.value);
  return decFromF64(n.value);
}

/** Whether the decimal is a whole number. */
export function decIsInt(a: Dec): bool {
  return a.d.length <= a.dp || a.d.length == 0;
}

/** Decimal digits of the integer part (truncation toward zero), "0" for none. */
export function decIntDigits(a: Dec): string {
  if (a.dp <= 0 || a.d.length == 0) return "0";
  const parts = new Array<string>();
  for (let i = 0; i < a.dp; i++) parts.push(i < a.d.length ? String.fromCharCode(0x30 + a.d[i]) : "0");
  return parts.join("");
}

// ------------------------------------------------------------ rounding (strconv decimal.Round)

function shouldRoundUp(a: Dec, nd: i32): bool {
  if (a.d[nd] == 5 && nd + 1 == a.d.length) return nd > 0 && (a.d[nd - 1] & 1) == 1; // exact tie: to even
  return a.d[nd] >= 5;
}

/** Rounds to nd significant digits. */
export function roundDec(a: Dec, nd: i32): void {
  if (nd < 0 || nd >= a.d.length) return;
  if (shouldRoundUp(a, nd)) {
    for (let i = nd - 1; i >= 0; i--) {
      if (a.d[i] < 9) {
        a.d[i]++;
        a.d.length = i + 1;
        return;
      }
    }
    a.d.length = 1; // all nines
    a.d[0] = 1;
    a.dp++;
  } else {
    a.d.length = nd;
    trim(a);
  }
}

/**
 * Shortest digits that read back as v: number.ts's formatF64 (JS's
 * Number#toString, which fixes Grisu2's rare longer outputs such as
 * 9.999999999999999e+22 for 1e23), whose text we parse.
 */
export function shortestDec(v: f64): Dec {
  const neg = v < 0 || (v == 0 && 1 / v < 0);
  const d = decFromText(formatF64(Math.abs(v)));
  const a = d !== null ? d : decFromF64(v);
  a.neg = neg;
  return a;
}

// ------------------------------------------------------------ strconv formats

function digitsOut(parts: Array<string>, a: Dec, from: i32, to: i32): void {
  for (let i = from; i < to; i++) parts.push(i >= 0 && i < a.d.length ? String.fromCharCode(0x30 + a.d[i]) : "0");
}

/** strconv fmtE: d.ddde±dd (no sign). */
export function fmtE(a: Dec, prec: i32, upper: bool): string {
  const parts = new Array<string>();
  parts.push(a.d.length > 0 ? String.fromCharCode(0x30 + a.d[0]) : "0");
  if (prec > 0) {
    parts.push(".");
    digitsOut(parts, a, 1, prec + 1);
  }
  parts.push(upper ? "E" : "e");
  let exp = a.d.length == 0 ? 0 : a.dp - 1;
  parts.push(exp < 0 ? "-" : "+");
  if (exp < 0) exp = -exp;
  if (exp < 10) parts.push("0");
  parts.push(exp.toString());
  return parts.join("");
}

/** strconv fmtF: ddd.ddd (no sign). */
export function fmtF(a: Dec, prec: i32): string {
  const parts = new Array<string>();
  if (a.dp > 0) digitsOut(parts, a, 0, a.dp);
  else parts.push("0");
  if (prec > 0) {
    parts.push(".");
    digitsOut(parts, a, a.dp, a.dp + prec);
  }
  return parts.join("");
}

/**
 * strconv.FormatFloat(v, verb, prec, 64) for verbs e E f F g G b x X, with the
 * sign ("-" only) included; prec < 0 means shortest.
 */
export function formatFloat(v: f64, verb: i32, prec: i32): string {
  if (isNaN(v)) return "NaN";
  if (!isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (verb == 0x62) return fmtB(v); // b
  if (verb == 0x78 || verb == 0x58) return fmtX(v, prec, verb == 0x58);
  const shortest = prec < 0;
  let a: Dec;
  const lv = verb | 0x20;
  if (shortest) a = shortestDec(v);
  else {
    a = decFromF64(v);
    if (lv == 0x65) roundDec(a, prec + 1);
    else if (lv == 0x66) roundDec(a, a.dp + prec);
    else {
      if (prec == 0) prec = 1;
      roundDec(a, prec);
    }
  }
  const sign = a.neg ? "-" : "";
  if (lv == 0x65) return sign + fmtE(a, shortest ? max(a.d.length - 1, 0) : prec, verb == 0x45);
  if (lv == 0x66) return sign + fmtF(a, shortest ? max(a.d.length - a.dp, 0) : prec);
  // %g
  if (shortest) prec = a.d.length;
  let eprec = prec;
  if (eprec > a.d.length && a.d.length >= a.dp) eprec = a.d.length;
  if (shortest) eprec = 6;
  const exp = a.dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec > a.d.length) prec = a.d.length;
    return sign + fmtE(a, prec - 1, verb == 0x47);
  }
  if (prec > a.dp) prec = a.d.length;
  return sign + fmtF(a, max(prec - a.dp, 0));
}

/** strconv %b: mantissa "p" binary exponent, e.g. 4503599627370496p-52. */
function fmtB(v: f64): string {
  const bits = reinterpret<u64>(v);
  const e = <i32>((bits >> 52) & 0x7ff);
  let mant = bits & 0xfffffffffffff;
  let exp = e == 0 ? -1074 : e - 1075;
  if (e != 0) mant |= <u64>1 << 52;
  return ((bits >> 63) != 0 ? "-" : "") + mant.toString() + "p" + (exp >= 0 ? "+" : "") + exp.toString();
}

/** strconv %x: -0x1.yyyyp±dd, mantissa rounded to prec hex digits (half to even). */
function fmtX(v: f64, prec: i32, upper: bool): string {
  const bits = reinterpret<u64>(v);
  const e = <i32>((bits >> 52) & 0x7ff);
  let mant = bits & 0xfffffffffffff;
  let exp: i32;
  if (e == 0) exp = -1022;
  else {
    mant |= <u64>1 << 52;
    exp = e - 1023;
  }
  if (mant == 0) exp = 0;
  mant <<= 8; // leading bit at 1<<60
  while (mant != 0 && (mant & (<u64>1 << 60)) == 0) {
    mant <<= 1;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = <u64>(prec * 4);
    const extra = (mant << shift) & ((<u64>1 << 60) - 1);
    mant >>= 60 - shift;
    if ((extra | (mant & 1)) > (<u64>1 << 59)) mant++;
    mant <<= 60 - shift;
    if ((mant & (<u64>1 << 61)) != 0) {
      mant >>= 1;
      exp++;
    }
  }
  const hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  const parts = new Array<string>();
  if ((bits >> 63) != 0) parts.push("-");
  parts.push(upper ? "0X" : "0x");
  parts.push(((mant >> 60) & 1).toString());
  mant <<= 4;
  if ((prec < 0 && mant != 0) || prec > 0) {
    parts.push(".");
    if (prec < 0) {
      while (mant != 0) {
        parts.push(hex.charAt(<i32>((mant >> 60) & 15)));
        mant <<= 4;
      }
    } else {
      for (let i = 0; i < prec; i++) {
        parts.push(hex.charAt(<i32>((mant >> 60) & 15)));
        mant <<= 4;
      }
    }
  }
  parts.push(upper ? "P" : "p");
  parts.push(exp < 0 ? "-" : "+");
  if (exp < 0) exp = -exp;
  if (exp < 10) parts.push("0");
  parts.push(exp.toString());
  return parts.join("");
}

// ------------------------------------------------------------ integers in any base

/** Converts unsigned decimal digits to base 2, 8, 10 or 16 (lower-case), at any size. */
export function decimalToBase(digits: string, base: i32): string {
  if (base == 10) return digits;
  const num = new Array<i32>(digits.length);
  for (let i = 0; i < digits.length; i++) unchecked((num[i] = digits.charCodeAt(i) - 0x30));
  const out = new Array<i32>();
  let start = 0;
  while (start < num.length && num[start] == 0) start++;
  if (start == num.length) return "0";
  while (start < num.length) {
    let rem = 0;
    for (let i = start; i < num.length; i++) {
      const cur = rem * 10 + unchecked(num[i]);
      unchecked((num[i] = cur / base));
      rem = cur % base;
    }
    out.push(rem < 10 ? 0x30 + rem : 0x57 + rem);
    while (start < num.length && num[start] == 0) start++;
  }
  out.reverse();
  return String.fromCharCodes(out);
}
