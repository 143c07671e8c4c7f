/**
 * The verb printers of Go's fmt package for the four kinds of argument OPA's
 * sprintf passes (int, *big.Int, float64, string): flags, width and
 * precision handling, padding, and fmt's "%!verb(type=value)" notation for a
 * verb the type does not support. A helper module for sprintf.ts (index.ts
 * does not re-export it).
 */

import { formatFloat, decimalToBase } from "./strconv-format";
import { codePointCount, codePointAt, unitsOf, codePointString, utf8Bytes } from "./text";
import { quoteString, quoteRune, canBackquote, isPrint } from "./strconv-quote";

export const K_INT: i32 = 0; // Go int (fits in 64 bits)
export const K_BIG: i32 = 1; // *big.Int
export const K_FLOAT: i32 = 2; // float64
export const K_STR: i32 = 3; // string
/** fmt's tooLarge bound for widths, precisions and indices. */
export const TOO_LARGE: i32 = 1000000;

export class Arg {
  kind: i32 = K_STR;
  neg: bool = false; // integers: sign
  digits: string = "0"; // integers: decimal magnitude
  f: f64 = 0; // float64
  s: string = ""; // string

  typeName(): string {
    switch (this.kind) {
      case K_INT: return "int";
      case K_BIG: return "*big.Int";
      case K_FLOAT: return "float64";
    }
    return "string";
  }

  /** An int usable as a '*' width or precision. */
  smallInt(): bool {
    return this.kind == K_INT && this.digits.length <= 7 && I32.parseInt(this.digits) <= TOO_LARGE;
  }

  intValue(): i32 {
    const v = I32.parseInt(this.digits);
    return this.neg ? -v : v;
  }

  /** Two's complement bits of an int, as Go's uint64(int) conversion gives them. */
  bits(): u64 {
    const m = U64.parseInt(this.digits);
    return this.neg ? 0 - m : m;
  }

  /** Decimal text with sign, as %v prints an integer. */
  decimal(): string {
    return this.neg ? "-" + this.digits : this.digits;
  }
}

const LDIGITS = "0123456789abcdef";

export class Printer {
  out: Array<string> = new Array<string>();
  plus: bool = false;
  minus: bool = false;
  sharp: bool = false;
  space: bool = false;
  zero: bool = false;
  plusV: bool = false;
  sharpV: bool = false;
  wid: i32 = 0;
  widPresent: bool = false;
  prec: i32 = 0;
  precPresent: bool = false;

  clearFlags(): void {
    this.plus = this.minus = this.sharp = this.space = this.zero = false;
    this.plusV = this.sharpV = this.widPresent = this.precPresent = false;
    this.wid = this.prec = 0;
  }

  writePadding(n: i32): void {
    if (n <= 0) return;
    this.out.push((this.zero && !this.minus ? "0" : " ").repeat(n)); // zeros only to the left
  }

  /** Pads s to the width (counted in code points), left unless '-'. */
  pad(s: string): void {
    if (!this.widPresent || this.wid == 0) {
      this.out.push(s);
      return;
    }
    const n = this.wid - codePointCount(s);
    if (!this.minus) {
      this.writePadding(n);
      this.out.push(s);
    } else {
      this.out.push(s);
      this.writePadding(n);
    }
  }

  /** pad with the zero flag suppressed (numbers that handled zeros already, NaN, %c, ...). */
  padNoZero(s: string): void {
    const z = this.zero;
    this.zero = false;
    this.pad(s);
    this.zero = z;
  }

  badVerb(verb: i32, a: Arg): void {
    this.out.push("%!" + codePointString(verb) + "(" + a.typeName() + "=");
    this.printArg(a, 0x76); // with the same flags, as fmt does
    this.out.push(")");
  }

  badArgNum(verb: i32, what: string): void {
    this.out.push("%!" + codePointString(verb) + "(" + what + ")");
  }

  printArg(a: Arg, verb: i32): void {
    if (verb == 0x54) { // %T
      this.pad(a.typeName());
      return;
    }
    if (verb == 0x70) { // %p: none of these is a pointer we could print
      this.badVerb(verb, a);
      return;
    }
    switch (a.kind) {
      case K_INT: this.printInt(a, verb); break;
      case K_BIG: this.printBig(a, verb); break;
      case K_FLOAT: this.printFloat(a, verb); break;
      default: this.printString(a.s, verb);
    }
  }

  // ---------------------------------------------------------- int

