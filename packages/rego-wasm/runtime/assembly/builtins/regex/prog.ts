/**
 * Compiles a parsed regex into a program for the Pike VM (vm.ts), the way
 * Go's regexp/syntax compiles: Thompson fragments with patch lists, Alt
 * instructions whose `out` branch has priority, and x* compiled as (x+)?
 * when x can match the empty string (golang.org/issue/46123), so that
 * thread priorities - hence leftmost-first matches and captures - are Go's.
 */

import {
  Node, OP_NO_MATCH, OP_EMPTY, OP_LITERAL, OP_CLASS, OP_ANY_NOT_NL, OP_ANY, OP_ASSERT, OP_CAPTURE,
  OP_STAR, OP_PLUS, OP_QUEST, OP_CONCAT, OP_ALT, EMPTY_BEGIN_TEXT, simplify,
} from "./ast";
import { cleanClass } from "./charclass";

export const I_FAIL: i32 = 0;
export const I_MATCH: i32 = 1;
/** out has priority over arg. */
export const I_ALT: i32 = 2;
/** arg: EMPTY_* bits that must hold. */
export const I_EMPTY: i32 = 3;
export const I_NOP: i32 = 4;
/** arg: capture slot (2*group, 2*group+1). */
export const I_CAP: i32 = 5;
/** arg: the code point. */
export const I_RUNE1: i32 = 6;
/** classes[pc]: clean ranges. */
export const I_RUNE: i32 = 7;
export const I_ANY: i32 = 8;
export const I_ANY_NOT_NL: i32 = 9;

/**
 * Beyond this many instructions a pattern is rejected ("expression too
 * large"). Go's limit is higher (about 3 million); Go's 1000-fold bound on
 * nested counts keeps real patterns far below either.
 */
const MAX_INSTS: i32 = 200000;

export class Prog {
  op: Array<i32> = new Array<i32>();
  out: Array<i32> = new Array<i32>();
  arg: Array<i32> = new Array<i32>();
  classes: Array<StaticArray<i32> | null> = new Array<StaticArray<i32> | null>();
  start: i32 = 0;
  /** Capture groups, not counting the whole match. */
  numCap: i32 = 0;
  /** EMPTY_* bits that must hold where any match starts (Go's StartCond). */
  startCond: i32 = 0;
  /**
   * Code points a match can start with, when every match consumes at least
   * one (null otherwise): the VM skips positions whose character is not in
   * it, instead of starting a thread there.
   */
  firstSet: StaticArray<i32> | null = null;
  tooLarge: bool = false;

  get length(): i32 {
    return this.op.length;
  }

  inst(op: i32): i32 {
    if (this.op.length >= MAX_INSTS) this.tooLarge = true;
    this.op.push(op);
    this.out.push(0);
    this.arg.push(0);
    this.classes.push(null);
    return this.op.length - 1;
  }

  /** Points every hole of patch list l at target. A hole is pc<<1 (out) or pc<<1|1 (arg). */
  patch(l: i32, target: i32): void {
    while (l != 0) {
      const pc = l >>> 1;
      if ((l & 1) == 0) {
        l = this.out[pc];
        this.out[pc] = target;
      } else {
        l = this.arg[pc];
        this.arg[pc] = target;
      }
    }
  }

  append(l1: i32, l2: i32): i32 {
    if (l1 == 0) return l2;
    if (l2 == 0) return l1;
    let last = l1;
    for (;;) {
      const pc = last >>> 1;
      const next = (last & 1) == 0 ? this.out[pc] : this.arg[pc];
      if (next == 0) break;
      last = next;
    }
    const pc = last >>> 1;
    if ((last & 1) == 0) this.out[pc] = l2;
    else this.arg[pc] = l2;
    return l1;
  }
}

/** A compiled piece: entry pc (0 = cannot match), its dangling exits, and whether it matches "". */
class Frag {
  constructor(public i: i32, public out: i32, public nullable: bool) {}
}

class Compiler {
  p: Prog = new Prog();

  constructor() {
    this.p.inst(I_FAIL); // pc 0: the null target
  }

  simple(op: i32, arg: i32, nullable: bool): Frag {
    const pc = this.p.inst(op);
    this.p.arg[pc] = arg;
    return new Frag(pc, pc << 1, nullable);
  }

  cat(f1: Frag, f2: Frag): Frag {
    if (f1.i == 0 || f2.i == 0) return new Frag(0, 0, false);
    this.p.patch(f1.out, f2.i);
    return new Frag(f1.i, f2.out, f1.nullable && f2.nullable);
  }

  alt(f1: Frag, f2: Frag): Frag {
    if (f1.i == 0) return f2;
    if (f2.i == 0) return f1;
    const pc = this.p.inst(I_ALT);
    this.p.out[pc] = f1.i;
    this.p.arg[pc] = f2.i;
    return new Frag(pc, this.p.append(f1.out, f2.out), f1.nullable || f2.nullable);
  }

  quest(f1: Frag, nonGreedy: bool): Frag {
    const pc = this.p.inst(I_ALT);
    let out = 0;
    if (nonGreedy) {
      this.p.arg[pc] = f1.i;
      out = pc << 1;
    } else {
      this.p.out[pc] = f1.i;
      out = (pc << 1) | 1;
    }
    return new Frag(pc, this.p.append(out, f1.out), true);
  }

