/**
 * json.verify_schema and json.match_schema: JSON Schema validation as OPA does
 * it with (its copy of) gojsonschema: drafts 4, 6 and 7, or the "hybrid" draft
 * that accepts the keywords of all three when `$schema` names none of them.
 *
 * A schema is compiled into a tree of `Sub` (gojsonschema's SubSchema) and the
 * document is walked against it. Errors carry gojsonschema's type names,
 * fields ("(root)", "a.b.0") and English description templates, since policies
 * show or compare them. The error order follows gojsonschema's walk; where Go
 * iterates a map (properties, dependencies, patternProperties) the sorted key
 * order is used instead, which is one of the orders Go may produce.
 *
 * Errors of the builtin itself (a schema that does not compile, a string that
 * is not JSON) make json.match_schema undefined, like any builtin error here;
 * json.verify_schema reports them as [false, "jsonschema: <message>"].
 */

import {
  Value, ArrV, NumV, ObjV, StrV, NULL, boolV, asArr, asBool, asNum, asObj, asSet, asStr,
  T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET,
} from "../value";
import { parseJson } from "../json";
import { formatF64, formatNumber } from "../number";
import { compareExact } from "../decimal";
import { getRegexp, Regexp } from "./regex/regexp";

const DRAFT4: i32 = 4;
const DRAFT6: i32 = 6;
const DRAFT7: i32 = 7;
const HYBRID: i32 = 1 << 30;

const ROOT = "(root)";
const JSON_TYPES = "[array boolean integer number null object string]";

/** additionalProperties / additionalItems: absent, a boolean, or a schema. */
const ADD_NONE: i32 = 0;
const ADD_FALSE: i32 = 1;
const ADD_TRUE: i32 = 2;
const ADD_SCHEMA: i32 = 3;

/** A compiled (sub)schema; absent keywords are null / empty / -1. */
class Sub {
  draft: i32 = HYBRID;
  /** -1: an ordinary schema; 0/1: the boolean schema false/true (draft 6+). */
  pass: i32 = -1;
  refSchema: Sub | null = null;
  types: Array<string> = new Array<string>();
  propNames: Array<string> = new Array<string>();
  propSubs: Array<Sub> = new Array<Sub>();
  addProps: i32 = ADD_NONE;
  addPropsSub: Sub | null = null;
  patternKeys: Array<string> = new Array<string>();
  patternRes: Array<Regexp> = new Array<Regexp>();
  patternSubs: Array<Sub> = new Array<Sub>();
  propertyNames: Sub | null = null;
  depKeys: Array<string> = new Array<string>();
  /** Per dependency key: the property list, or null when depSubs has a schema. */
  depLists: Array<Array<string> | null> = new Array<Array<string> | null>();
  depSubs: Array<Sub | null> = new Array<Sub | null>();
  items: Array<Sub> = new Array<Sub>();
  itemsSingle: bool = false;
  addItems: i32 = ADD_NONE;
  addItemsSub: Sub | null = null;
  multipleOf: NumV | null = null;
  minimum: NumV | null = null;
  maximum: NumV | null = null;
  exclusiveMinimum: NumV | null = null;
  exclusiveMaximum: NumV | null = null;
  minLength: i64 = -1;
  maxLength: i64 = -1;
  pattern: Regexp | null = null;
  patternSrc: string = "";
  format: string = "";
  minProperties: i64 = -1;
  maxProperties: i64 = -1;
  required: Array<string> = new Array<string>();
  minItems: i64 = -1;
  maxItems: i64 = -1;
  uniqueItems: bool = false;
  contains: Sub | null = null;
  constJson: string | null = null;
  enumPresent: bool = false;
  enumJson: Array<string> = new Array<string>();
  oneOf: Array<Sub> = new Array<Sub>();
  anyOf: Array<Sub> = new Array<Sub>();
  allOf: Array<Sub> = new Array<Sub>();
  not: Sub | null = null;
  ifS: Sub | null = null;
  thenS: Sub | null = null;
  elseS: Sub | null = null;
}

// ------------------------------------------------------------ JSON helpers

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

function canonical(v: Value): string {
  const out = new Array<string>();
  canon(out, v);
  return out.join("");
}

function isIntegral(n: NumV): bool {
  const f = n.value;
  return isFinite(f) && Math.floor(f) == f;
}

/** Go's mustBeInteger: an integral JSON number, else NOT_INTEGER. */
const NOT_INTEGER: i64 = i64.MIN_VALUE;
function mustBeInteger(v: Value): i64 {
  if (v.kind != T_NUMBER || !isIntegral(asNum(v))) return NOT_INTEGER;
  const f = asNum(v).value;
  if (Math.abs(f) > 9.2e18) return NOT_INTEGER;
  return <i64>f;
}

function isObjectOrBool(v: Value): bool {
  return v.kind == T_OBJECT || v.kind == T_BOOLEAN;
}

// ------------------------------------------------------------ compiling

/** Messages of gojsonschema's schema errors (its DefaultLocale). */
function invalidType(expected: string, given: string): string {
  return "Invalid type. Expected: " + expected + ", given: " + given;
}
function mustBeOfA(x: string, y: string): string { return x + " must be of a " + y; }
function mustBeOfAn(x: string, y: string): string { return x + " must be of an " + y; }
function mustBeOfType(key: string, t: string): string { return key + " must be of type " + t; }
function mustBeGTEZero(key: string): string { return key + " must be greater than or equal to 0"; }
function itemsMustBeUnique(key: string): string { return key + " items must be unique"; }
const PARSE_ERROR = "Expected: valid schema, given: Invalid JSON";

