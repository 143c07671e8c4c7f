/**
 * Correct rounding of decimal number text to f64, for the literals the fast
 * path in number.ts cannot convert exactly (more than 15 digits, exponents
 * beyond +-22).
 *
 * AssemblyScript's parseFloat is not usable here: it is off by powers of ten
 * for mantissas of 17 or more digits with an exponent ("4.0394508043451775e+45"
 * parses as 4e38). Instead: read all digits into a big integer, take a
 * floating-point approximation (a few units in the last place off), then
 * check it against the exact decimal value with big-integer arithmetic:
 * compare the decimal with the midpoints between the candidate and its
 * neighbours, step to the neighbour while the decimal lies beyond a midpoint,
 * and break ties to even (the classic "AlgorithmR" refinement). Runs only
 * for unusual literals, so simplicity wins over speed.
 */

import { NumV } from "./value";
import { formatF64 } from "./number";

/** Decimal digits beyond this many are ignored (such literals keep their text anyway). */
const MAX_DIGITS: i32 = 800;

/** Little-endian base-2^32 natural number. */
type Big = Array<u32>;

/** x * m + add, in place; returns x. */
export function mulSmall(x: Big, m: u32, add: u32): Big {
  let carry: u64 = add;
  for (let i = 0; i < x.length; i++) {
    const t = <u64>unchecked(x[i]) * m + carry;
    unchecked((x[i] = <u32>t));
    carry = t >>> 32;
  }
  if (carry) x.push(<u32>carry);
  return x;
}

function mulPow5(x: Big, e: i32): void {
  for (; e >= 13; e -= 13) mulSmall(x, 1220703125, 0); // 5^13
  let m: u32 = 1;
  for (; e > 0; e--) m *= 5;
  if (m > 1) mulSmall(x, m, 0);
}

function shiftLeft(x: Big, bits: i32): void {
  const words = bits >>> 5;
  const r = bits & 31;
  if (r) {
    let carry: u32 = 0;
    for (let i = 0; i < x.length; i++) {
      const v = unchecked(x[i]);
      unchecked((x[i] = (v << r) | carry));
      carry = v >>> (32 - r);
    }
    if (carry) x.push(carry);
  }
  if (words) {
    const n = x.length;
    for (let i = 0; i < words; i++) x.push(0);
    for (let i = n - 1; i >= 0; i--) unchecked((x[i + words] = x[i]));
    for (let i = 0; i < words; i++) unchecked((x[i] = 0));
  }
}

function trim(x: Big): void {
  while (x.length > 0 && x[x.length - 1] == 0) x.pop();
}

function compareBig(x: Big, y: Big): i32 {
  trim(x);
  trim(y);
  if (x.length != y.length) return x.length < y.length ? -1 : 1;
  for (let i = x.length - 1; i >= 0; i--) {
    const a = unchecked(x[i]);
    const b = unchecked(y[i]);
    if (a != b) return a < b ? -1 : 1;
  }
  return 0;
}

function fromU64(v: u64): Big {
  const x = new Array<u32>();
  x.push(<u32>v);
  x.push(<u32>(v >>> 32));
  return x;
}

/** Compares the decimal digits * 10^e10 with n * 2^p (a binary midpoint): -1, 0 or 1. */
function compareDecimal(digits: Big, e10: i32, n: u64, p: i32): i32 {
  const x = digits.slice(0);
  const y = fromU64(n);
  const px = e10;
  if (e10 >= 0) mulPow5(x, e10);
  else mulPow5(y, -e10);
  const k = min(px, p);
  shiftLeft(x, px - k);
  shiftLeft(y, p - k);
  return compareBig(x, y);
}

/** Set by decimalDigits: significant digit count and the first 19 of them as an integer. */
let digitCount: i32 = 0;
let leadDigits: u64 = 0;
let leadCount: i32 = 0;

/**
 * Parses the (validated, unsigned part of the) number at [ptr, end): the
 * significant digits into `out`, returning e10 with value = out * 10^e10.
 */
function decimalDigits(ptr: usize, end: usize, out: Big): i32 {
  let e10 = 0;
  let count = 0;
  let pointSeen = false;
  let p = ptr;
  let chunk: u32 = 0;
  let chunkLen = 0;
  leadDigits = 0;
  leadCount = 0;
  for (; p < end; p++) {
    const c = <u32>load<u8>(p);
    if (c == 0x2e) {
      pointSeen = true;
      continue;
    }
    if (c - 0x30 >= 10) break;
    if (pointSeen) e10--;
    if (count == 0 && c == 0x30) continue;
    if (count >= MAX_DIGITS) {
      if (!pointSeen) e10++; // dropped integer digit still scales the value
      continue;
    }
    count++;
    if (leadCount < 19) {
      leadDigits = leadDigits * 10 + <u64>(c - 0x30);
      leadCount++;
    }
    chunk = chunk * 10 + (c - 0x30);
    if (++chunkLen == 9) {
      mulSmall(out, 1000000000, chunk);
      chunk = 0;
      chunkLen = 0;
    }
  }
  if (chunkLen) {
    let m: u32 = 1;
    for (let i = 0; i < chunkLen; i++) m *= 10;
    mulSmall(out, m, chunk);
  }
  if (p < end) {
    p++; // 'e' / 'E'
    let neg = false;
    const s = load<u8>(p);
    if (s == 0x2d || s == 0x2b) {
      neg = s == 0x2d;
      p++;
    }
    let exp = 0;
    for (; p < end; p++) if (exp < 100000) exp = exp * 10 + <i32>(load<u8>(p) - 0x30);
    e10 += neg ? -exp : exp;
  }
  digitCount = count;
  return e10;
}

