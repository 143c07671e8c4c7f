/**
 * AST objects given to graphql.parse, is_valid, parse_and_verify and
 * schema_is_valid instead of strings: OPA turns them into gqlparser's
 * structs with Go's json.Unmarshal, and so do these decoders. For most
 * structs that means: keys match field names exactly or else
 * case-insensitively, unknown keys are ignored, null leaves a field's zero
 * value, and a value of the wrong JSON type is an error.
 *
 * Operations, fragments, inline fragments and fields have OPA's own
 * unmarshalers instead: exact keys only, and a selection set whose items are
 * each read as a field, else a fragment spread, else an inline fragment,
 * else dropped. As a field takes almost any object, that is what most items
 * become.
 */
import { SELECTION_KIND, type QueryDocument, type SchemaDocument } from "./ast";

type Decoder = (json: unknown) => unknown;
type Fields = Record<string, Decoder>;

class DecodeError extends Error {}

const fail = (what: string): never => {
  throw new DecodeError(`json: cannot unmarshal into ${what}`);
};

const str: Decoder = (j) => (j === null ? "" : typeof j === "string" ? j : fail("string"));
const bool: Decoder = (j) => (j === null ? false : typeof j === "boolean" ? j : fail("bool"));
const int: Decoder = (j) => (j === null ? 0 : typeof j === "number" && Number.isSafeInteger(j) ? j : fail("int"));

function list(item: Decoder): Decoder {
  return (j) => (j === null ? null : Array.isArray(j) ? j.map(item) : fail("slice"));
}

/**
 * A pointer to a struct: null stays nil. `fields` is a thunk, as the structs
 * refer to each other; `exact` is for OPA's unmarshalers, which match keys
 * exactly and read a "Position" too.
 */
function struct(fields: () => Fields, exact = false): Decoder {
  return (j) => {
    if (j === null) return null;
    if (typeof j !== "object" || Array.isArray(j)) fail("struct");
    const spec = fields();
    const out: Record<string, unknown> = {};
    for (const [name, dec] of Object.entries(spec)) out[name] = dec(null);
    const names = Object.keys(spec);
    for (const [key, v] of Object.entries(j as Record<string, unknown>)) {
      if (exact && key === "Position") {
        if (v !== null && (typeof v !== "object" || Array.isArray(v))) fail("ast.Position");
        continue;
      }
      const name = exact ? names.find((n) => n === key) : (names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase()));
      if (name !== undefined) out[name] = spec[name]!(v);
    }
    return out;
  };
}

/** OPA's UnmarshalSelectionSet: each item the first kind that reads it, or dropped. */
const selections: Decoder = (j) => {
  if (j === null) return null;
  if (!Array.isArray(j)) fail("[]json.RawMessage");
  const out: unknown[] = [];
  for (const item of j as unknown[]) {
    for (const [kind, dec] of [
      ["field", field],
      ["spread", fragmentSpread],
      ["inline", inlineFragment],
    ] as const) {
      try {
        // A null item is read by the field unmarshaler as an empty object.
        const sel = dec(item === null && kind === "field" ? {} : item);
        if (sel === null) continue;
        out.push(Object.assign(sel as object, { [SELECTION_KIND]: kind }));
        break;
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
      }
    }
  }
  return out;
};

const typeRef: Decoder = struct(() => ({ NamedType: str, Elem: typeRef, NonNull: bool }));
const childValue: Decoder = struct(() => ({ Name: str, Value: value }));
const value: Decoder = struct(() => ({
  Raw: str,
  Children: list(childValue),
  Kind: int,
  Definition: definition,
  VariableDefinition: variableDefinition,
  ExpectedType: typeRef,
  ExpectedTypeHasDefault: bool,
}));
const argument: Decoder = struct(() => ({ Name: str, Value: value }));
const directive: Decoder = struct(() => ({
  Name: str,
  Arguments: list(argument),
  ParentDefinition: definition,
  Definition: directiveDefinition,
  Location: str,
}));
const variableDefinition: Decoder = struct(() => ({
  Variable: str,
  Type: typeRef,
  DefaultValue: value,
  Directives: list(directive),
  Definition: definition,
  Used: bool,
}));
const operation: Decoder = struct(
  () => ({ Operation: str, Name: str, VariableDefinitions: list(variableDefinition), Directives: list(directive), SelectionSet: selections }),
  true,
);
const fragment: Decoder = struct(
  () => ({
    Name: str,
    VariableDefinition: list(variableDefinition),
    TypeCondition: str,
    Directives: list(directive),
    SelectionSet: selections,
    Definition: fragment,
  }),
  true,
);
const field: Decoder = struct(
  () => ({
    Alias: str,
    Name: str,
    Arguments: list(argument),
    Directives: list(directive),
    SelectionSet: selections,
    Definition: fieldDefinition,
    ObjectDefinition: definition,
  }),
  true,
);
const inlineFragment: Decoder = struct(
  () => ({ TypeCondition: str, Directives: list(directive), SelectionSet: selections, ObjectDefinition: definition }),
  true,
);
const fragmentSpread: Decoder = struct(() => ({ Name: str, Directives: list(directive), ObjectDefinition: definition, Definition: fragment }));
const queryDocument: Decoder = struct(() => ({ Operations: list(operation), Fragments: list(fragment) }));

const argumentDefinition: Decoder = struct(() => ({ Description: str, Name: str, DefaultValue: value, Type: typeRef, Directives: list(directive) }));
const fieldDefinition: Decoder = struct(() => ({
  Description: str,
  Name: str,
  Arguments: list(argumentDefinition),
  DefaultValue: value,
  Type: typeRef,
  Directives: list(directive),
}));
const enumValue: Decoder = struct(() => ({ Description: str, Name: str, Directives: list(directive) }));
const definition: Decoder = struct(() => ({
  Kind: str,
  Description: str,
  Name: str,
  Directives: list(directive),
  Interfaces: list(str),
  Fields: list(fieldDefinition),
  Types: list(str),
  EnumValues: list(enumValue),
  BuiltIn: bool,
}));
const directiveDefinition: Decoder = struct(() => ({
  Description: str,
  Name: str,
  Arguments: list(argumentDefinition),
  Locations: list(str),
  IsRepeatable: bool,
}));
const operationType: Decoder = struct(() => ({ Operation: str, Type: str }));
const schemaDefinition: Decoder = struct(() => ({ Description: str, Directives: list(directive), OperationTypes: list(operationType) }));
const schemaDocument: Decoder = struct(() => ({
  Schema: list(schemaDefinition),
  SchemaExtension: list(schemaDefinition),
  Directives: list(directiveDefinition),
  Definitions: list(definition),
  Extensions: list(definition),
}));

export function decodeQueryDocument(json: Record<string, unknown>): QueryDocument {
  return queryDocument(json) as QueryDocument;
}

export function decodeSchemaDocument(json: Record<string, unknown>): SchemaDocument {
  return schemaDocument(json) as SchemaDocument;
}