  printInt(a: Arg, verb: i32): void {
    switch (verb) {
      case 0x76: case 0x64: this.fmtInteger(a, 10, verb, false); return; // v d
      case 0x62: this.fmtInteger(a, 2, verb, false); return; // b
      case 0x6f: case 0x4f: this.fmtInteger(a, 8, verb, false); return; // o O
      case 0x78: this.fmtInteger(a, 16, verb, false); return; // x
      case 0x58: this.fmtInteger(a, 16, verb, true); return; // X
      case 0x63: this.pad(codePointString(runeOf(a))); return; // c
      case 0x71: this.pad(quoteRune(runeOf(a), this.plus)); return; // q
      case 0x55: this.fmtUnicode(a); return; // U
    }
    this.badVerb(verb, a);
  }

  /** fmt.fmtInteger: precision and the zero flag both ask for leading zeros. */
  fmtInteger(a: Arg, base: i32, verb: i32, upper: bool): void {
    const isZero = a.digits == "0";
    let prec = 0;
    if (this.precPresent) {
      prec = this.prec;
      if (prec == 0 && isZero) { // "%.0d" of 0 prints nothing but padding
        const z = this.zero;
        this.zero = false;
        this.writePadding(this.wid);
        this.zero = z;
        return;
      }
    } else if (this.zero && !this.minus && this.widPresent) {
      prec = this.wid;
      if (a.neg || this.plus || this.space) prec--; // room for the sign
    }
    let digits = decimalToBase(a.digits, base);
    if (upper) digits = digits.toUpperCase();
    if (digits.length < prec) digits = "0".repeat(prec - digits.length) + digits;
    if (this.sharp) {
      if (base == 2) digits = "0b" + digits;
      else if (base == 8 && digits.charCodeAt(0) != 0x30) digits = "0" + digits;
      else if (base == 16) digits = (upper ? "0X" : "0x") + digits;
    }
    if (verb == 0x4f) digits = "0o" + digits;
    if (a.neg) digits = "-" + digits;
    else if (this.plus) digits = "+" + digits;
    else if (this.space) digits = " " + digits;
    this.padNoZero(digits);
  }

  /** fmt.fmtUnicode: U+%04X, with %#U the quoted character when printable. */
  fmtUnicode(a: Arg): void {
    const u = a.bits();
    let hex = decimalToBase(u.toString(), 16).toUpperCase();
    const prec = this.precPresent && this.prec > 4 ? this.prec : 4;
    if (hex.length < prec) hex = "0".repeat(prec - hex.length) + hex;
    let s = "U+" + hex;
    if (this.sharp && u <= 0x10ffff && isPrint(<i32>u)) s += " '" + codePointString(<i32>u) + "'";
    this.padNoZero(s);
  }

  // ---------------------------------------------------------- *big.Int

  /** big.Int's Format method: it pads by itself and reports unknown verbs its own way. */
  printBig(a: Arg, verb: i32): void {
    let base = 0;
    if (verb == 0x62) base = 2;
    else if (verb == 0x6f || verb == 0x4f) base = 8;
    else if (verb == 0x64 || verb == 0x73 || verb == 0x76) base = 10;
    else if (verb == 0x78 || verb == 0x58) base = 16;
    else {
      this.out.push("%!" + codePointString(verb) + "(big.Int=" + a.decimal() + ")");
      return;
    }
    const plus = this.plus || this.plusV;
    const sharp = this.sharp || this.sharpV;
    const sign = a.neg ? "-" : plus ? "+" : this.space ? " " : "";
    let prefix = "";
    if (sharp) {
      if (verb == 0x62) prefix = "0b";
      else if (verb == 0x6f) prefix = "0";
      else if (verb == 0x78) prefix = "0x";
      else if (verb == 0x58) prefix = "0X";
    }
    if (verb == 0x4f) prefix = "0o";
    let digits = decimalToBase(a.digits, base);
    if (verb == 0x58) digits = digits.toUpperCase();
    let zeros = 0;
    if (this.precPresent) {
      if (digits.length < this.prec) zeros = this.prec - digits.length;
      else if (digits == "0" && this.prec == 0) return; // print nothing, not even padding
    }
    const length = sign.length + prefix.length + zeros + digits.length;
    let left = 0;
    let right = 0;
    if (this.widPresent && length < this.wid) {
      const d = this.wid - length;
      if (this.minus) right = d;
      else if (this.zero && !this.precPresent) zeros = d;
      else left = d;
    }
    this.out.push(" ".repeat(left) + sign + prefix + "0".repeat(zeros) + digits + " ".repeat(right));
  }

  // ---------------------------------------------------------- float64

  printFloat(a: Arg, verb: i32): void {
    const v = a.f;
    switch (verb) {
      case 0x76: this.fmtFloat(v, 0x67, -1); return; // v -> g
      case 0x62: case 0x67: case 0x47: case 0x78: case 0x58: this.fmtFloat(v, verb, -1); return;
      case 0x66: case 0x65: case 0x45: this.fmtFloat(v, verb, 6); return;
      case 0x46: this.fmtFloat(v, 0x66, 6); return; // F = f
    }
    this.badVerb(verb, a);
  }

