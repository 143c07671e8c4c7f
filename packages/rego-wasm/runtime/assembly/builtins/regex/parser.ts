/**
 * Parser for Go's regexp syntax with the Perl flags regexp.Compile uses
 * (syntax.Perl: ClassNL | OneLine | PerlX | UnicodeGroups). Recursive
 * descent instead of Go's operator stack, but it accepts and rejects the
 * same patterns, including Go's quirks: `{` that does not start a valid
 * count is a literal, stacked repetition (`a**`) is an error, a flag group
 * `(?i)` is transparent to a following repetition (`a(?i)*` = `a*`), and
 * `(?i)` lasts to the end of the enclosing group across `|`.
 *
 * The pattern is read as code points; case-insensitive literals become
 * classes of their folding orbit here, so the compiler never sees (?i).
 */

import {
  Node, OP_NO_MATCH, OP_EMPTY, OP_LITERAL, OP_CLASS, OP_ANY_NOT_NL, OP_ANY, OP_ASSERT, OP_CAPTURE,
  OP_STAR, OP_PLUS, OP_QUEST, OP_REPEAT, OP_CONCAT, OP_ALT, EMPTY_BEGIN_LINE, EMPTY_END_LINE,
  EMPTY_BEGIN_TEXT, EMPTY_END_TEXT, EMPTY_WORD_BOUNDARY, EMPTY_NO_WORD_BOUNDARY, repeatIsValid,
} from "./ast";
import { parseClass, parseCount, parseEscape, perlGroup, unicodeGroup, isAlnum } from "./parse-class";
import { cleanClass, foldOrbit } from "./charclass";

export const FLAG_FOLD: i32 = 1;
/** (?m): ^ and $ match at line breaks (Go: OneLine cleared). */
export const FLAG_MULTILINE: i32 = 2;
/** (?s): . matches \n. */
export const FLAG_DOTNL: i32 = 4;
/** (?U): swap the greediness of repetitions. */
export const FLAG_NONGREEDY: i32 = 8;

/** Go's maxHeight: deeper nesting is "expression nests too deeply". */
const MAX_DEPTH: i32 = 1000;
export const MAX_REPEAT: i32 = 1000;

/** Result of a successful parse. */
export class Parsed {
  constructor(public root: Node, public numCap: i32, public names: Array<string>) {}
}

export class Parser {
  /** The pattern's code points. */
  src: Array<i32> = new Array<i32>();
  pos: i32 = 0;
  flags: i32 = 0;
  numCap: i32 = 0;
  /** names[i] is the name of capture group i (index 0: the whole match, ""). */
  names: Array<string> = [""];
  depth: i32 = 0;
  failed: bool = false;

