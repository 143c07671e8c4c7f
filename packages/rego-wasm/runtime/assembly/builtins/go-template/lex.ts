/** The text/template lexer: text and action tokens, Go string and number literals. */

import { codePointAt, unitsOf, decodeUtf8Lossy, appendUtf8 } from "../text";
import { G_FLOAT, GV, failed, fail } from "./values";

export const K_TEXT: i32 = 0;
export const K_LEFT: i32 = 1; // {{
export const K_RIGHT: i32 = 2; // }}
export const K_FIELD: i32 = 3; // .name
export const K_VAR: i32 = 4; // $ or $name
export const K_DOT: i32 = 5;
export const K_IDENT: i32 = 6; // function names and keywords
export const K_STRING: i32 = 7; // quoted or raw, unescaped
export const K_NUMBER: i32 = 8;
export const K_CHAR: i32 = 9;
export const K_BOOL: i32 = 10;
export const K_NIL: i32 = 11;
export const K_PIPE: i32 = 12;
export const K_LPAREN: i32 = 13;
export const K_RPAREN: i32 = 14;
export const K_DECLARE: i32 = 15;
export const K_ASSIGN: i32 = 16;
export const K_COMMA: i32 = 17;
export const K_EOF: i32 = 18;

export class Tok {
  constructor(public kind: i32, public text: string, public spaced: bool) {}
}

function isSpaceC(c: i32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0d || c == 0x0a;
}

function isAlnum(c: i32): bool {
  return c == 0x5f || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c >= 0x80;
}

function trimRightSpace(s: string): string {
  let e = s.length;
  while (e > 0 && isSpaceC(s.charCodeAt(e - 1))) e--;
  return s.substring(0, e);
}

/** Go's string literal escapes (strconv.Unquote of a double-quoted literal); null if malformed. */
function unquote(s: string, from: i32, to: i32): string | null {
  const out = new Array<u8>();
  let i = from;
  while (i < to) {
    let c = s.charCodeAt(i);
    if (c != 0x5c) {
      const cp = codePointAt(s, i);
      appendUtf8(out, cp);
      i += unitsOf(cp);
      continue;
    }
    if (i + 1 >= to) return null;
    c = s.charCodeAt(i + 1);
    i += 2;
    let n = 0;
    let base = 16;
    switch (c) {
      case 0x61: out.push(7); continue; // \a
      case 0x62: out.push(8); continue;
      case 0x66: out.push(12); continue;
      case 0x6e: out.push(10); continue;
      case 0x72: out.push(13); continue;
      case 0x74: out.push(9); continue;
      case 0x76: out.push(11); continue;
      case 0x5c: out.push(0x5c); continue;
      case 0x22: out.push(0x22); continue;
      case 0x78: n = 2; break; // \xNN: a byte
      case 0x75: n = 4; break;
      case 0x55: n = 8; break;
      default:
        if (c >= 0x30 && c <= 0x37) { n = 3; base = 8; i--; break; }
        return null;
    }
    if (i + n > to) return null;
    let v = 0;
    for (let k = 0; k < n; k++) {
      const d = s.charCodeAt(i + k);
      const x = d >= 0x30 && d <= 0x39 ? d - 0x30 : d >= 0x61 && d <= 0x66 ? d - 0x57 : d >= 0x41 && d <= 0x46 ? d - 0x37 : 99;
      if (x >= base) return null;
      v = v * base + x;
    }
    i += n;
    if (c == 0x78 || base == 8) {
      if (v > 255) return null;
      out.push(<u8>v);
    } else {
      if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return null;
      appendUtf8(out, v);
    }
  }
  return decodeUtf8Lossy(out);
}

