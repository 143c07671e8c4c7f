/**
 * Arithmetic operators and rounding (OPA topdown/arithmetic.go): `+ - * / %`
 * as the builtins plus/minus/mul/div/rem, abs/round/ceil/floor, and
 * to_number, numbers.range, numbers.range_step (casts.go, numbers.go).
 *
 * Errors make the call undefined (non-strict mode): non-number operands,
 * division or modulo by zero, modulo on a fraction. `-` on two sets is set
 * difference. Numbers are f64, except that integers stay exact at any size
 * (big-integer fallback in numbers.ts), as OPA keeps them.
 */
import { Value, NumV, SetV, ArrV, num, asSet, asNum, asStr, asBool, T_SET, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING } from "../value";
import { EXACT_INT as EXACT, parseNumberText } from "../number";
import { numberOf, isIntegral, isIntValue, numResult, BigInt, bigOf, bigToValue, bigAdd, bigNeg, bigMul, bigQuoRem, bigFromDigits, mayBeInexact } from "./numbers";
import { decOf, decIsInt, decIntDigits } from "./strconv-format";


const OP_ADD = 0;
const OP_SUB = 1;
const OP_MUL = 2;

/**
 * The result of an integer-capable operation: f64 when that is exact, else
 * computed exactly on big integers when both operands are integers (OPA
 * keeps integers exact at any size), else the (rounded) f64 result.
 */
function intOp(x: NumV, y: NumV, f: f64, op: i32): Value | null {
  if (mayBeInexact(x, y, f)) {
    const p = bigOf(x);
    const q = bigOf(y);
    if (p !== null && q !== null) {
      const r: BigInt = op == OP_ADD ? bigAdd(p, q) : op == OP_SUB ? bigAdd(p, bigNeg(q)) : bigMul(p, q);
      return bigToValue(r);
    }
  }
  return numResult(f);
}

export function bi_plus(a: Value | null, b: Value | null): Value | null {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === null || y === null) return null;
  return intOp(x, y, x.value + y.value, OP_ADD);
}

export function bi_minus(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  if (a.kind == T_SET && b.kind == T_SET) return setDiff(asSet(a), asSet(b));
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === null || y === null) return null;
  return intOp(x, y, x.value - y.value, OP_SUB);
}

/** Elements of s1 not in s2; s1 is sorted, so the result is too. */
function setDiff(s1: SetV, s2: SetV): SetV {
  const out = new Array<Value>();
  const items = s1.items;
  for (let i = 0; i < items.length; i++) {
    const v = unchecked(items[i]);
    if (!s2.has(v)) out.push(v);
  }
  return new SetV(out);
}

export function bi_mul(a: Value | null, b: Value | null): Value | null {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === null || y === null) return null;
  return intOp(x, y, x.value * y.value, OP_MUL);
}

/**
 * Division: f64, except that an exact integer quotient of integers beyond
 * the f64-exact range is computed exactly (OPA divides those as big floats,
 * which for quotients within their 64-bit mantissa is exact too).
 */
export function bi_div(a: Value | null, b: Value | null): Value | null {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === null || y === null) return null;
  if (y.value == 0) return null; // "divide by zero"
  const f = x.value / y.value;
  if (mayBeInexact(x, y, f)) {
    const p = bigOf(x);
    const q = bigOf(y);
    if (p !== null && q !== null) {
      const qr = bigQuoRem(p, q);
      if (unchecked(qr[1]).mag.length == 0) return bigToValue(unchecked(qr[0]));
    }
  }
  return numResult(f);
}

/** Remainder on integers only (any size), with the sign of the dividend like big.Int.Rem. */
export function bi_rem(a: Value | null, b: Value | null): Value | null {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === null || y === null) return null;
  // Both exact small integers: f64 % truncates like big.Int.Rem and is exact.
  if (x.text === null && y.text === null && Math.abs(x.value) < EXACT && Math.abs(y.value) < EXACT &&
      isIntegral(x.value) && isIntegral(y.value)) {
    if (y.value == 0) return null; // "modulo by zero"
    return numResult(x.value % y.value);
  }
  // Go: "modulo on floating-point number", then "modulo by zero".
  const p = bigOf(x);
  const q = bigOf(y);
  if (p === null || q === null || q.mag.length == 0) return null;
  return bigToValue(unchecked(bigQuoRem(p, q)[1]));
}

/** |x|; a kept text loses its sign, so a big literal stays exact. */
export function bi_abs(a: Value | null): Value | null {
  const x = numberOf(a);
  if (x === null) return null;
  const t = x.text;
  if (t !== null) return t.startsWith("-") ? new NumV(-x.value, t.substring(1)) : a;
  return x.value < 0 ? numResult(-x.value) : a;
}

const R_ROUND = 0;
const R_CEIL = 1;
const R_FLOOR = 2;

