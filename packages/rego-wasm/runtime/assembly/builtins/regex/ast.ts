/**
 * The parsed form of a regular expression (Go's regexp/syntax.Regexp,
 * reduced to what the compiler needs) and Go's Simplify for counted
 * repetition, so that x{2,5} compiles exactly as Go compiles it.
 */

export const OP_NO_MATCH: i32 = 1;
export const OP_EMPTY: i32 = 2;
/** One code point in `rune` (case-insensitive literals arrive as classes). */
export const OP_LITERAL: i32 = 3;
/** Clean [lo, hi] pairs in `ranges`. */
export const OP_CLASS: i32 = 4;
export const OP_ANY_NOT_NL: i32 = 5;
export const OP_ANY: i32 = 6;
/** Zero-width assertions: `rune` holds the EMPTY_* bits. */
export const OP_ASSERT: i32 = 7;
export const OP_CAPTURE: i32 = 8;
export const OP_STAR: i32 = 9;
export const OP_PLUS: i32 = 10;
export const OP_QUEST: i32 = 11;
export const OP_REPEAT: i32 = 12;
export const OP_CONCAT: i32 = 13;
export const OP_ALT: i32 = 14;

// Empty-width conditions (Go's syntax.EmptyOp bits).
export const EMPTY_BEGIN_LINE: i32 = 1;
export const EMPTY_END_LINE: i32 = 2;
export const EMPTY_BEGIN_TEXT: i32 = 4;
export const EMPTY_END_TEXT: i32 = 8;
export const EMPTY_WORD_BOUNDARY: i32 = 16;
export const EMPTY_NO_WORD_BOUNDARY: i32 = 32;

export class Node {
  subs: Array<Node> = new Array<Node>();
  rune: i32 = 0;
  ranges: Array<i32> | null = null;
  min: i32 = 0;
  max: i32 = 0;
  nonGreedy: bool = false;
  /** Capture index (1-based) for OP_CAPTURE. */
  cap: i32 = 0;

  constructor(public op: i32) {}

  static of(op: i32, sub: Node): Node {
    const n = new Node(op);
    n.subs.push(sub);
    return n;
  }
}

/**
 * Go's simplify1: repeating the empty string is the empty string, and
 * x** = x* (likewise + and ?) when the greediness agrees.
 */
function simplify1(op: i32, nonGreedy: bool, sub: Node): Node {
  if (sub.op == OP_EMPTY) return sub;
  if (sub.op == op && sub.nonGreedy == nonGreedy) return sub;
  const n = Node.of(op, sub);
  n.nonGreedy = nonGreedy;
  return n;
}

/**
 * Rewrites counted repetition into concatenations of *, + and ? (Go's
 * Regexp.Simplify): x{4,} = xxxx+ (as xxx x+), x{2,5} = xx(x(x(x)?)?)?.
 * Other nodes are rebuilt only when a descendant changes.
 */
export function simplify(re: Node): Node {
  switch (re.op) {
    case OP_CAPTURE:
    case OP_CONCAT:
    case OP_ALT: {
      let changed = false;
      const subs = new Array<Node>();
      for (let i = 0; i < re.subs.length; i++) {
        const s = simplify(re.subs[i]);
        if (s !== re.subs[i]) changed = true;
        subs.push(s);
      }
      if (!changed) return re;
      const n = new Node(re.op);
      n.subs = subs;
      n.cap = re.cap;
      return n;
    }
    case OP_STAR:
    case OP_PLUS:
    case OP_QUEST: {
      const sub = simplify(re.subs[0]);
      return simplify1(re.op, re.nonGreedy, sub);
    }
    case OP_REPEAT: {
      if (re.min == 0 && re.max == 0) return new Node(OP_EMPTY);
      const sub = simplify(re.subs[0]);
      if (re.max == -1) {
        if (re.min == 0) return simplify1(OP_STAR, re.nonGreedy, sub);
        if (re.min == 1) return simplify1(OP_PLUS, re.nonGreedy, sub);
        const n = new Node(OP_CONCAT);
        for (let i = 0; i < re.min - 1; i++) n.subs.push(sub);
        n.subs.push(simplify1(OP_PLUS, re.nonGreedy, sub));
        return n;
      }
      if (re.min == 1 && re.max == 1) return sub;
      let prefix: Node | null = null;
      if (re.min > 0) {
        prefix = new Node(OP_CONCAT);
        for (let i = 0; i < re.min; i++) prefix.subs.push(sub);
      }
      if (re.max > re.min) {
        let suffix = simplify1(OP_QUEST, re.nonGreedy, sub);
        for (let i = re.min + 1; i < re.max; i++) {
          const c = new Node(OP_CONCAT);
          c.subs.push(sub);
          c.subs.push(suffix);
          suffix = simplify1(OP_QUEST, re.nonGreedy, c);
        }
        if (prefix === null) return suffix;
        prefix.subs.push(suffix);
      }
      if (prefix !== null) return prefix;
      return new Node(OP_NO_MATCH);
    }
  }
  return re;
}

/**
 * Go's repeatIsValid: nested counted repetitions may not multiply beyond
 * n (1000), so (a{500}){3} is rejected as "invalid repeat count".
 */
export function repeatIsValid(re: Node, n: i32): bool {
  if (re.op == OP_REPEAT) {
    let m = re.max;
    if (m == 0) return true;
    if (m < 0) m = re.min;
    if (m > n) return false;
    if (m > 0) n /= m;
  }
  for (let i = 0; i < re.subs.length; i++) if (!repeatIsValid(re.subs[i], n)) return false;
  return true;
}
