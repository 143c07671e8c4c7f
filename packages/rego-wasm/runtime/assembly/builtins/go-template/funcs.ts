/** Helpers of text/template's functions (Exec.call): comparisons and the html / js escapers. */

import { codePointAt, unitsOf, utf8Bytes } from "../text";
import { isPrint } from "../strconv-quote";
import { G_NIL, G_BOOL, G_INT, G_UINT, G_FLOAT, G_STR, G_NUM, G_SLICE, G_MAP, GV, fail } from "./values";

// text/template's basic kinds for comparisons
const B_INVALID: i32 = 0;
const B_BOOL: i32 = 1;
const B_INT: i32 = 2;
const B_UINT: i32 = 3;
const B_FLOAT: i32 = 4;
const B_STRING: i32 = 5;

function basicKind(g: GV): i32 {
  switch (g.kind) {
    case G_BOOL: return B_BOOL;
    case G_INT: return B_INT;
    case G_UINT: return B_UINT;
    case G_FLOAT: return B_FLOAT;
    case G_STR: case G_NUM: return B_STRING;
  }
  return B_INVALID;
}

/** text/template's eq for one pair: int and uint compare by value; other kind mismatches fail unless one is nil. */
export function eq(a: GV, b: GV): bool {
  if (a.kind == G_MAP || a.kind == G_SLICE) { fail(); return false; }
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 != k2) {
    if ((k1 == B_INT || k1 == B_UINT) && (k2 == B_INT || k2 == B_UINT)) return a.i == b.i;
    if (a.kind != G_NIL && b.kind != G_NIL) fail();
    return false;
  }
  switch (k1) {
    case B_BOOL: return a.b == b.b;
    case B_INT: case B_UINT: return a.i == b.i;
    case B_FLOAT: return a.f == b.f;
    case B_STRING: return a.s == b.s;
  }
  // Both without a basic kind: nil equals only nil; a composite is not comparable.
  if (a.kind == G_NIL || b.kind == G_NIL) return a.kind == b.kind;
  fail();
  return false;
}

export function less(a: GV, b: GV): bool {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 == B_INVALID || k2 == B_INVALID || k1 == B_BOOL) { fail(); return false; }
  if (k1 != k2) {
    if ((k1 == B_INT || k1 == B_UINT) && (k2 == B_INT || k2 == B_UINT)) return a.i < b.i;
    fail();
    return false;
  }
  switch (k1) {
    case B_INT: case B_UINT: return a.i < b.i;
    case B_FLOAT: return a.f < b.f;
  }
  return compareBytes(a.s, b.s) < 0;
}

function compareBytes(a: string, b: string): i32 {
  const x = utf8Bytes(a);
  const y = utf8Bytes(b);
  const n = x.length < y.length ? x.length : y.length;
  for (let k = 0; k < n; k++) if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return x.length - y.length;
}

// The escapers collect runs of unchanged text and escapes as parts joined
// once: `out +=` would copy the whole output per character, and the
// runtime's allocator frees nothing during an evaluation.

/** template.HTMLEscapeString. */
export function htmlEscape(s: string): string {
  const parts = new Array<string>();
  let run = 0; // start of the pending unchanged text
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string;
    if (c == 0x22) esc = "&#34;";
    else if (c == 0x27) esc = "&#39;";
    else if (c == 0x26) esc = "&amp;";
    else if (c == 0x3c) esc = "&lt;";
    else if (c == 0x3e) esc = "&gt;";
    else if (c == 0) esc = "\uFFFD";
    else continue;
    if (run < i) parts.push(s.substring(run, i));
    parts.push(esc);
    run = i + 1;
  }
  if (run == 0) return s;
  if (run < s.length) parts.push(s.substring(run));
  return parts.join("");
}

const HEX = "0123456789ABCDEF";

/** template.JSEscapeString. */
export function jsEscape(s: string): string {
  const parts = new Array<string>();
  let run = 0; // start of the pending unchanged text
  for (let i = 0; i < s.length; ) {
    const at = i;
    const c = codePointAt(s, i);
    i += unitsOf(c);
    let esc: string;
    if (c == 0x5c) esc = "\\\\";
    else if (c == 0x27) esc = "\\'";
    else if (c == 0x22) esc = "\\\"";
    else if (c == 0x3c) esc = "\\u003C";
    else if (c == 0x3e) esc = "\\u003E";
    else if (c == 0x26) esc = "\\u0026";
    else if (c == 0x3d) esc = "\\u003D";
    else if (c < 0x20) esc = "\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15);
    else if (c < 0x80 || isPrint(c)) continue;
    else {
      let h = "";
      for (let v = c; v > 0; v >>= 4) h = HEX.charAt(v & 15) + h;
      while (h.length < 4) h = "0" + h;
      esc = "\\u" + h;
    }
    if (run < at) parts.push(s.substring(run, at));
    parts.push(esc);
    run = i;
  }
  if (run == 0) return s;
  if (run < s.length) parts.push(s.substring(run));
  return parts.join("");
}
