/**
 * OverlappingFieldsCanBeMerged, as graphql-js (and gqlparser's port of it)
 * checks it: within a selection set, fields that answer under the same
 * response name, however they got there (directly, through inline
 * fragments or fragment spreads), must be the same field with the same
 * arguments, unless their parents are distinct object types; in any case
 * their types must have the same shape, and their own sub-selections must
 * merge too. Also the schema lookups the query rules share.
 */
import {
  SELECTION_KIND,
  typeName,
  type Argument,
  type Definition,
  type Field,
  type FieldDefinition,
  type QueryDocument,
  type Selection,
  type TypeRef,
  type Value,
} from "./ast";
import { goQuote, type Position } from "./lexer";
import type { Schema } from "./schema-validation";

const TYPENAME: FieldDefinition = {
  Description: "",
  Name: "__typename",
  Arguments: null,
  DefaultValue: null,
  Type: { NamedType: "String", Elem: null, NonNull: true },
  Directives: null,
};

/** The definition of a field selected on parent (`__typename` is everywhere). */
export function fieldDefinition(parent: Definition | undefined, name: string): FieldDefinition | undefined {
  if (name === "__typename") return TYPENAME;
  return (parent?.Fields ?? []).find((f) => f.Name === name);
}

/** gqlparser's GetPossibleTypes: a union's members, an interface's implementations, an object itself. */
export function possibleTypes(schema: Schema, def: Definition): Definition[] {
  if (def.Kind === "UNION") return (def.Types ?? []).map((t) => schema.types.get(t)).filter((d): d is Definition => d !== undefined);
  return (schema.possibleTypes.get(def.Name) ?? []).filter((d): d is Definition => d !== undefined);
}

interface Collected {
  parent: Definition | undefined;
  field: Field;
  def: FieldDefinition | undefined;
}

export interface Conflict {
  pos: Position | undefined;
  text: string;
}

/**
 * The first conflict among the fields a selection set selects, or null.
 * Fields written identically (same parent, name, arguments and
 * sub-selections) merge with each other and conflict with the same others,
 * so only the first of each is compared: a query repeating one field
 * thousands of times stays linear instead of comparing every pair.
 */
export function firstFieldConflict(schema: Schema, doc: QueryDocument, parent: Definition | undefined, set: Selection[] | null): Conflict | null {
  const byName = collect(schema, doc, parent, set);
  const subfields: SubfieldCache = new Map();
  for (const [name, all] of byName) {
    const fields = distinct(all);
    for (let i = 0; i < fields.length; i++) {
      for (let j = i + 1; j < fields.length; j++) {
        const reason = conflict(schema, doc, subfields, false, fields[i]!, fields[j]!);
        if (reason !== null)
          return {
            pos: fields[j]!.field.Position,
            text: `Fields ${goQuote(name)} conflict because ${reason}. Use different aliases on the fields to fetch both if this was intentional.`,
          };
      }
    }
  }
  return null;
}

