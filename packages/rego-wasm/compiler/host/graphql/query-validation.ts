/**
 * A query document checked against a schema with gqlparser's validation
 * rules (its default rule set, the GraphQL spec's): operations and
 * fragments are walked as gqlparser's walker walks them (each operation
 * with the fragments it spreads, then every fragment alone), resolving
 * fields, arguments and the types values must have; the rules look at what
 * the walk finds. Errors are collected in walk order and the first thrown.
 *
 * Rules: ExecutableDefinitions (by construction), FieldsOnCorrectType,
 * FragmentsOnCompositeTypes, KnownArgumentNames, KnownDirectives,
 * KnownFragmentNames, KnownRootType, KnownTypeNames, LoneAnonymousOperation,
 * NoFragmentCycles, NoUndefinedVariables, NoUnusedFragments,
 * NoUnusedVariables, OverlappingFieldsCanBeMerged (./overlap.ts),
 * PossibleFragmentSpreads, ProvidedRequiredArguments, ScalarLeafs,
 * SingleFieldSubscriptions, UniqueArgumentNames, UniqueDirectivesPerLocation,
 * UniqueFragmentNames, UniqueInputFieldNames, UniqueOperationNames,
 * UniqueVariableNames, ValuesOfCorrectType, VariablesAreInputTypes,
 * VariablesInAllowedPosition.
 */
import {
  SELECTION_KIND,
  ValueKind,
  typeName,
  typeString,
  type Argument,
  type ArgumentDefinition,
  type Definition,
  type Directive,
  type FragmentDefinition,
  type OperationDefinition,
  type QueryDocument,
  type Selection,
  type TypeRef,
  type Value,
  type VariableDefinition,
} from "./ast";
import { GraphQLError, goQuote, type Position } from "./lexer";
import { fieldDefinition, firstFieldConflict, possibleTypes } from "./overlap";
import { isCompatible, type Schema } from "./schema-validation";

/** What a value is expected to be where it stands (gqlparser keeps this on the value itself). */
interface Expectation {
  type: TypeRef | null;
  definition: Definition | undefined;
  /** The argument it is given for has a non-null default. */
  hasDefault: boolean;
}

const NONE: Expectation = { type: null, definition: undefined, hasDefault: false };

const isLeaf = (d: Definition): boolean => d.Kind === "SCALAR" || d.Kind === "ENUM";
const isComposite = (d: Definition): boolean => d.Kind === "OBJECT" || d.Kind === "INTERFACE" || d.Kind === "UNION";
const isInput = (d: Definition): boolean => d.Kind === "SCALAR" || d.Kind === "ENUM" || d.Kind === "INPUT_OBJECT";

class QueryValidator {
  private operation: OperationDefinition | null = null;
  private usedVariables = new Set<VariableDefinition>();
  /** Fragments already walked into during the current walk (gqlparser's guard against cycles). */
  private walkedFragments = new Set<string>();
  /** Fragments spread, directly or not, by some operation. */
  private readonly usedFragments = new Set<string>();

  constructor(
    private readonly schema: Schema,
    private readonly doc: QueryDocument,
  ) {}

  /**
   * The first error ends the walk: it is the one gqlparser reports first
   * (rules run in walk order), and going on after it only costs time (an
   * attacker's query with thousands of conflicting fields would otherwise
   * have every pair reported).
   */
  private error(pos: Position | undefined, msg: string): never {
    throw new GraphQLError(msg, pos);
  }

  private fragment(name: string): FragmentDefinition | undefined {
    return (this.doc.Fragments ?? []).find((f) => f.Name === name);
  }

  run(): void {
    const operations = this.doc.Operations ?? [];
    const fragments = this.doc.Fragments ?? [];
    const seenOps = new Set<string>();
    for (const op of operations) {
      if (op.Name === "" && operations.length > 1) this.error(op.Position, "This anonymous operation must be the only defined operation.");
      if (seenOps.has(op.Name)) this.error(op.Position, `There can be only one operation named ${goQuote(op.Name)}.`);
      seenOps.add(op.Name);
      this.walkOperation(op);
    }
    const seenFrags = new Set<string>();
    for (const frag of fragments) {
      if (seenFrags.has(frag.Name)) this.error(frag.Position, `There can be only one fragment named ${goQuote(frag.Name)}.`);
      seenFrags.add(frag.Name);
      this.walkFragmentDefinition(frag);
    }
    this.fragmentCycles(fragments);
  }