/** Splits the template into text and action tokens, applying trim markers and dropping comments. */
export function lex(src: string): Array<Tok> {
  const toks = new Array<Tok>();
  let pos = 0;
  let trimNext = false;
  const n = src.length;
  while (pos < n) {
    const open = src.indexOf("{{", pos);
    let text = open < 0 ? src.substring(pos) : src.substring(pos, open);
    if (trimNext) {
      let k = 0;
      while (k < text.length && isSpaceC(text.charCodeAt(k))) k++;
      text = text.substring(k);
      trimNext = false;
    }
    if (open < 0) {
      if (text.length > 0) toks.push(new Tok(K_TEXT, text, false));
      break;
    }
    let i = open + 2;
    // "{{- " trims the preceding text.
    if (i + 1 < n && src.charCodeAt(i) == 0x2d && isSpaceC(src.charCodeAt(i + 1))) {
      text = trimRightSpace(text);
      i += 2;
    }
    if (text.length > 0) toks.push(new Tok(K_TEXT, text, false));
    // A comment must open the action (after any trim marker) and close it.
    if (src.startsWith("/*", i)) {
      const end = src.indexOf("*/", i + 2);
      if (end < 0) { failed = true; return toks; }
      let k = end + 2;
      if (k < n && isSpaceC(src.charCodeAt(k)) && src.startsWith("-}}", k + 1)) {
        trimNext = true;
        k += 4;
      } else if (src.startsWith("}}", k)) k += 2;
      else { failed = true; return toks; }
      pos = k;
      continue;
    }
    toks.push(new Tok(K_LEFT, "", false));
    pos = lexAction(src, i, toks);
    if (pos < 0) { failed = true; return toks; }
    const right = toks[toks.length - 1];
    trimNext = right.text == "-"; // " -}}" trims the following text
    right.text = "";
  }
  toks.push(new Tok(K_EOF, "", false));
  return toks;
}

/** Lexes one action from i; pushes its tokens and a K_RIGHT (text "-" if trimming). Returns the end, -1 on error. */
function lexAction(src: string, i: i32, toks: Array<Tok>): i32 {
  const n = src.length;
  let spaced = false;
  let depth = 0;
  while (true) {
    if (i >= n) return -1;
    const c = src.charCodeAt(i);
    // " -}}" closes with a trim; "}}" closes.
    if (isSpaceC(c) && src.startsWith("-}}", i + 1)) {
      if (depth != 0) return -1;
      toks.push(new Tok(K_RIGHT, "-", true));
      return i + 4;
    }
    if (c == 0x7d && src.startsWith("}}", i)) {
      if (depth != 0) return -1;
      toks.push(new Tok(K_RIGHT, "", spaced));
      return i + 2;
    }
    if (isSpaceC(c)) {
      spaced = true;
      i++;
      continue;
    }
    const start = i;
    let kind = -1;
    let text = "";
    if (c == 0x7c) { kind = K_PIPE; i++; }
    else if (c == 0x28) { kind = K_LPAREN; depth++; i++; }
    else if (c == 0x29) { kind = K_RPAREN; if (--depth < 0) return -1; i++; }
    else if (c == 0x2c) { kind = K_COMMA; i++; }
    else if (c == 0x3a) {
      if (i + 1 >= n || src.charCodeAt(i + 1) != 0x3d) return -1;
      kind = K_DECLARE;
      i += 2;
    } else if (c == 0x3d) { kind = K_ASSIGN; i++; }
    else if (c == 0x22) {
      i++;
      while (i < n && src.charCodeAt(i) != 0x22) {
        const d = src.charCodeAt(i);
        if (d == 0x0a) return -1;
        i += d == 0x5c ? 2 : 1;
      }
      if (i >= n) return -1;
      const s = unquote(src, start + 1, i);
      if (s === null) return -1;
      kind = K_STRING;
      text = s;
      i++;
    } else if (c == 0x60) {
      const end = src.indexOf("`", i + 1);
      if (end < 0) return -1;
      kind = K_STRING;
      text = src.substring(i + 1, end);
      i = end + 1;
    } else if (c == 0x27) {
      i++;
      while (i < n && src.charCodeAt(i) != 0x27) {
        const d = src.charCodeAt(i);
        if (d == 0x0a) return -1;
        i += d == 0x5c ? 2 : 1;
      }
      if (i >= n) return -1;
      const body = src.substring(start + 1, i).replaceAll("\\'", "'");
      const s = body == "\"" ? "\"" : unquote(body, 0, body.length);
      if (s === null || s.length == 0) return -1;
      const cp = codePointAt(s, 0);
      if (unitsOf(cp) != s.length) return -1;
      kind = K_CHAR;
      text = cp.toString();
      i++;
    } else if (c == 0x24) {
      i++;
      while (i < n && isAlnum(src.charCodeAt(i))) i++;
      kind = K_VAR;
      text = src.substring(start, i);
    } else if (c == 0x2e && !(i + 1 < n && src.charCodeAt(i + 1) >= 0x30 && src.charCodeAt(i + 1) <= 0x39)) {
      i++;
      while (i < n && isAlnum(src.charCodeAt(i))) i++;
      kind = i == start + 1 ? K_DOT : K_FIELD;
      text = src.substring(start + 1, i);
    } else if ((c >= 0x30 && c <= 0x39) || c == 0x2e || c == 0x2b || c == 0x2d) {
      i++;
      while (i < n) {
        const d = src.charCodeAt(i);
        const prev = src.charCodeAt(i - 1) | 0x20;
        if (isAlnum(d) || d == 0x2e || ((d == 0x2b || d == 0x2d) && (prev == 0x65 || prev == 0x70))) i++;
        else break;
      }
      kind = K_NUMBER;
      text = src.substring(start, i);
    } else if (isAlnum(c)) {
      while (i < n && isAlnum(src.charCodeAt(i))) i++;
      text = src.substring(start, i);
      kind = text == "true" || text == "false" ? K_BOOL : text == "nil" ? K_NIL : K_IDENT;
    } else return -1;
    toks.push(new Tok(kind, text, spaced));
    spaced = false;
  }
  return -1; // unreachable: the loop returns
}

