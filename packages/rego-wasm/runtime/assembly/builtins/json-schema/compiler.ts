/**
 * Compiles a JSON Schema document into a tree of `Sub`, checking each keyword
 * as gojsonschema's parser does and answering its first error message.
 */

import { ObjV, Value, asArr, asBool, asNum, asObj, asStr, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT } from "../../value";
import { getRegexp } from "../regex/regexp";
import { DRAFT4, DRAFT6, DRAFT7, HYBRID, ADD_FALSE, ADD_TRUE, ADD_SCHEMA, Sub } from "./sub";
import { canonical, isObjectOrBool } from "./canonical";
import { invalidType, mustBeOfA, mustBeOfAn, mustBeOfType, itemsMustBeUnique, PARSE_ERROR } from "./errors";
import { stringKeyword, addType, countKeyword, countError, exclusiveBound, resolvePointer } from "./keywords";

export class Compiler {
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
