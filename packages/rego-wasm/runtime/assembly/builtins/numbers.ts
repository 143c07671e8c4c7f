/**
 * Number helpers shared by the arithmetic, bits, aggregate and other builtin
 * modules of this family. It defines no builtin, and index.ts does not
 * `export *` it, so these helpers do not become runtime exports (where their
 * names could collide with other families' helpers).
 *
 * Numbers are f64 here (OPA's are arbitrary precision): a result that is not
 * finite has no Rego value, so it makes the call undefined; -0 is returned as
 * 0 because Rego (like Go's big numbers) has no negative zero. Integers that
 * f64 cannot hold exactly go through the small big-integer type below.
 */
import { Value, NumV, num, asNum, T_NUMBER } from "../value";
import { EXACT_INT as EXACT, parseNumberText } from "../number";
import { decOf, decIsInt, decIntDigits } from "./strconv-format";

/** The number value behind v, or null when v is not a number. */
export function numberOf(v: Value | null): NumV | null {
  if (v === null || v.kind != T_NUMBER) return null;
  return asNum(v);
}

/** True for finite f64s without a fraction. */
export function isIntegral(f: f64): bool {
  return isFinite(f) && Math.floor(f) == f;
}

/** True when v is a number holding an integer (OPA's `builtins.BigIntOperand`). */
export function isIntValue(v: Value | null): bool {
  return v !== null && v.kind == T_NUMBER && isIntegral(asNum(v).value);
}

/** A computed number as a value: undefined when not finite, -0 folded to 0. */
export function numResult(f: f64): Value | null {
  if (!isFinite(f)) return null;
  return num(f == 0 ? 0 : f);
}

// ------------------------------------------------------------ exact integers
//
// OPA computes with arbitrary precision; f64 is exact only below 2^53. When
// integer operands carry literal text (NumV.text: beyond f64), lie beyond
// 2^53, or a result leaves the exact range, plus/minus/mul/div/rem, abs,
// round/ceil/floor, numbers.range and sum/product switch to these
// sign-magnitude decimal integers (base 1e9 limbs, little endian) and return
// a NumV that keeps the exact text, which printing, sprintf and comparison
// honour. Ordinary numbers never get here: no allocation on the f64 path.

const BASE: u64 = 1000000000;

export class BigInt {
  constructor(public neg: bool, public mag: Array<u32>) {}
}

function trimMag(m: Array<u32>): Array<u32> {
  while (m.length > 0 && m[m.length - 1] == 0) m.pop();
  return m;
}

/** Magnitude from a string of decimal digits. */
function magFromDigits(d: string): Array<u32> {
  const m = new Array<u32>();
  for (let end = d.length; end > 0; end -= 9) {
    const start = end > 9 ? end - 9 : 0;
    m.push(<u32>I32.parseInt(d.substring(start, end), 10));
  }
  return trimMag(m);
}

function magToDigits(m: Array<u32>): string {
  if (m.length == 0) return "0";
  let s = m[m.length - 1].toString();
  for (let i = m.length - 2; i >= 0; i--) s += m[i].toString().padStart(9, "0");
  return s;
}

/** Integers with more digits than this stay on f64 (1e100000 from input is not worth a million-digit string). */
const MAX_INT_DIGITS: i32 = 10000;

/**
 * The exact integer behind n, or null when n is not an integer: its kept
 * text when it has one ("2.50e1" is 25, as big.Float makes it for OPA),
 * else the decimal the f64 stands for (its shortest form beyond 2^53, so
 * the literal 1e30 is 10^30, not the binary 1000000000000000019884624838656).
 */
export function bigOf(n: NumV): BigInt | null {
  const f = n.value;
  if (n.text === null && Math.abs(f) < EXACT) {
    if (!isIntegral(f)) return null;
    return new BigInt(f < 0, magFromDigits((<u64>Math.abs(f)).toString()));
  }
  // An integer's f64 is integral (rounding cannot create a fraction).
  if (!isIntegral(f) && isFinite(f)) return null;
  const d = decOf(n);
  if (!decIsInt(d) || d.dp > MAX_INT_DIGITS) return null;
  return bigFromDigits(d.neg, decIntDigits(d));
}

/** The integer with decimal magnitude `digits` (no sign, no leading zeros needed). */
export function bigFromDigits(neg: bool, digits: string): BigInt {
  const mag = magFromDigits(digits);
  return new BigInt(neg && mag.length > 0, mag);
}

/**
 * A number value for b: the f64, plus the exact digits as text when the
 * integer is beyond 2^53 (so it prints in full, as OPA prints integers, and
 * compares exactly). Smaller integers are exact f64s and carry no text.
 */
export function bigToValue(b: BigInt): NumV {
  const d = magToDigits(b.mag);
  const s = b.neg && d != "0" ? "-" + d : d;
  const v = parseNumberText(s);
  if (v === null) return new NumV(0);
  if (v.text === null && !(Math.abs(v.value) < EXACT)) return new NumV(v.value, s);
  return v;
}

