/**
 * json.verify_schema and json.match_schema, compiled natively: gojsonschema's
 * keywords, its error objects ({error, desc, field, type}) and its messages,
 * as OPA returns them; an invalid schema makes match_schema undefined (a
 * builtin error) and verify_schema answer [false, "jsonschema: ..."].
 */
import { valueOfX } from "./evaluate-rego";

const evaluate = valueOfX;

const match = (doc: unknown, schema: unknown) => evaluate("package t\np := json.match_schema(input.doc, input.schema)", { doc, schema });
const err = (field: string, type: string, desc: string) => ({ error: `${field}: ${desc}`, desc, field, type });

test("valid documents, as objects or JSON strings", async () => {
  const schema = { properties: { id: { type: "integer" } }, required: ["id"] };
  expect(await match({ id: 5 }, schema)).toEqual([true, []]);
  expect(await match('{"id": 5}', JSON.stringify(schema))).toEqual([true, []]);
});

test("type, required, additionalProperties and nested fields", async () => {
  const schema = {
    type: "object",
    properties: { id: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
    required: ["id", "name"],
    additionalProperties: false,
  };
  expect(await match({ id: 1.5, tags: ["a", 2], extra: true }, schema)).toEqual([
    false,
    [
      err("(root)", "required", "name is required"),
      err("(root)", "additional_property_not_allowed", "Additional property extra is not allowed"),
      err("id", "invalid_type", "Invalid type. Expected: integer, given: number"),
      err("tags.1", "invalid_type", "Invalid type. Expected: string, given: integer"),
    ],
  ]);
  expect(await match("x", { type: ["integer", "null"] })).toBeUndefined(); // "x" is not JSON
  expect(await match('"x"', { type: ["integer", "null"] })).toEqual([
    false,
    [err("(root)", "invalid_type", "Invalid type. Expected: [integer,null], given: string")],
  ]);
});

test("numbers, strings, arrays and objects", async () => {
  expect(await match("0.3", { multipleOf: 0.1, minimum: 1, exclusiveMaximum: 0.25 })).toEqual([
    false,
    [err("(root)", "number_lt", "Must be less than 0.25"), err("(root)", "number_gte", "Must be greater than or equal to 1")],
  ]);
  expect(await match("7", { multipleOf: 2 })).toEqual([false, [err("(root)", "multiple_of", "Must be a multiple of 2")]]);
  expect(await match(JSON.stringify("héllo"), { maxLength: 10, minLength: 6, pattern: "^h\\d" })).toEqual([
    false,
    [err("(root)", "string_gte", "String length must be greater than or equal to 6"), err("(root)", "pattern", "Does not match pattern '^h\\d'")],
  ]);
  expect(await match([1, 1.0, 2], { uniqueItems: true, maxItems: 2 })).toEqual([
    false,
    [err("(root)", "array_max_items", "Array must have at most 2 items"), err("(root)", "unique", "array items[0,1] must be unique")],
  ]);
  expect(await match({ a: 1 }, { minProperties: 2, patternProperties: { "^a": { type: "string" } } })).toEqual([
    false,
    [err("(root)", "array_min_properties", "Must have at least 2 properties"), err("a", "invalid_type", "Invalid type. Expected: string, given: integer")],
  ]);
});

test("enum, const, combinators, if/then/else, dependencies and $ref", async () => {
  expect(await match(JSON.stringify("c"), { enum: ["a", "b"] })).toEqual([false, [err("(root)", "enum", '(root) must be one of the following: "a", "b"')]]);
  expect(await match({ v: 2 }, { properties: { v: { const: 1 } } })).toEqual([false, [err("v", "const", "v does not match: 1")]]);
  expect(await match("5", { anyOf: [{ type: "string" }, { maximum: 3 }] })).toEqual([
    false,
    [err("(root)", "number_any_of", "Must validate at least one schema (anyOf)"), err("(root)", "number_lte", "Must be less than or equal to 3")],
  ]);
  expect(await match("5", { oneOf: [{ type: "integer" }, { minimum: 1 }] })).toEqual([
    false,
    [err("(root)", "number_one_of", "Must validate one and only one schema (oneOf)")],
  ]);
  expect(await match("5", { not: { type: "integer" } })).toEqual([false, [err("(root)", "number_not", "Must not validate the schema (not)")]]);
  expect(await match({ a: 1 }, { if: { required: ["a"] }, then: { required: ["b"] } })).toEqual([
    false,
    [err("(root)", "condition_then", 'Must validate "then" as "if" was valid'), err("(root)", "required", "b is required")],
  ]);
  expect(await match({ a: 1 }, { dependencies: { a: ["c"] } })).toEqual([false, [err("(root)", "missing_dependency", "Has a dependency on c")]]);
  const tree = {
    definitions: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/definitions/node" } } } } },
    $ref: "#/definitions/node",
  };
  expect(await match({ kids: [{ kids: [] }, { kids: 3 }] }, tree)).toEqual([
    false,
    [err("kids.1.kids", "invalid_type", "Invalid type. Expected: array, given: integer")],
  ]);
});

test("invalid schemas: match_schema is undefined, verify_schema says why", async () => {
  expect(await match({}, { type: "unknown" })).toBeUndefined();
  expect(await match({}, 5)).toBeUndefined();
  expect(await match(5, {})).toBeUndefined(); // scalars only as JSON text, as in OPA
  const verify = (schema: unknown) => evaluate("package t\np := json.verify_schema(input.schema)", { schema });
  expect(await verify({ type: "string" })).toEqual([true, null]);
  expect(await verify('{"type": "string"}')).toEqual([true, null]);
  expect(await verify({ type: "unknown" })).toEqual([
    false,
    "jsonschema: has a primitive type that is NOT VALID -- given: /unknown/ Expected valid values are:[array boolean integer number null object string]",
  ]);
  expect(await verify({ minLength: -1 })).toEqual([false, "jsonschema: minLength must be greater than or equal to 0"]);
  expect(await verify({ pattern: "(" })).toEqual([false, "jsonschema: pattern must be a valid regex"]);
  expect(await verify("{")).toEqual([false, "jsonschema: invalid JSON string"]);
  expect(await verify(5)).toEqual([false, "jsonschema: wrong type, expected string or object"]);
});
