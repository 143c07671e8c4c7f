/**
 * A schema document made a Schema, as gqlparser's ValidateSchemaDocument
 * makes it after OPA merged in gqlparser's prelude (the built-in scalars,
 * directives and introspection types): types and directives collected (a
 * redeclaration is an error; extensions are merged into their base type, or
 * start one when there is none), root operation types found, then every
 * type and directive definition checked in name order. The first error is
 * thrown as a GraphQLError.
 *
 * The Schema mutates the document's definitions as gqlparser does
 * (extensions appended to their base, introspection fields added to the
 * query type): callers take the document's value beforehand.
 */
import {
  typeName,
  typeString,
  type ArgumentDefinition,
  type Definition,
  type Directive,
  type DirectiveDefinition,
  type SchemaDocument,
  type TypeRef,
} from "./ast";
import { GraphQLError, goQuote, type Position } from "./lexer";
import { parseSchema } from "./schema-parser";

export interface Schema {
  types: Map<string, Definition>;
  directives: Map<string, DirectiveDefinition>;
  /** For an interface or union: the types that may stand for it. */
  possibleTypes: Map<string, Array<Definition | undefined>>;
  query: Definition | null;
  mutation: Definition | null;
  subscription: Definition | null;
}

/**
 * gqlparser's prelude, less its descriptions (which no rule reads): the
 * built-in scalars and directives and the introspection types.
 */
const PRELUDE = `
scalar Int
scalar Float
scalar String
scalar Boolean
scalar ID
directive @include(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @deprecated(reason: String = "No longer supported") on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE
directive @specifiedBy(url: String!) on SCALAR
type __Schema {
  description: String
  types: [__Type!]!
  queryType: __Type!
  mutationType: __Type
  subscriptionType: __Type
  directives: [__Directive!]!
}
type __Type {
  kind: __TypeKind!
  name: String
  description: String
  fields(includeDeprecated: Boolean = false): [__Field!]
  interfaces: [__Type!]
  possibleTypes: [__Type!]
  enumValues(includeDeprecated: Boolean = false): [__EnumValue!]
  inputFields: [__InputValue!]
  ofType: __Type
  specifiedByURL: String
}
type __Field {
  name: String!
  description: String
  args: [__InputValue!]!
  type: __Type!
  isDeprecated: Boolean!
  deprecationReason: String
}
type __InputValue {
  name: String!
  description: String
  type: __Type!
  defaultValue: String
}
type __EnumValue {
  name: String!
  description: String
  isDeprecated: Boolean!
  deprecationReason: String
}
enum __TypeKind { SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT LIST NON_NULL }
type __Directive {
  name: String!
  description: String
  locations: [__DirectiveLocation!]!
  args: [__InputValue!]!
  isRepeatable: Boolean!
}
enum __DirectiveLocation {
  QUERY MUTATION SUBSCRIPTION FIELD FRAGMENT_DEFINITION FRAGMENT_SPREAD INLINE_FRAGMENT VARIABLE_DEFINITION
  SCHEMA SCALAR OBJECT FIELD_DEFINITION ARGUMENT_DEFINITION INTERFACE UNION ENUM ENUM_VALUE INPUT_OBJECT INPUT_FIELD_DEFINITION
}
`;

const BUILTIN_DIRECTIVES = new Set(["include", "skip", "deprecated", "specifiedBy"]);

const fail = (pos: Position | undefined, msg: string): never => {
  throw new GraphQLError(msg, pos);
};

/** The prelude, parsed afresh for every schema (building a schema mutates definitions). */
function prelude(): SchemaDocument {
  const doc = parseSchema(PRELUDE);
  for (const d of doc.Definitions ?? []) d.BuiltIn = true;
  return doc;
}

