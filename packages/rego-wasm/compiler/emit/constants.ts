/**
 * Constant values built once per module instance instead of once per use.
 *
 * Without this, every `MakeString "actor"` in a rule body calls rt_string on
 * every evaluation: a heap allocation and a UTF-8 decode for a value that
 * never changes. Instead each distinct string or number constant gets a
 * mutable i32 global, and the module's start function builds all of them
 * once at instantiation; the code then reads the global.
 *
 * Why this survives heap rewinds: the start function runs during
 * instantiation, before a host can ask for the heap top (the SDK reads it
 * once after loading, and only ever rewinds to that mark or above), so the
 * constants lie below every rewind point, as the runtime's own static
 * singletons (null, true, false) built by its start function do.
 * The string constants also fill the runtime's intern table (rt_string_const,
 * sealed at the end): the JSON parser reuses a constant for an input string
 * spelled the same instead of allocating one.
 * A rule index's Switch table (an object from scalar keys to case numbers,
 * rt_switch) is such a constant too, built after the keys it holds, and so
 * is every composite literal whose elements are all constants (MakeConstant:
 * `{"status": 403, "reason": "no_policy"}`, `["admin", "member"]`, `{}`),
 * which a rule body otherwise rebuilt, allocation and sorted insert per
 * element, at every evaluation.
 * Constants are never mutated: strings and numbers are immutable values,
 * the statements that mutate (ArrayAppend, ObjectInsert, SetAdd) only ever
 * target collections made by MakeArray/MakeObject/MakeSet, and the
 * runtime's builtins build new values rather than edit their arguments.
 */
import { Code } from "./wasm/code";
import { encodeFuncBody } from "./wasm/sections";
import type { EmittedFunction } from "./emit";
import type { CompositeConstant, ConstantValue, ScalarConstant } from "../plan/ir";

/** A constant the emitter can ask for. */
export type Constant =
  | { kind: "string"; index: number } // Policy.strings[index]
  | { kind: "number"; index: number } // number literal text Policy.strings[index]
  | { kind: "int"; value: number } // small integer
  | { kind: "null" } // the runtime's null singleton
  | { kind: "bool"; value: boolean } // the runtime's true or false singleton
  | { kind: "switch"; keys: ScalarConstant[] } // a Switch's table: keys[i] -> case number i + 1 (rt_switch)
  | { kind: "value"; value: CompositeConstant }; // a composite literal (MakeConstant)

export interface ConstantBuilders {
  /** Function index of a runtime export (`rt_string_const`, `rt_intern_seal`, `rt_number_ref`, `rt_number_int`, and a table's `rt_object_*`). */
  rt(name: string): number;
  /** Address and byte length of Policy.strings[index] in the data segment. */
  string(index: number): { ptr: number; len: number };
}

export class ConstantPool {
  private readonly globals = new Map<string, number>();
  private readonly order: Constant[] = [];

  /** Data-segment text of each constant, by position in `order`. */
  private readonly texts: Array<{ ptr: number; len: number } | undefined> = [];

  /**
   * @param firstGlobal index the first constant's global gets (after the runtime's).
   * @param b where the builders and the constants' texts are.
   */
  constructor(
    private readonly firstGlobal: number,
    private readonly b: ConstantBuilders,
  ) {}

  /** Global index holding the constant (allocated on first request). */
  global(c: Constant): number {
    const key = constantKey(c);
    let g = this.globals.get(key);
    if (g === undefined) {
      // A table's string and number keys are constants of their own, built before it; so are a composite's elements.
      if (c.kind === "switch") for (const k of c.keys) if (k.type === "string" || k.type === "number") this.global({ kind: k.type, index: k.index });
      if (c.kind === "value") for (const e of elements(c.value)) this.elementGlobal(e);
      g = this.firstGlobal + this.order.length;
      this.globals.set(key, g);
      this.order.push(c);
      // Place the text now, so the data segment is laid out in order of first use.
      this.texts.push(c.kind === "string" || c.kind === "number" ? this.b.string(c.index) : undefined);
    }
    return g;
  }

  /** The global holding a composite's element. */
  private elementGlobal(e: ConstantValue): number {
    switch (e.type) {
      case "null":
        return this.global({ kind: "null" });
      case "boolean":
        return this.global({ kind: "bool", value: e.value });
      case "int":
        return this.global({ kind: "int", value: e.value });
      case "string":
      case "number":
        return this.global({ kind: e.type, index: e.index });
      default:
        return this.global({ kind: "value", value: e });
    }
  }

