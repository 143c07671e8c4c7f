/**
 * Pike VM (Go's regexp/exec.go "machine"): simulates all threads of the
 * program in lock step over the input, one code point at a time, so a
 * search costs O(len(input) * len(program)) whatever the pattern: no
 * backtracking blow-up. Threads are kept in priority order and a match
 * cuts off all lower-priority threads, which yields Go's leftmost-first
 * matches and submatches.
 *
 * Input positions are UTF-16 offsets into the AssemblyScript string; a
 * surrogate pair is one code point of width 2, just as Go's byte offsets
 * step over a multi-byte UTF-8 sequence. The machine is allocated once per
 * compiled pattern and reused by every search (the runtime's bump heap only
 * grows within an evaluation, so per-search garbage would add up).
 */

import {
  Prog, I_MATCH, I_ALT, I_EMPTY, I_NOP, I_CAP, I_RUNE1, I_RUNE, I_ANY, I_ANY_NOT_NL,
} from "./prog";
import {
  EMPTY_BEGIN_LINE, EMPTY_END_LINE, EMPTY_BEGIN_TEXT, EMPTY_END_TEXT, EMPTY_WORD_BOUNDARY,
  EMPTY_NO_WORD_BOUNDARY,
} from "./ast";
import { classHas } from "./charclass";

class Thread {
  constructor(public pc: i32, public cap: StaticArray<i32>) {}
}

/**
 * Sparse set of pcs with their threads, in insertion (= priority) order.
 * `sparse` is never initialised (Briggs-Torczon sparse set): a stale or
 * garbage entry is harmless because membership is confirmed in `densePc`.
 */
class Queue {
  sparse: StaticArray<i32>;
  densePc: StaticArray<i32>;
  denseT: Array<Thread | null>;
  size: i32 = 0;

  constructor(n: i32) {
    this.sparse = new StaticArray<i32>(n);
    this.densePc = new StaticArray<i32>(n);
    this.denseT = new Array<Thread | null>(n);
  }

  has(pc: i32): bool {
    const j = unchecked(this.sparse[pc]);
    return <u32>j < <u32>this.size && unchecked(this.densePc[j]) == pc;
  }
}

/** Decodes the code point at pos; -1 at the end. Width via `lastWidth`. */
let lastWidth: i32 = 0;
function stepAt(s: string, pos: i32): i32 {
  if (pos >= s.length) {
    lastWidth = 0;
    return -1;
  }
  const c = s.charCodeAt(pos);
  if (c >= 0xd800 && c < 0xdc00 && pos + 1 < s.length) {
    const d = s.charCodeAt(pos + 1);
    if (d >= 0xdc00 && d < 0xe000) {
      lastWidth = 2;
      return 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
    }
  }
  lastWidth = 1;
  return c;
}

/** The code point ending just before pos; -1 at the start. */
function before(s: string, pos: i32): i32 {
  if (pos <= 0) return -1;
  const d = s.charCodeAt(pos - 1);
  if (d >= 0xdc00 && d < 0xe000 && pos >= 2) {
    const c = s.charCodeAt(pos - 2);
    if (c >= 0xd800 && c < 0xdc00) return 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
  }
  return d;
}

function isWordChar(c: i32): bool {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x5f;
}

/** Whether the empty-width conditions `op` hold between code points r1 and r2 (-1 = text edge). */
function emptyOk(op: i32, r1: i32, r2: i32): bool {
  if ((op & EMPTY_BEGIN_LINE) != 0 && r1 != 0x0a && r1 >= 0) return false;
  if ((op & EMPTY_BEGIN_TEXT) != 0 && r1 >= 0) return false;
  if ((op & EMPTY_END_LINE) != 0 && r2 != 0x0a && r2 >= 0) return false;
  if ((op & EMPTY_END_TEXT) != 0 && r2 >= 0) return false;
  if ((op & (EMPTY_WORD_BOUNDARY | EMPTY_NO_WORD_BOUNDARY)) != 0) {
    const boundary = isWordChar(r1) != isWordChar(r2);
    if ((op & EMPTY_WORD_BOUNDARY) != 0 && !boundary) return false;
    if ((op & EMPTY_NO_WORD_BOUNDARY) != 0 && boundary) return false;
  }
  return true;
}

export class Machine {
  q0: Queue;
  q1: Queue;
  pool: Array<Thread> = new Array<Thread>();
  /** Slots of the best match so far: 2 per group, group 0 = whole match. */
  matchcap: StaticArray<i32>;
  matched: bool = false;
  /** Slots tracked by the current search (0: match only, 2: bounds, all: submatches). */
  ncap: i32 = 0;
  // Explicit DFS stack for add(): pairs (pc, 0) or (-1 - slot, old value) to restore a capture.
  stackA: Array<i32> = new Array<i32>();
  stackB: Array<i32> = new Array<i32>();

  constructor(public prog: Prog) {
    const n = prog.length;
    this.q0 = new Queue(n);
    this.q1 = new Queue(n);
    this.matchcap = new StaticArray<i32>(2 * (prog.numCap + 1));
  }

  alloc(pc: i32): Thread {
    if (this.pool.length > 0) {
      const t = this.pool.pop();
      t.pc = pc;
      return t;
    }
    return new Thread(pc, new StaticArray<i32>(this.matchcap.length));
  }