/** OPA's convertSchema: the prelude and the document merged, then validated. */
export function buildSchema(doc: SchemaDocument): Schema {
  const base = prelude();
  const list = <T>(a: T[] | null, b: T[] | null): T[] => [...(a ?? []), ...(b ?? [])];
  const schemaDefs = list(base.Schema, doc.Schema);
  const schemaExts = list(base.SchemaExtension, doc.SchemaExtension);
  const directiveDefs = list(base.Directives, doc.Directives);
  const definitions = list(base.Definitions, doc.Definitions);
  const extensions = list(base.Extensions, doc.Extensions);

  const schema: Schema = { types: new Map(), directives: new Map(), possibleTypes: new Map(), query: null, mutation: null, subscription: null };
  for (const def of definitions) {
    if (schema.types.has(def.Name)) fail(def.Position, `Cannot redeclare type ${def.Name}.`);
    schema.types.set(def.Name, def);
  }
  const defs = [...definitions];
  for (const ext of extensions) {
    let def = schema.types.get(ext.Name);
    if (def === undefined) {
      // Extending a type nobody declared declares it (federated schemas rely on it).
      def = {
        Kind: ext.Kind,
        Description: "",
        Name: ext.Name,
        Directives: null,
        Interfaces: null,
        Fields: null,
        Types: null,
        EnumValues: null,
        BuiltIn: false,
        Position: ext.Position,
      };
      schema.types.set(ext.Name, def);
      defs.push(def);
    }
    if (def.Kind !== ext.Kind) fail(ext.Position, `Cannot extend type ${ext.Name} because the base type is a ${def.Kind}, not ${ext.Kind}.`);
    def.Directives = appended(def.Directives, ext.Directives);
    def.Interfaces = appended(def.Interfaces, ext.Interfaces);
    def.Fields = appended(def.Fields, ext.Fields);
    def.Types = appended(def.Types, ext.Types);
    def.EnumValues = appended(def.EnumValues, ext.EnumValues);
  }

  const addPossible = (name: string, def: Definition | undefined): void => {
    const l = schema.possibleTypes.get(name) ?? [];
    l.push(def);
    schema.possibleTypes.set(name, l);
  };
  for (const def of defs) {
    if (def.Kind === "UNION") for (const t of def.Types ?? []) addPossible(def.Name, schema.types.get(t));
    else if (def.Kind === "OBJECT" || def.Kind === "INPUT_OBJECT" || def.Kind === "INTERFACE") {
      for (const intf of def.Interfaces ?? []) addPossible(intf, def);
      if (def.Kind !== "INTERFACE") addPossible(def.Name, def);
    }
  }

  for (const dir of directiveDefs) {
    if (schema.directives.has(dir.Name) && !BUILTIN_DIRECTIVES.has(dir.Name)) fail(dir.Position, `Cannot redeclare directive ${dir.Name}.`);
    // A built-in directive may be declared again; the later declaration wins, as in gqlparser.
    schema.directives.set(dir.Name, dir);
  }

  if (schemaDefs.length > 1) fail(schemaDefs[1]!.Position, "Cannot have multiple schema entry points, consider schema extensions instead.");
  for (const s of [...schemaDefs, ...schemaExts]) {
    for (const entry of s.OperationTypes ?? []) {
      const def = schema.types.get(entry.Type);
      if (def === undefined) fail(entry.Position, `Schema root ${entry.Operation} refers to a type ${entry.Type} that does not exist.`);
      if (entry.Operation === "query") schema.query = def!;
      else if (entry.Operation === "mutation") schema.mutation = def!;
      else if (entry.Operation === "subscription") schema.subscription = def!;
    }
  }

  for (const name of [...schema.types.keys()].sort(byBytes)) validateDefinition(schema, schema.types.get(name)!);
  for (const name of [...schema.directives.keys()].sort(byBytes)) {
    const dir = schema.directives.get(name)!;
    validateName(dir.Position, dir.Name);
    validateArgs(schema, dir.Arguments, dir);
  }

  // Without a schema definition, types named Query, Mutation and Subscription are the roots.
  if (schemaDefs.length === 0) {
    schema.query ??= schema.types.get("Query") ?? null;
    schema.mutation ??= schema.types.get("Mutation") ?? null;
    schema.subscription ??= schema.types.get("Subscription") ?? null;
  }
  if (schema.query !== null) {
    const named = (n: string, nonNull: boolean): TypeRef => ({ NamedType: n, Elem: null, NonNull: nonNull });
    schema.query.Fields = appended(schema.query.Fields, [
      { Description: "", Name: "__schema", Arguments: null, DefaultValue: null, Type: named("__Schema", true), Directives: null },
      {
        Description: "",
        Name: "__type",
        DefaultValue: null,
        Type: named("__Type", false),
        Directives: null,
        Arguments: [{ Description: "", Name: "name", DefaultValue: null, Type: named("String", true), Directives: null }],
      },
    ]);
  }
  return schema;
}

