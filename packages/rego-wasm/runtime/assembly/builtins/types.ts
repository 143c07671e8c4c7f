/**
 * Type predicates and `type_name` (OPA topdown/type.go, typename.go). The
 * `is_*` builtins answer false, not undefined, for a value of another type.
 */
import { Value, boolV, str, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET } from "../value";

function isKind(a: Value | null, kind: i32): Value | null {
  if (a === null) return null;
  return boolV(a.kind == kind);
}

export function bi_is_number(a: Value | null): Value | null {
  return isKind(a, T_NUMBER);
}

export function bi_is_string(a: Value | null): Value | null {
  return isKind(a, T_STRING);
}

export function bi_is_boolean(a: Value | null): Value | null {
  return isKind(a, T_BOOLEAN);
}

export function bi_is_array(a: Value | null): Value | null {
  return isKind(a, T_ARRAY);
}

export function bi_is_set(a: Value | null): Value | null {
  return isKind(a, T_SET);
}

export function bi_is_object(a: Value | null): Value | null {
  return isKind(a, T_OBJECT);
}

export function bi_is_null(a: Value | null): Value | null {
  return isKind(a, T_NULL);
}

/** Rego's name of a value's type, as OPA's `ast.ValueName` spells it. */
function typeName(v: Value): string {
  switch (v.kind) {
    case T_NULL:
      return "null";
    case T_BOOLEAN:
      return "boolean";
    case T_NUMBER:
      return "number";
    case T_STRING:
      return "string";
    case T_ARRAY:
      return "array";
    case T_OBJECT:
      return "object";
    case T_SET:
      return "set";
  }
  return "undefined";
}

export function bi_type_name(a: Value | null): Value | null {
  if (a === null) return null;
  return str(typeName(a));
}