function magCmp(x: Array<u32>, y: Array<u32>): i32 {
  if (x.length != y.length) return x.length < y.length ? -1 : 1;
  for (let i = x.length - 1; i >= 0; i--) if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

function magAdd(x: Array<u32>, y: Array<u32>): Array<u32> {
  const out = new Array<u32>();
  let carry: u64 = 0;
  for (let i = 0; i < max(x.length, y.length); i++) {
    const s = carry + <u64>(i < x.length ? x[i] : 0) + <u64>(i < y.length ? y[i] : 0);
    out.push(<u32>(s % BASE));
    carry = s / BASE;
  }
  if (carry > 0) out.push(<u32>carry);
  return out;
}

/** x - y for x >= y. */
function magSub(x: Array<u32>, y: Array<u32>): Array<u32> {
  const out = new Array<u32>();
  let borrow: i64 = 0;
  for (let i = 0; i < x.length; i++) {
    let d = <i64>x[i] - borrow - <i64>(i < y.length ? y[i] : 0);
    borrow = d < 0 ? 1 : 0;
    if (d < 0) d += <i64>BASE;
    out.push(<u32>d);
  }
  return trimMag(out);
}

function magMulSmall(x: Array<u32>, k: u32): Array<u32> {
  const out = new Array<u32>();
  let carry: u64 = 0;
  for (let i = 0; i < x.length; i++) {
    const p = <u64>x[i] * <u64>k + carry;
    out.push(<u32>(p % BASE));
    carry = p / BASE;
  }
  if (carry > 0) out.push(<u32>carry);
  return trimMag(out);
}

export function bigAdd(x: BigInt, y: BigInt): BigInt {
  if (x.neg == y.neg) return new BigInt(x.neg, magAdd(x.mag, y.mag));
  const c = magCmp(x.mag, y.mag);
  if (c == 0) return new BigInt(false, new Array<u32>());
  return c > 0 ? new BigInt(x.neg, magSub(x.mag, y.mag)) : new BigInt(y.neg, magSub(y.mag, x.mag));
}

export function bigNeg(x: BigInt): BigInt {
  return new BigInt(!x.neg, x.mag);
}

export function bigMul(x: BigInt, y: BigInt): BigInt {
  const out = new Array<u64>(x.mag.length + y.mag.length);
  // The bump allocator reuses rewound memory: new arrays are not guaranteed zeroed.
  for (let i = 0; i < out.length; i++) out[i] = 0;
  for (let i = 0; i < x.mag.length; i++) {
    let carry: u64 = 0;
    for (let j = 0; j < y.mag.length; j++) {
      const t = out[i + j] + <u64>x.mag[i] * <u64>y.mag[j] + carry;
      out[i + j] = t % BASE;
      carry = t / BASE;
    }
    out[i + y.mag.length] += carry;
  }
  const m = new Array<u32>(out.length);
  for (let i = 0; i < out.length; i++) m[i] = <u32>out[i];
  return new BigInt(x.neg != y.neg, trimMag(m));
}

/**
 * Truncated division like big.Int.QuoRem: [x quo y, x rem y], the quotient
 * rounded toward zero and the remainder with the sign of x; y is not zero.
 */
export function bigQuoRem(x: BigInt, y: BigInt): StaticArray<BigInt> {
  // Decimal long division: bring down one digit at a time, subtract y at most 9 times.
  const digits = magToDigits(x.mag);
  const q = new Array<i32>(digits.length);
  let r = new Array<u32>();
  for (let i = 0; i < digits.length; i++) {
    r = magAdd(magMulSmall(r, 10), magFromDigits(digits.charAt(i)));
    let k = 0;
    while (magCmp(r, y.mag) >= 0) {
      r = magSub(r, y.mag);
      k++;
    }
    unchecked((q[i] = 0x30 + k));
  }
  const quo = new BigInt(x.neg != y.neg, magFromDigits(String.fromCharCodes(q)));
  return [quo, new BigInt(x.neg, r)];
}

/**
 * True when f64 arithmetic on a and b may differ from OPA's exact integer
 * arithmetic: an operand kept its text or is beyond 2^53 (where f64
 * integers are sparse and stand for their shortest decimal), or the result
 * is. Otherwise both are exact f64s and so is an integer result.
 */
export function mayBeInexact(a: NumV, b: NumV, f64Result: f64): bool {
  return a.text !== null || b.text !== null ||
    !(Math.abs(a.value) < EXACT) || !(Math.abs(b.value) < EXACT) || !(Math.abs(f64Result) < EXACT);
}

/** Order of two big integers: -1, 0 or 1. */
export function bigCmp(x: BigInt, y: BigInt): i32 {
  const xz = x.mag.length == 0;
  const yz = y.mag.length == 0;
  const xneg = x.neg && !xz;
  const yneg = y.neg && !yz;
  if (xneg != yneg) return xneg ? -1 : 1;
  const c = magCmp(x.mag, y.mag);
  return xneg ? -c : c;
}