  fmtFloat(v: f64, verb: i32, precIn: i32): void {
    const prec = this.precPresent ? this.prec : precIn;
    let num = formatFloat(v, verb, prec);
    // Work on "<sign><digits>": a sign is always there, '+' when positive.
    if (num.charCodeAt(0) != 0x2d && num.charCodeAt(0) != 0x2b) num = "+" + num;
    if (this.space && num.charCodeAt(0) == 0x2b && !this.plus) num = " " + num.substring(1);
    const c1 = num.charCodeAt(1);
    if (c1 == 0x49 || c1 == 0x4e) { // Inf, NaN: no zero padding
      if (c1 == 0x4e && !this.space && !this.plus) num = num.substring(1);
      this.padNoZero(num);
      return;
    }
    if (this.sharp && verb != 0x62) num = sharpFloat(num, verb, prec);
    if (this.plus || num.charCodeAt(0) != 0x2b) {
      if (this.zero && !this.minus && this.widPresent && this.wid > num.length) {
        this.out.push(num.substring(0, 1)); // sign before the zeros
        this.writePadding(this.wid - num.length);
        this.out.push(num.substring(1));
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.substring(1));
  }

  // ---------------------------------------------------------- string

  printString(s: string, verb: i32): void {
    switch (verb) {
      case 0x76: // v
        if (this.sharpV) this.fmtQ(s);
        else this.pad(this.truncate(s));
        return;
      case 0x73: this.pad(this.truncate(s)); return; // s
      case 0x78: this.fmtSx(s, false); return; // x
      case 0x58: this.fmtSx(s, true); return; // X
      case 0x71: this.fmtQ(s); return; // q
    }
    const a = new Arg();
    a.s = s;
    this.badVerb(verb, a);
  }

  /** The precision limits a string to that many code points. */
  truncate(s: string): string {
    if (!this.precPresent) return s;
    let n = this.prec;
    for (let i = 0; i < s.length; ) {
      if (n-- <= 0) return s.substring(0, i);
      i += unitsOf(codePointAt(s, i));
    }
    return s;
  }

  fmtQ(s: string): void {
    s = this.truncate(s);
    if (this.sharp && canBackquote(s)) this.pad("`" + s + "`");
    else this.pad(quoteString(s, this.plus));
  }

  /** fmt.fmtSbx: hex of the UTF-8 bytes; ' ' separates bytes, '#' adds 0x. */
  fmtSx(s: string, upper: bool): void {
    const b = utf8Bytes(s);
    let length = b.length;
    if (this.precPresent && this.prec < length) length = this.prec;
    let width = 2 * length;
    if (width > 0) {
      if (this.space) {
        if (this.sharp) width *= 2;
        width += length - 1;
      } else if (this.sharp) width += 2;
    } else {
      if (this.widPresent) this.writePadding(this.wid);
      return;
    }
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width);
    const x = upper ? "0X" : "0x";
    const parts = new Array<string>();
    if (this.sharp) parts.push(x);
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) {
        parts.push(" ");
        if (this.sharp) parts.push(x);
      }
      const c = <i32>b[i];
      let h = LDIGITS.charAt(c >> 4) + LDIGITS.charAt(c & 15);
      parts.push(upper ? h.toUpperCase() : h);
    }
    this.out.push(parts.join(""));
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width);
  }
}

/** The rune %c and %q print for an int: out-of-range values and surrogates are U+FFFD. */
function runeOf(a: Arg): i32 {
  const u = a.bits();
  if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff)) return 0xfffd;
  return <i32>u;
}

/**
 * The '#' flag on floats: keep a decimal point, and for %g/%x keep trailing
 * zeros up to the precision (6 by default).
 */
function sharpFloat(num: string, verb: i32, prec: i32): string {
  let digits = 0;
  if (verb == 0x76 || verb == 0x67 || verb == 0x47 || verb == 0x78) digits = prec == -1 ? 6 : prec;
  let tail = "";
  let hasPoint = false;
  let sawNonzero = false;
  let body = num;
  for (let i = 1; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c == 0x2e) {
      hasPoint = true;
      continue;
    }
    if (c == 0x70 || c == 0x50 || ((c == 0x65 || c == 0x45) && verb != 0x78 && verb != 0x58)) {
      tail = body.substring(i);
      body = body.substring(0, i);
      break;
    }
    if (c != 0x30) sawNonzero = true;
    if (sawNonzero) digits--;
  }
  if (!hasPoint) {
    if (body.length == 2 && body.charCodeAt(1) == 0x30) digits--; // a lone 0 counts once
    body += ".";
  }
  if (digits > 0) body += "0".repeat(digits);
  return body + tail;
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

/** fmt.Sprintf over already converted arguments (also text/template's printf, go-template/exec.ts). */
export function formatArgs(format: string, args: Array<Arg>): string {
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
