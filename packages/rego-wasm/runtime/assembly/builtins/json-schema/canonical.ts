/**
 * JSON helpers of json.verify_schema / json.match_schema: the canonical JSON
 * text gojsonschema compares enum and const values by, and integer checks.
 */

import {
  Value, NumV, asArr, asBool, asNum, asObj, asSet, asStr,
  T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET,
} from "../../value";
import { formatF64 } from "../../number";

/** A number's text as Go's encoding/json writes a float64 (the canonical form used for enum and const). */
function goFloatText(n: NumV): string {
  return formatF64(n.value);
}

function quote(out: Array<string>, s: string): void {
  out.push('"');
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c == 0x22) esc = '\\"';
    else if (c == 0x5c) esc = "\\\\";
    else if (c == 0x0a) esc = "\\n";
    else if (c == 0x0d) esc = "\\r";
    else if (c == 0x09) esc = "\\t";
    else if (c < 0x20 || c == 0x3c || c == 0x3e || c == 0x26 || c == 0x2028 || c == 0x2029) {
      // Go escapes control characters, <, > and & (HTML safety) and the JS line separators.
      const h = c.toString(16);
      esc = "\\u" + "0000".substring(h.length) + h;
    }
    if (esc !== null) {
      out.push(s.substring(last, i));
      out.push(esc);
      last = i + 1;
    }
  }
  out.push(s.substring(last));
  out.push('"');
}

/**
 * gojsonschema's marshalWithoutNumber: the value as Go marshals it after a
 * round trip through float64, so 1 and 1.0 compare equal. Object keys come
 * sorted (as Go sorts map keys); sets are arrays, as ast.JSON makes them.
 */
function canon(out: Array<string>, v: Value): void {
  switch (v.kind) {
    case T_NULL: out.push("null"); return;
    case T_BOOLEAN: out.push(asBool(v).value ? "true" : "false"); return;
    case T_NUMBER: out.push(goFloatText(asNum(v))); return;
    case T_STRING: quote(out, asStr(v).value); return;
    case T_ARRAY:
    case T_SET: {
      const items = v.kind == T_ARRAY ? asArr(v).items : asSet(v).items;
      out.push("[");
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out.push(",");
        canon(out, items[i]);
      }
      out.push("]");
      return;
    }
    default: {
      const o = asObj(v);
      out.push("{");
      let first = true;
      for (let i = 0; i < o.keys.length; i++) {
        const k = o.keys[i];
        if (k.kind != T_STRING) continue;
        if (!first) out.push(",");
        first = false;
        quote(out, asStr(k).value);
        out.push(":");
        canon(out, o.vals[i]);
      }
      out.push("}");
    }
  }
}

export function canonical(v: Value): string {
  const out = new Array<string>();
  canon(out, v);
  return out.join("");
}

export function isIntegral(n: NumV): bool {
  const f = n.value;
  return isFinite(f) && Math.floor(f) == f;
}

/** Go's mustBeInteger: an integral JSON number, else NOT_INTEGER. */
export const NOT_INTEGER: i64 = i64.MIN_VALUE;
export function mustBeInteger(v: Value): i64 {
  if (v.kind != T_NUMBER || !isIntegral(asNum(v))) return NOT_INTEGER;
  const f = asNum(v).value;
  if (Math.abs(f) > 9.2e18) return NOT_INTEGER;
  return <i64>f;
}

export function isObjectOrBool(v: Value): bool {
  return v.kind == T_OBJECT || v.kind == T_BOOLEAN;
}