/** A Go numeric literal as text/template's idealConstant types it: int, float64, or an error. */
export function parseNumber(text: string): GV {
  let s = text;
  let neg = false;
  if (s.startsWith("+") || s.startsWith("-")) {
    neg = s.charCodeAt(0) == 0x2d;
    s = s.substring(1);
  }
  if (s.length == 0 || s.includes("__") || s.endsWith("_") || s.startsWith("_")) return fail();
  const lower = s.toLowerCase();
  let base = 10;
  let body = lower;
  if (lower.startsWith("0x")) { base = 16; body = lower.substring(2); }
  else if (lower.startsWith("0b")) { base = 2; body = lower.substring(2); }
  else if (lower.startsWith("0o")) { base = 8; body = lower.substring(2); }
  if (body.startsWith("_")) body = body.substring(1);
  body = body.replaceAll("_", "");
  if (body.length == 0) return fail();
  const isFloat = base == 10 ? (body.includes(".") || body.includes("e")) : base == 16 && (body.includes(".") || body.includes("p"));
  if (isFloat) {
    if (base == 16) return fail(); // hex floats: rare enough to refuse
    if (!isDecimalFloat(body)) return fail();
    const f = GV.of(G_FLOAT);
    f.f = parseFloat(body);
    if (!isFinite(f.f)) return fail();
    if (neg) f.f = -f.f;
    return f;
  }
  if (base == 10 && body.length > 1 && body.charCodeAt(0) == 0x30) base = 8; // legacy octal
  let v: u64 = 0;
  for (let k = 0; k < body.length; k++) {
    const d = body.charCodeAt(k);
    const x = d >= 0x30 && d <= 0x39 ? d - 0x30 : d >= 0x61 && d <= 0x66 ? d - 0x57 : 99;
    if (x >= base) return fail();
    const next = v * <u64>base + <u64>x;
    if (next / <u64>base != v && v != 0) return fail();
    v = next;
  }
  // Beyond int64 Go keeps an integer constant as float64 only when it is exact; refuse.
  if (v > (neg ? <u64>9223372036854775808 : <u64>9223372036854775807)) return fail();
  return GV.int(neg ? -(<i64>v) : <i64>v);
}

function isDecimalFloat(s: string): bool {
  let i = 0;
  let digits = 0;
  while (i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) { i++; digits++; }
  if (i < s.length && s.charCodeAt(i) == 0x2e) {
    i++;
    while (i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) { i++; digits++; }
  }
  if (digits == 0) return false;
  if (i < s.length && s.charCodeAt(i) == 0x65) {
    i++;
    if (i < s.length && (s.charCodeAt(i) == 0x2b || s.charCodeAt(i) == 0x2d)) i++;
    let e = 0;
    while (i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) { i++; e++; }
    if (e == 0) return false;
  }
  return i == s.length;
}