/**
 * round/ceil/floor of a number that kept its text, on its exact decimal
 * digits (the f64 may have rounded 2.49999999999999999999 up to 2.5, or
 * lost the fraction of 9007199254740993.5 altogether).
 */
function roundExact(a: Value, x: NumV, mode: i32): Value | null {
  const d = decOf(x);
  if (decIsInt(d)) return a;
  // |x| = int . frac with frac non-zero; digit d.d[d.dp] (if dp >= 0) is the first fractional digit.
  const firstFrac = d.dp < 0 ? 0 : unchecked(d.d[d.dp]);
  const away = mode == R_ROUND ? firstFrac >= 5 : mode == R_CEIL ? !d.neg : d.neg;
  let m = bigFromDigits(false, decIntDigits(d));
  if (away) m = bigAdd(m, bigFromDigits(false, "1"));
  return bigToValue(new BigInt(d.neg, m.mag));
}

/** Half away from zero, like Go's arithRound (math.Round): round(-2.5) = -3. */
export function bi_round(a: Value | null): Value | null {
  const x = numberOf(a);
  if (x === null) return null;
  if (x.text !== null) return roundExact(a!, x, R_ROUND);
  const f = x.value;
  if (isIntegral(f)) return a;
  // trunc + a step away from zero when the dropped part is at least a half;
  // comparing the exact remainder avoids the f+0.5 rounding trap (0.49999999999999994).
  const t = Math.trunc(f);
  const r = Math.abs(f - t) >= 0.5 ? t + (f < 0 ? -1.0 : 1.0) : t;
  return numResult(r);
}

export function bi_ceil(a: Value | null): Value | null {
  const x = numberOf(a);
  if (x === null) return null;
  if (x.text !== null) return roundExact(a!, x, R_CEIL);
  return isIntegral(x.value) ? a : numResult(Math.ceil(x.value));
}

export function bi_floor(a: Value | null): Value | null {
  const x = numberOf(a);
  if (x === null) return null;
  if (x.text !== null) return roundExact(a!, x, R_FLOOR);
  return isIntegral(x.value) ? a : numResult(Math.floor(x.value));
}

// ------------------------------------------------------------ to_number

export function bi_to_number(a: Value | null): Value | null {
  if (a === null) return null;
  switch (a.kind) {
    case T_NULL:
      return num(0);
    case T_BOOLEAN:
      return num(asBool(a).value ? 1 : 0);
    case T_NUMBER:
      return a;
    case T_STRING:
      return parseGoFloat(asStr(a).value);
  }
  return null;
}

/**
 * Parses s as Go's strconv.ParseFloat(s, 64) would accept it, minus the
 * infinities and NaN that OPA rejects: decimal (`+1`, `.5`, `5.`, `1e3`) and
 * hexadecimal (`0x1.8p1`, underscores allowed between digits) forms.
 */
function parseGoFloat(s: string): Value | null {
  const n = s.length;
  let i = 0;
  let neg = false;
  if (i < n && (s.charCodeAt(i) == 43 || s.charCodeAt(i) == 45)) {
    neg = s.charCodeAt(i) == 45;
    i++;
  }
  if (i + 1 < n && s.charCodeAt(i) == 48 && (s.charCodeAt(i + 1) | 0x20) == 120) {
    const f = parseHexFloat(s, i + 2);
    if (isNaN(f)) return null;
    return numResult(neg ? -f : f);
  }
  // Decimal: digits [. digits] [e [+-] digits], with at least one mantissa digit.
  const start = i;
  let digits = 0;
  while (i < n && isDigit(s.charCodeAt(i))) { i++; digits++; }
  const intEnd = i;
  let fracStart = i;
  let fracEnd = i;
  if (i < n && s.charCodeAt(i) == 46) {
    i++;
    fracStart = i;
    while (i < n && isDigit(s.charCodeAt(i))) { i++; digits++; }
    fracEnd = i;
  }
  if (digits == 0) return null;
  let exp = "";
  if (i < n && (s.charCodeAt(i) | 0x20) == 101) {
    const e0 = i;
    i++;
    if (i < n && (s.charCodeAt(i) == 43 || s.charCodeAt(i) == 45)) i++;
    const d0 = i;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
    if (i == d0) return null;
    exp = s.substring(e0, i);
  }
  if (i != n) return null;
  // Rewrite into JSON number syntax so the shared number parser (which keeps
  // the exact text of numbers an f64 cannot hold) can read it.
  // JSON allows no leading zeros ("007" is 7 for Go).
  let intFrom = start;
  while (intFrom + 1 < intEnd && s.charCodeAt(intFrom) == 48) intFrom++;
  let intPart = s.substring(intFrom, intEnd);
  if (intPart.length == 0) intPart = "0";
  let text = (neg ? "-" : "") + intPart;
  if (fracEnd > fracStart) text += "." + s.substring(fracStart, fracEnd);
  text += exp;
  const v = parseNumberText(text);
  if (v === null || !isFinite(v.value)) return null; // Go: ErrRange
  return v.value == 0 && v.text === null ? num(0) : v;
}

