/**
 * The memo frame in static memory: rule values memoised within one
 * evaluation (IR MemoGet/MemoInsert), one u32 slot per planned function,
 * indexed by its position in Policy.funcs, then one per constant input path
 * the functions dot (input-refs.ts): 0 = not computed yet, 1 = computed and
 * undefined (values are 16-byte aligned addresses, never 1), else the
 * value's address.
 *
 * Why static memory: a rule reads its slot on every reference (the rules of
 * a real policy reference each other dozens of times per decision), and a
 * load or store at a constant address is a single instruction where a call
 * into the runtime's memo (a frame on the heap, found through a global and a
 * bounds check) cost two calls per rule reference.
 *
 * The dispatch every evaluation path runs its plan through zeroes the
 * region first (emitMemoReset, abi.ts emitDispatch); `with` saves and restores it through the runtime
 * (rt_memo_push/rt_memo_pop, runtime/assembly/memo.ts), so values computed
 * under a replaced input or data never leak out of the `with`.
 */
import type { Func } from "../plan/ir";
import type { EmittedFunction } from "./emit";
import { Code } from "./wasm/code";
import { encodeFuncBody, ValType } from "./wasm/sections";

export interface MemoLayout {
  /** Address of slot 0 (16-aligned). */
  base: number;
  /** Number of slots: the planned functions', then the input refs' (input-refs.ts). */
  slots: number;
  /** The planned functions: slots 0..funcs-1. */
  funcs: number;
}

/** Bytes the region of `slots` slots takes: a multiple of 32, which emitMemoReset zeroes at a time. */
export function memoRegionSize(slots: number): number {
  return (slots * 4 + 31) & ~31;
}

/** The slot address of function `func`; throws for an index outside the region (a planner bug). */
export function memoSlot(m: MemoLayout, func: number): number {
  if (!Number.isInteger(func) || func < 0 || func >= m.funcs) throw new Error(`emit: memo slot ${func} outside the ${m.funcs} planned functions`);
  return m.base + func * 4;
}

/** The slot address of input ref `ref` (0-based, after the functions' slots). */
export function refSlot(m: MemoLayout, ref: number): number {
  if (!Number.isInteger(ref) || ref < 0 || m.funcs + ref >= m.slots) throw new Error(`emit: input ref slot ${ref} outside the ${m.slots - m.funcs} input refs`);
  return m.base + (m.funcs + ref) * 4;
}

/**
 * Whether `func` (at `index` in Policy.funcs) opens with its memo check,
 * `ret = MemoGet own slot; Return ret` as the whole first block (every
 * rule's function, plan/rules.ts): a caller may then read the slot itself
 * and call only on a miss (emit.ts call), which is what the function would
 * do first anyway, without the call.
 */
export function memoisedAt(func: Func, index: number): boolean {
  const [get, ret] = func.blocks[0]?.stmts ?? [];
  return (
    func.blocks[0]?.stmts.length === 2 &&
    get?.type === "MemoGet" &&
    get.func === index &&
    get.target === func.ret &&
    ret?.type === "ReturnLocal" &&
    ret.source === func.ret
  );
}

/**
 * `() -> ()`: zeroes the region, 32 bytes (8 slots) per turn of the loop in
 * four 8-byte stores (a few dozen slots for a real policy: one store per slot
 * cost ~400 instructions per evaluation, 2% of the bench decision's plan).
 */
export function emitMemoReset(m: MemoLayout): EmittedFunction {
  const c = new Code();
  const P = 0;
  const end = m.base + memoRegionSize(m.slots);
  c.i32(m.base).set(P);
  const done = c.block();
  const next = c.loop();
  c.get(P).i32(end).geS().brIf(done);
  for (const offset of [0, 8, 16, 24]) c.get(P).i64(0).store64(offset);
  c.get(P).i32(32).add().set(P);
  c.br(next);
  c.end(next);
  c.end(done);
  return { params: 0, results: 0, body: encodeFuncBody([[1, ValType.i32]], c.finish()) };
}
