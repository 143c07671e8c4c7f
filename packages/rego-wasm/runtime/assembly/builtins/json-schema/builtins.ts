/**
 * json.verify_schema and json.match_schema: JSON Schema validation as OPA does
 * it with (its copy of) gojsonschema: drafts 4, 6 and 7, or the "hybrid" draft
 * that accepts the keywords of all three when `$schema` names none of them.
 *
 * A schema is compiled (schema.ts, compiler.ts, keywords.ts) into a tree of
 * `Sub` (sub.ts, gojsonschema's SubSchema) and the document is walked against
 * it (validate.ts, formats.ts, numbers.ts). Errors carry gojsonschema's type
 * names, fields ("(root)", "a.b.0") and English description templates
 * (errors.ts), since policies show or compare them. The error order follows
 * gojsonschema's walk; where Go iterates a map (properties, dependencies,
 * patternProperties) the sorted key order is used instead, which is one of
 * the orders Go may produce.
 *
 * Errors of the builtin itself (a schema that does not compile, a string that
 * is not JSON) make json.match_schema undefined, like any builtin error here;
 * json.verify_schema reports them as [false, "jsonschema: <message>"].
 */

import { Value, ArrV, ObjV, StrV, NULL, boolV } from "../../value";
import { ROOT, fieldOf } from "./errors";
import { lastError, compileSchema, load } from "./schema";
import { subValidate } from "./validate";

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
