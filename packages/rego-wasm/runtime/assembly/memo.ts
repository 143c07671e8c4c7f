/**
 * Memoisation of rule values within one evaluation: the `with` side of it.
 *
 * The current memo frame is a region of static memory the compiler lays out
 * (compiler/emit/memo.ts: one u32 slot per rule function, 0 = not computed,
 * 1 = computed and undefined, else the value's address); the emitted code
 * reads and writes it with plain loads and stores and zeroes it before each
 * evaluation. `with` opens a fresh frame (IR MemoPush) so values computed
 * under a replaced input/data stay inside it: the outer frame is copied to
 * the heap and the region zeroed; MemoPop copies it back.
 *
 * The copies live on the heap, so a heap rewind (opa_heap_ptr_set,
 * rt_eval_begin) must forget them: `resetMemo`.
 */
import { resetRegexCache } from "./builtins/regex/cache";

/** Heap copies of the outer frames, innermost last. */
let saved: Array<usize> | null = null;

export function resetMemo(): void {
  saved = null;
}

/**
 * Forgets everything cached for one evaluation (saved memo frames, compiled
 * regexes): called whenever the host rewinds the heap those caches live in.
 */
export function resetEvaluationCaches(): void {
  resetMemo();
  resetRegexCache();
}

/** Entering a `with`: saves the frame in [region, region + bytes) and starts a fresh (zeroed) one. */
export function rt_memo_push(region: usize, bytes: usize): void {
  const copy = __alloc(bytes);
  memory.copy(copy, region, bytes);
  memory.fill(region, 0, bytes);
  let s = saved;
  if (s === null) {
    s = new Array<usize>();
    saved = s;
  }
  s.push(copy);
}

/** Leaving a `with`: the frame saved by the matching push is current again (a fresh one if there is none). */
export function rt_memo_pop(region: usize, bytes: usize): void {
  const s = saved;
  if (s === null || s.length == 0) {
    memory.fill(region, 0, bytes);
    return;
  }
  memory.copy(region, s.pop(), bytes);
}