  private walkOperation(op: OperationDefinition): void {
    this.operation = op;
    this.usedVariables = new Set();
    this.walkedFragments = new Set();
    const varDefs = op.VariableDefinitions ?? [];
    const seenVars = new Set<string>();
    for (const v of varDefs) {
      if (seenVars.has(v.Variable)) this.error(v.Position, `There can be only one variable named "$${v.Variable}".`);
      seenVars.add(v.Variable);
      const def = this.schema.types.get(typeName(v.Type!));
      if (def === undefined) this.error(v.Position, `Unknown type ${goQuote(typeName(v.Type!))}.`);
      else if (!isInput(def)) this.error(v.Position, `Variable "$${v.Variable}" cannot be non-input type ${goQuote(typeString(v.Type!))}.`);
    }
    const root = op.Operation === "mutation" ? this.schema.mutation : op.Operation === "subscription" ? this.schema.subscription : this.schema.query;
    if (root === null) this.error(op.Position, `Schema does not support operation type ${goQuote(op.Operation)}`);
    const location = op.Operation === "mutation" ? "MUTATION" : op.Operation === "subscription" ? "SUBSCRIPTION" : "QUERY";
    this.walkDirectives(op.Directives, location);
    for (const v of varDefs) {
      if (v.DefaultValue !== null) {
        this.walkValue(v.DefaultValue, { type: v.Type, definition: this.schema.types.get(typeName(v.Type!)), hasDefault: false });
      }
      this.walkDirectives(v.Directives, "VARIABLE_DEFINITION");
    }
    this.walkSelectionSet(root ?? undefined, op.SelectionSet);
    for (const v of varDefs) {
      if (!this.usedVariables.has(v)) {
        this.error(
          v.Position,
          op.Name === "" ? `Variable "$${v.Variable}" is never used.` : `Variable "$${v.Variable}" is never used in operation ${goQuote(op.Name)}.`,
        );
      }
    }
    if (op.Operation === "subscription") this.singleFieldSubscription(op);
    this.operation = null;
  }

  private singleFieldSubscription(op: OperationDefinition): void {
    const fields: string[] = [];
    const collect = (set: Selection[] | null, seen: Set<string>): void => {
      for (const sel of set ?? []) {
        if (sel[SELECTION_KIND] === "field") fields.push(sel.Name);
        else if (sel[SELECTION_KIND] === "inline") collect(sel.SelectionSet, seen);
        else if (!seen.has(sel.Name)) {
          seen.add(sel.Name);
          collect(this.fragment(sel.Name)?.SelectionSet ?? null, seen);
        }
      }
    };
    collect(op.SelectionSet, new Set());
    const name = op.Name === "" ? "Anonymous Subscription" : `Subscription ${goQuote(op.Name)}`;
    if (fields.length > 1) this.error(op.Position, `${name} must select only one top level field.`);
    if (fields.some((f) => f.startsWith("__"))) this.error(op.Position, `${name} must not select an introspection top level field.`);
  }

  private walkFragmentDefinition(frag: FragmentDefinition): void {
    this.walkedFragments = new Set();
    const def = this.schema.types.get(frag.TypeCondition);
    if (def === undefined) this.error(frag.Position, `Unknown type ${goQuote(frag.TypeCondition)}.`);
    else if (!isComposite(def))
      this.error(frag.Position, `Fragment ${goQuote(frag.Name)} cannot condition on non composite type ${goQuote(frag.TypeCondition)}.`);
    if (!this.usedFragments.has(frag.Name)) this.error(frag.Position, `Fragment ${goQuote(frag.Name)} is never used.`);
    this.walkDirectives(frag.Directives, "FRAGMENT_DEFINITION");
    this.walkSelectionSet(def, frag.SelectionSet);
  }

  private walkSelectionSet(parent: Definition | undefined, set: Selection[] | null): void {
    const conflict = firstFieldConflict(this.schema, this.doc, parent, set);
    if (conflict !== null) this.error(conflict.pos, conflict.text);
    for (const sel of set ?? []) this.walkSelection(parent, sel);
  }

