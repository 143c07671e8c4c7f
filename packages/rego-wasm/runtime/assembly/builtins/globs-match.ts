/**
 * regex.globs_match(glob1, glob2) (OPA's topdown/regex.go over the library
 * github.com/yashtewari/glob-intersection v0.2.0, gintersect.NonEmpty):
 * whether the two "regex-like globs" have a string in common.
 *
 * Grammar, over code points:
 *   c        a literal character (anything not special below)
 *   .        any one character
 *   [...]    one character of a class: characters and ranges `a-z`; `]`
 *            closes it, `-` makes a range, everything else (`[`, `.`, `*`)
 *            is literal inside
 *   \c       the character c taken literally (in and outside classes)
 *   t* t+    a token repeated (zero or more / one or more times); a flag
 *            must follow a token, so `*a`, `a**` and `a*+` are errors
 * Other errors: a `]` with no `[`, a `[` never closed, a trailing `\`, a
 * range with no start (`[-a]`, `[a-c-e]`), no end (`[a-`, `[a-]`), a
 * special end (`[a--]`) or out of order (`[z-a]`). OPA reports them as
 * builtin errors; here, as for every builtin error (non-strict mode), the
 * call is undefined.
 *
 * The answer is the library's, not the exact language intersection: the
 * library simplifies each glob (consecutive flagged equal tokens merge,
 * `+` winning: `a*a+` -> `a+`, and also `a+a+` -> `a+`), trims the
 * unflagged prefix and suffix both globs share, then walks the two token
 * lists, letting a starred token absorb tokens of the other glob until the
 * token after the star matches, without backtracking into other
 * alternatives. Its quirks are kept on purpose (OPA gives these results):
 * the empty glob intersects only the empty glob (`""` vs `a*` is false),
 * `.` matches even an empty class `[]`, and a flagged token of the other
 * glob is absorbed like one character.
 *
 * The walk is exponential in the worst case in the library; the results of
 * its steps are memoised here per pair of positions, which changes the
 * cost, not the answer.
 */

import { Value, T_STRING, asStr, boolV } from "../value";

const TK_CHAR: u8 = 0;
const TK_DOT: u8 = 1;
const TK_SET: u8 = 2;

const FLAG_NONE: u8 = 0;
const FLAG_PLUS: u8 = 1;
const FLAG_STAR: u8 = 2;

class GlobToken {
  flag: u8 = FLAG_NONE;
  /** The character of a TK_CHAR token. */
  ch: i32 = 0;
  /** A TK_SET token's characters: sorted, disjoint, non-adjacent [lo, hi] pairs. */
  ranges: Array<i32> = new Array<i32>();

  constructor(public kind: u8) {}
}

// ------------------------------------------------------------------ lexing

/** The glob's code points, a lone surrogate read as U+FFFD (as Go's []rune sees it). */
function codePoints(s: string): Array<i32> {
  const out = new Array<i32>();
  for (let i = 0; i < s.length; ) {
    let c = s.codePointAt(i);
    i += c > 0xffff ? 2 : 1;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    out.push(c);
  }
  return out;
}

const BACKSLASH: i32 = 0x5c;

/** Reads one (possibly escaped) character at `pos`; the state says where the next one starts. */
class Lexer {
  pos: i32 = 0;
  /** The character just read, and whether it was written `\c`. */
  ch: i32 = 0;
  escaped: bool = false;

  constructor(public src: Array<i32>) {}

  atEnd(): bool {
    return this.pos >= this.src.length;
  }

  /** Reads the next character; false on a trailing `\` (an error in every context). */
  next(): bool {
    const c = this.src[this.pos];
    if (c == BACKSLASH) {
      if (this.pos + 1 >= this.src.length) return false;
      this.ch = this.src[this.pos + 1];
      this.escaped = true;
      this.pos += 2;
    } else {
      this.ch = c;
      this.escaped = false;
      this.pos += 1;
    }
    return true;
  }
}

function isFlag(c: i32): bool {
  return c == 0x2a || c == 0x2b; // * +
}

