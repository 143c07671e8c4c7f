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
 * rt_switch) is such a constant too, built after the keys it holds.
 * Constants are never mutated: strings and numbers are immutable values,
 * and the statements that mutate (ArrayAppend, ObjectInsert, SetAdd) only
 * ever target collections made by MakeArray/MakeObject/MakeSet.
 */
import { Code } from "./wasm/code";
import { encodeFuncBody } from "./wasm/sections";
import type { EmittedFunction } from "./emit";
import type { ScalarConstant } from "../plan/ir";

/** A constant the emitter can ask for. */
export type Constant =
  | { kind: "string"; index: number } // Policy.strings[index]
  | { kind: "number"; index: number } // number literal text Policy.strings[index]
  | { kind: "int"; value: number } // small integer
  | { kind: "switch"; keys: ScalarConstant[] }; // a Switch's table: keys[i] -> case number i + 1 (rt_switch)

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
    const key = c.kind === "int" ? `int:${c.value}` : c.kind === "switch" ? `switch:${JSON.stringify(c.keys)}` : `${c.kind}:${c.index}`;
    let g = this.globals.get(key);
    if (g === undefined) {
      // A table's string and number keys are constants of their own, built before it.
      if (c.kind === "switch") for (const k of c.keys) if (k.type === "string" || k.type === "number") this.global({ kind: k.type, index: k.index });
      g = this.firstGlobal + this.order.length;
      this.globals.set(key, g);
      this.order.push(c);
      // Place the text now, so the data segment is laid out in order of first use.
      this.texts.push(c.kind === "int" || c.kind === "switch" ? undefined : this.b.string(c.index));
    }
    return g;
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
      if (k.kind === "int") c.i32(k.value).call(b.rt("rt_number_int"));
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