class Compiler {
  root: Value;
  /** $ref targets already compiled, by reference text (gojsonschema's reference pool). */
  refKeys: Array<string> = new Array<string>();
  refSubs: Array<Sub> = new Array<Sub>();

  constructor(root: Value) {
    this.root = root;
  }

  lookupRef(ref: string): Sub | null {
    for (let i = 0; i < this.refKeys.length; i++) if (this.refKeys[i] == ref) return this.refSubs[i];
    return null;
  }

  /** Parses node into s; an error message, or null. */
  parse(node: Value, s: Sub): string | null {
    if (s.draft >= DRAFT6 && node.kind == T_BOOLEAN) {
      s.pass = asBool(node).value ? 1 : 0;
      return null;
    }
    if (node.kind != T_OBJECT) return PARSE_ERROR;
    const m = asObj(node);
    let err: string | null = null;

    const idKey = s.draft == DRAFT4 ? "id" : s.draft == HYBRID && m.getStr("id") !== null ? "id" : "$id";
    err = stringKeyword(m, idKey);
    if (err !== null) return err;

    const defs = m.getStr("definitions");
    if (defs !== null) {
      if (defs.kind != T_OBJECT) return invalidType("array of schemas", "definitions");
      const d = asObj(defs);
      for (let i = 0; i < d.vals.length; i++) {
        const dv = d.vals[i];
        if (!isObjectOrBool(dv)) return invalidType("array of schemas", "definitions");
        err = this.parse(dv, this.child(s));
        if (err !== null) return err;
      }
    }
    err = stringKeyword(m, "title");
    if (err !== null) return err;
    err = stringKeyword(m, "description");
    if (err !== null) return err;

    const ref = m.getStr("$ref");
    if (ref !== null) {
      if (ref.kind != T_STRING) return invalidType("string", "$ref");
      const key = asStr(ref).value;
      const known = this.lookupRef(key);
      if (known === null) {
        // First use: the target is compiled and the siblings of $ref are ignored.
        return this.parseReference(key, s);
      }
      s.refSchema = known;
    }

    const typ = m.getStr("type");
    if (typ !== null) {
      if (typ.kind == T_STRING) {
        err = addType(s, asStr(typ).value);
        if (err !== null) return err;
      } else if (typ.kind == T_ARRAY) {
        const ts = asArr(typ).items;
        for (let i = 0; i < ts.length; i++) {
          if (ts[i].kind != T_STRING) return invalidType("type", "string/array of strings");
          err = addType(s, asStr(ts[i]).value);
          if (err !== null) return err;
        }
      } else return invalidType("type", "string/array of strings");
    }

    const props = m.getStr("properties");
    if (props !== null) {
      if (props.kind != T_OBJECT) return mustBeOfType("properties", "object");
      const p = asObj(props);
      for (let i = 0; i < p.keys.length; i++) {
        const k = p.keys[i];
        if (k.kind != T_STRING) continue;
        const c = this.child(s);
        s.propNames.push(asStr(k).value);
        s.propSubs.push(c);
        err = this.parse(p.vals[i], c);
        if (err !== null) return err;
      }
    }

    const ap = m.getStr("additionalProperties");
    if (ap !== null) {
      if (ap.kind == T_BOOLEAN) s.addProps = asBool(ap).value ? ADD_TRUE : ADD_FALSE;
      else if (ap.kind == T_OBJECT) {
        const c = this.child(s);
        s.addProps = ADD_SCHEMA;
        s.addPropsSub = c;
        err = this.parse(ap, c);
        if (err !== null) return err;
      } else return invalidType("boolean/valid schema", "additionalProperties");
    }

    const pp = m.getStr("patternProperties");
    if (pp !== null) {
      if (pp.kind != T_OBJECT) return invalidType("valid schema", "patternProperties");
      const p = asObj(pp);
      for (let i = 0; i < p.keys.length; i++) {
        const k = p.keys[i];
        if (k.kind != T_STRING) continue;
        const src = asStr(k).value;
        const re = getRegexp(src);
        if (re === null) return "Invalid regex pattern '" + src + "'";
        const c = this.child(s);
        err = this.parse(p.vals[i], c);
        if (err !== null) return err;
        s.patternKeys.push(src);
        s.patternRes.push(re);
        s.patternSubs.push(c);
      }
    }

    const pn = m.getStr("propertyNames");
    if (pn !== null && s.draft >= DRAFT6) {
      if (!isObjectOrBool(pn)) return invalidType("valid schema", "patternProperties");
      const c = this.child(s);
      s.propertyNames = c;
      err = this.parse(pn, c);
      if (err !== null) return err;
    }

    const deps = m.getStr("dependencies");
    if (deps !== null) {
      if (deps.kind != T_OBJECT) return mustBeOfType("dependencies", "object");
      const d = asObj(deps);
      for (let i = 0; i < d.keys.length; i++) {
        const k = d.keys[i];
        if (k.kind != T_STRING) continue;
        const dv = d.vals[i];
        if (dv.kind == T_ARRAY) {
          const names = new Array<string>();
          const items = asArr(dv).items;
          for (let j = 0; j < items.length; j++) {
            if (items[j].kind != T_STRING) return mustBeOfType("dependency", "schema or array of strings");
            names.push(asStr(items[j]).value);
          }
          // gojsonschema records an empty list as no dependency at all.
          if (names.length == 0) continue;
          s.depKeys.push(asStr(k).value);
          s.depLists.push(names);
          s.depSubs.push(null);
        } else if (isObjectOrBool(dv)) {
          const c = this.child(s);
          err = this.parse(dv, c);
          if (err !== null) return err;
          s.depKeys.push(asStr(k).value);
          s.depLists.push(null);
          s.depSubs.push(c);
        } else return mustBeOfType("dependency", "schema or array of strings");
      }
    }

    const items = m.getStr("items");
    if (items !== null) {
      if (items.kind == T_ARRAY) {
        const list = asArr(items).items;
        for (let i = 0; i < list.length; i++) {
          if (!isObjectOrBool(list[i])) return invalidType("valid schema/array of schemas", "items");
          const c = this.child(s);
          s.items.push(c);
          err = this.parse(list[i], c);
          if (err !== null) return err;
        }
      } else if (isObjectOrBool(items)) {
        const c = this.child(s);
        s.items.push(c);
        err = this.parse(items, c);
        if (err !== null) return err;
        s.itemsSingle = true;
      } else return invalidType("valid schema/array of schemas", "items");
    }

    const ai = m.getStr("additionalItems");
    if (ai !== null) {
      if (ai.kind == T_BOOLEAN) s.addItems = asBool(ai).value ? ADD_TRUE : ADD_FALSE;
      else if (ai.kind == T_OBJECT) {
        const c = this.child(s);
        s.addItems = ADD_SCHEMA;
        s.addItemsSub = c;
        err = this.parse(ai, c);
        if (err !== null) return err;
      } else return invalidType("boolean/valid schema", "additionalItems");
    }

    const mo = m.getStr("multipleOf");
    if (mo !== null) {
      if (mo.kind != T_NUMBER) return invalidType("number", "multipleOf");
      if (asNum(mo).value <= 0) return "multipleOf must be strictly greater than 0";
      s.multipleOf = asNum(mo);
    }

    const min = m.getStr("minimum");
    if (min !== null) {
      if (min.kind != T_NUMBER) return mustBeOfA("minimum", "number");
      s.minimum = asNum(min);
    }
    err = exclusiveBound(m, s, "exclusiveMinimum", "minimum", true);
    if (err !== null) return err;
    const max = m.getStr("maximum");
    if (max !== null) {
      if (max.kind != T_NUMBER) return mustBeOfA("maximum", "number");
      s.maximum = asNum(max);
    }
    err = exclusiveBound(m, s, "exclusiveMaximum", "maximum", false);
    if (err !== null) return err;

    const minL = countKeyword(m, "minLength");
    if (minL == -3) return countError(m, "minLength");
    s.minLength = minL;
    const maxL = countKeyword(m, "maxLength");
    if (maxL == -3) return countError(m, "maxLength");
    s.maxLength = maxL;
    if (minL >= 0 && maxL >= 0 && minL > maxL) return "minLength cannot be greater than maxLength";

    const pat = m.getStr("pattern");
    if (pat !== null) {
      if (pat.kind != T_STRING) return invalidType("string", "pattern");
      const re = getRegexp(asStr(pat).value);
      if (re === null) return "pattern must be a valid regex";
      s.pattern = re;
      s.patternSrc = asStr(pat).value;
    }

    const fmt = m.getStr("format");
    if (fmt !== null) {
      if (fmt.kind != T_STRING) return invalidType("string", "format");
      s.format = asStr(fmt).value;
    }

    const minP = countKeyword(m, "minProperties");
    if (minP == -3) return countError(m, "minProperties");
    s.minProperties = minP;
    const maxP = countKeyword(m, "maxProperties");
    if (maxP == -3) return countError(m, "maxProperties");
    s.maxProperties = maxP;
    if (minP >= 0 && maxP >= 0 && minP > maxP) return "minProperties cannot be greater than maxProperties";

    const req = m.getStr("required");
    if (req !== null) {
      if (req.kind != T_ARRAY) return mustBeOfAn("required", "array");
      const list = asArr(req).items;
      for (let i = 0; i < list.length; i++) {
        if (list[i].kind != T_STRING) return invalidType("string", "required");
        const name = asStr(list[i]).value;
        if (s.required.includes(name)) return itemsMustBeUnique("required");
        s.required.push(name);
      }
    }

    const minI = countKeyword(m, "minItems");
    if (minI == -3) return countError(m, "minItems");
    s.minItems = minI;
    const maxI = countKeyword(m, "maxItems");
    if (maxI == -3) return countError(m, "maxItems");
    s.maxItems = maxI;

    const ui = m.getStr("uniqueItems");
    if (ui !== null) {
      if (ui.kind != T_BOOLEAN) return mustBeOfA("uniqueItems", "boolean");
      s.uniqueItems = asBool(ui).value;
    }

    const contains = m.getStr("contains");
    if (contains !== null && s.draft >= DRAFT6) {
      const c = this.child(s);
      s.contains = c;
      err = this.parse(contains, c);
      if (err !== null) return err;
    }

    const cst = m.getStr("const");
    if (cst !== null && s.draft >= DRAFT6) s.constJson = canonical(cst);

    const en = m.getStr("enum");
    if (en !== null) {
      if (en.kind != T_ARRAY) return mustBeOfAn("enum", "array");
      s.enumPresent = true;
      const list = asArr(en).items;
      for (let i = 0; i < list.length; i++) {
        const c = canonical(list[i]);
        if (s.enumJson.includes(c)) return itemsMustBeUnique("enum");
        s.enumJson.push(c);
      }
    }

    err = this.parseList(m, "oneOf", s, s.oneOf);
    if (err !== null) return err;
    err = this.parseList(m, "anyOf", s, s.anyOf);
    if (err !== null) return err;
    err = this.parseList(m, "allOf", s, s.allOf);
    if (err !== null) return err;

    const not = m.getStr("not");
    if (not !== null) {
      if (!isObjectOrBool(not)) return mustBeOfAn("not", "object");
      const c = this.child(s);
      s.not = c;
      err = this.parse(not, c);
      if (err !== null) return err;
    }

    if (s.draft >= DRAFT7) {
      const names = ["if", "then", "else"];
      for (let i = 0; i < 3; i++) {
        const v = m.getStr(names[i]);
        if (v === null) continue;
        if (!isObjectOrBool(v)) return mustBeOfAn(names[i], "object");
        const c = this.child(s);
        if (i == 0) s.ifS = c;
        else if (i == 1) s.thenS = c;
        else s.elseS = c;
        err = this.parse(v, c);
        if (err !== null) return err;
      }
    }
    return null;
  }