function appended<T>(a: T[] | null, b: T[] | null): T[] | null {
  return b === null || b.length === 0 ? a : [...(a ?? []), ...b];
}

/** Go's sort.Strings order (bytewise, which for names is code unit order). */
const byBytes = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function validateName(pos: Position | undefined, name: string): void {
  if (name.startsWith("__")) fail(pos, `Name "${name}" must not begin with "__", which is reserved by GraphQL introspection.`);
}

function validateTypeRef(schema: Schema, t: TypeRef): void {
  if (!schema.types.has(typeName(t))) fail(t.Position, `Undefined type ${typeName(t)}.`);
}

function isInputKind(kind: string): boolean {
  return kind === "SCALAR" || kind === "ENUM" || kind === "INPUT_OBJECT";
}

function validateArgs(schema: Schema, args: ArgumentDefinition[] | null, current: DirectiveDefinition | null): void {
  for (const arg of args ?? []) {
    validateName(arg.Position, arg.Name);
    validateTypeRef(schema, arg.Type!);
    const def = schema.types.get(typeName(arg.Type!))!;
    if (!isInputKind(def.Kind)) fail(arg.Position, `cannot use ${typeString(arg.Type!)} as argument ${arg.Name} because ${def.Kind} is not a valid input type`);
    validateDirectives(schema, arg.Directives, "ARGUMENT_DEFINITION", current);
  }
}

function validateDirectives(schema: Schema, dirs: Directive[] | null, location: string, current: DirectiveDefinition | null): void {
  for (const dir of dirs ?? []) {
    validateName(dir.Position, dir.Name);
    if (current !== null && dir.Name === current.Name) fail(dir.Position, `Directive ${current.Name} cannot refer to itself.`);
    const def = schema.directives.get(dir.Name);
    if (def === undefined) fail(dir.Position, `Undefined directive ${dir.Name}.`);
    if (!(def!.Locations ?? []).includes(location)) fail(dir.Position, `Directive ${dir.Name} is not applicable on ${location}.`);
  }
}

const kindList = (...kinds: string[]): string => kinds.join(", ");

function validateDefinition(schema: Schema, def: Definition): void {
  for (const field of def.Fields ?? []) {
    validateName(field.Position, field.Name);
    validateTypeRef(schema, field.Type!);
    validateArgs(schema, field.Arguments, null);
    validateDirectives(schema, field.Directives, def.Kind === "INPUT_OBJECT" ? "INPUT_FIELD_DEFINITION" : "FIELD_DEFINITION", null);
  }
  for (const t of def.Types ?? []) {
    const member = schema.types.get(t);
    if (member === undefined) fail(def.Position, `Undefined type ${goQuote(t)}.`);
    if (member!.Kind !== "OBJECT") fail(def.Position, `${def.Kind} type ${goQuote(t)} must be ${kindList("OBJECT")}.`);
  }
  for (const intf of def.Interfaces ?? []) validateImplements(schema, def, intf);

  const fields = def.Fields ?? [];
  if (def.Kind === "OBJECT" || def.Kind === "INTERFACE") {
    if (fields.length === 0) fail(def.Position, `${def.Kind} ${def.Name}: must define one or more fields.`);
    for (const field of fields) {
      const t = schema.types.get(typeName(field.Type!));
      if (t !== undefined && t.Kind === "INPUT_OBJECT") {
        fail(field.Position, `${def.Kind} ${def.Name}: field must be one of ${kindList("SCALAR", "OBJECT", "INTERFACE", "UNION", "ENUM")}.`);
      }
    }
  } else if (def.Kind === "ENUM") {
    if ((def.EnumValues ?? []).length === 0) fail(def.Position, `${def.Kind} ${def.Name}: must define one or more unique enum values.`);
    for (const v of def.EnumValues ?? []) {
      if (v.Name === "true" || v.Name === "false" || v.Name === "null") fail(def.Position, `${def.Kind} ${def.Name}: non-enum value ${v.Name}.`);
    }
  } else if (def.Kind === "INPUT_OBJECT") {
    if (fields.length === 0) fail(def.Position, `${def.Kind} ${def.Name}: must define one or more input fields.`);
    for (const field of fields) {
      const t = schema.types.get(typeName(field.Type!));
      if (t !== undefined && !isInputKind(t.Kind))
        fail(field.Position, `${t.Kind} ${field.Name}: field must be one of ${kindList("SCALAR", "ENUM", "INPUT_OBJECT")}.`);
    }
  }
  for (let i = 0; i < fields.length; i++) {
    for (const other of fields.slice(i + 1)) {
      if (other.Name === fields[i]!.Name) fail(other.Position, `Field ${def.Name}.${other.Name} can only be defined once.`);
    }
  }
  if (!def.BuiltIn) validateName(def.Position, def.Name);
  validateDirectives(schema, def.Directives, def.Kind, null);
}