  /** The loop of x+ and x*: an Alt back to x's entry. */
  loop(f1: Frag, nonGreedy: bool): Frag {
    const pc = this.p.inst(I_ALT);
    let out = 0;
    if (nonGreedy) {
      this.p.arg[pc] = f1.i;
      out = pc << 1;
    } else {
      this.p.out[pc] = f1.i;
      out = (pc << 1) | 1;
    }
    this.p.patch(f1.out, pc);
    return new Frag(pc, out, f1.nullable);
  }

  star(f1: Frag, nonGreedy: bool): Frag {
    if (f1.nullable) return this.quest(this.plus(f1, nonGreedy), nonGreedy);
    return this.loop(f1, nonGreedy);
  }

  plus(f1: Frag, nonGreedy: bool): Frag {
    return new Frag(f1.i, this.loop(f1, nonGreedy).out, f1.nullable);
  }

  compile(re: Node): Frag {
    switch (re.op) {
      case OP_NO_MATCH:
        return new Frag(0, 0, false);
      case OP_EMPTY:
        return this.simple(I_NOP, 0, true);
      case OP_LITERAL:
        return this.simple(I_RUNE1, re.rune, false);
      case OP_CLASS: {
        const f = this.simple(I_RUNE, 0, false);
        this.p.classes[f.i] = StaticArray.fromArray<i32>(re.ranges!);
        return f;
      }
      case OP_ANY_NOT_NL:
        return this.simple(I_ANY_NOT_NL, 0, false);
      case OP_ANY:
        return this.simple(I_ANY, 0, false);
      case OP_ASSERT:
        return this.simple(I_EMPTY, re.rune, true);
      case OP_CAPTURE: {
        const bra = this.simple(I_CAP, re.cap << 1, true);
        const sub = this.compile(re.subs[0]);
        const ket = this.simple(I_CAP, (re.cap << 1) | 1, true);
        return this.cat(this.cat(bra, sub), ket);
      }
      case OP_STAR:
        return this.star(this.compile(re.subs[0]), re.nonGreedy);
      case OP_PLUS:
        return this.plus(this.compile(re.subs[0]), re.nonGreedy);
      case OP_QUEST:
        return this.quest(this.compile(re.subs[0]), re.nonGreedy);
      case OP_CONCAT: {
        let f = this.compile(re.subs[0]);
        for (let i = 1; i < re.subs.length; i++) f = this.cat(f, this.compile(re.subs[i]));
        return f;
      }
      case OP_ALT: {
        let f = new Frag(0, 0, false);
        for (let i = 0; i < re.subs.length; i++) f = this.alt(f, this.compile(re.subs[i]));
        return f;
      }
    }
    return new Frag(0, 0, false);
  }
}

/** Compiles a parsed pattern; null when the program would be too large. */
export function compileProg(root: Node, numCap: i32): Prog | null {
  const c = new Compiler();
  const f = c.compile(simplify(root));
  const m = c.p.inst(I_MATCH);
  c.p.patch(f.out, m);
  c.p.start = f.i;
  c.p.numCap = numCap;
  if (c.p.tooLarge) return null;
  c.p.startCond = startCond(c.p);
  c.p.firstSet = firstSet(c.p);
  return c.p;
}

/**
 * The code points that can start a match: the rune instructions reachable
 * from the start without consuming input (assertions are passed through,
 * which only widens the set). Null when a match may be empty or may start
 * with any character.
 */
function firstSet(p: Prog): StaticArray<i32> | null {
  const ranges = new Array<i32>();
  const seen = new StaticArray<bool>(p.length);
  for (let i = 0; i < p.length; i++) seen[i] = false;
  const stack = new Array<i32>();
  stack.push(p.start);
  while (stack.length > 0) {
    const pc = stack.pop();
    if (pc == 0 || seen[pc]) continue;
    seen[pc] = true;
    const op = p.op[pc];
    if (op == I_ALT) {
      stack.push(p.out[pc]);
      stack.push(p.arg[pc]);
    } else if (op == I_NOP || op == I_CAP || op == I_EMPTY) stack.push(p.out[pc]);
    else if (op == I_RUNE1) {
      ranges.push(p.arg[pc]);
      ranges.push(p.arg[pc]);
    } else if (op == I_RUNE) {
      const cls = p.classes[pc]!;
      for (let k = 0; k < cls.length; k++) ranges.push(cls[k]);
    } else return null; // MATCH (empty match) or any character
  }
  if (ranges.length == 0) return null;
  return StaticArray.fromArray<i32>(cleanClass(ranges));
}

/** Empty-width conditions every match must satisfy at its start (Go's Prog.StartCond). */
function startCond(p: Prog): i32 {
  let flag = 0;
  let pc = p.start;
  while (pc != 0) {
    const op = p.op[pc];
    if (op == I_EMPTY) flag |= p.arg[pc];
    else if (op != I_CAP && op != I_NOP) break;
    pc = p.out[pc];
  }
  return flag & EMPTY_BEGIN_TEXT;
}