  child(parent: Sub): Sub {
    const c = new Sub();
    c.draft = parent.draft;
    return c;
  }

  parseList(m: ObjV, key: string, s: Sub, into: Array<Sub>): string | null {
    const v = m.getStr(key);
    if (v === null) return null;
    if (v.kind != T_ARRAY) return mustBeOfAn(key, "array");
    const list = asArr(v).items;
    for (let i = 0; i < list.length; i++) {
      const c = this.child(s);
      into.push(c);
      const err = this.parse(list[i], c);
      if (err !== null) return err;
    }
    return null;
  }

  /**
   * Compiles a $ref target. Only references into the schema itself ("#",
   * "#/definitions/x") resolve: OPA would fetch remote ones only from hosts
   * its allow_net capability lists, which a Wasm policy cannot reach.
   */
  parseReference(ref: string, s: Sub): string | null {
    const target = new Sub();
    target.draft = s.draft;
    this.refKeys.push(ref);
    this.refSubs.push(target);
    if (!ref.startsWith("#")) return "Could not resolve reference " + ref;
    const node = resolvePointer(this.root, ref.substring(1));
    if (node === null) return "Could not resolve reference " + ref;
    if (!isObjectOrBool(node)) return mustBeOfType("valid schema", "object");
    const err = this.parse(node, target);
    if (err !== null) return err;
    s.refSchema = target;
    return null;
  }
}