/** Value of a Go hex float body (after `0x`): mantissa and mandatory `p` exponent; NaN if malformed. */
function parseHexFloat(s: string, from: i32): f64 {
  const n = s.length;
  let i = from;
  let mant: f64 = 0;
  let digits = 0;
  let fracDigits = 0;
  let seenDot = false;
  let prevDigit = true; // "0x_1" is allowed: an underscore may follow the prefix
  while (i < n) {
    const c = s.charCodeAt(i);
    const d = hexVal(c);
    if (d >= 0) {
      mant = mant * 16 + <f64>d;
      digits++;
      if (seenDot) fracDigits++;
      prevDigit = true;
    } else if (c == 95) {
      // '_' must sit between digits
      if (!prevDigit || i + 1 >= n || hexVal(s.charCodeAt(i + 1)) < 0) return NaN;
      prevDigit = false;
    } else if (c == 46 && !seenDot) {
      seenDot = true;
      prevDigit = false;
    } else break;
    i++;
  }
  if (digits == 0 || i >= n || (s.charCodeAt(i) | 0x20) != 112) return NaN;
  i++;
  let eneg = false;
  if (i < n && (s.charCodeAt(i) == 43 || s.charCodeAt(i) == 45)) {
    eneg = s.charCodeAt(i) == 45;
    i++;
  }
  let e = 0;
  const e0 = i;
  while (i < n && isDigit(s.charCodeAt(i))) {
    if (e < 100000) e = e * 10 + (s.charCodeAt(i) - 48);
    i++;
  }
  if (i == e0 || i != n) return NaN;
  const exp = (eneg ? -e : e) - 4 * fracDigits;
  return mant * Math.pow(2, <f64>exp);
}

// @ts-ignore: decorator
@inline function isDigit(c: i32): bool {
  return c >= 48 && c <= 57;
}

function hexVal(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

// ------------------------------------------------------------ ranges

export function bi_numbers_range(a: Value | null, b: Value | null): Value | null {
  if (!isIntValue(a) || !isIntValue(b)) return null;
  const x = asNum(a!);
  const y = asNum(b!);
  if (isSmall(x) && isSmall(y)) return range(x.value, y.value, 1);
  return bigRange(x, y, bigFromDigits(false, "1"));
}

export function bi_numbers_range_step(a: Value | null, b: Value | null, step: Value | null): Value | null {
  if (!isIntValue(a) || !isIntValue(b) || !isIntValue(step)) return null;
  const x = asNum(a!);
  const y = asNum(b!);
  const s = asNum(step!);
  if (s.value <= 0) return null; // "step must be a positive integer"
  if (isSmall(x) && isSmall(y) && isSmall(s)) return range(x.value, y.value, s.value);
  const q = bigOf(s);
  return q === null ? null : bigRange(x, y, q);
}

/** An integer f64 is exact and its loop arithmetic too. */
function isSmall(n: NumV): bool {
  return n.text === null && Math.abs(n.value) < EXACT;
}

/** range() on exact integers, for bounds or steps beyond 2^53 (OPA's big.Int loop). */
function bigRange(a: NumV, b: NumV, step: BigInt): ArrV | null {
  const x = bigOf(a);
  const y = bigOf(b);
  if (x === null || y === null) return null; // a fraction the f64 lost: not an integer
  const diff = bigAdd(y, bigNeg(x));
  const count = bigToValue(unchecked(bigQuoRem(new BigInt(false, diff.mag), step)[0])).value + 1;
  if (count > <f64>(1 << 28)) return null;
  const n = <i32>count;
  const inc = diff.neg ? bigNeg(step) : step;
  const out = new Array<Value>(n);
  let v = x;
  for (let k = 0; k < n; k++) {
    unchecked((out[k] = bigToValue(v)));
    v = bigAdd(v, inc);
  }
  return new ArrV(out);
}

/**
 * Integers from x towards y (inclusive) by step, descending when x > y, for
 * bounds and step below 2^53 (bigRange takes the others). A range too long
 * to allocate is undefined rather than a trap.
 */
function range(x: f64, y: f64, step: f64): ArrV | null {
  const count = Math.floor(Math.abs(y - x) / step) + 1;
  if (count > <f64>(1 << 28)) return null;
  const n = <i32>count;
  const dir: f64 = x <= y ? 1 : -1;
  const out = new Array<Value>(n);
  for (let k = 0; k < n; k++) {
    const v = x + dir * <f64>k * step;
    unchecked((out[k] = num(v == 0 ? 0 : v)));
  }
  return new ArrV(out);
}
