/**
 * sprintf and format_int.
 *
 * OPA's sprintf hands its arguments to Go's fmt.Sprintf after converting
 * them: an integer number becomes a Go int (or a *big.Int beyond 64 bits), a
 * fractional number a float64 (or its text if out of range), a string a Go
 * string, and every other value its Rego text as a string. So `%d` of a
 * string prints "%!d(string=...)", `%s` of an int "%!s(int=5)", and
 * composites print like `["a", 1]`. This module reproduces fmt's directive
 * parsing (flags, width, precision, `*`, `[n]` indices) and its error
 * notations; sprintf-verbs.ts holds the per-type verb printers.
 */

import { Value, NumV, StrV, T_NUMBER, T_STRING, T_ARRAY, asArr } from "../value";
import { toRegoText } from "../json";
import { Dec, decOf, decIsInt, decIntDigits, decimalToBase, decFromText } from "./strconv-format";
import { Arg, K_INT, K_BIG, K_FLOAT, K_STR, formatArgs } from "./sprintf-verbs";

/** The Go value OPA passes to fmt for a Rego value. */
function toArg(v: Value): Arg {
  const a = new Arg();
  if (v.kind == T_STRING) {
    a.kind = K_STR;
    a.s = changetype<StrV>(v).value;
    return a;
  }
  if (v.kind != T_NUMBER) {
    a.kind = K_STR;
    a.s = toRegoText(v);
    return a;
  }
  const n = changetype<NumV>(v);
  const text = n.text;
  // A kept literal text is an integer to Go only when it is written as one
  // (json.Number.Int64 / big.Int.SetString reject "1.0" and "1e3").
  let d: Dec | null = null;
  if (text !== null) {
    if (!text.includes(".") && !text.includes("e") && !text.includes("E")) d = decFromText(text);
  } else if (isFinite(n.value) && Math.floor(n.value) == n.value) d = decOf(n);
  if (d !== null && decIsInt(d)) {
    a.neg = d.neg && d.d.length > 0;
    a.digits = decIntDigits(d);
    a.kind = fitsInt64(a.digits, a.neg) ? K_INT : K_BIG;
    return a;
  }
  if (isFinite(n.value)) {
    a.kind = K_FLOAT;
    a.f = n.value;
    return a;
  }
  a.kind = K_STR; // beyond float64: Go falls back to the number's text
  a.s = text !== null ? text : n.value.toString();
  return a;
}

function fitsInt64(digits: string, neg: bool): bool {
  if (digits.length != 19) return digits.length < 19;
  return digits <= (neg ? "9223372036854775808" : "9223372036854775807");
}

/** fmt.Sprintf(format, args...) with OPA's argument conversion. */
function goSprintf(format: string, vals: Array<Value>): string {
  const args = new Array<Arg>(vals.length);
  for (let k = 0; k < vals.length; k++) unchecked((args[k] = toArg(unchecked(vals[k]))));
  return formatArgs(format, args);
}

/** sprintf(format, values): the values must be an array. */
export function bi_sprintf(f: Value | null, vals: Value | null): Value | null {
  if (f === null || f.kind != T_STRING || vals === null || vals.kind != T_ARRAY) return null;
  return new StrV(goSprintf(changetype<StrV>(f).value, asArr(vals).items));
}

/**
 * format_int(number, base): the number truncated toward zero, in base 2, 8,
 * 10 or 16, lower-case, "-" for negatives; exact at any size (from the
 * literal text when the number kept one).
 */
export function bi_format_int(a: Value | null, b: Value | null): Value | null {
  if (a === null || a.kind != T_NUMBER || b === null || b.kind != T_NUMBER) return null;
  const base = changetype<NumV>(b).value;
  if (base != 2 && base != 8 && base != 10 && base != 16) return null;
  const n = changetype<NumV>(a);
  if (!isFinite(n.value) && n.text === null) return null;
  const d = decOf(n);
  const digits = decimalToBase(decIntDigits(d), <i32>base);
  return new StrV(d.neg && digits != "0" ? "-" + digits : digits);
}
