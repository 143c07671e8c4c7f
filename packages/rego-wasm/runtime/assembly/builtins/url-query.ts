/**
 * urlquery builtins (OPA v1/topdown/encoding.go), with Go's net/url
 * semantics: QueryEscape, QueryUnescape, url.Values.Encode and ParseQuery.
 * Escaping works on UTF-8 bytes; unescaped bytes that are not valid UTF-8
 * read back as U+FFFD.
 */

import { Value, StrV, ArrV, T_OBJECT, T_ARRAY, T_SET, T_STRING, asObj, asArr, asSet, objectFromPairs, compareStrings } from "../value";
import { toJson } from "../json";
import { strArg, utf8Bytes, decodeUtf8Lossy, queryEscape } from "./text";

function hexVal(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** url.QueryUnescape: %XX must be well-formed; '+' is a space. Null on a bad escape. */
function queryUnescape(s: string): string | null {
  const b = utf8Bytes(s);
  const out = new Array<u8>();
  for (let i = 0; i < b.length; ) {
    const c = <i32>b[i];
    if (c == 0x25) {
      if (i + 2 >= b.length) return null;
      const hi = hexVal(<i32>b[i + 1]);
      const lo = hexVal(<i32>b[i + 2]);
      if (hi < 0 || lo < 0) return null;
      out.push(<u8>((hi << 4) | lo));
      i += 3;
    } else {
      out.push(c == 0x2b ? 0x20 : <u8>c);
      i++;
    }
  }
  return decodeUtf8Lossy(out);
}

export function bi_urlquery_encode(a: Value | null): Value | null {
  const s = strArg(a);
  return s === null ? null : new StrV(queryEscape(s));
}

export function bi_urlquery_decode(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const r = queryUnescape(s);
  return r === null ? null : new StrV(r);
}

/**
 * urlquery.encode_object(object): url.Values.Encode of the object seen as
 * JSON: keys as strings (a non-string key as its JSON text), each value a
 * string or an array or set of strings; pairs sorted by key (byte order,
 * which our string order is), a key's values in array (or set) order.
 */
export function bi_urlquery_encode_object(a: Value | null): Value | null {
  if (a === null || a.kind != T_OBJECT) return null;
  const obj = asObj(a);
  const keys = new Array<string>();
  const lists = new Array<Array<string>>();
  for (let i = 0; i < obj.keys.length; i++) {
    const k = unchecked(obj.keys[i]);
    const v = unchecked(obj.vals[i]);
    const vals = new Array<string>();
    if (v.kind == T_STRING) vals.push(strArg(v)!);
    else if (v.kind == T_ARRAY || v.kind == T_SET) {
      const items = v.kind == T_ARRAY ? asArr(v).items : asSet(v).items;
      for (let j = 0; j < items.length; j++) {
        const s = strArg(unchecked(items[j]));
        if (s === null) return null;
        vals.push(s);
      }
    } else return null;
    keys.push(k.kind == T_STRING ? strArg(k)! : toJson(k));
    lists.push(vals);
  }
  // String keys come sorted; non-string ones, turned into text, may not.
  // Insertion sort by byte order (stable), cheap on sorted input.
  const order = new Array<i32>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    let j = i;
    while (j > 0 && compareStrings(keys[order[j - 1]], keys[i]) > 0) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
  const parts = new Array<string>();
  for (let i = 0; i < order.length; i++) {
    const k = queryEscape(keys[order[i]]);
    const vals = lists[order[i]];
    for (let j = 0; j < vals.length; j++) parts.push(k + "=" + queryEscape(vals[j]));
  }
  return new StrV(parts.join("&"));
}

/**
 * urlquery.decode_object(s): url.ParseQuery into {key: [values...]}. Pairs
 * are split on '&' (a ';' in a pair is an error), empty pairs are skipped, a
 * pair without '=' has the value "", and any bad escape makes the call
 * undefined (OPA returns ParseQuery's error).
 */
export function bi_urlquery_decode_object(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const names = new Array<string>();
  const values = new Array<Array<Value>>();
  let failed = false;
  if (s.length > 0) {
    const pairs = s.split("&");
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i];
      if (pair.includes(";")) {
        failed = true;
        continue;
      }
      if (pair.length == 0) continue;
      const eq = pair.indexOf("=");
      const key = queryUnescape(eq < 0 ? pair : pair.substring(0, eq));
      const val = queryUnescape(eq < 0 ? "" : pair.substring(eq + 1));
      if (key === null || val === null) {
        failed = true;
        continue;
      }
      const at = names.indexOf(key);
      if (at >= 0) values[at].push(new StrV(val));
      else {
        names.push(key);
        values.push([new StrV(val) as Value]);
      }
    }
  }
  if (failed) return null;
  const keys = new Array<Value>(names.length);
  const vals = new Array<Value>(names.length);
  for (let i = 0; i < names.length; i++) {
    keys[i] = new StrV(names[i]);
    vals[i] = new ArrV(values[i]);
  }
  return objectFromPairs(keys, vals);
}