/** The tokens of a glob, or null if it does not parse. */
function tokenize(glob: string): Array<GlobToken> | null {
  const lx = new Lexer(codePoints(glob));
  const tokens = new Array<GlobToken>();
  while (!lx.atEnd()) {
    if (!lx.next()) return null;
    let t: GlobToken;
    if (lx.escaped) {
      t = new GlobToken(TK_CHAR);
      t.ch = lx.ch;
    } else if (lx.ch == 0x2e) {
      t = new GlobToken(TK_DOT);
    } else if (lx.ch == 0x5b) {
      const set = readSet(lx);
      if (set === null) return null;
      t = set;
    } else if (lx.ch == 0x5d || isFlag(lx.ch)) {
      return null; // `]` without `[`, or a flag with no token before it
    } else {
      t = new GlobToken(TK_CHAR);
      t.ch = lx.ch;
    }
    // An unescaped `*` or `+` right after the token is its flag.
    if (!lx.atEnd()) {
      const at = lx.pos;
      if (!lx.next()) return null;
      if (!lx.escaped && isFlag(lx.ch)) t.flag = lx.ch == 0x2a ? FLAG_STAR : FLAG_PLUS;
      else lx.pos = at;
    }
    tokens.push(t);
  }
  return tokens;
}

/** The class after a `[` up to its `]`, or null if malformed. */
function readSet(lx: Lexer): GlobToken | null {
  const pairs = new Array<i32>();
  let prev: i32 = 0;
  let hasPrev = false;
  while (!lx.atEnd()) {
    if (!lx.next()) return null;
    if (!lx.escaped && lx.ch == 0x5d) return setToken(pairs);
    if (!lx.escaped && lx.ch == 0x2d) {
      // `-` needs a single character before it and one after it that is
      // not `]` or `-` (unless escaped), and more input after that.
      if (!hasPrev || lx.pos >= lx.src.length - 1) return null;
      if (!lx.next()) return null;
      if (!lx.escaped && (lx.ch == 0x5d || lx.ch == 0x2d)) return null;
      if (lx.ch < prev) return null;
      pairs.push(prev);
      pairs.push(lx.ch);
      hasPrev = false;
    } else {
      pairs.push(lx.ch);
      pairs.push(lx.ch);
      prev = lx.ch;
      hasPrev = true;
    }
  }
  return null; // `[` without `]`
}

/** A TK_SET token over the [lo, hi] pairs, normalised so equal classes compare equal. */
function setToken(pairs: Array<i32>): GlobToken {
  const n = pairs.length >> 1;
  const keys = new Array<i64>(n);
  for (let i = 0; i < n; i++) keys[i] = (<i64>pairs[2 * i] << 32) | <i64>pairs[2 * i + 1];
  keys.sort();
  const t = new GlobToken(TK_SET);
  const r = t.ranges;
  for (let i = 0; i < n; i++) {
    const lo = <i32>(keys[i] >> 32);
    const hi = <i32>(keys[i] & 0xffffffff);
    const last = r.length - 1;
    if (last > 0 && lo <= r[last] + 1) {
      if (hi > r[last]) r[last] = hi;
    } else {
      r.push(lo);
      r.push(hi);
    }
  }
  return t;
}

/**
 * The library's simplification: a flagged token right after a flagged token
 * with the same content merges into it, with `+` if either has `+`.
 */
function simplify(tokens: Array<GlobToken>): Array<GlobToken> {
  const out = new Array<GlobToken>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (out.length > 0) {
      const last = out[out.length - 1];
      if (t.flag != FLAG_NONE && last.flag != FLAG_NONE && sameContent(t, last)) {
        if (t.flag == FLAG_PLUS) last.flag = FLAG_PLUS;
        continue;
      }
    }
    out.push(t);
  }
  return out;
}

function sameContent(a: GlobToken, b: GlobToken): bool {
  if (a.kind != b.kind) return false;
  if (a.kind == TK_CHAR) return a.ch == b.ch;
  if (a.kind == TK_DOT) return true;
  const x = a.ranges;
  const y = b.ranges;
  if (x.length != y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] != y[i]) return false;
  return true;
}

// ---------------------------------------------------------------- matching

function setHas(s: GlobToken, c: i32): bool {
  const r = s.ranges;
  for (let i = 0; i < r.length; i += 2) {
    if (c < r[i]) return false;
    if (c <= r[i + 1]) return true;
  }
  return false;
}

/**
 * Whether two tokens (flags ignored) can stand for the same character, as
 * the library's Match: a dot matches every token, an empty class included.
 */
function tokensMatch(a: GlobToken, b: GlobToken): bool {
  if (a.kind == TK_DOT || b.kind == TK_DOT) return true;
  if (a.kind == TK_CHAR) return b.kind == TK_CHAR ? a.ch == b.ch : setHas(b, a.ch);
  if (b.kind == TK_CHAR) return setHas(a, b.ch);
  const x = a.ranges;
  const y = b.ranges;
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i + 1] < y[j]) i += 2;
    else if (y[j + 1] < x[i]) j += 2;
    else return true;
  }
  return false;
}

