/**
 * Go values of strings.render_template: the vars as OPA converts them (GV),
 * how fmt prints them, text/template's truth, and the `failed` flag that
 * every stage (lex, parse, exec) sets on an error.
 */

import { Value, StrV, NumV, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, asArr, asObj, BoolV } from "../../value";
import { formatNumber } from "../../number";
import { codePointAt, unitsOf } from "../text";
import { isPrint } from "../strconv-quote";
import { Arg, K_INT, K_FLOAT, K_STR, Printer } from "../sprintf-verbs";

export const G_NIL: i32 = 0; // nil interface (JSON null, a missing index)
export const G_BOOL: i32 = 1;
export const G_INT: i32 = 2; // int: literals, len, range indices
export const G_UINT: i32 = 3; // uint8: indexing a string
export const G_FLOAT: i32 = 4; // float64 literals
export const G_STR: i32 = 5; // string
export const G_NUM: i32 = 6; // json.Number: a string kind printing its text
export const G_SLICE: i32 = 7; // []any
export const G_MAP: i32 = 8; // map[string]any, keys kept sorted

export class GV {
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

export const NIL = new GV();
/**
 * A missing key. The OPA version the conformance cases come from renders it
 * as "<undefined>" unless builtin errors are strict (then it is an error, Go's
 * missingkey=error); this runtime is never strict. It acts as nil otherwise.
 */
export const MISSING = new GV();

/**
 * Set by any parse or execution error; the builtin then answers undefined.
 * The lexer, parser and executor assign it directly (AssemblyScript lets an
 * importing module assign a module global).
 */
export let failed = false;

export function fail(): GV {
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
export function toGo(v: Value): GV {
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
export function fmtV(g: GV): string {
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
export function toArg(g: GV): Arg {
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
export function sprint(args: Array<GV>): string {
  // Parts joined once: the template, hence the operand count, is input.
  const parts = new Array<string>();
  for (let k = 0; k < args.length; k++) {
    const a = unchecked(args[k]);
    if (k > 0 && !a.isString() && !unchecked(args[k - 1]).isString()) parts.push(" ");
    parts.push(fmtV(a));
  }
  return parts.join("");
}

/** text/template's truth: non-zero numbers, non-empty strings and composites, true. */
export function truth(g: GV): bool {
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
