/**
 * The policy-dependent OPA ABI exports (see shared/design/opa-wasm-abi.md):
 *
 * - `dispatch(ep, input, data) -> result set`: internal; runs plan `ep`
 *   through a `br_table`, aborting with "invalid entrypoint id" otherwise.
 * - `eval(ctx) -> 0`: the ABI 1.0 context path.
 * - `opa_eval(reserved, ep, data, input, len, heap, fmt) -> addr`: the 1.2
 *   fast path.
 * - `portcullis_eval(ep, data, input, len, heap) -> code or addr`: the same
 *   with the input in the binary input encoding (../binary-input.ts) and a
 *   boolean or empty result set answered as a code (not OPA's ABI; its
 *   hosts ignore it).
 * - `entrypoints()` / `builtins()`: objects mapping names to ids.
 *
 * Everything policy-independent (contexts, parsing, dumping) is the runtime's
 * `rt_*` helpers; these bodies only glue them together.
 */
import type { TrailLayout } from "../trail";
import type { EmittedFunction } from "./emit";
import type { DataLayout } from "./layout";
import { Code } from "./wasm/code";
import { encodeFuncBody, ValType } from "./wasm/sections";

export interface AbiContext {
  rt(name: string): number;
  abort: number;
  layout: DataLayout;
  /** The function emptying the decision trail before an evaluation (emitTrailReset), when the policy records one. */
  trailReset?: number;
  /** The function zeroing the memo frame (memo.ts emitMemoReset): dispatch calls it before every plan. */
  memoReset: number;
}

function finish(params: number, extraLocals: number, code: Code): EmittedFunction {
  return { params, body: encodeFuncBody(extraLocals ? [[extraLocals, ValType.i32]] : [], code.finish()) };
}

/**
 * `(ep, input, data) -> rs`: plan `ep` (function index plans[ep]) or abort.
 * Every evaluation path (eval, opa_eval, portcullis_eval) runs its plan
 * through here, so this is where the memo frame is zeroed: no path can
 * start an evaluation with the rule values of the one before.
 */
export function emitDispatch(plans: number[], ctx: AbiContext): EmittedFunction {
  const c = new Code();
  const [EP, INPUT, DATA] = [0, 1, 2];
  c.call(ctx.memoReset);
  const invalid = c.block();
  // One block per plan, innermost first: br_table target i lands right after
  // block i closes, where plan i's call sits.
  const blocks = plans.map(() => c.block()).reverse();
  c.get(EP).brTable(blocks, invalid);
  for (let i = 0; i < plans.length; i++) {
    c.end(blocks[i]);
    c.get(INPUT).get(DATA).call(plans[i]).return();
  }
  c.end(invalid);
  c.i32(ctx.layout.message("invalid entrypoint id")).call(ctx.abort).unreachable();
  return finish(3, 0, c);
}

/** `eval(ctx) -> 0`: runs the context's entrypoint and stores its result set there. */
export function emitEval(dispatch: number, ctx: AbiContext): EmittedFunction {
  const c = new Code();
  const CTX = 0;
  c.i32(0).call(ctx.rt("rt_eval_begin"));
  if (ctx.trailReset !== undefined) c.call(ctx.trailReset);
  c.get(CTX);
  c.get(CTX).call(ctx.rt("rt_ctx_entrypoint"));
  c.get(CTX).call(ctx.rt("rt_ctx_input"));
  c.get(CTX).call(ctx.rt("rt_ctx_data"));
  c.call(dispatch).call(ctx.rt("rt_ctx_set_result"));
  c.i32(0);
  return finish(1, 0, c);
}

/** `opa_eval(reserved, ep, data, input_addr, input_len, heap, fmt) -> addr` of the dumped result set. */
export function emitOpaEval(dispatch: number, ctx: AbiContext): EmittedFunction {
  const c = new Code();
  const [RESERVED, EP, DATA, INPUT_ADDR, INPUT_LEN, HEAP, FMT] = [0, 1, 2, 3, 4, 5, 6];
  const INPUT = 7;
  c.get(RESERVED);
  const bad = c.if();
  c.i32(ctx.layout.message("opa_eval: reserved argument must be 0")).call(ctx.abort).unreachable();
  c.end(bad);
  // The heap top moves to `heap` first: the input text lies just below it.
  c.get(HEAP).call(ctx.rt("rt_eval_begin"));
  if (ctx.trailReset !== undefined) c.call(ctx.trailReset);
  c.get(INPUT_ADDR).get(INPUT_LEN).call(ctx.rt("rt_parse_input")).set(INPUT);
  c.get(EP).get(INPUT).get(DATA).call(dispatch);
  c.get(FMT).call(ctx.rt("rt_dump"));
  return finish(7, 1, c);
}

/**
 * `portcullis_eval(ep, data, input_addr, input_len, heap) -> code or addr`:
 * opa_eval for input in the binary input encoding, answering with
 * rt_result_code (0, 1, 2 for `[]`, false, true; else the JSON dump's address).
 */
export function emitBinaryEval(dispatch: number, ctx: AbiContext): EmittedFunction {
  const c = new Code();
  const [EP, DATA, INPUT_ADDR, INPUT_LEN, HEAP] = [0, 1, 2, 3, 4];
  c.get(HEAP).call(ctx.rt("rt_eval_begin"));
  if (ctx.trailReset !== undefined) c.call(ctx.trailReset);
  c.get(EP);
  c.get(INPUT_ADDR).get(INPUT_LEN).call(ctx.rt("rt_input_decode"));
  c.get(DATA).call(dispatch);
  c.call(ctx.rt("rt_result_code"));
  return finish(5, 0, c);
}

/** `() -> object`: names[i] -> i, for `entrypoints()` and `builtins()`. */
export function emitNameTable(names: string[], ctx: AbiContext): EmittedFunction {
  const c = new Code();
  const OBJ = 0;
  c.call(ctx.rt("rt_object_new")).set(OBJ);
  names.forEach((name, id) => {
    const { ptr, len } = ctx.layout.string(name);
    c.get(OBJ);
    c.i32(ptr).i32(len).call(ctx.rt("rt_string"));
    c.i32(id).call(ctx.rt("rt_number_int"));
    c.call(ctx.rt("rt_object_insert"));
  });
  c.get(OBJ);
  return finish(0, 1, c);
}

/**
 * `() -> ()`: empties the decision trail (../trail.ts) before an
 * evaluation: clears the seen flag of each listed body, then the count.
 * Proportional to the last trail's length, not to the number of bodies.
 */
export function emitTrailReset(t: TrailLayout): EmittedFunction {
  const c = new Code();
  const [I, N] = [0, 1];
  c.i32(t.head).load().set(N);
  const done = c.block();
  const next = c.loop();
  c.get(I).get(N).geS().brIf(done);
  c.get(I).i32(1).shl().load16u(t.ids).i32(0).store8(t.seen);
  c.get(I).i32(1).add().set(I);
  c.br(next);
  c.end(next);
  c.end(done);
  c.i32(t.head).i32(0).store();
  return { params: 0, results: 0, body: encodeFuncBody([[2, ValType.i32]], c.finish()) };
}

/** `() -> address` of the decision trail's region: a u32 count, then that many u16 body ids. */
export function emitTrailAddress(t: TrailLayout): EmittedFunction {
  const c = new Code();
  c.i32(t.head);
  return finish(0, 0, c);
}