function stringKeyword(m: ObjV, key: string): string | null {
  const v = m.getStr(key);
  if (v !== null && v.kind != T_STRING) return invalidType("string", key);
  return null;
}

function addType(s: Sub, t: string): string | null {
  if (t != "array" && t != "boolean" && t != "integer" && t != "number" && t != "null" && t != "object" && t != "string") {
    return "has a primitive type that is NOT VALID -- given: /" + t + "/ Expected valid values are:" + JSON_TYPES;
  }
  if (s.types.includes(t)) return t + " type is duplicated";
  s.types.push(t);
  return null;
}

/** A non-negative count keyword: -1 when absent, -3 when invalid (see countError). */
function countKeyword(m: ObjV, key: string): i64 {
  const v = m.getStr(key);
  if (v === null) return -1;
  const n = mustBeInteger(v);
  return n < 0 ? -3 : n;
}

function countError(m: ObjV, key: string): string {
  return mustBeInteger(m.getStr(key)!) == NOT_INTEGER ? mustBeOfAn(key, "integer") : mustBeGTEZero(key);
}

/** exclusiveMinimum/Maximum: a boolean modifier in draft 4, a number from draft 6, either in hybrid mode. */
function exclusiveBound(m: ObjV, s: Sub, key: string, base: string, isMin: bool): string | null {
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
function resolvePointer(doc: Value, pointer: string): Value | null {
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

function draftOf(root: Value): i32 {
  if (root.kind != T_OBJECT) return HYBRID;
  const sv = asObj(root).getStr("$schema");
  if (sv === null || sv.kind != T_STRING) return HYBRID;
  let url = asStr(sv).value;
  if (url.endsWith("#")) url = url.substring(0, url.length - 1);
  if (url.startsWith("https://")) url = "http://" + url.substring(8);
  if (url == "http://json-schema.org/draft-04/schema") return DRAFT4;
  if (url == "http://json-schema.org/draft-06/schema") return DRAFT6;
  if (url == "http://json-schema.org/draft-07/schema") return DRAFT7;
  return HYBRID;
}

/** Compiles a schema document; the message of the first schema error in lastError otherwise. */
let lastError: string = "";

function compileSchema(doc: Value): Sub | null {
  if (doc.kind == T_OBJECT) {
    const sv = asObj(doc).getStr("$schema");
    if (sv !== null && sv.kind != T_STRING) {
      lastError = mustBeOfType("$schema", "string");
      return null;
    }
  } else if (doc.kind != T_BOOLEAN) {
    lastError = "schema is invalid";
    return null;
  }
  const root = new Sub();
  root.draft = draftOf(doc);
  const err = new Compiler(doc).parse(doc, root);
  if (err !== null) {
    lastError = err;
    return null;
  }
  return root;
}

// ------------------------------------------------------------ validating

class SchemaError {
  constructor(public type: string, public context: string, public desc: string) {}
}

/** gojsonschema's Result: the errors and a score that picks the closest anyOf/oneOf branch. */
class Result {
  errors: Array<SchemaError> = new Array<SchemaError>();
  score: i32 = 0;

  add(type: string, context: string, desc: string): void {
    this.errors.push(new SchemaError(type, context, desc));
    this.score -= 2;
  }

  merge(other: Result): void {
    for (let i = 0; i < other.errors.length; i++) this.errors.push(other.errors[i]);
    this.score += other.score;
  }

  get valid(): bool {
    return this.errors.length == 0;
  }
}

function fieldOf(context: string): string {
  return context.startsWith(ROOT + ".") ? context.substring(ROOT.length + 1) : context;
}

function childContext(context: string, key: string): string {
  return context + "." + key;
}

/**
 * Go's big.Float String(): %g with 10 significant digits (exponent form below
 * 1e-4 or from 1e10, with at least two exponent digits).
 */
function bigFloatText(n: NumV): string {
  const v = n.value;
  if (v == 0) return "0";
  const neg = v < 0;
  const a = Math.abs(v);
  let e = <i32>Math.floor(Math.log10(a));
  let scaled = Math.round(a / Math.pow(10, e - 9));
  if (scaled >= 1e10) {
    e++;
    scaled = Math.round(a / Math.pow(10, e - 9));
  } else if (scaled < 1e9) {
    e--;
    scaled = Math.round(a / Math.pow(10, e - 9));
  }
  let digits = (<i64>scaled).toString();
  while (digits.length > 1 && digits.endsWith("0")) digits = digits.substring(0, digits.length - 1);
  let out: string;
  if (e < -4 || e >= 10) {
    out = digits.substring(0, 1);
    if (digits.length > 1) out += "." + digits.substring(1);
    const ae = e < 0 ? -e : e;
    out += (e < 0 ? "e-" : "e+") + (ae < 10 ? "0" : "") + ae.toString();
  } else if (e < 0) {
    out = "0." + "0".repeat(-e - 1) + digits;
  } else if (digits.length > e + 1) {
    out = digits.substring(0, e + 1) + "." + digits.substring(e + 1);
  } else {
    out = digits + "0".repeat(e + 1 - digits.length);
  }
  return neg ? "-" + out : out;
}

/** Code points in s (Go's utf8.RuneCountInString). */
function runeCount(s: string): i64 {
  let n: i64 = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) i++;
    }
    n++;
  }
  return n;
}

