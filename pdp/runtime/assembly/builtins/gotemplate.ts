/**
 * strings.render_template(template, vars): Go's text/template, as OPA runs it
 * (v1/topdown/template.go). OPA parses the template, converts the vars object
 * to Go values by decoding its Rego text as JSON with UseNumber (so numbers
 * are json.Number: a string kind that prints as its text, and strings that
 * strconv.Quote escapes in a non-JSON way, object keys that are not strings
 * and sets fail), and executes it (see MISSING for missing keys). Every parse or exec
 * error is a builtin error, i.e. undefined here: this module signals errors
 * by throwing nothing but returning null through the `failed` flag.
 *
 * Supported: text, actions, trim markers, comments, fields and chains,
 * variables (:= and =), pipelines, parenthesised pipelines, if/else if/
 * else, with/else with/else, range (arrays, objects in key order, ints,
 * $i, $v :=, else, break, continue), define/template/block, literals, and
 * the functions and, or, not, eq, ne, lt, le, gt, ge, len, index, slice,
 * print, printf, println, html, js, urlquery.
 */

import { Value, StrV, NumV, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, asArr, asObj, BoolV } from "../value";
import { formatNumber } from "../number";
import { codePointAt, unitsOf, utf8Bytes, decodeUtf8Lossy, appendUtf8, queryEscape } from "./text";
import { isPrint } from "./quote";
import { Arg, K_INT, K_FLOAT, K_STR, Printer, formatArgs } from "./fmt";

// ------------------------------------------------------------ Go values

const G_NIL: i32 = 0; // nil interface (JSON null, a missing index)
const G_BOOL: i32 = 1;
const G_INT: i32 = 2; // int: literals, len, range indices
const G_UINT: i32 = 3; // uint8: indexing a string
const G_FLOAT: i32 = 4; // float64 literals
const G_STR: i32 = 5; // string
const G_NUM: i32 = 6; // json.Number: a string kind printing its text
const G_SLICE: i32 = 7; // []any
const G_MAP: i32 = 8; // map[string]any, keys kept sorted

class GV {
  kind: i32 = G_NIL;
  b: bool = false;
  i: i64 = 0;
  f: f64 = 0;
  s: string = "";
  items: Array<GV> = []; // slice elements, or map values
  keys: Array<string> = []; // map keys, sorted

  static of(kind: i32): GV {
    const g = new GV();
    g.kind = kind;
    return g;
  }
  static int(v: i64): GV {
    const g = GV.of(G_INT);
    g.i = v;
    return g;
  }
  static str(s: string): GV {
    const g = GV.of(G_STR);
    g.s = s;
    return g;
  }
  static bool(b: bool): GV {
    const g = GV.of(G_BOOL);
    g.b = b;
    return g;
  }
  isString(): bool {
    return this.kind == G_STR || this.kind == G_NUM;
  }
  mapGet(key: string): GV | null {
    for (let k = 0; k < this.keys.length; k++) if (unchecked(this.keys[k]) == key) return unchecked(this.items[k]);
    return null;
  }
}

const NIL = new GV();
/**
 * A missing key. The OPA version the conformance cases come from renders it
 * as "<undefined>" unless builtin errors are strict (then it is an error, Go's
 * missingkey=error); this runtime is never strict. It acts as nil otherwise.
 */
const MISSING = new GV();

/** Set by any parse or execution error; the builtin then answers undefined. */
let failed = false;

function fail(): GV {
  failed = true;
  return NIL;
}

/** Whether strconv.Quote keeps s decodable as a JSON string (no \a, \v, \xNN, \UNNNNNNNN). */
function jsonQuotable(s: string): bool {
  for (let i = 0; i < s.length; ) {
    const c = codePointAt(s, i);
    i += unitsOf(c);
    if (c < 0x20 && c != 8 && c != 9 && c != 10 && c != 12 && c != 13) return false;
    if (c == 0x7f || (c > 0xffff && !isPrint(c))) return false;
  }
  return true;
}

