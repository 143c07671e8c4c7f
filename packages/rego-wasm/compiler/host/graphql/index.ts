/**
 * OPA's GraphQL builtins (v1/topdown/graphql.go), computed by the host as
 * OPA's own Wasm target leaves them to it. OPA builds them on
 * vektah/gqlparser; so this folder follows gqlparser: ./lexer.ts,
 * ./parser.ts (queries), ./schema-parser.ts (SDL), ./ast.ts (its structs),
 * ./value.ts (the pruned values OPA returns), ./decode.ts (AST objects given
 * instead of strings), ./schema-validation.ts and ./query-validation.ts.
 *
 * graphql.parse_query, parse_schema and parse fail on a syntax or
 * validation error; as for every host builtin, a failure makes the call
 * undefined (Wasm has no strict builtin-error mode). is_valid,
 * schema_is_valid and parse_and_verify never fail: they answer false (or
 * [false, {}, {}]) instead.
 */
import type { QueryDocument, SchemaDocument } from "./ast";
import { decodeQueryDocument, decodeSchemaDocument } from "./decode";
import { parseQuery } from "./parser";
import { validateQuery } from "./query-validation";
import { parseSchema } from "./schema-parser";
import { buildSchema } from "./schema-validation";
import { astValue } from "./value";

type HostFn = (...args: unknown[]) => unknown;

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x);

/** A query given as a string or as an AST object; anything else is OPA's operand type error. */
function queryOperand(x: unknown): QueryDocument {
  if (typeof x === "string") return parseQuery(x);
  if (isObject(x)) return decodeQueryDocument(x);
  throw new TypeError("operand must be a string or an object");
}

function schemaOperand(x: unknown): SchemaDocument {
  if (typeof x === "string") return parseSchema(x);
  if (isObject(x)) return decodeSchemaDocument(x);
  throw new TypeError("operand must be a string or an object");
}

/**
 * Both documents parsed, their values taken (before validation, as OPA
 * takes them), the schema built and the query validated against it; throws
 * at the first failure.
 */
function parseAndValidate(query: unknown, schema: unknown): [unknown, unknown] {
  const queryDoc = queryOperand(query);
  const schemaDoc = schemaOperand(schema);
  const values: [unknown, unknown] = [astValue(queryDoc), astValue(schemaDoc)];
  validateQuery(buildSchema(schemaDoc), queryDoc);
  return values;
}

/** A builtin whose every failure (OPA's error) makes the call undefined. */
function failing(body: HostFn): HostFn {
  return (...args) => {
    try {
      return body(...args);
    } catch {
      return undefined;
    }
  };
}

/** A builtin whose failures answer `otherwise`. */
function answering(body: HostFn, otherwise: unknown): HostFn {
  return (...args) => {
    try {
      return body(...args);
    } catch {
      return otherwise;
    }
  };
}

/** The host GraphQL builtins, keyed by name. */
export function graphqlBuiltins(): Record<string, HostFn> {
  return {
    "graphql.parse_query": failing((q) => {
      if (typeof q !== "string") throw new TypeError("operand 1 must be a string");
      return astValue(parseQuery(q));
    }),
    "graphql.parse_schema": failing((s) => {
      if (typeof s !== "string") throw new TypeError("operand 1 must be a string");
      return astValue(parseSchema(s));
    }),
    "graphql.parse": failing((q, s) => parseAndValidate(q, s)),
    "graphql.parse_and_verify": answering((q, s) => [true, ...parseAndValidate(q, s)], [false, {}, {}]),
    "graphql.is_valid": answering((q, s) => {
      parseAndValidate(q, s);
      return true;
    }, false),
    "graphql.schema_is_valid": answering((s) => {
      buildSchema(schemaOperand(s));
      return true;
    }, false),
  };
}