/** A decimal as an integer mantissa and a power of ten, when the mantissa fits in u64. */
class Dec {
  constructor(public mant: u64, public exp: i32, public ok: bool) {}
}

function decOf(n: NumV): Dec {
  const t = formatNumber(n);
  let mant: u64 = 0;
  let exp = 0;
  let i = 0;
  let seenPoint = false;
  let ok = true;
  if (i < t.length && (t.charCodeAt(i) == 0x2d || t.charCodeAt(i) == 0x2b)) i++;
  for (; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c == 0x2e) { seenPoint = true; continue; }
    if (c == 0x65 || c == 0x45) {
      exp += I32.parseInt(t.substring(i + 1));
      break;
    }
    if (mant > 1844674407370955000) { ok = false; break; }
    mant = mant * 10 + <u64>(c - 0x30);
    if (seenPoint) exp--;
  }
  return new Dec(mant, exp, ok);
}

/** Whether value / divisor is an integer (exactly on the decimal texts when they fit, as Go's big.Rat). */
function isMultiple(value: NumV, divisor: NumV): bool {
  const a = decOf(value);
  const b = decOf(divisor);
  if (a.ok && b.ok && b.mant != 0) {
    let am = a.mant;
    let bm = b.mant;
    let exact = true;
    // Bring both to the smaller exponent; give up on overflow.
    for (let k = a.exp; k > b.exp && exact; k--) {
      if (am > 1844674407370955161) exact = false;
      else am *= 10;
    }
    for (let k = b.exp; k > a.exp && exact; k--) {
      if (bm > 1844674407370955161) exact = false;
      else bm *= 10;
    }
    if (exact) return am % bm == 0;
  }
  const q = value.value / divisor.value;
  return isFinite(q) && Math.floor(q) == q;
}

/** The exact order of two numbers (as big.Rat's Cmp): f64 first, literal texts to break ties. */
function cmpNum(a: NumV, b: NumV): i32 {
  if (a.value < b.value) return -1;
  if (a.value > b.value) return 1;
  return a.text === null && b.text === null ? 0 : compareExact(a, b);
}

function kindName(v: Value): string {
  switch (v.kind) {
    case T_NULL: return "null";
    case T_BOOLEAN: return "boolean";
    case T_NUMBER: return isIntegral(asNum(v)) ? "integer" : "number";
    case T_STRING: return "string";
    case T_ARRAY:
    case T_SET: return "array";
    default: return "object";
  }
}

function typesText(types: Array<string>): string {
  return types.length == 1 ? types[0] : "[" + types.join(",") + "]";
}

