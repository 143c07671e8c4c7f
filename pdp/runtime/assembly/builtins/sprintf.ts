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
 * notations; fmt.ts holds the per-type verb printers.
 */

import { Value, NumV, StrV, T_NUMBER, T_STRING, T_ARRAY, asArr } from "../value";
import { toRegoText } from "../json";
import { Dec, decOf, decIsInt, decIntDigits, decimalToBase, decFromText } from "./format";
import { Arg, K_INT, K_BIG, K_FLOAT, K_STR, Printer, TOO_LARGE } from "./fmt";
import { codePointAt, unitsOf } from "./text";

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

/**
 * Scanning state of one fmt.Sprintf call: position in the format, the next
 * argument, and fmt's bookkeeping for explicit [n] indices.
 */
class Scan {
  i: i32 = 0;
  argNum: i32 = 0;
  reordered: bool = false; // an [n] index was used: no EXTRA report
  goodArgNum: bool = true;
  afterIndex: bool = false; // the previous item was an [n] index
  num: i32 = 0; // result of parseNum
  numEnd: i32 = 0;

  constructor(public format: string, public args: Array<Arg>) {}

  at(c: i32): bool {
    return this.i < this.format.length && this.format.charCodeAt(this.i) == c;
  }

  /** fmt's parsenum over format[from, end): digits into num/numEnd; false if none or too large. */
  parseNum(from: i32, end: i32): bool {
    this.num = 0;
    this.numEnd = from;
    let any = false;
    while (this.numEnd < end) {
      const c = this.format.charCodeAt(this.numEnd);
      if (c < 0x30 || c > 0x39) break;
      if (this.num > TOO_LARGE) {
        this.num = 0;
        this.numEnd = end;
        return false;
      }
      this.num = this.num * 10 + (c - 0x30);
      any = true;
      this.numEnd++;
    }
    return any;
  }

  /**
   * fmt's argNumber: an optional "[n]" (1-based) selects the next argument;
   * a malformed or out-of-range index marks the directive BADINDEX.
   */
  argNumber(): void {
    if (!this.at(0x5b)) {
      this.afterIndex = false;
      return;
    }
    this.reordered = true;
    const f = this.format;
    let ok = false;
    let index = -1;
    let next = this.i + 1;
    if (f.length - this.i >= 3) {
      for (let j = this.i + 1; j < f.length; j++) {
        if (f.charCodeAt(j) != 0x5d) continue;
        next = j + 1;
        ok = this.parseNum(this.i + 1, j) && this.numEnd == j;
        if (ok) index = this.num - 1;
        break;
      }
    }
    this.i = next;
    if (ok && index >= 0 && index < this.args.length) {
      this.argNum = index;
      this.afterIndex = true;
      return;
    }
    this.goodArgNum = false;
    this.afterIndex = ok;
  }

  /** fmt's intFromArg for '*': the next argument if it is a small int, else BAD_INT. */
  intFromArg(): i32 {
    if (this.argNum >= this.args.length) return BAD_INT;
    const a = this.args[this.argNum++];
    return a.smallInt() ? a.intValue() : BAD_INT;
  }
}

const BAD_INT: i32 = i32.MIN_VALUE;

/** fmt.Sprintf(format, args...) with OPA's argument conversion. */
function goSprintf(format: string, vals: Array<Value>): string {
  const args = new Array<Arg>(vals.length);
  for (let k = 0; k < vals.length; k++) unchecked((args[k] = toArg(unchecked(vals[k]))));
  const p = new Printer();
  const sc = new Scan(format, args);
  const end = format.length;
  while (sc.i < end) {
    const lasti = sc.i;
    while (sc.i < end && format.charCodeAt(sc.i) != 0x25) sc.i++;
    if (sc.i > lasti) p.out.push(format.substring(lasti, sc.i));
    if (sc.i >= end) break;
    sc.i++; // '%'
    p.clearFlags();
    for (; sc.i < end; sc.i++) {
      const c = format.charCodeAt(sc.i);
      if (c == 0x23) p.sharp = true;
      else if (c == 0x30) p.zero = true;
      else if (c == 0x2b) p.plus = true;
      else if (c == 0x2d) p.minus = true;
      else if (c == 0x20) p.space = true;
      else break;
    }
    sc.goodArgNum = true;
    sc.argNumber();
    // Width: a number, or '*' taking an int argument (negative means '-').
    if (sc.at(0x2a)) {
      sc.i++;
      const w = sc.intFromArg();
      p.widPresent = w != BAD_INT;
      if (!p.widPresent) p.out.push("%!(BADWIDTH)");
      else if (w < 0) {
        p.wid = -w;
        p.minus = true;
        p.zero = false;
      } else p.wid = w;
      sc.afterIndex = false;
    } else {
      p.widPresent = sc.parseNum(sc.i, end);
      p.wid = sc.num;
      sc.i = sc.numEnd;
      if (sc.afterIndex && p.widPresent) sc.goodArgNum = false; // "%[3]2d"
    }
    // Precision: '.' then a number, '*', or nothing (= 0).
    if (sc.i + 1 < end && sc.at(0x2e)) {
      sc.i++;
      if (sc.afterIndex) sc.goodArgNum = false; // "%[3].2d"
      sc.argNumber();
      if (sc.at(0x2a)) {
        sc.i++;
        const pr = sc.intFromArg();
        p.precPresent = pr != BAD_INT && pr >= 0;
        p.prec = p.precPresent ? pr : 0;
        if (!p.precPresent) p.out.push("%!(BADPREC)");
        sc.afterIndex = false;
      } else {
        sc.parseNum(sc.i, end);
        p.precPresent = true;
        p.prec = sc.num;
        sc.i = sc.numEnd;
      }
    }
    if (!sc.afterIndex) sc.argNumber();
    if (sc.i >= end) {
      p.out.push("%!(NOVERB)");
      break;
    }
    const verb = codePointAt(format, sc.i);
    sc.i += unitsOf(verb);
    if (verb == 0x25) p.out.push("%"); // %% takes no argument and ignores width
    else if (!sc.goodArgNum) p.badArgNum(verb, "BADINDEX");
    else if (sc.argNum >= args.length) p.badArgNum(verb, "MISSING");
    else {
      if (verb == 0x76) {
        // %v: '#' and '+' select Go-syntax and field-name modes instead.
        p.sharpV = p.sharp;
        p.sharp = false;
        p.plusV = p.plus;
        p.plus = false;
      }
      p.printArg(args[sc.argNum++], verb);
    }
  }
  if (!sc.reordered && sc.argNum < args.length) {
    p.clearFlags();
    p.out.push("%!(EXTRA ");
    for (let k = sc.argNum; k < args.length; k++) {
      if (k > sc.argNum) p.out.push(", ");
      p.out.push(args[k].typeName() + "=");
      p.printArg(args[k], 0x76);
    }
    p.out.push(")");
  }
  return p.out.join("");
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
