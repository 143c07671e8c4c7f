/**
 * The policy-independent part of OPA's Wasm ABI (docs: opa-wasm-abi.md §1),
 * checked against the loader in @open-policy-agent/opa-wasm. The
 * policy-dependent exports (eval, opa_eval, entrypoints, builtins) are
 * emitted by the linker; the eval-context calls are in ctx.ts.
 *
 * Memory: `opa_malloc` is the bump allocator; `opa_free` reclaims only the
 * most recent block (everything else comes back when the host rewinds the
 * heap with `opa_heap_ptr_set`). With no free lists there is nothing to
 * stash, so the ABI 1.3 stash/restore calls have nothing to do.
 */

import { Value, ObjV, T_ARRAY, T_OBJECT, asObj, asArr } from "./value";
import { parseBytes, parseHostJson, dumpJson, dumpRegoText } from "./json";
import { hostAbort } from "./host";
import { resetEvaluationCaches } from "./memo";

export const opa_wasm_abi_version: i32 = 1;
export const opa_wasm_abi_minor_version: i32 = 3;

export function opa_malloc(size: usize): usize {
  return __alloc(size);
}

export function opa_free(ptr: usize): void {
  if (!__rt_is_heap_block(ptr)) hostAbort("opa_free: invalid pointer");
  __free(ptr);
}

export function opa_json_parse(ptr: usize, len: usize): usize {
  return changetype<usize>(parseHostJson(ptr, len));
}

export function opa_value_parse(ptr: usize, len: usize): usize {
  return changetype<usize>(parseBytes(ptr, len, true));
}

export function opa_json_dump(v: usize): usize {
  if (v == 0) hostAbort("opa_json_dump: undefined value");
  return dumpJson(changetype<Value>(v));
}

export function opa_value_dump(v: usize): usize {
  if (v == 0) hostAbort("opa_value_dump: undefined value");
  return dumpRegoText(changetype<Value>(v));
}

export function opa_heap_ptr_get(): usize {
  return __rt_heap_top();
}

/** Rewinding frees everything above ptr, including memo tables: drop them. */
export function opa_heap_ptr_set(ptr: usize): void {
  __rt_set_heap_top(ptr);
  resetEvaluationCaches();
}

/** Values are reclaimed by heap rewinds; freeing one is a no-op. */
export function opa_value_free(v: usize): void {}

export function opa_heap_blocks_stash(): void {}
export function opa_heap_blocks_restore(): void {}
export function opa_heap_stash_clear(): void {}

/** End of the runtime's static data: the policy linker places its data above. */
export function rt_heap_base(): usize {
  return __heap_base;
}

const ERR_OK: i32 = 0;
const ERR_INVALID_TYPE: i32 = 2;
const ERR_INVALID_PATH: i32 = 3;

/**
 * base[path...] = value, creating missing intermediate objects. Checks the
 * whole path before changing anything, so an error leaves base unchanged.
 */
export function opa_value_add_path(base: usize, path: usize, value: usize): i32 {
  const b = changetype<Value>(base);
  if (base == 0 || value == 0 || b.kind != T_OBJECT) return ERR_INVALID_TYPE;
  if (path == 0 || changetype<Value>(path).kind != T_ARRAY) return ERR_INVALID_TYPE;
  const keys = asArr(changetype<Value>(path)).items;
  if (keys.length == 0) return ERR_INVALID_PATH;
  let curr = asObj(b);
  let i = 0;
  for (; i < keys.length - 1; i++) {
    const next = curr.get(unchecked(keys[i]));
    if (next === null) break;
    if (next.kind != T_OBJECT) return ERR_INVALID_TYPE;
    curr = asObj(next);
  }
  for (; i < keys.length - 1; i++) {
    const next = new ObjV();
    curr.set(unchecked(keys[i]), next);
    curr = next;
  }
  curr.set(unchecked(keys[keys.length - 1]), changetype<Value>(value));
  return ERR_OK;
}

/** Deletes base[path...]; a missing key counts as deleted. */
export function opa_value_remove_path(base: usize, path: usize): i32 {
  const b = changetype<Value>(base);
  if (base == 0 || b.kind != T_OBJECT) return ERR_INVALID_TYPE;
  if (path == 0 || changetype<Value>(path).kind != T_ARRAY) return ERR_INVALID_TYPE;
  const keys = asArr(changetype<Value>(path)).items;
  if (keys.length == 0) return ERR_INVALID_PATH;
  let curr = asObj(b);
  for (let i = 0; i < keys.length - 1; i++) {
    const next = curr.get(unchecked(keys[i]));
    if (next === null) return ERR_OK;
    if (next.kind != T_OBJECT) return ERR_INVALID_TYPE;
    curr = asObj(next);
  }
  curr.delete(unchecked(keys[keys.length - 1]));
  return ERR_OK;
}