function typeAllowed(types: Array<string>, v: Value): bool {
  if (v.kind == T_NUMBER) return types.includes("number") || (isIntegral(asNum(v)) && types.includes("integer"));
  return types.includes(kindName(v));
}

function itemsOf(v: Value): Array<Value> {
  return v.kind == T_ARRAY ? asArr(v).items : asSet(v).items;
}

function subValidate(s: Sub, v: Value, context: string): Result {
  const r = new Result();
  validateRecursive(s, v, r, context);
  return r;
}

function validateRecursive(s: Sub, v: Value, r: Result, context: string): void {
  if (s.pass >= 0) {
    if (s.pass == 0) r.add("false", context, "False always fails validation");
    return;
  }
  const ref = s.refSchema;
  if (ref !== null) {
    validateRecursive(ref, v, r, context);
    return;
  }
  if (s.types.length > 0 && !typeAllowed(s.types, v)) {
    r.add("invalid_type", context, "Invalid type. Expected: " + typesText(s.types) + ", given: " + kindName(v));
    return;
  }
  validateSchema(s, v, r, context);
  if (v.kind == T_NUMBER) validateNumber(s, asNum(v), r, context);
  if (v.kind == T_ARRAY || v.kind == T_SET) validateArray(s, itemsOf(v), r, context);
  if (v.kind == T_OBJECT) validateObject(s, asObj(v), r, context);
  validateCommon(s, v, r, context);
  if (v.kind == T_STRING) validateString(s, asStr(v).value, r, context);
  if (v.kind == T_OBJECT) {
    const o = asObj(v);
    for (let i = 0; i < s.propNames.length; i++) {
      const name = s.propNames[i];
      const next = o.getStr(name);
      if (next !== null) validateRecursive(s.propSubs[i], next, r, childContext(context, name));
    }
  }
  r.score++;
}

function validateSchema(s: Sub, v: Value, r: Result, context: string): void {
  if (s.anyOf.length > 0) {
    let ok = false;
    let best: Result | null = null;
    for (let i = 0; i < s.anyOf.length && !ok; i++) {
      const res = subValidate(s.anyOf[i], v, context);
      ok = res.valid;
      if (!ok && (best === null || res.score > best.score)) best = res;
    }
    if (!ok) {
      r.add("number_any_of", context, "Must validate at least one schema (anyOf)");
      if (best !== null) r.merge(best);
    }
  }
  if (s.oneOf.length > 0) {
    let matched = 0;
    let best: Result | null = null;
    for (let i = 0; i < s.oneOf.length; i++) {
      const res = subValidate(s.oneOf[i], v, context);
      if (res.valid) matched++;
      else if (matched == 0 && (best === null || res.score > best.score)) best = res;
    }
    if (matched != 1) {
      r.add("number_one_of", context, "Must validate one and only one schema (oneOf)");
      if (matched == 0 && best !== null) r.merge(best);
    }
  }
  if (s.allOf.length > 0) {
    let matched = 0;
    for (let i = 0; i < s.allOf.length; i++) {
      const res = subValidate(s.allOf[i], v, context);
      if (res.valid) matched++;
      r.merge(res);
    }
    if (matched != s.allOf.length) r.add("number_all_of", context, "Must validate all the schemas (allOf)");
  }
  const not = s.not;
  if (not !== null && subValidate(not, v, context).valid) {
    r.add("number_not", context, "Must not validate the schema (not)");
  }
  if (s.depKeys.length > 0 && v.kind == T_OBJECT) {
    const o = asObj(v);
    for (let i = 0; i < o.keys.length; i++) {
      const k = o.keys[i];
      if (k.kind != T_STRING) continue;
      const at = s.depKeys.indexOf(asStr(k).value);
      if (at < 0) continue;
      const list = s.depLists[at];
      if (list !== null) {
        for (let j = 0; j < list.length; j++) {
          if (o.getStr(list[j]) === null) r.add("missing_dependency", context, "Has a dependency on " + list[j]);
        }
      } else {
        validateRecursive(s.depSubs[at]!, v, r, context);
      }
    }
  }
  const ifS = s.ifS;
  if (ifS !== null) {
    const ifValid = subValidate(ifS, v, context).valid;
    const thenS = s.thenS;
    const elseS = s.elseS;
    if (thenS !== null && ifValid) {
      const res = subValidate(thenS, v, context);
      if (!res.valid) {
        r.add("condition_then", context, 'Must validate "then" as "if" was valid');
        r.merge(res);
      }
    }
    if (elseS !== null && !ifValid) {
      const res = subValidate(elseS, v, context);
      if (!res.valid) {
        r.add("condition_else", context, 'Must validate "else" as "if" was not valid');
        r.merge(res);
      }
    }
  }
  r.score++;
}

function validateCommon(s: Sub, v: Value, r: Result, context: string): void {
  const field = fieldOf(context);
  const cst = s.constJson;
  if (cst !== null && canonical(v) != cst) {
    r.add("const", context, field + " does not match: " + cst);
  }
  if (s.enumPresent && !s.enumJson.includes(canonical(v))) {
    const allowed = s.enumJson.length == 0 ? "(none)" : s.enumJson.join(", ");
    r.add("enum", context, field + " must be one of the following: " + allowed);
  }
  if (s.format.length > 0 && !isFormat(s.format, v)) {
    r.add("format", context, "Does not match format '" + s.format + "'");
  }
  r.score++;
}

