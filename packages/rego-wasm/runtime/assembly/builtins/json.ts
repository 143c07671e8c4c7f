/**
 * JSON encoding builtins (OPA topdown/encoding.go): json.marshal,
 * json.marshal_with_options, json.unmarshal, json.is_valid.
 *
 * Output matches Go's encoding/json, which OPA uses: sets become arrays;
 * object keys that are not strings become their compact JSON text and keys
 * are sorted by byte order of that text (Go sorts map keys); strings escape
 * `<`, `>`, `&`, U+2028 and U+2029 as \uXXXX (Go's HTML-safe default) and
 * unpaired surrogates as \ufffd (Go replaces invalid UTF-8). MarshalIndent's
 * layout: empty arrays/objects stay `[]`/`{}`, `": "` after keys.
 */
import { Value, ObjV, str, boolV, compareStrings, asArr, asObj, asSet, asStr, asNum, asBool, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET } from "../value";
import { parseJson } from "../json";
import { formatNumber } from "../number";

const HEX = "0123456789abcdef";

/**
 * A growing UTF-16 buffer the encoder appends to: one copy per piece and
 * one string at the end, where an array of pieces and a join would allocate
 * a string per piece (json.marshal runs on the decision log's hot path).
 */
/**
 * Copies n bytes between distinct buffers. Most copies here are a quote, a
 * comma or a short key: plain loads and stores, since V8 runs memory.copy
 * as a call out of Wasm (it was most of json.marshal's time on a decision
 * input); long runs still go to memory.copy.
 */
// @ts-ignore: decorator
@inline function copyBytes(dst: usize, src: usize, n: usize): void {
  if (n > 64) {
    memory.copy(dst, src, n);
    return;
  }
  let i: usize = 0;
  for (; i + 8 <= n; i += 8) store<u64>(dst + i, load<u64>(src + i));
  for (; i < n; i++) store<u8>(dst + i, load<u8>(src + i));
}

class TextOut {
  buf: usize;
  len: usize = 0; // in bytes
  cap: usize;

  constructor() {
    this.cap = 256;
    this.buf = __alloc(this.cap);
  }

  push(s: string): void {
    this.pushUnits(changetype<usize>(s), 0, s.length);
  }

  /** Appends units [from, to) of the string at address s. */
  pushUnits(s: usize, from: i32, to: i32): void {
    const n = <usize>(to - from) << 1;
    if (this.len + n > this.cap) {
      let cap = this.cap << 1;
      while (cap < this.len + n) cap <<= 1;
      this.buf = __realloc(this.buf, cap);
      this.cap = cap;
    }
    copyBytes(this.buf + this.len, s + (<usize>from << 1), n);
    this.len += n;
  }

  toString(): string {
    const out = __rt_new_uninit(this.len, idof<string>()); // every byte is copied below
    copyBytes(out, this.buf, this.len);
    return changetype<string>(out);
  }
}

/** Appends s as a Go-encoded JSON string literal. */
function quoteGo(out: TextOut, s: string): void {
  const sp = changetype<usize>(s);
  out.push("\"");
  let from = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u16>(sp + (<usize>i << 1));
    // The common case: a character that needs no escape.
    if (c >= 0x20 && c != 0x22 && c != 0x5c && c != 0x3c && c != 0x3e && c != 0x26 && c < 0x2028) continue;
    let esc: string | null = null;
    if (c == 0x22) esc = "\\\"";
    else if (c == 0x5c) esc = "\\\\";
    else if (c < 0x20 || c == 0x3c || c == 0x3e || c == 0x26 || c == 0x2028 || c == 0x2029) {
      if (c == 0x0a) esc = "\\n";
      else if (c == 0x0d) esc = "\\r";
      else if (c == 0x09) esc = "\\t";
      else if (c == 0x08) esc = "\\b";
      else if (c == 0x0c) esc = "\\f";
      else esc = "\\u" + HEX.charAt((c >> 12) & 15) + HEX.charAt((c >> 8) & 15) + HEX.charAt((c >> 4) & 15) + HEX.charAt(c & 15);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const paired = c <= 0xdbff && i + 1 < n && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
      if (paired) {
        i++; // a valid pair is copied through as is
        continue;
      }
      esc = "\\ufffd";
    }
    if (esc !== null) {
      out.pushUnits(sp, from, i);
      out.push(esc);
      from = i + 1;
    }
  }
  out.pushUnits(sp, from, n);
  out.push("\"");
}