  private walkSelection(parent: Definition | undefined, sel: Selection): void {
    if (sel[SELECTION_KIND] === "field") {
      const def = fieldDefinition(parent, sel.Name);
      if (parent !== undefined && def === undefined) this.error(sel.Position, `Cannot query field ${goQuote(sel.Name)} on type ${goQuote(parent.Name)}.`);
      const fieldType = def === undefined ? undefined : this.schema.types.get(typeName(def.Type!));
      if (def !== undefined && fieldType !== undefined) {
        const hasSelections = (sel.SelectionSet ?? []).length > 0;
        if (isLeaf(fieldType) && hasSelections) {
          this.error(sel.Position, `Field ${goQuote(sel.Name)} must not have a selection since type ${goQuote(fieldType.Name)} has no subfields.`);
        } else if (!isLeaf(fieldType) && !hasSelections) {
          this.error(
            sel.Position,
            `Field ${goQuote(sel.Name)} of type ${goQuote(typeString(def.Type!))} must have a selection of subfields. Did you mean "${sel.Name} { ... }"?`,
          );
        }
      }
      this.checkArguments(
        sel.Arguments,
        def?.Arguments ?? null,
        def !== undefined,
        (a) => `Unknown argument ${goQuote(a)} on field ${goQuote(`${parent?.Name}.${sel.Name}`)}.`,
        (a) => `Field ${goQuote(sel.Name)} argument ${goQuote(a.Name)} of type ${goQuote(typeString(a.Type!))} is required, but it was not provided.`,
        sel.Position,
      );
      this.walkSelectionSet(fieldType, sel.SelectionSet);
      this.walkDirectives(sel.Directives, "FIELD");
      return;
    }
    if (sel[SELECTION_KIND] === "inline") {
      let next = parent;
      if (sel.TypeCondition !== "") {
        next = this.schema.types.get(sel.TypeCondition);
        if (next === undefined) this.error(sel.Position, `Unknown type ${goQuote(sel.TypeCondition)}.`);
        else if (!isComposite(next)) this.error(sel.Position, `Fragment cannot condition on non composite type ${goQuote(sel.TypeCondition)}.`);
        else
          this.checkPossibleSpread(
            parent,
            next,
            sel.Position,
            `Fragment cannot be spread here as objects of type ${goQuote(parent?.Name ?? "")} can never be of type ${goQuote(next.Name)}.`,
          );
      }
      this.walkDirectives(sel.Directives, "INLINE_FRAGMENT");
      this.walkSelectionSet(next, sel.SelectionSet);
      return;
    }
    const frag = this.fragment(sel.Name);
    if (frag === undefined) this.error(sel.Position, `Unknown fragment ${goQuote(sel.Name)}.`);
    const next = frag === undefined ? undefined : this.schema.types.get(frag.TypeCondition);
    if (next !== undefined) {
      this.checkPossibleSpread(
        parent,
        next,
        sel.Position,
        `Fragment ${goQuote(sel.Name)} cannot be spread here as objects of type ${goQuote(parent?.Name ?? "")} can never be of type ${goQuote(next.Name)}.`,
      );
    }
    this.walkDirectives(sel.Directives, "FRAGMENT_SPREAD");
    if (frag !== undefined && !this.walkedFragments.has(frag.Name)) {
      this.walkedFragments.add(frag.Name);
      if (this.operation !== null) this.usedFragments.add(frag.Name);
      this.walkSelectionSet(next, frag.SelectionSet);
    }
  }

  /** PossibleFragmentSpreads: the fragment's and the parent's possible types must meet. */
  private checkPossibleSpread(parent: Definition | undefined, frag: Definition, pos: Position | undefined, msg: string): void {
    if (parent === undefined || !isComposite(parent) || !isComposite(frag)) return;
    const ours = new Set(possibleTypes(this.schema, frag).map((d) => d.Name));
    if (!possibleTypes(this.schema, parent).some((d) => ours.has(d.Name))) this.error(pos, msg);
  }