// A step of the walk, packed in an i64: kind (2 bits) | role (1 bit) | i (30 bits) | j (30 bits).
const K_NORMAL: i64 = 0;
const K_STAR: i64 = 1;
/** A step's answer known without another step. */
const STEP_FALSE: i64 = -1;
const STEP_TRUE: i64 = -2;
/** Steps per (kind, role) up to which answers may move to a table (4 bytes per cell: 64 MiB). */
const MAX_TABLE_CELLS: i64 = 16 << 20;

// @ts-ignore: decorator
@inline function stepKey(kind: i64, xIsA: bool, i: i32, j: i32): i64 {
  return (kind << 61) | ((xIsA ? <i64>1 : <i64>0) << 60) | (<i64>i << 30) | <i64>j;
}

/**
 * The library's walk over two globs A and B. Every step looks at suffixes
 * A[i:] and B[j:], in either role (`xIsA`: A is the step's first glob x,
 * B the second y). Two kinds of step, each the OR of two alternatives, an
 * alternative being a constant or another step:
 *
 *   normal(x[i:], y[j:])  (intersectNormal) pairs unflagged tokens until a
 *     flag: false on a mismatch, at the end whether both are used up; at a
 *     flagged token (x's first, else y's with the roles swapped), a star is
 *     star(...) and a plus token absorbs the other's token when they match:
 *     star(x[i:], y[j+1:]) || (y[j] flagged && normal(x[i+1:], y[j:])).
 *   star(x[i:], y[j:])  (intersectStar, x[i] starred) with y used up is
 *     whether the star ends x; else
 *     (y[j] matches x[i+1] && normal(x[i+1:], y[j:]))
 *       || (y[j] matches x[i] && star(x[i:], y[j+1:])).
 *
 * Every step's answer is memoised per (kind, role, i, j), so the walk is
 * O(|A| * |B|) steps, and it runs on an explicit stack: the nesting grows
 * with the globs' lengths and would overflow the Wasm stack by recursion.
 */
class Intersection {
  /**
   * Answers per step: a map of the visited steps, moved to a table (a byte
   * per step: 0 unknown, 1 false, 2 true) once the map would take about as
   * much memory, so a walk that visits few steps allocates no table.
   */
  table: Uint8Array | null = null;
  memo: Map<i64, bool> = new Map<i64, bool>();
  /** Steps per (kind, role): (|A| + 1) * (|B| + 1). */
  cells: i64;

  constructor(public a: Array<GlobToken>, public b: Array<GlobToken>) {
    this.cells = <i64>(a.length + 1) * <i64>(b.length + 1);
  }

  /** The step's slot in the table: (kind, role) block, then i's row of j's. */
  slot(key: i64): i32 {
    const xIsA = ((key >> 60) & 1) == 1;
    const i = (key >> 30) & 0x3fffffff;
    const j = key & 0x3fffffff;
    const width = <i64>(xIsA ? this.b.length : this.a.length) + 1;
    return <i32>((key >> 60) * this.cells + i * width + j);
  }

  /** The memoised answer of a step: 0 unknown, 1 false, 2 true. */
  known(key: i64): i32 {
    const t = this.table;
    if (t !== null) return t[this.slot(key)];
    return this.memo.has(key) ? (this.memo.get(key) ? 2 : 1) : 0;
  }

  remember(key: i64, answer: bool): void {
    const t = this.table;
    if (t !== null) {
      t[this.slot(key)] = answer ? 2 : 1;
      return;
    }
    const memo = this.memo;
    memo.set(key, answer);
    // A map entry costs some 16 bytes, and tens with the buffers its growth
    // leaves behind (nothing is freed during an evaluation); the table 4 per (i, j).
    if (<i64>memo.size * 64 < this.cells * 4 || this.cells > MAX_TABLE_CELLS) return;
    const table = new Uint8Array(<i32>(this.cells * 4));
    const keys = memo.keys();
    for (let k = 0; k < keys.length; k++) table[this.slot(keys[k])] = memo.get(keys[k]) ? 2 : 1;
    this.table = table;
    this.memo.clear();
  }

  glob(isA: bool): Array<GlobToken> {
    return isA ? this.a : this.b;
  }

