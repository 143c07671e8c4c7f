/**
 * Evaluation contexts and the per-evaluation helpers the linker's `eval` and
 * `opa_eval` exports are built from.
 *
 * A context (`opa_eval_ctx_new`) carries input, data, entrypoint id and,
 * after `eval`, the result set. The context path (ABI < 1.2) is
 *   ctx_new, set_input, set_data, set_entrypoint, eval(ctx), get_result;
 * the linker's `eval(ctx)` should start with rt_eval_begin(0) (fresh memo,
 * heap untouched: the host has just loaded input there). The fast path
 * `opa_eval` runs rt_eval_begin(heap), rt_parse_input, the plan, then
 * rt_dump(result, fmt).
 */

import { Value } from "./value";
import { parseBytes, dumpJson, dumpRegoText } from "./json";
import { hostAbort } from "./host";
import { resetEvaluationCaches } from "./memo";
import { evaluationBegins } from "./intern";

class EvalCtx {
  input: usize = 0;
  data: usize = 0;
  entrypoint: i32 = 0;
  result: usize = 0;
}

// @ts-ignore: decorator
@inline function ctxAt(ctx: usize): EvalCtx {
  return changetype<EvalCtx>(ctx);
}

export function opa_eval_ctx_new(): usize {
  return changetype<usize>(new EvalCtx());
}

export function opa_eval_ctx_set_input(ctx: usize, input: usize): void {
  ctxAt(ctx).input = input;
}

export function opa_eval_ctx_set_data(ctx: usize, data: usize): void {
  ctxAt(ctx).data = data;
}

export function opa_eval_ctx_set_entrypoint(ctx: usize, entrypoint: i32): void {
  ctxAt(ctx).entrypoint = entrypoint;
}

export function opa_eval_ctx_get_result(ctx: usize): usize {
  return ctxAt(ctx).result;
}

export function rt_ctx_input(ctx: usize): usize {
  return ctxAt(ctx).input;
}

export function rt_ctx_data(ctx: usize): usize {
  return ctxAt(ctx).data;
}

export function rt_ctx_entrypoint(ctx: usize): i32 {
  return ctxAt(ctx).entrypoint;
}

export function rt_ctx_set_result(ctx: usize, result: usize): void {
  ctxAt(ctx).result = result;
}

/** Starts an evaluation: moves the heap top to heap (when non-zero) and clears memoised values. */
export function rt_eval_begin(heap: usize): void {
  if (heap != 0) __rt_set_heap_top(heap);
  resetEvaluationCaches();
  evaluationBegins(); // later parses are inputs, not data (intern.ts)
}

/** Parses the input text of opa_eval as a Rego value; 0 for empty input; aborts on bad input. */
export function rt_parse_input(ptr: usize, len: usize): usize {
  if (len == 0) return 0;
  const v = parseBytes(ptr, len, true);
  if (v === null) hostAbort("invalid input: not a JSON or Rego value");
  return changetype<usize>(v);
}

/** Serialises a value: fmt 0 = JSON, 1 = Rego literal text. NUL-terminated UTF-8. */
export function rt_dump(v: usize, fmt: i32): usize {
  if (v == 0) hostAbort("rt_dump: undefined value");
  if (fmt == 1) return dumpRegoText(changetype<Value>(v));
  if (fmt != 0) hostAbort("invalid output format " + fmt.toString());
  return dumpJson(changetype<Value>(v));
}
