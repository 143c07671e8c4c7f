/**
 * Memoisation of rule values within one evaluation (IR MemoGet/MemoInsert/
 * MemoPush/MemoPop). A frame maps a Func index to its value; `with` opens a
 * fresh frame so values computed under replaced input/data stay inside it.
 *
 * Frames live on the heap, so a heap rewind (opa_heap_ptr_set, rt_eval_begin)
 * must drop them: `resetMemo` forgets them and the next use starts over.
 */
import { resetRegexCache } from "./builtins/regex/cache";

/** Innermost frame last; each frame is indexed by func id (0 = no value). */
let frames: Array<Array<usize>> | null = null;

export function resetMemo(): void {
  frames = null;
}

/**
 * Forgets everything cached for one evaluation (rule values, compiled
 * regexes): called whenever the host rewinds the heap those caches live in.
 */
export function resetEvaluationCaches(): void {
  resetMemo();
  resetRegexCache();
}

function stack(): Array<Array<usize>> {
  let f = frames;
  if (f === null) {
    f = new Array<Array<usize>>();
    f.push(new Array<usize>());
    frames = f;
  }
  return f;
}

function top(): Array<usize> {
  const f = stack();
  return unchecked(f[f.length - 1]);
}

export function rt_memo_get(func: i32): usize {
  const t = top();
  return func >= 0 && func < t.length ? unchecked(t[func]) : 0;
}

export function rt_memo_insert(func: i32, value: usize): void {
  if (func < 0) return;
  const t = top();
  while (t.length <= func) t.push(0);
  unchecked((t[func] = value));
}

export function rt_memo_push(): void {
  stack().push(new Array<usize>());
}

/** Drops the innermost frame; the outermost one is never dropped. */
export function rt_memo_pop(): void {
  const f = stack();
  if (f.length > 1) f.pop();
  else unchecked((f[0] = new Array<usize>()));
}