  /** Alternative `alt` (0 or 1) of the step `key`: STEP_FALSE, STEP_TRUE or a step key. */
  alternative(key: i64, alt: i32): i64 {
    let xIsA = ((key >> 60) & 1) == 1;
    let i = <i32>((key >> 30) & 0x3fffffff);
    let j = <i32>(key & 0x3fffffff);
    let x = this.glob(xIsA);
    let y = this.glob(!xIsA);
    if ((key >> 61) == K_STAR) {
      const hasNext = i + 1 < x.length;
      if (j == y.length) return alt == 0 && !hasNext ? STEP_TRUE : STEP_FALSE;
      if (alt == 0) return hasNext && tokensMatch(y[j], x[i + 1]) ? stepKey(K_NORMAL, xIsA, i + 1, j) : STEP_FALSE;
      return tokensMatch(y[j], x[i]) ? stepKey(K_STAR, xIsA, i, j + 1) : STEP_FALSE;
    }
    while (i < x.length && j < y.length && x[i].flag == FLAG_NONE && y[j].flag == FLAG_NONE) {
      if (!tokensMatch(x[i], y[j])) return STEP_FALSE;
      i++;
      j++;
    }
    if (i == x.length || j == y.length) return alt == 0 && i == x.length && j == y.length ? STEP_TRUE : STEP_FALSE;
    // The first glob's flagged token leads; else the second's, roles swapped.
    if (x[i].flag == FLAG_NONE) {
      xIsA = !xIsA;
      const k = i;
      i = j;
      j = k;
      x = this.glob(xIsA);
      y = this.glob(!xIsA);
    }
    if (x[i].flag == FLAG_STAR) return alt == 0 ? stepKey(K_STAR, xIsA, i, j) : STEP_FALSE;
    if (!tokensMatch(x[i], y[j])) return STEP_FALSE;
    // Either x[i] absorbs y[j] and then behaves as a star...
    if (alt == 0) return stepKey(K_STAR, xIsA, i, j + 1);
    // ...or a flagged y[j] absorbs x[i]'s one required character.
    return y[j].flag != FLAG_NONE ? stepKey(K_NORMAL, xIsA, i + 1, j) : STEP_FALSE;
  }

  /** The answer of step `root`, depth first with an explicit stack of pending steps. */
  run(root: i64): bool {
    const steps = new Array<i64>();
    // Per pending step: the alternative being waited on (0 or 1), -1 before the first.
    const waiting = new Array<i32>();
    steps.push(root);
    waiting.push(-1);
    let last = false; // the answer of the step finished last
    while (steps.length > 0) {
      const top = steps.length - 1;
      const key = steps[top];
      const w = waiting[top];
      let answer = w >= 0 && last;
      let pushed = false;
      if (!answer && w < 1) {
        for (let alt = w + 1; alt < 2; alt++) {
          const c = this.alternative(key, alt);
          if (c == STEP_FALSE) continue;
          const k = c == STEP_TRUE ? 2 : this.known(c);
          if (k == 2) {
            answer = true;
            break;
          }
          if (k == 1) continue;
          waiting[top] = alt;
          steps.push(c);
          waiting.push(-1);
          pushed = true;
          break;
        }
      }
      if (pushed) continue;
      this.remember(key, answer);
      last = answer;
      steps.pop();
      waiting.pop();
    }
    return last;
  }
}

/**
 * The library's trimming before the walk: the unflagged prefix and suffix
 * the globs share are dropped (false if they disagree there), but one token
 * of each is kept so no glob becomes empty by trimming.
 */
function intersects(g1: Array<GlobToken>, g2: Array<GlobToken>): bool {
  let l = 0;
  while (l < g1.length && l < g2.length && g1[l].flag == FLAG_NONE && g2[l].flag == FLAG_NONE) {
    if (!tokensMatch(g1[l], g2[l])) return false;
    l++;
  }
  if (l > 0) l--;
  let r1 = g1.length - 1;
  let r2 = g2.length - 1;
  while (r1 >= l && r2 >= l && g1[r1].flag == FLAG_NONE && g2[r2].flag == FLAG_NONE) {
    if (!tokensMatch(g1[r1], g2[r2])) return false;
    r1--;
    r2--;
  }
  if (r1 < g1.length - 1) {
    r1++;
    r2++;
  }
  return new Intersection(g1.slice(l, r1 + 1), g2.slice(l, r2 + 1)).run(stepKey(K_NORMAL, true, 0, 0));
}

/** regex.globs_match(glob1, glob2): true or false; undefined for non-strings and malformed globs. */
export function bi_regex_globs_match(glob1: Value | null, glob2: Value | null): Value | null {
  if (glob1 === null || glob1.kind != T_STRING || glob2 === null || glob2.kind != T_STRING) return null;
  const t1 = tokenize(asStr(glob1).value);
  if (t1 === null) return null;
  const t2 = tokenize(asStr(glob2).value);
  if (t2 === null) return null;
  return boolV(intersects(simplify(t1), simplify(t2)));
}