  /**
   * An argument list against its definitions: names unique and known (when
   * the field or directive is), required ones provided, each value walked.
   */
  private checkArguments(
    args: Argument[] | null,
    defs: ArgumentDefinition[] | null,
    known: boolean,
    unknownMsg: (name: string) => string,
    missingMsg: (def: ArgumentDefinition) => string,
    pos: Position | undefined,
  ): void {
    const seen = new Set<string>();
    for (const arg of args ?? []) {
      if (seen.has(arg.Name)) this.error(arg.Position, `There can be only one argument named ${goQuote(arg.Name)}.`);
      seen.add(arg.Name);
      const def = (defs ?? []).find((d) => d.Name === arg.Name);
      if (known && def === undefined) this.error(arg.Position, unknownMsg(arg.Name));
      const expect: Expectation =
        def === undefined
          ? NONE
          : {
              type: def.Type,
              definition: this.schema.types.get(typeName(def.Type!)),
              hasDefault: def.DefaultValue !== null && def.DefaultValue.Kind !== ValueKind.Null,
            };
      if (arg.Value !== null) this.walkValue(arg.Value, expect);
    }
    for (const def of defs ?? []) {
      if (def.Type!.NonNull && def.DefaultValue === null && !seen.has(def.Name)) this.error(pos, missingMsg(def));
    }
  }

  private walkDirectives(dirs: Directive[] | null, location: string): void {
    const seen = new Set<string>();
    for (const dir of dirs ?? []) {
      const def = this.schema.directives.get(dir.Name);
      if (def === undefined) this.error(dir.Position, `Unknown directive "@${dir.Name}".`);
      else if (!(def.Locations ?? []).includes(location)) this.error(dir.Position, `Directive "@${dir.Name}" may not be used on ${location}.`);
      if (seen.has(dir.Name) && !(def?.IsRepeatable ?? false)) this.error(dir.Position, `The directive "@${dir.Name}" can only be used once at this location.`);
      seen.add(dir.Name);
      this.checkArguments(
        dir.Arguments,
        def?.Arguments ?? null,
        def !== undefined,
        (a) => `Unknown argument ${goQuote(a)} on directive "@${dir.Name}".`,
        (a) => `Directive "@${dir.Name}" argument ${goQuote(a.Name)} of type ${goQuote(typeString(a.Type!))} is required, but it was not provided.`,
        dir.Position,
      );
    }
  }

  private walkValue(value: Value, expect: Expectation): void {
    if (value.Kind === ValueKind.Variable && this.operation !== null) {
      const op = this.operation;
      const varDef = (op.VariableDefinitions ?? []).find((v) => v.Variable === value.Raw);
      if (varDef === undefined) {
        this.error(
          value.Position,
          op.Name === "" ? `Variable "$${value.Raw}" is not defined.` : `Variable "$${value.Raw}" is not defined by operation ${goQuote(op.Name)}.`,
        );
      } else {
        this.usedVariables.add(varDef);
        this.checkVariablePosition(value, varDef, expect);
      }
    }
    this.checkValueType(value, expect);
    const children = value.Children ?? [];
    if (value.Kind === ValueKind.Object) {
      const seen = new Set<string>();
      for (const child of children) {
        if (seen.has(child.Name)) this.error(child.Position, `There can be only one input field named ${goQuote(child.Name)}.`);
        seen.add(child.Name);
        const fieldDef = (expect.definition?.Fields ?? []).find((f) => f.Name === child.Name);
        const childExpect: Expectation =
          fieldDef === undefined ? NONE : { type: fieldDef.Type, definition: this.schema.types.get(typeName(fieldDef.Type!)), hasDefault: false };
        if (child.Value !== null) this.walkValue(child.Value, childExpect);
      }
    } else if (value.Kind === ValueKind.List) {
      const elem = expect.type?.Elem ?? null;
      const childExpect: Expectation = elem === null ? NONE : { type: elem, definition: expect.definition, hasDefault: false };
      for (const child of children) if (child.Value !== null) this.walkValue(child.Value, childExpect);
    }
  }

  /** VariablesInAllowedPosition: a default (the variable's or the argument's) lets a nullable variable stand for a non-null type. */
  private checkVariablePosition(value: Value, varDef: VariableDefinition, expect: Expectation): void {
    if (expect.type === null) return;
    const wanted: TypeRef = { ...expect.type };
    if (varDef.DefaultValue !== null && varDef.DefaultValue.Kind !== ValueKind.Null) wanted.NonNull = false;
    if (expect.hasDefault) wanted.NonNull = false;
    if (!isCompatible(varDef.Type!, wanted)) {
      this.error(
        value.Position,
        `Variable "$${value.Raw}" of type ${goQuote(typeString(varDef.Type!))} used in position expecting type ${goQuote(typeString(expect.type))}.`,
      );
    }
  }