  get size(): number {
    return this.order.length;
  }

  /**
   * The new start function: the runtime's own start function first (it
   * initialises the runtime's statics and heap), then one builder call per
   * constant into its global.
   */
  emitStart(previousStart: number | undefined): EmittedFunction {
    const c = new Code();
    const b = this.b;
    if (previousStart !== undefined) c.call(previousStart);
    this.order.forEach((k, i) => {
      if (k.kind === "switch") return this.buildTable(c, k.keys, this.firstGlobal + i);
      if (k.kind === "value") return this.buildComposite(c, k.value, this.firstGlobal + i);
      if (k.kind === "int") c.i32(k.value).call(b.rt("rt_number_int"));
      else if (k.kind === "null") c.call(b.rt("rt_null"));
      else if (k.kind === "bool") c.i32(k.value ? 1 : 0).call(b.rt("rt_bool"));
      else {
        const { ptr, len } = this.texts[i]!;
        c.i32(ptr)
          .i32(len)
          .call(b.rt(k.kind === "string" ? "rt_string_const" : "rt_number_ref"));
      }
      c.globalSet(this.firstGlobal + i);
    });
    // Every string constant is in the runtime's intern table now; nothing built later may enter it.
    c.call(b.rt("rt_intern_seal"));
    // The start function takes no params and returns nothing; the emitter's
    // functions are all `(i32...) -> i32`, so this one is typed by the linker.
    return { params: 0, results: 0, body: encodeFuncBody([], c.finish()) };
  }

  /**
   * A composite literal, element by element in source order, with the very
   * calls MakeArray/ArrayAppend, MakeSet/SetAdd and MakeObject/ObjectInsert
   * make in a rule body (so the value is the one the body would build: a
   * set's duplicates merged, an object's repeated key keeping the last value).
   */
  private buildComposite(c: Code, v: CompositeConstant, global: number): void {
    const b = this.b;
    const push = (e: ConstantValue): void => void c.globalGet(this.elementGlobal(e));
    if (v.type === "array") c.i32(v.items.length).call(b.rt("rt_array_new"));
    else c.call(b.rt(v.type === "set" ? "rt_set_new" : "rt_object_new"));
    c.globalSet(global);
    if (v.type === "object") {
      for (const [key, value] of v.items) {
        c.globalGet(global);
        push(key);
        push(value);
        c.call(b.rt("rt_object_insert"));
      }
      return;
    }
    for (const e of v.items) {
      c.globalGet(global);
      push(e);
      c.call(b.rt(v.type === "array" ? "rt_array_append" : "rt_set_add"));
    }
  }

  /**
   * A Switch's table: an object from each key to its case number, inserted
   * in the keys' order (the planner sorts them as Rego does, so each insert
   * appends). Two keys Rego finds equal (the planner merges those) would
   * make rt_object_insert_once abort the instantiation: a policy that does
   * not load, never a wrong case picked.
   */
  private buildTable(c: Code, keys: ScalarConstant[], global: number): void {
    const b = this.b;
    c.call(b.rt("rt_object_new")).globalSet(global);
    keys.forEach((key, i) => {
      c.globalGet(global);
      if (key.type === "null") c.call(b.rt("rt_null"));
      else if (key.type === "boolean") c.i32(key.value ? 1 : 0).call(b.rt("rt_bool"));
      else c.globalGet(this.global({ kind: key.type, index: key.index }));
      c.i32(i + 1)
        .call(b.rt("rt_number_int"))
        .call(b.rt("rt_object_insert_once"));
    });
  }
}

/** A composite's elements (an object's keys and values). */
function elements(v: CompositeConstant): ConstantValue[] {
  return v.type === "object" ? v.items.flat() : v.items;
}

/** What identifies a constant in the pool: equal keys, one global. */
function constantKey(c: Constant): string {
  switch (c.kind) {
    case "int":
    case "bool":
      return `${c.kind}:${c.value}`;
    case "null":
      return "null";
    case "switch":
      return `switch:${JSON.stringify(c.keys)}`;
    case "value":
      return `value:${JSON.stringify(c.value)}`;
    default:
      return `${c.kind}:${c.index}`;
  }
}
