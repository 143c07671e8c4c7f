/**
 * The parts of the regex parser that read counts, character classes and
 * escapes (Go's parseRepeat, parseClass, parseEscape, parseNamedClass,
 * parseUnicodeClass, parsePerlClassEscape), with Go's rules: `]` first in a class is literal,
 * `-` is literal first, last or anywhere a range cannot start (Perl mode),
 * `[\b]` is an error, and (?i) folds a class before it is negated.
 */

import { Parser, FLAG_FOLD, MAX_REPEAT } from "./parser";
import {
  addRange, appendClass, cleanClass, negateClass, foldClass, perlClass, posixClass,
} from "./charclass";
import { unicodeClass } from "./unicode-names";

export function isAlnum(c: i32): bool {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function unhex(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/**
 * Reads the escape whose letter is at p.pos (just past the backslash);
 * returns the code point it denotes, or -1 for an invalid escape.
 */
export function parseEscape(p: Parser): i32 {
  const c = p.peek();
  if (c < 0) return -1; // trailing backslash
  p.pos++;
  // Escaped punctuation (any ASCII non-word character) is itself.
  if (c < 0x80 && !isAlnum(c)) return c;
  if (c >= 0x31 && c <= 0x37) {
    // \1..\7 alone would be a backreference (unsupported); with another
    // octal digit it is an octal escape.
    const d = p.peek();
    if (d < 0x30 || d > 0x37) return -1;
  }
  if (c >= 0x30 && c <= 0x37) {
    let r = c - 0x30;
    for (let i = 1; i < 3; i++) {
      const d = p.peek();
      if (d < 0x30 || d > 0x37) break;
      r = r * 8 + (d - 0x30);
      p.pos++;
    }
    return r;
  }
  if (c == 0x78) {
    // \xHH or \x{H...}
    const c2 = p.peek();
    if (c2 < 0) return -1;
    p.pos++;
    if (c2 == 0x7b) {
      let nhex = 0;
      let r = 0;
      for (;;) {
        const d = p.peek();
        if (d < 0) return -1;
        p.pos++;
        if (d == 0x7d) break;
        const v = unhex(d);
        if (v < 0) return -1;
        r = r * 16 + v;
        if (r > 0x10ffff) return -1;
        nhex++;
      }
      return nhex == 0 ? -1 : r;
    }
    const x = unhex(c2);
    const c3 = p.peek();
    if (c3 < 0) return -1;
    p.pos++;
    const y = unhex(c3);
    if (x < 0 || y < 0) return -1;
    return x * 16 + y;
  }
  // C escapes; no \b, which is a word boundary outside classes and an
  // error inside them (Go).
  if (c == 0x61) return 7; // \a
  if (c == 0x66) return 12; // \f
  if (c == 0x6e) return 10; // \n
  if (c == 0x72) return 13; // \r
  if (c == 0x74) return 9; // \t
  if (c == 0x76) return 11; // \v
  return -1;
}

/** Appends a named group, folded under (?i) and then negated if asked (Go's appendGroup). */
function appendGroup(p: Parser, cls: Array<i32>, negated: bool, out: Array<i32>): void {
  let r = cleanClass(cls);
  if ((p.flags & FLAG_FOLD) != 0) r = foldClass(r);
  if (negated) r = negateClass(r);
  appendClass(out, r);
}

/** \d \s \w (letter lower-cased), negated for \D \S \W. Does not move p.pos. */
export function perlGroup(p: Parser, letter: i32, negated: bool, out: Array<i32>): void {
  appendGroup(p, perlClass(letter), negated, out);
}

/**
 * \pX, \p{Name}, \PX, \P{Name}, \p{^Name} at p.pos (the backslash);
 * false for an unknown name or a malformed sequence.
 */
export function unicodeGroup(p: Parser, out: Array<i32>): bool {
  let negated = p.at(p.pos + 1) == 0x50;
  let i = p.pos + 2;
  const c = p.at(i);
  if (c < 0) return false;
  let name = "";
  if (c != 0x7b) {
    name = String.fromCodePoint(c);
    i++;
  } else {
    let end = i + 1;
    while (end < p.src.length && p.src[end] != 0x7d) end++;
    if (end >= p.src.length) return false;
    for (let k = i + 1; k < end; k++) name += String.fromCodePoint(p.src[k]);
    i = end + 1;
  }
  if (name.length > 0 && name.charCodeAt(0) == 0x5e) {
    negated = !negated;
    name = name.substring(1);
  }
  const table = unicodeClass(name);
  if (table === null) return false;
  appendGroup(p, table, negated, out);
  p.pos = i;
  return true;
}

/** Parses a bracketed class at p.pos ("["); returns its clean ranges or null on error. */
export function parseClass(p: Parser): Array<i32> | null {
  p.pos++;
  let negated = false;
  if (p.peek() == 0x5e) {
    negated = true;
    p.pos++;
  }
  const cls = new Array<i32>();
  let first = true;
  while (p.eof() || p.peek() != 0x5d || first) {
    if (p.eof()) return null; // missing ]
    first = false;
    const c = p.peek();
    // POSIX [:name:] and [:^name:]
    if (c == 0x5b && p.at(p.pos + 1) == 0x3a && p.at(p.pos + 2) >= 0) {
      let j = p.pos + 2;
      while (j + 1 < p.src.length && !(p.src[j] == 0x3a && p.src[j + 1] == 0x5d)) j++;
      if (j + 1 < p.src.length) {
        let name = "";
        for (let k = p.pos + 2; k < j; k++) name += String.fromCodePoint(p.src[k]);
        let neg = false;
        if (name.length > 0 && name.charCodeAt(0) == 0x5e) {
          neg = true;
          name = name.substring(1);
        }
        const g = posixClass(name);
        if (g === null) return null;
        appendGroup(p, g, neg, cls);
        p.pos = j + 2;
        continue;
      }
    }
    if (c == 0x5c) {
      const e = p.at(p.pos + 1);
      if (e == 0x70 || e == 0x50) {
        if (!unicodeGroup(p, cls)) return null;
        continue;
      }
      if (e == 0x64 || e == 0x44 || e == 0x73 || e == 0x53 || e == 0x77 || e == 0x57) {
        perlGroup(p, e | 0x20, e < 0x60, cls);
        p.pos += 2;
        continue;
      }
    }
    const lo = classChar(p);
    if (lo < 0) return null;
    let hi = lo;
    // [a-] means a or -: a range needs something other than ] after the -.
    if (p.peek() == 0x2d && p.at(p.pos + 1) >= 0 && p.at(p.pos + 1) != 0x5d) {
      p.pos++;
      hi = classChar(p);
      if (hi < 0 || hi < lo) return null;
    }
    if ((p.flags & FLAG_FOLD) != 0) {
      const r = new Array<i32>();
      addRange(r, lo, hi);
      appendClass(cls, foldClass(r));
    } else addRange(cls, lo, hi);
  }
  p.pos++; // ]
  const r = cleanClass(cls);
  return negated ? negateClass(r) : r;
}

/** One class member: a plain code point or an escape; -1 on error. */
function classChar(p: Parser): i32 {
  const c = p.peek();
  if (c < 0) return -1;
  p.pos++;
  if (c == 0x5c) return parseEscape(p);
  return c;
}

/**
 * Parses {n}, {n,} or {n,m} at p.pos (Go's parseRepeat) into p.countMin /
 * p.countMax (-1: no maximum); false if the text is not a count, in which
 * case `{` is a literal. Counts above 1000 or max < min mark the parse failed.
 */
export function parseCount(p: Parser): bool {
  p.pos++; // {
  const min = parseDecimal(p);
  if (min == -2) return false;
  let max = min;
  if (p.peek() == 0x2c) {
    p.pos++;
    if (p.peek() == 0x7d) max = -1;
    else {
      max = parseDecimal(p);
      if (max == -2) return false;
    }
  }
  if (p.peek() != 0x7d) return false;
  p.pos++;
  if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) p.failed = true;
  p.countMin = min;
  p.countMax = max;
  return true;
}

/** Decimal number at p.pos; -2 if none or with a leading zero (Go: not a count). */
function parseDecimal(p: Parser): i32 {
  const start = p.pos;
  while (p.peek() >= 0x30 && p.peek() <= 0x39) p.pos++;
  if (p.pos == start) return -2;
  if (p.pos - start > 1 && p.src[start] == 0x30) return -2;
  if (p.pos - start > 8) return 100000000; // too big: fails the range check
  let v = 0;
  for (let i = start; i < p.pos; i++) v = v * 10 + (p.src[i] - 0x30);
  return v;
}