function validateArray(s: Sub, items: Array<Value>, r: Result, context: string): void {
  const n = items.length;
  if (s.itemsSingle) {
    for (let i = 0; i < n; i++) r.merge(subValidate(s.items[0], items[i], childContext(context, i.toString())));
  } else if (s.items.length > 0) {
    const k = s.items.length;
    for (let i = 0; i < k && i < n; i++) r.merge(subValidate(s.items[i], items[i], childContext(context, i.toString())));
    if (k < n) {
      if (s.addItems == ADD_FALSE) r.add("array_no_additional_items", context, "No additional items allowed on array");
      else if (s.addItems == ADD_SCHEMA) {
        for (let i = k; i < n; i++) r.merge(subValidate(s.addItemsSub!, items[i], childContext(context, i.toString())));
      }
    }
  }
  if (s.minItems >= 0 && <i64>n < s.minItems) {
    r.add("array_min_items", context, "Array must have at least " + s.minItems.toString() + " items");
  }
  if (s.maxItems >= 0 && <i64>n > s.maxItems) {
    r.add("array_max_items", context, "Array must have at most " + s.maxItems.toString() + " items");
  }
  if (s.uniqueItems) {
    const seen = new Map<string, i32>();
    for (let j = 0; j < n; j++) {
      const c = canonical(items[j]);
      if (seen.has(c)) {
        r.add("unique", context, "array items[" + seen.get(c).toString() + "," + j.toString() + "] must be unique");
      }
      seen.set(c, j);
    }
  }
  const contains = s.contains;
  if (contains !== null) {
    let ok = false;
    let best: Result | null = null;
    for (let i = 0; i < n; i++) {
      const res = subValidate(contains, items[i], childContext(context, i.toString()));
      if (res.valid) {
        ok = true;
        break;
      }
      if (best === null || res.score > best.score) best = res;
    }
    if (!ok) {
      r.add("contains", context, "At least one of the items must match");
      if (best !== null) r.merge(best);
    }
  }
  r.score++;
}

function validateObject(s: Sub, o: ObjV, r: Result, context: string): void {
  const n = <i64>o.keys.length;
  if (s.minProperties >= 0 && n < s.minProperties) {
    r.add("array_min_properties", context, "Must have at least " + s.minProperties.toString() + " properties");
  }
  if (s.maxProperties >= 0 && n > s.maxProperties) {
    r.add("array_max_properties", context, "Must have at most " + s.maxProperties.toString() + " properties");
  }
  for (let i = 0; i < s.required.length; i++) {
    const name = s.required[i];
    if (o.getStr(name) !== null) r.score++;
    else r.add("required", context, name + " is required");
  }
  for (let i = 0; i < o.keys.length; i++) {
    const k = o.keys[i];
    if (k.kind != T_STRING) continue;
    const key = asStr(k).value;
    const val = o.vals[i];
    const found = s.propNames.includes(key);
    let ppMatch = false;
    for (let j = 0; j < s.patternKeys.length; j++) {
      if (s.patternRes[j].matchString(key)) {
        ppMatch = true;
        r.merge(subValidate(s.patternSubs[j], val, childContext(context, key)));
      }
    }
    if (ppMatch) r.score++;
    if (!found && !ppMatch) {
      if (s.addProps == ADD_FALSE) {
        r.add("additional_property_not_allowed", context, "Additional property " + key + " is not allowed");
      } else if (s.addProps == ADD_SCHEMA) {
        r.merge(subValidate(s.addPropsSub!, val, childContext(context, key)));
      }
    }
  }
  const pn = s.propertyNames;
  if (pn !== null) {
    for (let i = 0; i < o.keys.length; i++) {
      const k = o.keys[i];
      if (k.kind != T_STRING) continue;
      const res = subValidate(pn, k, context);
      if (!res.valid) {
        r.add("invalid_property_name", context, 'Property name of "' + asStr(k).value + '" does not match');
        r.merge(res);
      }
    }
  }
  r.score++;
}

function validateString(s: Sub, v: string, r: Result, context: string): void {
  if (s.minLength >= 0 && runeCount(v) < s.minLength) {
    r.add("string_gte", context, "String length must be greater than or equal to " + s.minLength.toString());
  }
  if (s.maxLength >= 0 && runeCount(v) > s.maxLength) {
    r.add("string_lte", context, "String length must be less than or equal to " + s.maxLength.toString());
  }
  const re = s.pattern;
  if (re !== null && !re.matchString(v)) {
    r.add("pattern", context, "Does not match pattern '" + s.patternSrc + "'");
  }
  r.score++;
}

function validateNumber(s: Sub, v: NumV, r: Result, context: string): void {
  const mo = s.multipleOf;
  if (mo !== null && !isMultiple(v, mo)) {
    r.add("multiple_of", context, "Must be a multiple of " + bigFloatText(mo));
  }
  const max = s.maximum;
  if (max !== null && cmpNum(v, max) > 0) {
    r.add("number_lte", context, "Must be less than or equal to " + bigFloatText(max));
  }
  const xmax = s.exclusiveMaximum;
  if (xmax !== null && cmpNum(v, xmax) >= 0) {
    r.add("number_lt", context, "Must be less than " + bigFloatText(xmax));
  }
  const min = s.minimum;
  if (min !== null && cmpNum(v, min) < 0) {
    r.add("number_gte", context, "Must be greater than or equal to " + bigFloatText(min));
  }
  const xmin = s.exclusiveMinimum;
  if (xmin !== null && cmpNum(v, xmin) <= 0) {
    r.add("number_gt", context, "Must be greater than " + bigFloatText(xmin));
  }
  r.score++;
}