  constructor(pattern: string) {
    for (let i = 0; i < pattern.length; i++) {
      let c = pattern.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < pattern.length) {
        const d = pattern.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        }
      }
      this.src.push(c);
    }
  }

  /** Marks the parse failed; returns null so callers can `return this.fail()`. */
  fail(): Node | null {
    this.failed = true;
    return null;
  }

  eof(): bool {
    return this.pos >= this.src.length;
  }

  peek(): i32 {
    return this.pos < this.src.length ? this.src[this.pos] : -1;
  }

  at(i: i32): i32 {
    return i < this.src.length ? this.src[i] : -1;
  }

  parse(): Parsed | null {
    const root = this.parseAlt();
    if (root === null || this.failed) return null;
    if (!this.eof()) return null; // an unmatched ")"
    return new Parsed(root, this.numCap, this.names);
  }

  parseAlt(): Node | null {
    if (++this.depth > MAX_DEPTH) return this.fail();
    const alts = new Array<Node>();
    for (;;) {
      const c = this.parseConcat();
      if (c === null) return null;
      alts.push(c);
      if (this.peek() != 0x7c) break; // |
      this.pos++;
    }
    this.depth--;
    if (alts.length == 1) return alts[0];
    const n = new Node(OP_ALT);
    n.subs = alts;
    return n;
  }

  parseConcat(): Node | null {
    const items = new Array<Node>();
    let lastRepeat = false;
    while (!this.eof() && this.peek() != 0x7c && this.peek() != 0x29) {
      const c = this.peek();
      let repeat = false;
      if (c == 0x2a || c == 0x2b || c == 0x3f || c == 0x7b) {
        // * + ? {n,m}
        let op = OP_STAR;
        let min = 0;
        let max = -1;
        const start = this.pos;
        if (c == 0x7b) {
          if (!parseCount(this)) {
            this.pos = start + 1; // not a count: `{` is a literal
            items.push(this.literal(0x7b));
            lastRepeat = false;
            continue;
          }
          op = OP_REPEAT;
          min = this.countMin;
          max = this.countMax;
        } else {
          this.pos++;
          op = c == 0x2a ? OP_STAR : c == 0x2b ? OP_PLUS : OP_QUEST;
        }
        let nonGreedy = (this.flags & FLAG_NONGREEDY) != 0;
        if (this.peek() == 0x3f) {
          this.pos++;
          nonGreedy = !nonGreedy;
        }
        if (lastRepeat || items.length == 0) return this.fail();
        const n = Node.of(op, items[items.length - 1]);
        n.min = min;
        n.max = max;
        n.nonGreedy = nonGreedy;
        if (op == OP_REPEAT && (min >= 2 || max >= 2) && !repeatIsValid(n, MAX_REPEAT)) return this.fail();
        items[items.length - 1] = n;
        repeat = true;
      } else if (c == 0x28) {
        // ( : a flag group "(?i)" adds nothing; "(?i:re)" and captures add a node
        let g: Node | null = null;
        if (this.at(this.pos + 1) == 0x3f && this.isFlagGroup()) {
          const kind = this.parseFlags();
          if (kind < 0) return this.fail();
          if (kind == 1) {
            g = this.groupBody(this.groupFlags, 0);
            if (g === null) return null;
          }
        } else {
          g = this.parseGroup();
          if (g === null) return null;
        }
        if (g !== null) items.push(g);
      } else if (c == 0x5b) {
        // [
        const cls = parseClass(this);
        if (cls === null) return this.fail();
        items.push(classNode(cls));
      } else if (c == 0x2e) {
        this.pos++;
        items.push(new Node((this.flags & FLAG_DOTNL) != 0 ? OP_ANY : OP_ANY_NOT_NL));
      } else if (c == 0x5e) {
        this.pos++;
        items.push(assertNode((this.flags & FLAG_MULTILINE) != 0 ? EMPTY_BEGIN_LINE : EMPTY_BEGIN_TEXT));
      } else if (c == 0x24) {
        this.pos++;
        items.push(assertNode((this.flags & FLAG_MULTILINE) != 0 ? EMPTY_END_LINE : EMPTY_END_TEXT));
      } else if (c == 0x5c) {
        if (!this.parseBackslash(items)) return this.fail();
      } else {
        this.pos++;
        items.push(this.literal(c));
      }
      lastRepeat = repeat;
    }
    if (items.length == 0) return new Node(OP_EMPTY);
    if (items.length == 1) return items[0];
    const n = new Node(OP_CONCAT);
    n.subs = items;
    return n;
  }

  /** A literal code point under the current flags. */
  literal(c: i32): Node {
    if ((this.flags & FLAG_FOLD) != 0) {
      const orbit = foldOrbit(c);
      // More than c itself (a contiguous orbit like Ǆǅǆ is a single range).
      if (orbit.length > 2 || orbit[0] != orbit[1]) return classNode(orbit);
    }
    const n = new Node(OP_LITERAL);
    n.rune = c;
    return n;
  }

  /** Bounds of the count parseCount (parse-class.ts) just read. */
  countMin: i32 = 0;
  countMax: i32 = 0;

  /** At "(?": is this a flag group ("(?i)", "(?i:", "(?:") rather than a named capture? */
  isFlagGroup(): bool {
    const c = this.at(this.pos + 2);
    if (c == 0x50) return false; // (?P
    if (c == 0x3c) return false; // (?<name>
    return true;
  }

  /** Flags for the body of the "(?flags:" group parseFlags just read. */
  groupFlags: i32 = 0;

  /**
   * Parses "(?flags)" or "(?flags:" (Go's parsePerlFlags): 0 after
   * "(?flags)" (the flags now hold to the end of the enclosing group), 1
   * after "(?flags:" (body flags in groupFlags), -1 on a syntax error.
   */
  parseFlags(): i32 {
    this.pos += 2;
    let flags = this.flags;
    let sign = 1;
    let sawFlag = false;
    while (!this.eof()) {
      const c = this.src[this.pos++];
      if (c == 0x69) flags |= FLAG_FOLD; // i
      else if (c == 0x6d) flags |= FLAG_MULTILINE; // m
      else if (c == 0x73) flags |= FLAG_DOTNL; // s
      else if (c == 0x55) flags |= FLAG_NONGREEDY; // U
      else if (c == 0x2d) {
        // -: the following flags are cleared (inverted twice around them)
        if (sign < 0) return -1;
        sign = -1;
        flags = ~flags;
        sawFlag = false;
        continue;
      } else if (c == 0x3a || c == 0x29) {
        // : or )
        if (sign < 0) {
          if (!sawFlag) return -1;
          flags = ~flags;
        }
        if (c == 0x29) {
          this.flags = flags;
          return 0;
        }
        this.groupFlags = flags;
        return 1;
      } else return -1;
      sawFlag = true;
    }
    return -1;
  }

  /**
   * Parses the body of a group up to and including ")" under the given
   * flags, restoring the outer flags afterwards. A non-zero cap wraps the
   * body in a capture.
   */
  groupBody(flags: i32, cap: i32): Node | null {
    const saved = this.flags;
    this.flags = flags;
    const sub = this.parseAlt();
    if (sub === null) return null;
    if (this.peek() != 0x29) return this.fail(); // missing )
    this.pos++;
    this.flags = saved;
    let n = sub;
    if (cap > 0) {
      n = Node.of(OP_CAPTURE, sub);
      n.cap = cap;
    }
    return n;
  }

  /** "(" capture, or named capture "(?P<name>" / "(?<name>"; (?P=name) is not supported. */
  parseGroup(): Node | null {
    if (this.at(this.pos + 1) == 0x3f) {
      let i = this.pos + 2;
      if (this.at(i) == 0x50) i++; // P
      if (this.at(i) != 0x3c) return this.fail(); // <
      i++;
      let name = "";
      while (i < this.src.length && this.src[i] != 0x3e) {
        const c = this.src[i];
        if (c != 0x5f && !isAlnum(c)) return this.fail();
        name += String.fromCharCode(c);
        i++;
      }
      if (i >= this.src.length || name.length == 0) return this.fail();
      // Go allows duplicate names; $name expands the first group of that name that matched.
      this.pos = i + 1;
      const cap = ++this.numCap;
      this.names.push(name);
      return this.groupBody(this.flags, cap);
    }
    this.pos++;
    const cap = ++this.numCap;
    this.names.push("");
    return this.groupBody(this.flags, cap);
  }

  /** Backslash sequences outside classes; pushes onto items. */
  parseBackslash(items: Array<Node>): bool {
    const c = this.at(this.pos + 1);
    if (c < 0) return false; // trailing backslash
    if (c == 0x41) items.push(assertNode(EMPTY_BEGIN_TEXT)); // \A
    else if (c == 0x7a) items.push(assertNode(EMPTY_END_TEXT)); // \z
    else if (c == 0x62) items.push(assertNode(EMPTY_WORD_BOUNDARY)); // \b
    else if (c == 0x42) items.push(assertNode(EMPTY_NO_WORD_BOUNDARY)); // \B
    else if (c == 0x51) {
      // \Q...\E: literal text
      this.pos += 2;
      while (!this.eof()) {
        if (this.peek() == 0x5c && this.at(this.pos + 1) == 0x45) {
          this.pos += 2;
          return true;
        }
        items.push(this.literal(this.src[this.pos++]));
      }
      return true;
    } else if (c == 0x64 || c == 0x44 || c == 0x73 || c == 0x53 || c == 0x77 || c == 0x57) {
      // \d \D \s \S \w \W
      const r = new Array<i32>();
      perlGroup(this, c | 0x20, c < 0x60, r);
      items.push(classNode(cleanClass(r)));
    } else if (c == 0x70 || c == 0x50) {
      // \p \P
      const r = new Array<i32>();
      if (!unicodeGroup(this, r)) return false;
      items.push(classNode(cleanClass(r)));
      return true;
    } else {
      this.pos++;
      const r = parseEscape(this);
      if (r < 0) return false;
      items.push(this.literal(r));
      return true;
    }
    this.pos += 2;
    return true;
  }
}

function classNode(ranges: Array<i32>): Node {
  if (ranges.length == 0) return new Node(OP_NO_MATCH);
  if (ranges.length == 2 && ranges[0] == ranges[1]) {
    const n = new Node(OP_LITERAL);
    n.rune = ranges[0];
    return n;
  }
  const n = new Node(OP_CLASS);
  n.ranges = ranges;
  return n;
}

function assertNode(bits: i32): Node {
  const n = new Node(OP_ASSERT);
  n.rune = bits;
  return n;
}

/** Parses a pattern with Go's Perl flags; null when Go would reject it. */
export function parseRegex(pattern: string): Parsed | null {
  const p = new Parser(pattern);
  return p.parse();
}
