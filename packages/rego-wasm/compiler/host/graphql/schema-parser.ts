/**
 * The schema definition language (SDL) half of gqlparser's parser: type,
 * directive and schema definitions, and their `extend` forms. Like
 * gqlparser it reads extensions syntactically only (an extension must add
 * something); whether they make sense is ./schema-validation.ts's business.
 */
import type {
  ArgumentDefinition,
  Definition,
  DefinitionKind,
  DirectiveDefinition,
  EnumValueDefinition,
  FieldDefinition,
  OperationTypeDefinition,
  SchemaDefinition,
  SchemaDocument,
} from "./ast";
import { Parser } from "./parser";

const TYPE_KEYWORDS: Record<string, DefinitionKind> = {
  scalar: "SCALAR",
  type: "OBJECT",
  interface: "INTERFACE",
  union: "UNION",
  enum: "ENUM",
  input: "INPUT_OBJECT",
};

const DIRECTIVE_LOCATIONS = new Set([
  "QUERY",
  "MUTATION",
  "SUBSCRIPTION",
  "FIELD",
  "FRAGMENT_DEFINITION",
  "FRAGMENT_SPREAD",
  "INLINE_FRAGMENT",
  "VARIABLE_DEFINITION",
  "SCHEMA",
  "SCALAR",
  "OBJECT",
  "FIELD_DEFINITION",
  "ARGUMENT_DEFINITION",
  "INTERFACE",
  "UNION",
  "ENUM",
  "ENUM_VALUE",
  "INPUT_OBJECT",
  "INPUT_FIELD_DEFINITION",
]);

export class SchemaParser extends Parser {
  parseSchemaDocument(): SchemaDocument {
    const doc: SchemaDocument = { Schema: null, SchemaExtension: null, Directives: null, Definitions: null, Extensions: null, Position: this.peekPos() };
    while (this.peek().kind !== "<EOF>") {
      const description = this.description();
      const t = this.peek();
      if (t.kind !== "Name") this.unexpected();
      if (TYPE_KEYWORDS[t.value] !== undefined) (doc.Definitions ??= []).push(this.typeDefinition(description));
      else if (t.value === "schema") (doc.Schema ??= []).push(this.schemaDefinition(description));
      else if (t.value === "directive") (doc.Directives ??= []).push(this.directiveDefinition(description));
      else if (t.value === "extend") {
        // Extensions carry no description; gqlparser blames the description's token.
        if (description !== "") this.unexpected(this.prev!);
        this.extension(doc);
      } else this.unexpected();
    }
    return doc;
  }

  private description(): string {
    const t = this.peek();
    return t.kind === "String" || t.kind === "BlockString" ? this.next().value : "";
  }

  private schemaDefinition(description: string): SchemaDefinition {
    this.expectKeyword("schema");
    const Position = this.peekPos();
    const Directives = this.directives(true);
    return { Description: description, Directives, OperationTypes: this.some("{", "}", () => this.operationTypeDefinition()), Position };
  }

  private operationTypeDefinition(): OperationTypeDefinition {
    const Position = this.peekPos();
    const Operation = this.operationType();
    this.expect(":");
    return { Operation, Type: this.name(), Position };
  }

  /** A type definition, or the body of a type extension (where an interface names no interfaces). */
  private typeDefinition(description: string, extension = false): Definition {
    const kind = TYPE_KEYWORDS[this.next().value]!;
    const def: Definition = {
      Kind: kind,
      Description: description,
      Name: "",
      Directives: null,
      Interfaces: null,
      Fields: null,
      Types: null,
      EnumValues: null,
      BuiltIn: false,
      Position: this.peekPos(),
    };
    def.Name = this.name();
    if (kind === "OBJECT" || (kind === "INTERFACE" && !extension)) def.Interfaces = this.implementsInterfaces();
    // gqlparser reads an input extension's directives as non-constant (variables allowed).
    def.Directives = this.directives(!(extension && kind === "INPUT_OBJECT"));
    if (kind === "OBJECT" || kind === "INTERFACE") def.Fields = this.some("{", "}", () => this.fieldDefinition());
    else if (kind === "UNION") def.Types = this.unionMemberTypes();
    else if (kind === "ENUM") def.EnumValues = this.some("{", "}", () => this.enumValueDefinition());
    else if (kind === "INPUT_OBJECT") def.Fields = this.some("{", "}", () => this.inputValueDefinition());
    return def;
  }

