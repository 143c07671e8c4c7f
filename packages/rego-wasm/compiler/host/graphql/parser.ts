/**
 * The recursive-descent parser for executable documents (queries), shaped
 * as gqlparser's so that the same inputs fail with the same first error:
 * operations and fragments, variable definitions, selections, arguments,
 * values and directives. ./schema-parser.ts extends it with the SDL.
 */
import {
  SELECTION_KIND,
  ValueKind,
  type Argument,
  type ChildValue,
  type Directive,
  type FragmentDefinition,
  type OperationDefinition,
  type QueryDocument,
  type Selection,
  type TypeRef,
  type Value,
  type VariableDefinition,
} from "./ast";
import { GraphQLError, Lexer, describeToken, goQuote, type Position, type Token, type TokenKind } from "./lexer";

export class Parser {
  private readonly lexer: Lexer;
  private peeked: Token | null = null;
  /** The token consumed last. */
  protected prev: Token | null = null;

  constructor(source: string) {
    this.lexer = new Lexer(source);
  }

  // ------------------------------------------------------------ token helpers

  protected peek(): Token {
    if (this.peeked === null) this.peeked = this.lexer.next();
    return this.peeked;
  }

  protected peekPos(): Position {
    return this.peek().pos;
  }

  protected next(): Token {
    const t = this.peek();
    this.peeked = null;
    this.prev = t;
    return t;
  }

  protected fail(t: Token, msg: string): never {
    throw new GraphQLError(msg, t.pos);
  }

  protected unexpected(t: Token = this.peek()): never {
    this.fail(t, `Unexpected ${describeToken(t)}`);
  }

  protected expect(kind: TokenKind): Token {
    const t = this.peek();
    if (t.kind !== kind) this.fail(t, `Expected ${kind}, found ${t.kind}`);
    return this.next();
  }

  protected expectKeyword(word: string): Token {
    const t = this.peek();
    if (t.kind !== "Name" || t.value !== word) this.fail(t, `Expected ${goQuote(word)}, found ${describeToken(t)}`);
    return this.next();
  }

  protected skip(kind: TokenKind): boolean {
    if (this.peek().kind !== kind) return false;
    this.next();
    return true;
  }

  /** start item* end, possibly empty; nothing at all when start is absent. Null for none, as Go's nil slice. */
  protected many<T>(start: TokenKind, end: TokenKind, item: () => T): T[] | null {
    if (!this.skip(start)) return null;
    const items: T[] = [];
    while (this.peek().kind !== end) items.push(item());
    this.next();
    return items.length > 0 ? items : null;
  }

  /** start item+ end; nothing at all when start is absent. */
  protected some<T>(start: TokenKind, end: TokenKind, item: () => T): T[] | null {
    if (!this.skip(start)) return null;
    const items: T[] = [];
    while (this.peek().kind !== end) items.push(item());
    if (items.length === 0) this.fail(this.peek(), `expected at least one definition, found ${this.peek().kind}`);
    this.next();
    return items;
  }

  protected name(): string {
    return this.expect("Name").value;
  }

  // ------------------------------------------------------------ documents

  parseQueryDocument(): QueryDocument {
    const doc: QueryDocument = { Operations: null, Fragments: null };
    while (this.peek().kind !== "<EOF>") {
      doc.Position = this.peekPos();
      const t = this.peek();
      if (t.kind === "{" || (t.kind === "Name" && ["query", "mutation", "subscription"].includes(t.value))) {
        (doc.Operations ??= []).push(this.operationDefinition());
      } else if (t.kind === "Name" && t.value === "fragment") {
        (doc.Fragments ??= []).push(this.fragmentDefinition());
      } else this.unexpected();
    }
    return doc;
  }

  private operationDefinition(): OperationDefinition {
    const Position = this.peekPos();
    if (this.peek().kind === "{") {
      return { Operation: "query", Name: "", VariableDefinitions: null, Directives: null, SelectionSet: this.requiredSelectionSet(), Position };
    }
    const Operation = this.operationType();
    const Name = this.peek().kind === "Name" ? this.next().value : "";
    const VariableDefinitions = this.variableDefinitions();
    const Directives = this.directives(false);
    return { Operation, Name, VariableDefinitions, Directives, SelectionSet: this.requiredSelectionSet(), Position };
  }

  protected operationType(): string {
    const t = this.next();
    if (t.value === "query" || t.value === "mutation" || t.value === "subscription") return t.value;
    this.unexpected(t);
  }

  private variableDefinitions(): VariableDefinition[] | null {
    return this.many("(", ")", () => {
      const Position = this.peekPos();
      const Variable = this.variable();
      this.expect(":");
      const Type = this.typeReference();
      const DefaultValue = this.skip("=") ? this.valueLiteral(true) : null;
      const Directives = this.directives(false);
      return { Variable, Type, DefaultValue, Directives, Definition: null, Used: false, Position };
    });
  }

  private variable(): string {
    this.expect("$");
    return this.name();
  }