function validateImplements(schema: Schema, def: Definition, intfName: string): void {
  const intf = schema.types.get(intfName);
  if (intf === undefined) fail(def.Position, `Undefined type ${goQuote(intfName)}.`);
  if (intf!.Kind !== "INTERFACE") fail(def.Position, `${goQuote(intfName)} is a non interface type ${intf!.Kind}.`);
  for (const required of intf!.Fields ?? []) {
    const found = (def.Fields ?? []).find((f) => f.Name === required.Name);
    if (found === undefined) fail(def.Position, `For ${def.Name} to implement ${intf!.Name} it must have a field called ${required.Name}.`);
    if (!isCovariant(schema, required.Type!, found!.Type!)) {
      fail(found!.Position, `For ${def.Name} to implement ${intf!.Name} the field ${required.Name} must have type ${typeString(required.Type!)}.`);
    }
    for (const reqArg of required.Arguments ?? []) {
      const foundArg = (found!.Arguments ?? []).find((a) => a.Name === reqArg.Name);
      if (foundArg === undefined) {
        fail(
          found!.Position,
          `For ${def.Name} to implement ${intf!.Name} the field ${required.Name} must have the same arguments but it is missing ${reqArg.Name}.`,
        );
      }
      if (!isCompatible(reqArg.Type!, foundArg!.Type!)) {
        fail(
          foundArg!.Position,
          `For ${def.Name} to implement ${intf!.Name} the field ${required.Name} must have the same arguments but ${reqArg.Name} has the wrong type.`,
        );
      }
    }
    for (const extra of found!.Arguments ?? []) {
      if (!(required.Arguments ?? []).some((a) => a.Name === extra.Name) && extra.Type!.NonNull && extra.DefaultValue === null) {
        fail(
          extra.Position,
          `For ${def.Name} to implement ${intf!.Name} any additional arguments on ${found!.Name} must be optional or have a default value but ${extra.Name} is required.`,
        );
      }
    }
  }
  // Every interface the interface implements must be implemented too.
  for (const transitive of intf!.Interfaces ?? []) {
    if (!(def.Interfaces ?? []).includes(transitive)) {
      if (transitive === def.Name) fail(def.Position, `Type ${def.Name} cannot implement ${intfName} because it would create a circular reference.`);
      fail(def.Position, `Type ${def.Name} must implement ${transitive} because it is implemented by ${intfName}.`);
    }
  }
}

/**
 * gqlparser's Type.IsCompatible: t can be used where other is expected (the
 * same names and list shape; a non-null other wants a non-null t).
 */
export function isCompatible(t: TypeRef, other: TypeRef): boolean {
  if (t.NamedType !== other.NamedType) return false;
  if (t.Elem !== null && other.Elem === null) return false;
  if (t.Elem !== null && !isCompatible(t.Elem, other.Elem!)) return false;
  return other.NonNull ? t.NonNull : true;
}

/** An implementing field's type may be narrower than the interface's. */
function isCovariant(schema: Schema, required: TypeRef, actual: TypeRef): boolean {
  if (required.NonNull && !actual.NonNull) return false;
  if (required.NamedType !== "") {
    if (required.NamedType === actual.NamedType) return true;
    return (schema.possibleTypes.get(required.NamedType) ?? []).some((t) => t !== undefined && t.Name === actual.NamedType);
  }
  if (required.Elem !== null && actual.Elem === null) return false;
  return isCovariant(schema, required.Elem!, actual.Elem!);
}
