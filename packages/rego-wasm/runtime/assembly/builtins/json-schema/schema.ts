/**
 * Loading and compiling a schema operand: the draft named by `$schema`, and
 * the builtin error (lastError) when the operand or the schema is not usable.
 */

import { Value, asObj, asStr, T_BOOLEAN, T_STRING, T_ARRAY, T_OBJECT } from "../../value";
import { parseJson } from "../../json";
import { DRAFT4, DRAFT6, DRAFT7, HYBRID, Sub } from "./sub";
import { mustBeOfType } from "./errors";
import { Compiler } from "./compiler";

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
export let lastError: string = "";

export function compileSchema(doc: Value): Sub | null {
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

/** OPA's astValueToJSONSchemaLoader: a JSON string, an object or an array; null sets lastError. */
export function load(v: Value): Value | null {
  if (v.kind == T_STRING) {
    const parsed = parseJson(asStr(v).value);
    if (parsed === null) lastError = "invalid JSON string";
    return parsed;
  }
  if (v.kind == T_OBJECT || v.kind == T_ARRAY) return v;
  lastError = "wrong type, expected string or object";
  return null;
}