  private implementsInterfaces(): string[] | null {
    if (this.peek().value !== "implements") return null;
    this.next();
    this.skip("&");
    const names = [this.name()];
    while (this.skip("&")) names.push(this.name());
    return names;
  }

  private unionMemberTypes(): string[] | null {
    if (!this.skip("=")) return null;
    this.skip("|");
    const names = [this.name()];
    while (this.skip("|")) names.push(this.name());
    return names;
  }

  private fieldDefinition(): FieldDefinition {
    const Position = this.peekPos();
    const Description = this.description();
    const Name = this.name();
    const Arguments = this.argumentDefinitions();
    this.expect(":");
    const Type = this.typeReference();
    return { Description, Name, Arguments, DefaultValue: null, Type, Directives: this.directives(true), Position };
  }

  private argumentDefinitions(): ArgumentDefinition[] | null {
    return this.some("(", ")", () => this.inputValue());
  }

  /** An input object's field: an input value, so no arguments. */
  private inputValueDefinition(): FieldDefinition {
    return { ...this.inputValue(), Arguments: null };
  }

  /** `"description" name: Type = default @directives`, as arguments and input fields are written. */
  private inputValue(): ArgumentDefinition {
    const Position = this.peekPos();
    const Description = this.description();
    const Name = this.name();
    this.expect(":");
    const Type = this.typeReference();
    const DefaultValue = this.skip("=") ? this.valueLiteral(true) : null;
    return { Description, Name, DefaultValue, Type, Directives: this.directives(true), Position };
  }

  private enumValueDefinition(): EnumValueDefinition {
    const Position = this.peekPos();
    const Description = this.description();
    const Name = this.name();
    return { Description, Name, Directives: this.directives(true), Position };
  }

  private extension(doc: SchemaDocument): void {
    this.expectKeyword("extend");
    const t = this.peek();
    if (t.value === "schema") {
      this.next();
      const ext: SchemaDefinition = { Description: "", Directives: null, OperationTypes: null, Position: this.peekPos() };
      ext.Directives = this.directives(true);
      ext.OperationTypes = this.some("{", "}", () => this.operationTypeDefinition());
      if (ext.Directives === null && ext.OperationTypes === null) this.unexpected();
      (doc.SchemaExtension ??= []).push(ext);
      return;
    }
    if (TYPE_KEYWORDS[t.value] === undefined) this.unexpected();
    const def = this.typeDefinition("", true);
    // An extension must add something: interfaces, directives, or members.
    if ([def.Interfaces, def.Directives, def.Fields, def.Types, def.EnumValues].every((a) => a === null)) this.unexpected();
    (doc.Extensions ??= []).push(def);
  }

  private directiveDefinition(description: string): DirectiveDefinition {
    this.expectKeyword("directive");
    this.expect("@");
    const Position = this.peekPos();
    const Name = this.name();
    const Arguments = this.argumentDefinitions();
    let IsRepeatable = false;
    const t = this.peek();
    if (t.kind === "Name" && t.value === "repeatable") {
      IsRepeatable = true;
      this.next();
    }
    this.expectKeyword("on");
    this.skip("|");
    const Locations = [this.directiveLocation()];
    while (this.skip("|")) Locations.push(this.directiveLocation());
    return { Description: description, Name, Arguments, Locations, IsRepeatable, Position };
  }

  private directiveLocation(): string {
    const t = this.expect("Name");
    if (!DIRECTIVE_LOCATIONS.has(t.value)) this.unexpected(t);
    return t.value;
  }
}

/** gqlparser's ParseSchema. */
export function parseSchema(source: string): SchemaDocument {
  return new SchemaParser(source).parseSchemaDocument();
}
