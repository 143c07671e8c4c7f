/**
 * Readers of single schema keywords for the compiler (compiler.ts): types,
 * counts, exclusive bounds, and JSON pointers of $ref.
 */

import { ObjV, Value, asArr, asBool, asNum, asObj, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT } from "../../value";
import { DRAFT4, DRAFT6, DRAFT7, HYBRID, Sub } from "./sub";
import { NOT_INTEGER, mustBeInteger } from "./canonical";
import { invalidType, mustBeOfAn, mustBeGTEZero } from "./errors";

const JSON_TYPES = "[array boolean integer number null object string]";

export function stringKeyword(m: ObjV, key: string): string | null {
  const v = m.getStr(key);
  if (v !== null && v.kind != T_STRING) return invalidType("string", key);
  return null;
}

export function addType(s: Sub, t: string): string | null {
  if (t != "array" && t != "boolean" && t != "integer" && t != "number" && t != "null" && t != "object" && t != "string") {
    return "has a primitive type that is NOT VALID -- given: /" + t + "/ Expected valid values are:" + JSON_TYPES;
  }
  if (s.types.includes(t)) return t + " type is duplicated";
  s.types.push(t);
  return null;
}

/** A non-negative count keyword: -1 when absent, -3 when invalid (see countError). */
export function countKeyword(m: ObjV, key: string): i64 {
  const v = m.getStr(key);
  if (v === null) return -1;
  const n = mustBeInteger(v);
  return n < 0 ? -3 : n;
}

export function countError(m: ObjV, key: string): string {
  return mustBeInteger(m.getStr(key)!) == NOT_INTEGER ? mustBeOfAn(key, "integer") : mustBeGTEZero(key);
}

/** exclusiveMinimum/Maximum: a boolean modifier in draft 4, a number from draft 6, either in hybrid mode. */
export function exclusiveBound(m: ObjV, s: Sub, key: string, base: string, isMin: bool): string | null {
  const v = m.getStr(key);
  if (v === null) return null;
  const bound = isMin ? s.minimum : s.maximum;
  if (v.kind == T_BOOLEAN && s.draft != DRAFT6 && s.draft != DRAFT7) {
    if (bound === null) return key + " cannot be used without " + base;
    if (asBool(v).value) {
      if (isMin) { s.exclusiveMinimum = bound; s.minimum = null; }
      else { s.exclusiveMaximum = bound; s.maximum = null; }
    }
    return null;
  }
  if (v.kind == T_NUMBER && s.draft != DRAFT4) {
    if (isMin) s.exclusiveMinimum = asNum(v);
    else s.exclusiveMaximum = asNum(v);
    return null;
  }
  return invalidType(s.draft == DRAFT4 ? "boolean" : s.draft == HYBRID ? "boolean/number" : "number", key);
}

/** A JSON pointer ("/a/b~1c") into doc, or null. */
export function resolvePointer(doc: Value, pointer: string): Value | null {
  if (pointer.length == 0) return doc;
  if (!pointer.startsWith("/")) return null;
  const parts = pointer.substring(1).split("/");
  let cur: Value = doc;
  for (let i = 0; i < parts.length; i++) {
    const tok = parts[i].replaceAll("~1", "/").replaceAll("~0", "~");
    if (cur.kind == T_OBJECT) {
      const next = asObj(cur).getStr(tok);
      if (next === null) return null;
      cur = next;
    } else if (cur.kind == T_ARRAY) {
      const idx = I32.parseInt(tok);
      const items = asArr(cur).items;
      if (idx < 0 || idx >= items.length || idx.toString() != tok) return null;
      cur = items[idx];
    } else return null;
  }
  return cur;
}
