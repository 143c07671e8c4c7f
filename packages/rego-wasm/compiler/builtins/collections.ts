/** Aggregates, types, arrays, sets, objects and membership. */
import { specs, type BuiltinSpec } from "./spec";

export const COLLECTIONS: BuiltinSpec[] = [
  ...specs(1, ["count", "sum", "product", "max", "min", "sort", "all", "any"]),
  ...specs(1, ["is_number", "is_string", "is_boolean", "is_array", "is_set", "is_object", "is_null", "type_name"]),
  // `x in xs` and `k, v in xs`
  ...specs(2, ["internal.member_2"]),
  ...specs(3, ["internal.member_3"]),
  ...specs(2, ["and", "or"]), // set intersection `&`, union `|`
  ...specs(1, ["intersection", "union"]),
  ...specs(2, ["array.concat"]),
  ...specs(3, ["array.slice"]),
  ...specs(1, ["array.reverse", "array.flatten"]),
  ...specs(3, ["object.get"]),
  ...specs(1, ["object.keys", "object.union_n"]),
  ...specs(2, ["object.remove", "object.union", "object.filter", "object.subset"]),
  ...specs(2, ["graph.reachable", "graph.reachable_paths"]),
  ...specs(2, ["json.filter", "json.remove", "json.patch"]),
  ...specs(1, ["json.marshal", "json.unmarshal", "json.is_valid"]),
  ...specs(2, ["json.marshal_with_options"]),
  // JSON Schema (gojsonschema semantics), see runtime builtins/json-schema/
  ...specs(1, ["json.verify_schema"]),
  ...specs(2, ["json.match_schema"]),
  // walk(x, [path, value]): every pair of x, the root included
  ...specs(1, ["walk"], { relation: true }),
];