/** The first of each group of identically written fields (positions aside), in order. */
function distinct(fields: Collected[]): Collected[] {
  if (fields.length < 2) return fields;
  const seen = new Map<Definition | undefined, Set<string>>();
  return fields.filter((f) => {
    const key = JSON.stringify([f.field.Name, f.field.Arguments, f.field.SelectionSet], (k, v: unknown) =>
      k === "Position" || k === "Definition" || k === "ExpectedType" || k === "VariableDefinition" ? undefined : v,
    );
    const keys = seen.get(f.parent) ?? new Set<string>();
    seen.set(f.parent, keys);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}

/** The fields a selection set selects, by response name, through fragments (each fragment once). */
function collect(
  schema: Schema,
  doc: QueryDocument,
  parent: Definition | undefined,
  set: Selection[] | null,
  seen = new Set<string>(),
  into = new Map<string, Collected[]>(),
): Map<string, Collected[]> {
  for (const sel of set ?? []) {
    if (sel[SELECTION_KIND] === "field") {
      const list = into.get(sel.Alias) ?? [];
      list.push({ parent, field: sel, def: fieldDefinition(parent, sel.Name) });
      into.set(sel.Alias, list);
    } else if (sel[SELECTION_KIND] === "inline") {
      const next = sel.TypeCondition === "" ? parent : schema.types.get(sel.TypeCondition);
      collect(schema, doc, next, sel.SelectionSet, seen, into);
    } else if (!seen.has(sel.Name)) {
      seen.add(sel.Name);
      const frag = (doc.Fragments ?? []).find((f) => f.Name === sel.Name);
      if (frag !== undefined) collect(schema, doc, schema.types.get(frag.TypeCondition), frag.SelectionSet, seen, into);
    }
  }
  return into;
}

/** The fields a field's sub-selection selects, by response name: collected once per field, not once per pair. */
type SubfieldCache = Map<Field, Map<string, Collected[]>>;

function subfieldsOf(schema: Schema, doc: QueryDocument, cache: SubfieldCache, f: Collected, type: TypeRef | null): Map<string, Collected[]> {
  let sub = cache.get(f.field);
  if (sub === undefined) {
    sub = collect(schema, doc, type === null ? undefined : schema.types.get(typeName(type)), f.field.SelectionSet);
    cache.set(f.field, sub);
  }
  return sub;
}

/** Why two same-named fields cannot merge, or null when they can. */
function conflict(schema: Schema, doc: QueryDocument, cache: SubfieldCache, exclusiveParents: boolean, a: Collected, b: Collected): string | null {
  const exclusive = exclusiveParents || (a.parent !== b.parent && a.parent?.Kind === "OBJECT" && b.parent?.Kind === "OBJECT");
  if (!exclusive) {
    if (a.field.Name !== b.field.Name) return `${goQuote(a.field.Name)} and ${goQuote(b.field.Name)} are different fields`;
    if (!sameArguments(a.field.Arguments, b.field.Arguments)) return "they have differing arguments";
  }
  const ta = a.def?.Type ?? null;
  const tb = b.def?.Type ?? null;
  if (ta !== null && tb !== null && typesConflict(schema, ta, tb)) return "they return conflicting types";
  if (a.field.SelectionSet !== null && b.field.SelectionSet !== null) {
    const subA = subfieldsOf(schema, doc, cache, a, ta);
    const subB = subfieldsOf(schema, doc, cache, b, tb);
    for (const [name, fa] of subA) {
      for (const x of fa) {
        for (const y of subB.get(name) ?? []) {
          const reason = conflict(schema, doc, cache, exclusive, x, y);
          if (reason !== null) return `subfields ${goQuote(name)} conflict because ${reason}`;
        }
      }
    }
  }
  return null;
}

function typesConflict(schema: Schema, a: TypeRef, b: TypeRef): boolean {
  if (a.NonNull !== b.NonNull) return true;
  if (a.Elem !== null || b.Elem !== null) return a.Elem === null || b.Elem === null || typesConflict(schema, a.Elem, b.Elem);
  const da = schema.types.get(a.NamedType);
  const db = schema.types.get(b.NamedType);
  const leaf = (d: Definition | undefined): boolean => d !== undefined && (d.Kind === "SCALAR" || d.Kind === "ENUM");
  return (leaf(da) || leaf(db)) && a.NamedType !== b.NamedType;
}

function sameArguments(a: Argument[] | null, b: Argument[] | null): boolean {
  const la = a ?? [];
  const lb = b ?? [];
  if (la.length !== lb.length) return false;
  return la.every((x) => {
    const y = lb.find((arg) => arg.Name === x.Name);
    return y !== undefined && sameValue(x.Value, y.Value);
  });
}

function sameValue(a: Value | null, b: Value | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.Kind !== b.Kind || a.Raw !== b.Raw) return false;
  const ca = a.Children ?? [];
  const cb = b.Children ?? [];
  return ca.length === cb.length && ca.every((c, i) => c.Name === cb[i]!.Name && sameValue(c.Value, cb[i]!.Value));
}
