/**
 * gqlparser's AST, field for field as Go's encoding/json renders its structs
 * (the names OPA's GraphQL values carry). Every field a Go struct has is
 * present here, null where Go holds a nil pointer or slice, so that
 * ./value.ts can prune the tree exactly as OPA prunes it. Fields gqlparser
 * fills only while validating (Definition, ObjectDefinition, ExpectedType...)
 * are null after parsing and stay so: the validators keep their findings to
 * themselves. Positions are kept under "Position", which OPA drops.
 *
 * Selections are Go interface values (a Field, an InlineFragment or a
 * FragmentSpread); JSON does not say which, so the kind is kept under a
 * symbol, invisible to the JSON rendering.
 */
import type { Position } from "./lexer";

export const SELECTION_KIND = Symbol("selection kind");

export interface TypeRef {
  NamedType: string;
  Elem: TypeRef | null;
  NonNull: boolean;
  Position?: Position;
}

/** gqlparser's ValueKind numbering. */
export const enum ValueKind {
  Variable = 0,
  Int = 1,
  Float = 2,
  String = 3,
  Block = 4,
  Boolean = 5,
  Null = 6,
  Enum = 7,
  List = 8,
  Object = 9,
}

export interface ChildValue {
  Name: string;
  Value: Value | null;
  Position?: Position;
}

export interface Value {
  Raw: string;
  Children: ChildValue[] | null;
  Kind: ValueKind;
  Definition: null;
  VariableDefinition: null;
  ExpectedType: null;
  ExpectedTypeHasDefault: boolean;
  Position?: Position;
}

export interface Argument {
  Name: string;
  Value: Value | null;
  Position?: Position;
}

export interface Directive {
  Name: string;
  Arguments: Argument[] | null;
  ParentDefinition: null;
  Definition: null;
  /** Filled by gqlparser's validator; "" after parsing, and kept (OPA shows "Location": ""). */
  Location: string;
  Position?: Position;
}

export interface VariableDefinition {
  Variable: string;
  Type: TypeRef | null;
  DefaultValue: Value | null;
  Directives: Directive[] | null;
  Definition: null;
  Used: boolean;
  Position?: Position;
}

export interface Field {
  [SELECTION_KIND]: "field";
  Alias: string;
  Name: string;
  Arguments: Argument[] | null;
  Directives: Directive[] | null;
  SelectionSet: Selection[] | null;
  Definition: null;
  ObjectDefinition: null;
  Position?: Position;
}

export interface InlineFragment {
  [SELECTION_KIND]: "inline";
  TypeCondition: string;
  Directives: Directive[] | null;
  SelectionSet: Selection[] | null;
  ObjectDefinition: null;
  Position?: Position;
}

export interface FragmentSpread {
  [SELECTION_KIND]: "spread";
  Name: string;
  Directives: Directive[] | null;
  ObjectDefinition: null;
  Definition: null;
  Position?: Position;
}

export type Selection = Field | InlineFragment | FragmentSpread;

export interface OperationDefinition {
  Operation: string;
  Name: string;
  VariableDefinitions: VariableDefinition[] | null;
  Directives: Directive[] | null;
  SelectionSet: Selection[] | null;
  Position?: Position;
}

export interface FragmentDefinition {
  Name: string;
  /** Sic: gqlparser names the fragment's variable definitions in the singular. */
  VariableDefinition: VariableDefinition[] | null;
  TypeCondition: string;
  Directives: Directive[] | null;
  SelectionSet: Selection[] | null;
  Definition: null;
  Position?: Position;
}

export interface QueryDocument {
  Operations: OperationDefinition[] | null;
  Fragments: FragmentDefinition[] | null;
  Position?: Position;
}

// ---------------------------------------------------------------- schema documents

export interface ArgumentDefinition {
  Description: string;
  Name: string;
  DefaultValue: Value | null;
  Type: TypeRef | null;
  Directives: Directive[] | null;
  Position?: Position;
}

export interface FieldDefinition {
  Description: string;
  Name: string;
  Arguments: ArgumentDefinition[] | null;
  DefaultValue: Value | null;
  Type: TypeRef | null;
  Directives: Directive[] | null;
  Position?: Position;
}

export interface EnumValueDefinition {
  Description: string;
  Name: string;
  Directives: Directive[] | null;
  Position?: Position;
}

export type DefinitionKind = "SCALAR" | "OBJECT" | "INTERFACE" | "UNION" | "ENUM" | "INPUT_OBJECT";

export interface Definition {
  Kind: string;
  Description: string;
  Name: string;
  Directives: Directive[] | null;
  Interfaces: string[] | null;
  Fields: FieldDefinition[] | null;
  Types: string[] | null;
  EnumValues: EnumValueDefinition[] | null;
  BuiltIn: boolean;
  Position?: Position;
}

export interface DirectiveDefinition {
  Description: string;
  Name: string;
  Arguments: ArgumentDefinition[] | null;
  Locations: string[] | null;
  IsRepeatable: boolean;
  Position?: Position;
}

export interface OperationTypeDefinition {
  Operation: string;
  Type: string;
  Position?: Position;
}

export interface SchemaDefinition {
  Description: string;
  Directives: Directive[] | null;
  OperationTypes: OperationTypeDefinition[] | null;
  Position?: Position;
}

export interface SchemaDocument {
  Schema: SchemaDefinition[] | null;
  SchemaExtension: SchemaDefinition[] | null;
  Directives: DirectiveDefinition[] | null;
  Definitions: Definition[] | null;
  Extensions: Definition[] | null;
  Position?: Position;
}

/** The name a type reference finally names: `[String!]!` -> String. */
export function typeName(t: TypeRef): string {
  return t.Elem !== null ? typeName(t.Elem) : t.NamedType;
}

/** A type as GraphQL writes it: `[String!]!`. */
export function typeString(t: TypeRef): string {
  const inner = t.Elem !== null ? `[${typeString(t.Elem)}]` : t.NamedType;
  return t.NonNull ? `${inner}!` : inner;
}