/** Object entries with keys turned into strings and sorted the way Go sorts map keys. */
function stringKeyedEntries(o: ObjV): Array<i32> {
  const n = o.keys.length;
  const names = new Array<string>(n);
  // All keys strings (JSON objects): the object's own order (code point
  // order, unique) is already Go's order, so there is nothing to sort.
  let allStrings = true;
  for (let i = 0; i < n; i++) {
    const k = unchecked(o.keys[i]);
    if (k.kind != T_STRING) {
      allStrings = false;
      break;
    }
    unchecked((names[i] = asStr(k).value));
  }
  if (allStrings) {
    keyNames = names;
    const order = new Array<i32>(n);
    for (let i = 0; i < n; i++) unchecked((order[i] = i));
    return order;
  }
  for (let i = 0; i < n; i++) {
    const k = unchecked(o.keys[i]);
    unchecked((names[i] = k.kind == T_STRING ? asStr(k).value : encode(k, null, "")));
  }
  keyNames = names;
  const idx = new Array<i32>(n);
  for (let i = 0; i < n; i++) unchecked((idx[i] = i));
  // Stable sort by name; of two keys with the same name, the later one wins, as a Go map insert would.
  idx.sort((a: i32, b: i32): i32 => {
    const c = compareStrings(unchecked(keyNames[a]), unchecked(keyNames[b]));
    return c != 0 ? c : a - b;
  });
  const out = new Array<i32>();
  for (let i = 0; i < n; i++) {
    const k = unchecked(idx[i]);
    if (out.length > 0 && unchecked(keyNames[out[out.length - 1]]) == unchecked(keyNames[k])) out[out.length - 1] = k;
    else out.push(k);
  }
  return out;
}

/** Key names of the object being sorted (closures cannot capture locals in AssemblyScript). */
let keyNames: Array<string> = new Array<string>();

/**
 * Go-style JSON text of v. indent === null: compact (json.Marshal); else
 * json.MarshalIndent(v, prefix, indent) minus the prefix of the first line.
 */
function encode(v: Value, indent: string | null, prefix: string): string {
  const out = new TextOut();
  write(out, v, indent, prefix, 0);
  return out.toString();
}

function newline(out: TextOut, indent: string, prefix: string, depth: i32): void {
  out.push("\n" + prefix);
  for (let i = 0; i < depth; i++) out.push(indent);
}

function write(out: TextOut, v: Value, indent: string | null, prefix: string, depth: i32): void {
  switch (v.kind) {
    case T_NULL:
      out.push("null");
      return;
    case T_BOOLEAN:
      out.push(asBool(v).value ? "true" : "false");
      return;
    case T_NUMBER:
      out.push(formatNumber(asNum(v)));
      return;
    case T_STRING:
      quoteGo(out, asStr(v).value);
      return;
    case T_ARRAY:
    case T_SET: {
      const items = v.kind == T_ARRAY ? asArr(v).items : asSet(v).items;
      if (items.length == 0) {
        out.push("[]");
        return;
      }
      out.push("[");
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out.push(",");
        if (indent !== null) newline(out, indent, prefix, depth + 1);
        write(out, unchecked(items[i]), indent, prefix, depth + 1);
      }
      if (indent !== null) newline(out, indent, prefix, depth);
      out.push("]");
      return;
    }
    case T_OBJECT: {
      const o = asObj(v);
      if (o.keys.length == 0) {
        out.push("{}");
        return;
      }
      const order = stringKeyedEntries(o);
      const names = keyNames;
      out.push("{");
      for (let i = 0; i < order.length; i++) {
        const k = unchecked(order[i]);
        if (i > 0) out.push(",");
        if (indent !== null) newline(out, indent, prefix, depth + 1);
        quoteGo(out, unchecked(names[k]));
        out.push(indent !== null ? ": " : ":");
        write(out, unchecked(o.vals[k]), indent, prefix, depth + 1);
      }
      if (indent !== null) newline(out, indent, prefix, depth);
      out.push("}");
      return;
    }
  }
}

export function bi_json_marshal(a: Value | null): Value | null {
  if (a === null) return null;
  return str(encode(a, null, ""));
}

/**
 * Options: "pretty" (boolean), "indent" and "prefix" (strings; either one
 * turns pretty printing on unless "pretty" says otherwise). Any other key,
 * or a value of the wrong type, is an error.
 */
export function bi_json_marshal_with_options(a: Value | null, opts: Value | null): Value | null {
  if (a === null || opts === null || opts.kind != T_OBJECT) return null;
  const o = asObj(opts);
  let indent = "\t";
  let prefix = "";
  let implicitPretty = false;
  let explicit = false;
  let pretty = false;
  for (let i = 0; i < o.keys.length; i++) {
    const k = unchecked(o.keys[i]);
    const val = unchecked(o.vals[i]);
    if (k.kind != T_STRING) return null;
    const key = asStr(k).value;
    if (key == "prefix" || key == "indent") {
      if (val.kind != T_STRING) return null;
      if (key == "prefix") prefix = asStr(val).value;
      else indent = asStr(val).value;
      implicitPretty = true;
    } else if (key == "pretty") {
      if (val.kind != T_BOOLEAN) return null;
      explicit = true;
      pretty = asBool(val).value;
    } else return null; // "object contained unknown key"
  }
  if (!explicit) pretty = implicitPretty;
  if (!pretty) return str(encode(a, null, ""));
  // Go's MarshalIndent does not prefix the first line; OPA adds it.
  return str(prefix + encode(a, indent, prefix));
}

export function bi_json_unmarshal(a: Value | null): Value | null {
  if (a === null || a.kind != T_STRING) return null;
  return parseJson(asStr(a).value);
}

/** False, not undefined, for a non-string argument. */
export function bi_json_is_valid(a: Value | null): Value | null {
  if (a === null) return null;
  if (a.kind != T_STRING) return boolV(false);
  return boolV(parseJson(asStr(a).value) !== null);
}
