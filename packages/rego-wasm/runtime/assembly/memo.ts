/**
 * Memoisation of rule values within one evaluation (IR MemoGet/MemoInsert/
 * MemoPush/MemoPop). A frame maps a Func index to its value; `with` opens a
 * fresh frame so values computed under replaced input/data stay inside it.
 *
 * Frames live on the heap, so a heap rewind (opa_heap_ptr_set, rt_eval_begin)
 * must drop them: `resetMemo` forgets them and the next use starts over.
 *
 * An undefined rule value is memoised too (as MEMO_UNDEFINED), so a rule
 * that does not hold is evaluated once per evaluation, not at every
 * reference: rt_memo_get answers 0 for "not computed yet", MEMO_UNDEFINED
 * for "computed, undefined", else the value's address.
 */
import { resetRegexCache } from "./builtins/regex/cache";
import { arrayOfSlots } from "./value";

/** Innermost frame last; each frame is indexed by func id (0 = no value). */
let frames: Array<Array<usize>> | null = null;
/** The innermost frame (frames' last), kept at hand: every rule call reads it. */
let current: Array<usize> | null = null;

export function resetMemo(): void {
  frames = null;
  current = null;
}

/**
 * Forgets everything cached for one evaluation (rule values, compiled
 * regexes): called whenever the host rewinds the heap those caches live in.
 */
export function resetEvaluationCaches(): void {
  resetMemo();
  resetRegexCache();
}

/** Slots a new frame starts with: every rule of a typical policy without growing. */
const FRAME_SLOTS: i32 = 64;

/**
 * A frame of n zero slots, zeroed by plain stores: `new Array` and growing
 * by `length =` each run a memory.fill, which V8 makes a call out of Wasm,
 * and a frame is made for every evaluation.
 */
function newFrame(n: i32): Array<usize> {
  const frame = changetype<Array<usize>>(arrayOfSlots<usize>(n, n));
  const data = frame.dataStart;
  for (let p = data, end = data + (<usize>n << alignof<usize>()); p < end; p += 8) store<u64>(p, 0); // n is even: whole u64s
  return frame;
}

function stack(): Array<Array<usize>> {
  let f = frames;
  if (f === null) {
    f = new Array<Array<usize>>();
    f.push(newFrame(FRAME_SLOTS));
    frames = f;
  }
  return f;
}

function top(): Array<usize> {
  let t = current;
  if (t === null) {
    const f = stack();
    t = unchecked(f[f.length - 1]);
    current = t;
  }
  return t;
}

/** Marks a memoised undefined value: never a value address (values are 16-byte aligned, and 0 is undefined). */
const MEMO_UNDEFINED: usize = 1;

export function rt_memo_get(func: i32): usize {
  const t = top();
  return func >= 0 && func < t.length ? unchecked(t[func]) : 0;
}

/** Memoises value (0 = undefined) for func; rt_memo_get then answers it. */
export function rt_memo_insert(func: i32, value: usize): void {
  if (func < 0) return;
  let t = top();
  // Grow in one step (at least doubling, kept even), not one slot per
  // missing index: a policy's func ids run into the hundreds.
  if (func >= t.length) {
    const grown = newFrame((max(func + 1, t.length << 1) + 1) & ~1);
    for (let i = 0; i < t.length; i++) unchecked((grown[i] = t[i]));
    const f = stack();
    unchecked((f[f.length - 1] = grown));
    current = grown;
    t = grown;
  }
  unchecked((t[func] = value != 0 ? value : MEMO_UNDEFINED));
}

export function rt_memo_push(): void {
  const t = newFrame(FRAME_SLOTS);
  stack().push(t);
  current = t;
}

/** Drops the innermost frame; the outermost one is never dropped. */
export function rt_memo_pop(): void {
  const f = stack();
  if (f.length > 1) f.pop();
  else unchecked((f[0] = newFrame(FRAME_SLOTS)));
  current = unchecked(f[f.length - 1]);
}
