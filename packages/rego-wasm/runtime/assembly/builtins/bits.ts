/**
 * Bitwise builtins `bits.*` (OPA topdown/bits.go): integers only, in two's
 * complement, a negative shift count is an error (undefined here).
 *
 * OPA works on big integers; here and/or/xor/negate run on i64, so operands
 * outside [-2^63, 2^63) make the call undefined rather than wrong. Shifts are
 * multiplications/floor-divisions by powers of two, exact on f64 whenever
 * the result is representable.
 */
import { Value, asNum } from "../value";
import { isIntValue, numResult } from "./numbers";

const TWO_63: f64 = 9223372036854775808.0;

/** True when v is an integer number that fits an i64. */
function isI64(v: Value | null): bool {
  if (!isIntValue(v)) return false;
  const f = asNum(v!).value;
  return f >= -TWO_63 && f < TWO_63;
}

// @ts-ignore: decorator
@inline function i64Of(v: Value | null): i64 {
  return <i64>asNum(v!).value;
}

export function bi_bits_and(a: Value | null, b: Value | null): Value | null {
  if (!isI64(a) || !isI64(b)) return null;
  return numResult(<f64>(i64Of(a) & i64Of(b)));
}

export function bi_bits_or(a: Value | null, b: Value | null): Value | null {
  if (!isI64(a) || !isI64(b)) return null;
  return numResult(<f64>(i64Of(a) | i64Of(b)));
}

export function bi_bits_xor(a: Value | null, b: Value | null): Value | null {
  if (!isI64(a) || !isI64(b)) return null;
  return numResult(<f64>(i64Of(a) ^ i64Of(b)));
}

export function bi_bits_negate(a: Value | null): Value | null {
  if (!isI64(a)) return null;
  return numResult(<f64>~i64Of(a));
}

export function bi_bits_lsh(a: Value | null, b: Value | null): Value | null {
  if (!isIntValue(a) || !isIntValue(b)) return null;
  const x = asNum(a!).value;
  const n = asNum(b!).value;
  if (n < 0) return null; // "must be an unsigned integer number"
  if (x == 0) return numResult(0);
  return numResult(x * Math.pow(2, n)); // too large for f64 -> undefined
}

export function bi_bits_rsh(a: Value | null, b: Value | null): Value | null {
  if (!isIntValue(a) || !isIntValue(b)) return null;
  const x = asNum(a!).value;
  const n = asNum(b!).value;
  if (n < 0) return null;
  // big.Int.Rsh is an arithmetic shift: floor(x / 2^n), so negatives end at -1.
  const q = x / Math.pow(2, n);
  if (q == 0) return numResult(x < 0 ? -1 : 0);
  return numResult(Math.floor(q));
}
