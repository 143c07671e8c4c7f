/**
 * Numbers in JSON Schema: exact multipleOf and bound comparisons (gojsonschema
 * uses big.Rat) and big.Float's text in the messages.
 */

import { NumV } from "../../value";
import { formatNumber } from "../../number";
import { compareExact } from "../../decimal";

/**
 * Go's big.Float String(): %g with 10 significant digits (exponent form below
 * 1e-4 or from 1e10, with at least two exponent digits).
 */
export function bigFloatText(n: NumV): string {
  const v = n.value;
  if (v == 0) return "0";
  const neg = v < 0;
  const a = Math.abs(v);
  let e = <i32>Math.floor(Math.log10(a));
  let scaled = Math.round(a / Math.pow(10, e - 9));
  if (scaled >= 1e10) {
    e++;
    scaled = Math.round(a / Math.pow(10, e - 9));
  } else if (scaled < 1e9) {
    e--;
    scaled = Math.round(a / Math.pow(10, e - 9));
  }
  let digits = (<i64>scaled).toString();
  while (digits.length > 1 && digits.endsWith("0")) digits = digits.substring(0, digits.length - 1);
  let out: string;
  if (e < -4 || e >= 10) {
    out = digits.substring(0, 1);
    if (digits.length > 1) out += "." + digits.substring(1);
    const ae = e < 0 ? -e : e;
    out += (e < 0 ? "e-" : "e+") + (ae < 10 ? "0" : "") + ae.toString();
  } else if (e < 0) {
    out = "0." + "0".repeat(-e - 1) + digits;
  } else if (digits.length > e + 1) {
    out = digits.substring(0, e + 1) + "." + digits.substring(e + 1);
  } else {
    out = digits + "0".repeat(e + 1 - digits.length);
  }
  return neg ? "-" + out : out;
}

/** A decimal as an integer mantissa and a power of ten, when the mantissa fits in u64. */
class Dec {
  constructor(public mant: u64, public exp: i32, public ok: bool) {}
}

function decOf(n: NumV): Dec {
  const t = formatNumber(n);
  let mant: u64 = 0;
  let exp = 0;
  let i = 0;
  let seenPoint = false;
  let ok = true;
  if (i < t.length && (t.charCodeAt(i) == 0x2d || t.charCodeAt(i) == 0x2b)) i++;
  for (; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c == 0x2e) { seenPoint = true; continue; }
    if (c == 0x65 || c == 0x45) {
      exp += I32.parseInt(t.substring(i + 1));
      break;
    }
    if (mant > 1844674407370955000) { ok = false; break; }
    mant = mant * 10 + <u64>(c - 0x30);
    if (seenPoint) exp--;
  }
  return new Dec(mant, exp, ok);
}

/** Whether value / divisor is an integer (exactly on the decimal texts when they fit, as Go's big.Rat). */
export function isMultiple(value: NumV, divisor: NumV): bool {
  const a = decOf(value);
  const b = decOf(divisor);
  if (a.ok && b.ok && b.mant != 0) {
    let am = a.mant;
    let bm = b.mant;
    let exact = true;
    // Bring both to the smaller exponent; give up on overflow.
    for (let k = a.exp; k > b.exp && exact; k--) {
      if (am > 1844674407370955161) exact = false;
      else am *= 10;
    }
    for (let k = b.exp; k > a.exp && exact; k--) {
      if (bm > 1844674407370955161) exact = false;
      else bm *= 10;
    }
    if (exact) return am % bm == 0;
  }
  const q = value.value / divisor.value;
  return isFinite(q) && Math.floor(q) == q;
}

/** The exact order of two numbers (as big.Rat's Cmp): f64 first, literal texts to break ties. */
export function cmpNum(a: NumV, b: NumV): i32 {
  if (a.value < b.value) return -1;
  if (a.value > b.value) return 1;
  return a.text === null && b.text === null ? 0 : compareExact(a, b);
}