  private requiredSelectionSet(): Selection[] | null {
    const t = this.peek();
    if (t.kind !== "{") this.fail(t, `Expected {, found ${t.kind}`);
    return this.some("{", "}", () => this.selection());
  }

  private selection(): Selection {
    return this.peek().kind === "..." ? this.fragment() : this.field();
  }

  private field(): Selection {
    const Position = this.peekPos();
    const Alias = this.name();
    const Name = this.skip(":") ? this.name() : Alias;
    const Arguments = this.arguments(false);
    const Directives = this.directives(false);
    const SelectionSet = this.peek().kind === "{" ? this.some("{", "}", () => this.selection()) : null;
    return { [SELECTION_KIND]: "field", Alias, Name, Arguments, Directives, SelectionSet, Definition: null, ObjectDefinition: null, Position };
  }

  private arguments(isConst: boolean): Argument[] | null {
    return this.many("(", ")", () => {
      const Position = this.peekPos();
      const Name = this.name();
      this.expect(":");
      return { Name, Value: this.valueLiteral(isConst), Position };
    });
  }

  private fragment(): Selection {
    this.expect("...");
    const t = this.peek();
    if (t.kind === "Name" && t.value !== "on") {
      const Position = this.peekPos();
      const Name = this.fragmentName();
      return { [SELECTION_KIND]: "spread", Name, Directives: this.directives(false), ObjectDefinition: null, Definition: null, Position };
    }
    const Position = this.peekPos();
    let TypeCondition = "";
    if (this.peek().value === "on") {
      this.next();
      TypeCondition = this.name();
    }
    const Directives = this.directives(false);
    return { [SELECTION_KIND]: "inline", TypeCondition, Directives, SelectionSet: this.requiredSelectionSet(), ObjectDefinition: null, Position };
  }

  private fragmentDefinition(): FragmentDefinition {
    const Position = this.peekPos();
    this.expectKeyword("fragment");
    const Name = this.fragmentName();
    const VariableDefinition = this.variableDefinitions();
    this.expectKeyword("on");
    const TypeCondition = this.name();
    const Directives = this.directives(false);
    return { Name, VariableDefinition, TypeCondition, Directives, SelectionSet: this.requiredSelectionSet(), Definition: null, Position };
  }

  private fragmentName(): string {
    if (this.peek().value === "on") this.unexpected();
    return this.name();
  }

  // ------------------------------------------------------------ values, directives, types

  protected valueLiteral(isConst: boolean): Value {
    const t = this.peek();
    let kind: ValueKind;
    switch (t.kind) {
      case "[":
        return this.compound("[", "]", () => ({ Name: "", Value: this.valueLiteral(isConst) }), ValueKind.List);
      case "{":
        return this.compound("{", "}", () => this.objectField(isConst), ValueKind.Object);
      case "$":
        if (isConst) this.unexpected();
        return value(ValueKind.Variable, this.variable(), null, t.pos);
      case "Int":
        kind = ValueKind.Int;
        break;
      case "Float":
        kind = ValueKind.Float;
        break;
      case "String":
        kind = ValueKind.String;
        break;
      case "BlockString":
        kind = ValueKind.Block;
        break;
      case "Name":
        kind = t.value === "true" || t.value === "false" ? ValueKind.Boolean : t.value === "null" ? ValueKind.Null : ValueKind.Enum;
        break;
      default:
        this.unexpected();
    }
    this.next();
    return value(kind, t.value, null, t.pos);
  }

  private compound(start: TokenKind, end: TokenKind, item: () => ChildValue, kind: ValueKind): Value {
    const pos = this.peekPos();
    return value(kind, "", this.many(start, end, item), pos);
  }

  private objectField(isConst: boolean): ChildValue {
    const Position = this.peekPos();
    const Name = this.name();
    this.expect(":");
    return { Name, Value: this.valueLiteral(isConst), Position };
  }

  protected directives(isConst: boolean): Directive[] | null {
    const list: Directive[] = [];
    while (this.peek().kind === "@") {
      this.expect("@");
      const Position = this.peekPos();
      const Name = this.name();
      list.push({ Name, Arguments: this.arguments(isConst), ParentDefinition: null, Definition: null, Location: "", Position });
    }
    return list.length > 0 ? list : null;
  }

  protected typeReference(): TypeRef {
    let t: TypeRef;
    if (this.skip("[")) {
      t = { NamedType: "", Elem: this.typeReference(), NonNull: false, Position: this.peekPos() };
      this.expect("]");
    } else t = { NamedType: this.name(), Elem: null, NonNull: false, Position: this.peekPos() };
    if (this.skip("!")) t.NonNull = true;
    return t;
  }
}

function value(Kind: ValueKind, Raw: string, Children: ChildValue[] | null, Position: Position): Value {
  return { Raw, Children, Kind, Definition: null, VariableDefinition: null, ExpectedType: null, ExpectedTypeHasDefault: false, Position };
}

/** gqlparser's ParseQuery. */
export function parseQuery(source: string): QueryDocument {
  return new Parser(source).parseQueryDocument();
}