// ------------------------------------------------------------ formats

const UUID_RE = "^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
const HOSTNAME_RE = "^[a-zA-Z0-9]([a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9])?(\\.[a-zA-Z0-9]([a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9])?)*$";
const DATE_RE = "^([0-9]{4})-([0-9]{2})-([0-9]{2})$";
const TIME_RE = "^([0-9]{2}):([0-9]{2}):([0-9]{2})(\\.[0-9]+)?([zZ]|[+-]([0-9]{2}):([0-9]{2}))$";

function matches(pattern: string, s: string): bool {
  return getRegexp(pattern)!.matchString(s);
}

function isDate(s: string): bool {
  if (!matches(DATE_RE, s)) return false;
  const y = I32.parseInt(s.substring(0, 4));
  const m = I32.parseInt(s.substring(5, 7));
  const d = I32.parseInt(s.substring(8, 10));
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const days: i32 = m == 2 ? (leap ? 29 : 28) : m == 4 || m == 6 || m == 9 || m == 11 ? 30 : 31;
  return d <= days;
}

function isTime(s: string): bool {
  if (!matches(TIME_RE, s)) return false;
  const h = I32.parseInt(s.substring(0, 2));
  const mi = I32.parseInt(s.substring(3, 5));
  const se = I32.parseInt(s.substring(6, 8));
  if (h > 23 || mi > 59 || se > 59) return false;
  const z = s.charCodeAt(s.length - 1);
  if (z == 0x5a || z == 0x7a) return true;
  return I32.parseInt(s.substring(s.length - 5, s.length - 3)) <= 23 && I32.parseInt(s.substring(s.length - 2)) <= 59;
}

/** A dotted-quad IPv4 address as Go's net.ParseIP reads it (no leading zeros). */
function isIPv4(s: string): bool {
  const parts = s.split(".");
  if (parts.length != 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (p.length == 0 || p.length > 3 || (p.length > 1 && p.charCodeAt(0) == 0x30)) return false;
    for (let j = 0; j < p.length; j++) {
      const c = p.charCodeAt(j);
      if (c < 0x30 || c > 0x39) return false;
    }
    if (I32.parseInt(p) > 255) return false;
  }
  return true;
}

/**
 * gojsonschema's format checkers for the formats that need no URL, mail or
 * IPv6 parser; other format names pass, as unknown formats do in gojsonschema.
 * Non-strings always pass.
 */
function isFormat(format: string, v: Value): bool {
  if (v.kind != T_STRING) return true;
  const s = asStr(v).value;
  if (format == "ipv4") return isIPv4(s);
  if (format == "uuid") return matches(UUID_RE, s);
  if (format == "hostname") return s.length <= 253 && matches(HOSTNAME_RE, s);
  if (format == "date") return isDate(s);
  if (format == "time") return isTime(s);
  if (format == "date-time") {
    const t = s.indexOf("T") >= 0 ? s.indexOf("T") : s.indexOf("t");
    return t == 10 && isDate(s.substring(0, 10)) && isTime(s.substring(11));
  }
  if (format == "regex") return getRegexp(s) !== null;
  return true;
}

// ------------------------------------------------------------ builtins

/** OPA's astValueToJSONSchemaLoader: a JSON string, an object or an array; null sets lastError. */
function load(v: Value): Value | null {
  if (v.kind == T_STRING) {
    const parsed = parseJson(asStr(v).value);
    if (parsed === null) lastError = "invalid JSON string";
    return parsed;
  }
  if (v.kind == T_OBJECT || v.kind == T_ARRAY) return v;
  lastError = "wrong type, expected string or object";
  return null;
}

function pair(a: Value, b: Value): ArrV {
  const items = new Array<Value>(2);
  items[0] = a;
  items[1] = b;
  return new ArrV(items);
}

/** json.verify_schema(schema): [true, null], or [false, "jsonschema: <why>"]. */
export function bi_json_verify_schema(schema: Value | null): Value | null {
  if (schema === null) return null;
  const doc = load(schema);
  if (doc !== null && compileSchema(doc) !== null) return pair(boolV(true), NULL);
  return pair(boolV(false), new StrV("jsonschema: " + lastError));
}

/** json.match_schema(document, schema): [valid, errors]; undefined when either operand is not usable. */
export function bi_json_match_schema(document: Value | null, schema: Value | null): Value | null {
  if (document === null || schema === null) return null;
  const doc = load(document);
  if (doc === null) return null;
  const sdoc = load(schema);
  if (sdoc === null) return null;
  const root = compileSchema(sdoc);
  if (root === null) return null;
  const result = subValidate(root, doc, ROOT);
  const errs = new Array<Value>();
  for (let i = 0; i < result.errors.length; i++) {
    const e = result.errors[i];
    const field = fieldOf(e.context);
    const o = new ObjV();
    o.setStr("desc", new StrV(e.desc));
    o.setStr("error", new StrV(field + ": " + e.desc));
    o.setStr("field", new StrV(field));
    o.setStr("type", new StrV(e.type));
    errs.push(o);
  }
  return pair(boolV(result.valid), new ArrV(errs));
}