/**
 * An approximation within a few units in the last place: the first 19
 * significant digits as an integer, scaled by a power of ten.
 */
function approximate(e10: i32): f64 {
  let v = <f64>leadDigits;
  let e = e10 + digitCount - leadCount;
  if (e > 0) return v * (e > 308 ? Infinity : Math.pow(10, e));
  if (e < -300) {
    // 10^-e is not representable: divide in two steps
    v /= 1e300;
    e += 300;
  }
  return v / Math.pow(10, -e);
}

/**
 * The correctly rounded f64 of the decimal number text at [ptr, ptr+len)
 * (already validated; JSON number syntax).
 */
export function exactF64(ptr: usize, len: usize): f64 {
  const neg = load<u8>(ptr) == 0x2d;
  const digits = new Array<u32>();
  const e10 = decimalDigits(neg ? ptr + 1 : ptr, ptr + len, digits);
  trim(digits);
  if (digits.length == 0) return neg ? -0.0 : 0.0;
  // Far outside the f64 range the answer is clear without big numbers.
  const magnitude = digitCount + e10; // the value is below 10^magnitude
  if (magnitude > 310) return neg ? -Infinity : Infinity;
  if (magnitude < -330) return neg ? -0.0 : 0.0;
  let f = approximate(e10);
  for (let step = 0; step < 64 && isFinite(f); step++) {
    const bits = reinterpret<u64>(f);
    const biased = <i32>(bits >>> 52);
    const frac = bits & 0xfffffffffffff;
    // f = m * 2^e with m the 53-bit significand (subnormals: no hidden bit)
    const m: u64 = biased == 0 ? frac : frac | 0x10000000000000;
    const e: i32 = (biased == 0 ? 1 : biased) - 1075;
    const above = compareDecimal(digits, e10, 2 * m + 1, e - 1);
    if (above > 0 || (above == 0 && (m & 1))) {
      f = reinterpret<f64>(bits + 1);
      if (above == 0) break;
      continue;
    }
    if (m == 0) break; // zero: nothing below
    // The gap below is half as wide when m is the smallest normal significand.
    const below = m == 0x10000000000000 && biased > 1
      ? compareDecimal(digits, e10, 4 * m - 1, e - 2)
      : compareDecimal(digits, e10, 2 * m - 1, e - 1);
    if (below < 0 || (below == 0 && (m & 1))) {
      f = reinterpret<f64>(bits - 1);
      if (below == 0) break;
      continue;
    }
    break;
  }
  return neg ? -f : f;
}

/** Compares the decimal (ASCII digits) * 10^e10 with the finite, positive f64 v exactly: -1, 0 or 1. */
export function compareDecimalToF64(digits: string, e10: i32, v: f64): i32 {
  const big = new Array<u32>();
  for (let i = 0; i < digits.length; i++) mulSmall(big, 10, <u32>digits.charCodeAt(i) - 0x30);
  const bits = reinterpret<u64>(v);
  const biased = <i32>(bits >>> 52);
  const frac = bits & 0xfffffffffffff;
  const m: u64 = biased == 0 ? frac : frac | 0x10000000000000;
  return compareDecimal(big, e10, m, (biased == 0 ? 1 : biased) - 1075);
}

/** -1, 0 or 1: the sign of a number, exactly (a literal that underflowed to 0 still has one). */
function signOf(n: NumV): i32 {
  const text = n.text;
  if (text === null) return n.value < 0 ? -1 : n.value > 0 ? 1 : 0;
  const b = String.UTF8.encode(text);
  const p = changetype<usize>(b);
  const neg = load<u8>(p) == 0x2d;
  const digits = new Array<u32>();
  decimalDigits(neg ? p + 1 : p, p + <usize>b.byteLength, digits);
  trim(digits);
  return digits.length == 0 ? 0 : neg ? -1 : 1;
}

/** |text| as digits and exponent: returns e10, fills `out`. */
function textDigits(text: string, out: Big): i32 {
  const b = String.UTF8.encode(text);
  const p = changetype<usize>(b);
  const neg = load<u8>(p) == 0x2d;
  return decimalDigits(neg ? p + 1 : p, p + <usize>b.byteLength, out);
}

/**
 * Exact order of two numbers whose f64 values are equal but at least one of
 * which kept its text (so 28857836529306024611913 and ...912 differ, as in
 * Go OPA). A number without text stands for the decimal it prints as (the
 * literal 1e40 is 10^40, equal to a computed 10^40 that kept its digits).
 * Consistent with the f64 order, so the total order holds.
 */
export function compareExact(a: NumV, b: NumV): i32 {
  const sa = signOf(a);
  const sb = signOf(b);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  const ta = a.text;
  const tb = b.text;
  // A textless operand here is finite: an overflowed f64 (no literal is infinite) sorts above.
  if (ta === null && !isFinite(a.value)) return sa;
  if (tb === null && !isFinite(b.value)) return -sb;
  const x = new Array<u32>();
  const y = new Array<u32>();
  const ex = textDigits(ta !== null ? ta : formatF64(a.value), x);
  const ey = textDigits(tb !== null ? tb : formatF64(b.value), y);
  // bring both to the smaller exponent: multiply by 10^diff = 5^diff * 2^diff
  if (ex > ey) {
    mulPow5(x, ex - ey);
    shiftLeft(x, ex - ey);
  } else if (ey > ex) {
    mulPow5(y, ey - ex);
    shiftLeft(y, ey - ex);
  }
  const c = compareBig(x, y);
  return sa < 0 ? -c : c;
}