  /** ValuesOfCorrectType, for values whose expected type the walk knows. */
  private checkValueType(value: Value, expect: Expectation): void {
    const def = expect.definition;
    const type = expect.type;
    if (def === undefined || type === null) return;
    // Custom scalars accept any literal, even null where a non-null one is expected.
    if (def.Kind === "SCALAR" && !["Int", "Float", "String", "Boolean", "ID"].includes(def.Name)) return;
    const shown = valueString(value);
    const unexpected = (): void => this.error(value.Position, `Expected type ${typeString(type)}, found ${shown}.`);
    if (!literalReadable(value)) unexpected();
    switch (value.Kind) {
      case ValueKind.Null:
        if (type.NonNull) unexpected();
        return;
      case ValueKind.List:
        if (type.Elem === null) unexpected();
        return;
      case ValueKind.Int:
        if (!["Int", "Float", "ID"].includes(def.Name)) unexpected();
        return;
      case ValueKind.Float:
        if (def.Name !== "Float") unexpected();
        return;
      case ValueKind.String:
      case ValueKind.Block:
        if (def.Kind === "ENUM" || (def.Name !== "String" && def.Name !== "ID")) unexpected();
        return;
      case ValueKind.Enum:
        if (def.Kind !== "ENUM" || !(def.EnumValues ?? []).some((v) => v.Name === value.Raw)) unexpected();
        return;
      case ValueKind.Boolean:
        if (def.Name !== "Boolean") unexpected();
        return;
      case ValueKind.Object: {
        const children = value.Children ?? [];
        for (const field of def.Fields ?? []) {
          if (field.Type!.NonNull && field.DefaultValue === null && !children.some((c) => c.Name === field.Name)) {
            this.error(value.Position, `Field ${def.Name}.${field.Name} of required type ${typeString(field.Type!)} was not provided.`);
          }
        }
        for (const child of children) {
          if (!(def.Fields ?? []).some((f) => f.Name === child.Name))
            this.error(child.Position, `Field ${goQuote(child.Name)} is not defined by type ${def.Name}.`);
        }
        return;
      }
      default:
        return;
    }
  }

  /** NoFragmentCycles: no fragment may spread itself, directly or through others. */
  private fragmentCycles(fragments: FragmentDefinition[]): void {
    const spreads = (set: Selection[] | null, out: string[] = []): string[] => {
      for (const sel of set ?? []) {
        if (sel[SELECTION_KIND] === "spread") out.push(sel.Name);
        else spreads(sel.SelectionSet, out);
      }
      return out;
    };
    const reported = new Set<string>();
    for (const start of fragments) {
      const stack: Array<[string, string[]]> = [[start.Name, [start.Name]]];
      const visited = new Set<string>();
      while (stack.length > 0) {
        const [name, path] = stack.pop()!;
        if (visited.has(name)) continue;
        visited.add(name);
        for (const next of spreads(this.fragment(name)?.SelectionSet ?? null)) {
          if (next === start.Name && !reported.has(start.Name)) {
            path.forEach((p) => reported.add(p));
            this.error(start.Position, `Cannot spread fragment ${goQuote(start.Name)} within itself.`);
          } else stack.push([next, [...path, next]]);
        }
      }
    }
  }
}

/**
 * Whether gqlparser's Value.Value can read the literal: Ints must fit 64
 * bits and Floats must not overflow, in lists and objects too.
 */
function literalReadable(v: Value): boolean {
  if (v.Kind === ValueKind.Int) {
    const n = BigInt(v.Raw);
    return n >= -(2n ** 63n) && n < 2n ** 63n;
  }
  if (v.Kind === ValueKind.Float) return Number.isFinite(Number(v.Raw));
  return (v.Children ?? []).every((c) => c.Value === null || literalReadable(c.Value));
}

/** A value as gqlparser's Value.String() shows it in messages. */
function valueString(v: Value): string {
  switch (v.Kind) {
    case ValueKind.String:
    case ValueKind.Block:
      return goQuote(v.Raw);
    case ValueKind.List:
      return "list";
    case ValueKind.Object:
      return "object";
    case ValueKind.Variable:
      return `$${v.Raw}`;
    default:
      return v.Raw;
  }
}

/** gqlparser's Validate: throws the first error the rules find. */
export function validateQuery(schema: Schema, doc: QueryDocument): void {
  new QueryValidator(schema, doc).run();
}