/** OPA's ast.As: the value's Rego text decoded as JSON with UseNumber. */
function toGo(v: Value): GV {
  switch (v.kind) {
    case T_NULL: return NIL;
    case T_BOOLEAN: return GV.bool(changetype<BoolV>(v).value);
    case T_NUMBER: {
      const g = GV.of(G_NUM);
      g.s = formatNumber(changetype<NumV>(v));
      return g;
    }
    case T_STRING: {
      const s = changetype<StrV>(v).value;
      return jsonQuotable(s) ? GV.str(s) : fail();
    }
    case T_ARRAY: {
      const items = asArr(v).items;
      const g = GV.of(G_SLICE);
      for (let k = 0; k < items.length && !failed; k++) g.items.push(toGo(unchecked(items[k])));
      return g;
    }
    case T_OBJECT: {
      const o = asObj(v);
      const g = GV.of(G_MAP);
      // Rego orders string keys by UTF-8 bytes, as Go's fmt and range sort them.
      for (let k = 0; k < o.keys.length && !failed; k++) {
        const key = unchecked(o.keys[k]);
        if (key.kind != T_STRING) return fail();
        const ks = changetype<StrV>(key).value;
        if (!jsonQuotable(ks)) return fail();
        g.keys.push(ks);
        g.items.push(toGo(unchecked(o.vals[k])));
      }
      return g;
    }
  }
  return fail(); // a set: its Rego text is not JSON
}

/** fmt's %v of a value nested in a composite or passed to print. */
function fmtV(g: GV): string {
  switch (g.kind) {
    case G_NIL: return "<nil>";
    case G_BOOL: return g.b ? "true" : "false";
    case G_INT: case G_UINT: return g.i.toString();
    case G_FLOAT: {
      const p = new Printer();
      p.printArg(toArg(g), 0x76);
      return p.out.join("");
    }
    case G_STR: case G_NUM: return g.s;
    case G_SLICE: {
      const parts = new Array<string>(g.items.length);
      for (let k = 0; k < g.items.length; k++) parts[k] = fmtV(unchecked(g.items[k]));
      return "[" + parts.join(" ") + "]";
    }
  }
  const parts = new Array<string>(g.keys.length);
  for (let k = 0; k < g.keys.length; k++) parts[k] = unchecked(g.keys[k]) + ":" + fmtV(unchecked(g.items[k]));
  return "map[" + parts.join(" ") + "]";
}

/**
 * The fmt argument printf sees. Booleans, nil and composites go as their %v
 * text (exact for %v and %s; other verbs name them string, not their Go type).
 */
function toArg(g: GV): Arg {
  const a = new Arg();
  if (g.kind == G_INT || g.kind == G_UINT) {
    a.kind = K_INT;
    a.neg = g.i < 0;
    a.digits = (g.i < 0 ? -g.i : g.i).toString();
  } else if (g.kind == G_FLOAT) {
    a.kind = K_FLOAT;
    a.f = g.f;
  } else {
    a.kind = K_STR;
    a.s = g.isString() ? g.s : fmtV(g);
  }
  return a;
}

/** fmt.Sprint: a space between operands when neither is a string. */
function sprint(args: Array<GV>): string {
  let out = "";
  for (let k = 0; k < args.length; k++) {
    const a = unchecked(args[k]);
    if (k > 0 && !a.isString() && !unchecked(args[k - 1]).isString()) out += " ";
    out += fmtV(a);
  }
  return out;
}

/** text/template's truth: non-zero numbers, non-empty strings and composites, true. */
function truth(g: GV): bool {
  switch (g.kind) {
    case G_BOOL: return g.b;
    case G_INT: case G_UINT: return g.i != 0;
    case G_FLOAT: return g.f != 0;
    case G_STR: case G_NUM: return g.s.length > 0;
    case G_SLICE: return g.items.length > 0;
    case G_MAP: return g.keys.length > 0;
  }
  return false;
}

// ------------------------------------------------------------ lexer

