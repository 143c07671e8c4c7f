/**
 * Errors of JSON Schema: the messages of schema (compile) errors, and the
 * validation errors with their contexts ("(root).a.0") and type names.
 */

import { Value, asNum, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_SET } from "../../value";
import { isIntegral } from "./canonical";

export const ROOT = "(root)";

/** Messages of gojsonschema's schema errors (its DefaultLocale). */
export function invalidType(expected: string, given: string): string {
  return "Invalid type. Expected: " + expected + ", given: " + given;
}
export function mustBeOfA(x: string, y: string): string { return x + " must be of a " + y; }
export function mustBeOfAn(x: string, y: string): string { return x + " must be of an " + y; }
export function mustBeOfType(key: string, t: string): string { return key + " must be of type " + t; }
export function mustBeGTEZero(key: string): string { return key + " must be greater than or equal to 0"; }
export function itemsMustBeUnique(key: string): string { return key + " items must be unique"; }
export const PARSE_ERROR = "Expected: valid schema, given: Invalid JSON";

class SchemaError {
  constructor(public type: string, public context: string, public desc: string) {}
}

/** gojsonschema's Result: the errors and a score that picks the closest anyOf/oneOf branch. */
export class Result {
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

export function fieldOf(context: string): string {
  return context.startsWith(ROOT + ".") ? context.substring(ROOT.length + 1) : context;
}

export function childContext(context: string, key: string): string {
  return context + "." + key;
}

export function kindName(v: Value): string {
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

export function typesText(types: Array<string>): string {
  return types.length == 1 ? types[0] : "[" + types.join(",") + "]";
}
