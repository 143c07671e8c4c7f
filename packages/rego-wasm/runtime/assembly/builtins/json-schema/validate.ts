/**
 * Validates a document against a compiled schema, keyword by keyword in
 * gojsonschema's order, collecting errors and the score of a Result.
 */

import { Value, NumV, ObjV, asArr, asNum, asObj, asSet, asStr, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET } from "../../value";
import { ADD_FALSE, ADD_SCHEMA, Sub } from "./sub";
import { canonical, isIntegral } from "./canonical";
import { Result, fieldOf, childContext, kindName, typesText } from "./errors";
import { bigFloatText, isMultiple, cmpNum } from "./numbers";
import { isFormat } from "./formats";

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

function typeAllowed(types: Array<string>, v: Value): bool {
  if (v.kind == T_NUMBER) return types.includes("number") || (isIntegral(asNum(v)) && types.includes("integer"));
  return types.includes(kindName(v));
}

function itemsOf(v: Value): Array<Value> {
  return v.kind == T_ARRAY ? asArr(v).items : asSet(v).items;
}

export function subValidate(s: Sub, v: Value, context: string): Result {
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