  /**
   * Adds the thread for pc and everything reachable from it without
   * consuming input (Go's machine.add) to q, in priority order. Reuses t
   * (whose cap is `cap`) for the first thread it creates outside any
   * capture; returns whether t was used.
   */
  add(q: Queue, pc0: i32, pos: i32, cap: StaticArray<i32>, r1: i32, r2: i32, t: Thread | null): bool {
    const p = this.prog;
    const sa = this.stackA;
    const sb = this.stackB;
    sa.length = 0;
    sb.length = 0;
    sa.push(pc0);
    sb.push(0);
    let capDepth = 0;
    let used = false;
    while (sa.length > 0) {
      const a = sa.pop();
      const b = sb.pop();
      if (a < 0) {
        unchecked((cap[-1 - a] = b));
        capDepth--;
        continue;
      }
      const pc = a;
      if (pc == 0 || q.has(pc)) continue;
      const j = q.size++;
      unchecked((q.sparse[pc] = j));
      unchecked((q.densePc[j] = pc));
      unchecked((q.denseT[j] = null));
      const op = unchecked(p.op[pc]);
      if (op == I_ALT) {
        sa.push(unchecked(p.arg[pc]));
        sb.push(0);
        sa.push(unchecked(p.out[pc]));
        sb.push(0);
      } else if (op == I_EMPTY) {
        if (emptyOk(unchecked(p.arg[pc]), r1, r2)) {
          sa.push(unchecked(p.out[pc]));
          sb.push(0);
        }
      } else if (op == I_NOP) {
        sa.push(unchecked(p.out[pc]));
        sb.push(0);
      } else if (op == I_CAP) {
        const slot = unchecked(p.arg[pc]);
        if (slot < this.ncap) {
          sa.push(-1 - slot);
          sb.push(unchecked(cap[slot]));
          capDepth++;
          unchecked((cap[slot] = pos));
        }
        sa.push(unchecked(p.out[pc]));
        sb.push(0);
      } else if (op != 0) {
        // MATCH or a rune instruction: a thread waits here.
        let th: Thread;
        if (t !== null && !used && capDepth == 0) {
          th = t;
          th.pc = pc;
          used = true;
        } else {
          th = this.alloc(pc);
          for (let k = 0; k < this.ncap; k++) unchecked((th.cap[k] = cap[k]));
        }
        unchecked((q.denseT[j] = th));
      }
    }
    return used;
  }

  release(q: Queue, from: i32): void {
    for (let j = from; j < q.size; j++) {
      const t = unchecked(q.denseT[j]);
      if (t !== null) this.pool.push(t);
    }
    q.size = 0;
  }

  /**
   * Searches s from pos (Go's machine.match); the context before pos
   * counts for ^, \b and \B. With ncap > 0, matchcap holds the slots.
   */
  match(s: string, pos: i32, ncap: i32): bool {
    const p = this.prog;
    this.ncap = ncap;
    this.matched = false;
    const mc = this.matchcap;
    for (let k = 0; k < mc.length; k++) unchecked((mc[k] = -1));
    let runq = this.q0;
    let nextq = this.q1;
    runq.size = 0;
    nextq.size = 0;
    let r = stepAt(s, pos);
    let width = lastWidth;
    let r1 = -1;
    let width1 = 0;
    if (r != -1) {
      r1 = stepAt(s, pos + width);
      width1 = lastWidth;
    }
    const anchored = (p.startCond & EMPTY_BEGIN_TEXT) != 0;
    let prev = before(s, pos);
    const first = p.firstSet;
    for (;;) {
      if (runq.size == 0) {
        if (anchored && pos != 0) break;
        if (this.matched) break;
        if (first !== null && r >= 0 && !classHas(first, r)) {
          // No thread alive and no match can start here: skip ahead.
          do {
            pos += width;
            prev = r;
            r = r1;
            width = width1;
            if (r != -1) {
              r1 = stepAt(s, pos + width);
              width1 = lastWidth;
            }
          } while (r >= 0 && !classHas(first, r));
          if (r < 0) break;
        }
      }
      if (!this.matched && (pos == 0 || !anchored)) {
        if (ncap > 0) unchecked((mc[0] = pos));
        this.add(runq, p.start, pos, mc, prev, r, null);
      }
      this.stepQueue(runq, nextq, pos, pos + width, r, r1);
      if (width == 0) break;
      if (ncap == 0 && this.matched) break;
      pos += width;
      prev = r;
      r = r1;
      width = width1;
      if (r != -1) {
        r1 = stepAt(s, pos + width);
        width1 = lastWidth;
      }
      const tq = runq;
      runq = nextq;
      nextq = tq;
    }
    this.release(nextq, 0);
    this.release(runq, 0);
    return this.matched;
  }

  /** Advances every thread of runq over code point c into nextq (Go's machine.step). */
  stepQueue(runq: Queue, nextq: Queue, pos: i32, nextPos: i32, c: i32, next: i32): void {
    const p = this.prog;
    for (let j = 0; j < runq.size; j++) {
      const t = unchecked(runq.denseT[j]);
      if (t === null) continue;
      const pc = t.pc;
      const op = unchecked(p.op[pc]);
      let ok = false;
      if (op == I_MATCH) {
        if (this.ncap > 0) {
          unchecked((t.cap[1] = pos));
          for (let k = 0; k < this.ncap; k++) unchecked((this.matchcap[k] = t.cap[k]));
        }
        // Leftmost-first: everything after this thread has lower priority.
        this.pool.push(t);
        this.release(runq, j + 1);
        this.matched = true;
        return;
      } else if (op == I_RUNE1) ok = c == unchecked(p.arg[pc]);
      else if (op == I_RUNE) ok = c >= 0 && classHas(unchecked(p.classes[pc])!, c);
      else if (op == I_ANY) ok = c >= 0;
      else if (op == I_ANY_NOT_NL) ok = c >= 0 && c != 0x0a;
      let keep = false;
      if (ok) keep = this.add(nextq, unchecked(p.out[pc]), nextPos, t.cap, c, next, t);
      if (!keep) this.pool.push(t);
    }
    runq.size = 0;
  }
}