const K_TEXT: i32 = 0;
const K_LEFT: i32 = 1; // {{
const K_RIGHT: i32 = 2; // }}
const K_FIELD: i32 = 3; // .name
const K_VAR: i32 = 4; // $ or $name
const K_DOT: i32 = 5;
const K_IDENT: i32 = 6; // function names and keywords
const K_STRING: i32 = 7; // quoted or raw, unescaped
const K_NUMBER: i32 = 8;
const K_CHAR: i32 = 9;
const K_BOOL: i32 = 10;
const K_NIL: i32 = 11;
const K_PIPE: i32 = 12;
const K_LPAREN: i32 = 13;
const K_RPAREN: i32 = 14;
const K_DECLARE: i32 = 15;
const K_ASSIGN: i32 = 16;
const K_COMMA: i32 = 17;
const K_EOF: i32 = 18;

class Tok {
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
function lex(src: string): Array<Tok> {
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
function parseNumber(text: string): GV {
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

// ------------------------------------------------------------ parse tree

const N_TEXT: i32 = 0;
const N_ACTION: i32 = 1;
const N_IF: i32 = 2;
const N_WITH: i32 = 3;
const N_RANGE: i32 = 4;
const N_BREAK: i32 = 5;
const N_CONTINUE: i32 = 6;
const N_TEMPLATE: i32 = 7;

// operands
const O_FIELD: i32 = 0; // fields on dot
const O_VAR: i32 = 1; // variable, then fields
const O_DOT: i32 = 2;
const O_NIL: i32 = 3;
const O_CONST: i32 = 4; // bool, number, string, char
const O_IDENT: i32 = 5; // function
const O_PIPE: i32 = 6; // parenthesised pipeline, then fields

class Operand {
  kind: i32 = O_DOT;
  name: string = ""; // variable or function name
  fields: Array<string> = [];
  value: GV = NIL;
  pipe: Pipe | null = null;
}

class Cmd {
  args: Array<Operand> = [];
}

class Pipe {
  decl: Array<string> = [];
  isAssign: bool = false;
  cmds: Array<Cmd> = [];
}

class Node {
  kind: i32 = N_TEXT;
  text: string = "";
  pipe: Pipe | null = null;
  list: Array<Node> = [];
  elseList: Array<Node> | null = null;
}

const FUNCS = ["and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "len", "index", "slice",
  "print", "printf", "println", "html", "js", "urlquery", "call"];

class Parser {
  p: i32 = 0;
  vars: Array<string> = ["$"];
  rangeDepth: i32 = 0;
  defs: Map<string, Array<Node>> = new Map<string, Array<Node>>();

  constructor(public toks: Array<Tok>) {}

  peek(): Tok { return unchecked(this.toks[this.p]); }
  next(): Tok { return unchecked(this.toks[this.p++]); }
  expect(kind: i32): bool {
    if (this.peek().kind != kind) { failed = true; return false; }
    this.p++;
    return true;
  }
  isKeyword(t: Tok, word: string): bool { return t.kind == K_IDENT && t.text == word; }

  /** Nodes up to a {{end}} / {{else}} (returned: "end", "else") or EOF (""). */
  list(out: Array<Node>): string {
    while (!failed) {
      const t = this.next();
      if (t.kind == K_EOF) { this.p--; return ""; }
      if (t.kind == K_TEXT) {
        const n = new Node();
        n.text = t.text;
        out.push(n);
        continue;
      }
      // K_LEFT
      const k = this.peek();
      if (k.kind == K_IDENT) {
        const w = k.text;
        if (w == "end" || w == "else") {
          this.p++;
          if (w == "end" && !this.expect(K_RIGHT)) return "";
          return w;
        }
        if (w == "if" || w == "with" || w == "range") {
          this.p++;
          out.push(this.control(w == "if" ? N_IF : w == "with" ? N_WITH : N_RANGE));
          continue;
        }
        if (w == "break" || w == "continue") {
          this.p++;
          if (this.rangeDepth == 0) { failed = true; return ""; }
          const n = new Node();
          n.kind = w == "break" ? N_BREAK : N_CONTINUE;
          out.push(n);
          this.expect(K_RIGHT);
          continue;
        }
        if (w == "define" || w == "block" || w == "template") {
          this.p++;
          this.templateAction(w, out);
          continue;
        }
      }
      const n = new Node();
      n.kind = N_ACTION;
      n.pipe = this.pipeline(false, K_RIGHT);
      out.push(n);
    }
    return "";
  }

  /** {{define "n"}}...{{end}}, {{template "n" pipe}}, {{block "n" pipe}}...{{end}}. */
  templateAction(w: string, out: Array<Node>): void {
    const name = this.next();
    if (name.kind != K_STRING) { failed = true; return; }
    if (w == "define") {
      if (!this.expect(K_RIGHT)) return;
      const saved = this.vars;
      this.vars = ["$"];
      const body = new Array<Node>();
      if (this.list(body) != "end") { failed = true; return; }
      this.vars = saved;
      this.defs.set(name.text, body);
      return;
    }
    const n = new Node();
    n.kind = N_TEMPLATE;
    n.text = name.text;
    if (this.peek().kind != K_RIGHT) n.pipe = this.pipeline(false, K_RIGHT);
    else this.p++;
    out.push(n);
    if (w == "block") {
      const saved = this.vars;
      this.vars = ["$"];
      const body = new Array<Node>();
      if (this.list(body) != "end") { failed = true; return; }
      this.vars = saved;
      this.defs.set(name.text, body);
    }
  }

  control(kind: i32): Node {
    const n = new Node();
    n.kind = kind;
    const mark = this.vars.length;
    n.pipe = this.pipeline(kind == N_RANGE, K_RIGHT);
    if (kind == N_RANGE) this.rangeDepth++;
    let end = this.list(n.list);
    if (kind == N_RANGE) this.rangeDepth--;
    if (end == "else") {
      const els = new Array<Node>();
      const t = this.peek();
      // {{else if ...}} / {{else with ...}} nest a control that shares this {{end}}.
      if (kind != N_RANGE && t.kind == K_IDENT && ((kind == N_IF && t.text == "if") || (kind == N_WITH && t.text == "with"))) {
        this.p++;
        els.push(this.control(kind));
        end = "end";
      } else {
        if (!this.expect(K_RIGHT)) return n;
        end = this.list(els);
      }
      n.elseList = els;
    }
    if (end != "end") failed = true;
    this.vars.length = mark;
    return n;
  }

  pipeline(isRange: bool, end: i32): Pipe {
    const pipe = new Pipe();
    // Declarations: $x := / $x = / (range) $i, $v :=
    const t = this.peek();
    if (t.kind == K_VAR) {
      const a = unchecked(this.toks[this.p + 1]);
      if (a.kind == K_DECLARE || a.kind == K_ASSIGN) {
        pipe.decl.push(t.text);
        pipe.isAssign = a.kind == K_ASSIGN;
        this.p += 2;
      } else if (isRange && a.kind == K_COMMA) {
        const v2 = unchecked(this.toks[this.p + 2]);
        const op = unchecked(this.toks[this.p + 3]);
        if (v2.kind != K_VAR || (op.kind != K_DECLARE && op.kind != K_ASSIGN)) { failed = true; return pipe; }
        pipe.decl.push(t.text);
        pipe.decl.push(v2.text);
        pipe.isAssign = op.kind == K_ASSIGN;
        this.p += 4;
      }
      for (let k = 0; k < pipe.decl.length; k++) {
        const name = pipe.decl[k];
        if (pipe.isAssign) { if (!this.vars.includes(name)) failed = true; }
      }
    }
    while (!failed) {
      const cmd = new Cmd();
      while (!failed) {
        const k = this.peek().kind;
        if (k == end || k == K_PIPE) break;
        if (k == K_EOF || k == K_RIGHT || k == K_RPAREN) { failed = true; break; }
        cmd.args.push(this.operand());
      }
      if (cmd.args.length == 0) { failed = true; break; }
      pipe.cmds.push(cmd);
      if (this.next().kind == end) break;
    }
    if (!pipe.isAssign) for (let k = 0; k < pipe.decl.length; k++) this.vars.push(pipe.decl[k]);
    return pipe;
  }

  operand(): Operand {
    const o = new Operand();
    const t = this.next();
    switch (t.kind) {
      case K_FIELD: o.kind = O_FIELD; o.fields.push(t.text); break;
      case K_VAR:
        o.kind = O_VAR;
        o.name = t.text;
        if (!this.vars.includes(t.text)) failed = true;
        break;
      case K_DOT: o.kind = O_DOT; break;
      case K_NIL: o.kind = O_NIL; break;
      case K_BOOL: o.kind = O_CONST; o.value = GV.bool(t.text == "true"); break;
      case K_STRING: o.kind = O_CONST; o.value = GV.str(t.text); break;
      case K_CHAR: o.kind = O_CONST; o.value = GV.int(I64.parseInt(t.text)); break;
      case K_NUMBER: o.kind = O_CONST; o.value = parseNumber(t.text); break;
      case K_IDENT:
        if (!FUNCS.includes(t.text)) failed = true;
        o.kind = O_IDENT;
        o.name = t.text;
        break;
      case K_LPAREN:
        o.kind = O_PIPE;
        o.pipe = this.pipeline(false, K_RPAREN);
        break;
      default:
        failed = true;
        return o;
    }
    // .a.b, $x.a, (pipe).a: fields written right after the operand chain onto it.
    while (this.peek().kind == K_FIELD && !this.peek().spaced) {
      if (o.kind != O_FIELD && o.kind != O_VAR && o.kind != O_PIPE) { failed = true; break; }
      o.fields.push(this.next().text);
    }
    return o;
  }
}

// ------------------------------------------------------------ execution

const WALK_OK: i32 = 0;
const WALK_BREAK: i32 = 1;
const WALK_CONTINUE: i32 = 2;

class Exec {
  out: Array<string> = [];
  names: Array<string> = [];
  vals: Array<GV> = [];
  depth: i32 = 0;

  constructor(public defs: Map<string, Array<Node>>) {}

  lookup(name: string): GV {
    for (let k = this.names.length - 1; k >= 0; k--) if (unchecked(this.names[k]) == name) return unchecked(this.vals[k]);
    return fail();
  }
  setVar(name: string, v: GV): void {
    for (let k = this.names.length - 1; k >= 0; k--) {
      if (unchecked(this.names[k]) == name) { this.vals[k] = v; return; }
    }
    fail();
  }
  push(name: string, v: GV): void { this.names.push(name); this.vals.push(v); }
  pop(mark: i32): void { this.names.length = mark; this.vals.length = mark; }

  walkList(dot: GV, list: Array<Node>): i32 {
    for (let k = 0; k < list.length && !failed; k++) {
      const r = this.walk(dot, unchecked(list[k]));
      if (r != WALK_OK) return r;
    }
    return WALK_OK;
  }

  walk(dot: GV, n: Node): i32 {
    switch (n.kind) {
      case N_TEXT: this.out.push(n.text); break;
      case N_ACTION: {
        const pipe = n.pipe!;
        const v = this.pipeline(dot, pipe);
        if (pipe.decl.length == 0 && !failed) this.out.push(v === MISSING ? "<undefined>" : v.kind == G_NIL ? "<no value>" : fmtV(v));
        break;
      }
      case N_IF: case N_WITH: {
        const mark = this.names.length;
        const v = this.pipeline(dot, n.pipe!);
        let r = WALK_OK;
        if (failed) return r;
        if (truth(v)) r = this.walkList(n.kind == N_WITH ? v : dot, n.list);
        else if (n.elseList !== null) r = this.walkList(dot, n.elseList!);
        this.pop(mark);
        return r;
      }
      case N_RANGE: return this.range(dot, n);
      case N_BREAK: return WALK_BREAK;
      case N_CONTINUE: return WALK_CONTINUE;
      case N_TEMPLATE: {
        if (!this.defs.has(n.text) || ++this.depth > 100000) { fail(); break; }
        const arg = n.pipe !== null ? this.pipeline(dot, n.pipe!) : NIL;
        if (failed) break;
        // A template runs with its own variables: only $, bound to its argument.
        const names = this.names;
        const vals = this.vals;
        this.names = ["$"];
        this.vals = [arg];
        this.walkList(arg, this.defs.get(n.text));
        this.names = names;
        this.vals = vals;
        this.depth--;
        break;
      }
    }
    return WALK_OK;
  }

  range(dot: GV, n: Node): i32 {
    const pipe = n.pipe!;
    const mark = this.names.length;
    const v = this.pipeline(dot, pipe, false);
    if (failed) return WALK_OK;
    const decl = pipe.decl;
    let count = 0;
    if (v.kind == G_SLICE) count = v.items.length;
    else if (v.kind == G_MAP) count = v.keys.length;
    else if (v.kind == G_INT || v.kind == G_UINT) {
      if (decl.length > 1) { fail(); return WALK_OK; }
      count = v.i > 0 ? <i32>v.i : 0;
    } else if (v.kind != G_NIL) { fail(); return WALK_OK; }
    if (!pipe.isAssign) for (let k = 0; k < decl.length; k++) this.push(decl[k], v);
    const inner = this.names.length;
    for (let k = 0; k < count && !failed; k++) {
      let key: GV, elem: GV;
      if (v.kind == G_SLICE) { key = GV.int(k); elem = unchecked(v.items[k]); }
      else if (v.kind == G_MAP) { key = GV.str(unchecked(v.keys[k])); elem = unchecked(v.items[k]); }
      else { key = GV.int(k); elem = key; }
      if (decl.length == 1) this.setVar(decl[0], elem);
      else if (decl.length == 2) { this.setVar(decl[0], key); this.setVar(decl[1], elem); }
      const r = this.walkList(elem, n.list);
      this.pop(inner);
      if (r == WALK_BREAK) break;
    }
    if (count == 0 && n.elseList !== null) this.walkList(dot, n.elseList!);
    this.pop(mark);
    return WALK_OK;
  }

  pipeline(dot: GV, pipe: Pipe, bind: bool = true): GV {
    let v: GV | null = null;
    for (let k = 0; k < pipe.cmds.length && !failed; k++) v = this.command(dot, unchecked(pipe.cmds[k]), v);
    const r = v === null ? NIL : v;
    if (bind) {
      for (let k = 0; k < pipe.decl.length; k++) {
        if (pipe.isAssign) this.setVar(pipe.decl[k], r);
        else this.push(pipe.decl[k], r);
      }
    }
    return r;
  }

  /** One command; `last` is the previous command's value, passed as a final argument. */
  command(dot: GV, cmd: Cmd, last: GV | null): GV {
    const first = unchecked(cmd.args[0]);
    if (first.kind == O_IDENT) return this.call(dot, first.name, cmd.args, 1, last);
    // Anything but a function takes no arguments (maps have no methods).
    if (cmd.args.length > 1 || last !== null) return fail();
    if (first.kind == O_NIL) return fail();
    return this.arg(dot, first);
  }

  arg(dot: GV, o: Operand): GV {
    let v: GV;
    switch (o.kind) {
      case O_DOT: return dot;
      case O_NIL: return NIL;
      case O_CONST: return o.value;
      case O_IDENT: return this.call(dot, o.name, [], 0, null);
      case O_VAR: v = this.lookup(o.name); break;
      case O_PIPE: {
        const mark = this.names.length;
        v = this.pipeline(dot, o.pipe!);
        this.pop(mark);
        break;
      }
      default: v = dot;
    }
    for (let k = 0; k < o.fields.length && !failed; k++) {
      // A missing key is MISSING (and so are its fields); a field of any other non-map fails.
      if (v === MISSING) continue;
      if (v.kind != G_MAP) return fail();
      const f = v.mapGet(unchecked(o.fields[k]));
      v = f === null ? MISSING : f;
    }
    return v;
  }

  call(dot: GV, name: string, ops: Array<Operand>, from: i32, last: GV | null): GV {
    const nargs = ops.length - from + (last !== null ? 1 : 0);
    // and/or evaluate their operands lazily, left to right.
    if (name == "and" || name == "or") {
      if (nargs < 1) return fail();
      let v = NIL;
      for (let k = 0; k < nargs; k++) {
        v = this.nth(dot, ops, from, last, k, false);
        if (failed) return NIL;
        if (truth(v) != (name == "and")) return v;
      }
      return v;
    }
    const anyArgs = name == "print" || name == "printf" || name == "println" || name == "html" || name == "js" || name == "urlquery";
    const args = new Array<GV>(nargs);
    for (let k = 0; k < nargs && !failed; k++) args[k] = this.nth(dot, ops, from, last, k, anyArgs);
    if (failed) return NIL;
    if (name == "print") return GV.str(sprint(args));
    if (name == "println") {
      const parts = new Array<string>(nargs);
      for (let k = 0; k < nargs; k++) parts[k] = fmtV(args[k]);
      return GV.str(parts.join(" ") + "\n");
    }
    if (name == "printf") {
      if (nargs < 1 || args[0].kind != G_STR) return fail();
      const fa = new Array<Arg>(nargs - 1);
      for (let k = 1; k < nargs; k++) fa[k - 1] = toArg(args[k]);
      return GV.str(formatArgs(args[0].s, fa));
    }
    if (name == "html" || name == "js" || name == "urlquery") {
      const s = nargs == 1 && args[0].isString() ? args[0].s : sprint(args);
      return GV.str(name == "html" ? htmlEscape(s) : name == "js" ? jsEscape(s) : queryEscape(s));
    }
    if (name == "not") return nargs == 1 ? GV.bool(!truth(args[0])) : fail();
    if (name == "len") {
      if (nargs != 1) return fail();
      const a = args[0];
      if (a.isString()) return GV.int(utf8Bytes(a.s).length);
      if (a.kind == G_SLICE) return GV.int(a.items.length);
      if (a.kind == G_MAP) return GV.int(a.keys.length);
      return fail();
    }
    if (name == "eq") {
      if (nargs < 2) return fail();
      for (let k = 1; k < nargs; k++) {
        const r = eq(args[0], args[k]);
        if (failed) return NIL;
        if (r) return GV.bool(true);
      }
      return GV.bool(false);
    }
    if (name == "ne" || name == "lt" || name == "le" || name == "gt" || name == "ge") {
      if (nargs != 2) return fail();
      const a = args[0];
      const b = args[1];
      if (name == "ne") { const r = eq(a, b); return failed ? NIL : GV.bool(!r); }
      const l = less(a, b);
      if (failed) return NIL;
      const e = name == "lt" || name == "ge" ? false : eq(a, b);
      if (failed) return NIL;
      if (name == "lt") return GV.bool(l);
      if (name == "ge") return GV.bool(!l);
      return GV.bool(name == "le" ? l || e : !(l || e));
    }
    if (name == "index") {
      if (nargs < 1) return fail();
      let v = args[0];
      if (v.kind == G_NIL) return fail();
      for (let k = 1; k < nargs; k++) {
        const x = args[k];
        if (v.kind == G_MAP) {
          if (x.kind != G_STR) return fail();
          const f = v.mapGet(x.s);
          v = f === null ? NIL : f;
          continue;
        }
        if (x.kind != G_INT && x.kind != G_UINT) return fail();
        if (v.kind == G_SLICE) {
          if (x.i < 0 || x.i >= v.items.length) return fail();
          v = v.items[<i32>x.i];
        } else if (v.isString()) {
          const b = utf8Bytes(v.s);
          if (x.i < 0 || x.i >= b.length) return fail();
          v = GV.of(G_UINT);
          v.i = b[<i32>x.i];
        } else return fail();
      }
      return v;
    }
    if (name == "slice") {
      if (nargs < 1 || nargs > 4) return fail();
      const v = args[0];
      const isStr = v.isString();
      if (!isStr && v.kind != G_SLICE) return fail();
      if (isStr && nargs == 4) return fail();
      const bytes = isStr ? utf8Bytes(v.s) : new Array<u8>();
      const len = isStr ? bytes.length : v.items.length;
      const idx: i64[] = [0, len, len];
      for (let k = 1; k < nargs; k++) {
        const x = args[k];
        if (x.kind != G_INT && x.kind != G_UINT) return fail();
        if (x.i < 0 || x.i > len) return fail();
        idx[k - 1] = x.i;
      }
      if (idx[0] > idx[1] || (nargs == 4 && idx[1] > idx[2])) return fail();
      if (isStr) {
        const r = GV.str(decodeUtf8Lossy(bytes.slice(<i32>idx[0], <i32>idx[1])));
        r.kind = G_STR;
        return r;
      }
      const r = GV.of(G_SLICE);
      r.items = v.items.slice(<i32>idx[0], <i32>idx[1]);
      return r;
    }
    return fail(); // call: no function values in JSON data
  }

  /** The k-th argument of a call: the operands, then the piped value. */
  nth(dot: GV, ops: Array<Operand>, from: i32, last: GV | null, k: i32, nilOk: bool): GV {
    const i = from + k;
    if (i < ops.length) {
      const o = unchecked(ops[i]);
      // A nil literal fits only an interface parameter, not reflect.Value.
      if (o.kind == O_NIL && !nilOk) return fail();
      return this.arg(dot, o);
    }
    return last!;
  }
}

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
function eq(a: GV, b: GV): bool {
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

function less(a: GV, b: GV): bool {
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

/** template.HTMLEscapeString. */
function htmlEscape(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x22) out += "&#34;";
    else if (c == 0x27) out += "&#39;";
    else if (c == 0x26) out += "&amp;";
    else if (c == 0x3c) out += "&lt;";
    else if (c == 0x3e) out += "&gt;";
    else if (c == 0) out += "\uFFFD";
    else out += String.fromCharCode(c);
  }
  return out;
}

const HEX = "0123456789ABCDEF";

/** template.JSEscapeString. */
function jsEscape(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; ) {
    const c = codePointAt(s, i);
    i += unitsOf(c);
    if (c == 0x5c) out += "\\\\";
    else if (c == 0x27) out += "\\'";
    else if (c == 0x22) out += "\\\"";
    else if (c == 0x3c) out += "\\u003C";
    else if (c == 0x3e) out += "\\u003E";
    else if (c == 0x26) out += "\\u0026";
    else if (c == 0x3d) out += "\\u003D";
    else if (c < 0x20) out += "\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15);
    else if (c < 0x80 || isPrint(c)) out += String.fromCodePoint(c);
    else {
      let h = "";
      for (let v = c; v > 0; v >>= 4) h = HEX.charAt(v & 15) + h;
      while (h.length < 4) h = "0" + h;
      out += "\\u" + h;
    }
  }
  return out;
}

// ------------------------------------------------------------ builtin

export function bi_strings_render_template(a: Value | null, b: Value | null): Value | null {
  if (a === null || a.kind != T_STRING || b === null || b.kind != T_OBJECT) return null;
  failed = false;
  const data = toGo(b);
  if (failed) return null;
  const parser = new Parser(lex(changetype<StrV>(a).value));
  if (failed) return null;
  const root = new Array<Node>();
  const end = parser.list(root);
  if (failed || end != "" || parser.peek().kind != K_EOF) return null;
  const ex = new Exec(parser.defs);
  ex.push("$", data);
  ex.walkList(data, root);
  if (failed) return null;
  return new StrV(ex.out.join(""));
}
