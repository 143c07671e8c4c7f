/**
 * The regex engine's public face, shaped like Go's regexp.Regexp: compile
 * (cached per evaluation), MatchString, FindAll*, ReplaceAllString with
 * $1 / ${name} expansion, Split and QuoteMeta, with Go's rules for empty
 * matches (no empty match right after a previous match; always advance).
 *
 * Positions are UTF-16 offsets (see vm.ts); a surrogate pair advances by 2.
 */

import { parseRegex } from "./parser";
import { compileProg, Prog } from "./prog";
import { Machine } from "./vm";
import { cacheGet, cachePut, KIND_REGEX } from "./cache";
import { isLetterOrDigit } from "./unicode-names";

export class Regexp {
  machine: Machine;

  constructor(public prog: Prog, public names: Array<string>, public expr: string) {
    this.machine = new Machine(prog);
  }

  /** Number of capture groups (Go's NumSubexp). */
  get numSubexp(): i32 {
    return this.prog.numCap;
  }

  matchString(s: string): bool {
    return this.machine.match(s, 0, 0);
  }

  /** Slots of the first match at or after pos (ncap of them), or null (Go's doExecute). */
  exec(s: string, pos: i32, ncap: i32): StaticArray<i32> | null {
    if (!this.machine.match(s, pos, ncap)) return null;
    const out = new StaticArray<i32>(ncap);
    for (let k = 0; k < ncap; k++) out[k] = this.machine.matchcap[k];
    return out;
  }

  /** Up to n (all if n < 0) successive non-overlapping matches (Go's allMatches). */
  allMatches(s: string, n: i32, ncap: i32): Array<StaticArray<i32>> {
    const out = new Array<StaticArray<i32>>();
    const end = s.length;
    if (n < 0) n = end + 1;
    let pos = 0;
    let prevMatchEnd = -1;
    while (out.length < n && pos <= end) {
      const m = this.exec(s, pos, ncap);
      if (m === null) break;
      let accept = true;
      if (m[1] == pos) {
        // An empty match right after a previous match does not count.
        if (m[0] == prevMatchEnd) accept = false;
        pos += pos < end ? width(s, pos) : 1;
      } else pos = m[1];
      prevMatchEnd = m[1];
      if (accept) out.push(m);
    }
    return out;
  }

  /** Go's ReplaceAllString: every match replaced by the expanded template. */
  replaceAll(src: string, repl: string): string {
    const ncap = repl.includes("$") ? 2 * (this.prog.numCap + 1) : 2;
    const parts = new Array<string>();
    let lastMatchEnd = 0;
    let searchPos = 0;
    const endPos = src.length;
    while (searchPos <= endPos) {
      const a = this.exec(src, searchPos, ncap);
      if (a === null) break;
      parts.push(src.substring(lastMatchEnd, a[0]));
      // No replacement for an empty match right after the previous match.
      if (a[1] > lastMatchEnd || a[0] == 0) this.expand(parts, repl, src, a);
      lastMatchEnd = a[1];
      const w = searchPos < endPos ? width(src, searchPos) : 0;
      if (searchPos + w > a[1]) searchPos += w;
      else if (searchPos + 1 > a[1]) searchPos++;
      else searchPos = a[1];
    }
    parts.push(src.substring(lastMatchEnd));
    return parts.join("");
  }

  /** Go's Regexp.Expand: $n, ${n}, $name, ${name}, $$; unknown or unmatched groups expand to "". */
  expand(parts: Array<string>, template: string, src: string, match: StaticArray<i32>): void {
    let i = 0;
    const n = template.length;
    while (i < n) {
      const d = template.indexOf("$", i);
      if (d < 0) break;
      parts.push(template.substring(i, d));
      i = d + 1;
      if (i < n && template.charCodeAt(i) == 0x24) {
        parts.push("$");
        i++;
        continue;
      }
      // name or {name}: letters, digits, _
      let j = i;
      const brace = j < n && template.charCodeAt(j) == 0x7b;
      if (brace) j++;
      const nameStart = j;
      while (j < n) {
        const c = template.codePointAt(j);
        if (c != 0x5f && !isLetterOrDigit(c)) break;
        j += c > 0xffff ? 2 : 1;
      }
      if (j == nameStart || (brace && (j >= n || template.charCodeAt(j) != 0x7d))) {
        parts.push("$"); // malformed: the $ is text
        continue;
      }
      const name = template.substring(nameStart, j);
      i = brace ? j + 1 : j;
      const num = groupNumber(name);
      if (num >= 0) {
        if (2 * num + 1 < match.length && match[2 * num] >= 0) parts.push(src.substring(match[2 * num], match[2 * num + 1]));
      } else {
        for (let g = 0; g < this.names.length; g++) {
          if (this.names[g] == name && 2 * g + 1 < match.length && match[2 * g] >= 0) {
            parts.push(src.substring(match[2 * g], match[2 * g + 1]));
            break;
          }
        }
      }
    }
    parts.push(template.substring(i));
  }

  /** Go's Split(s, -1) (OPA always splits without a limit). */
  split(s: string): Array<string> {
    const out = new Array<string>();
    if (this.expr.length > 0 && s.length == 0) {
      out.push("");
      return out;
    }
    const matches = this.allMatches(s, -1, 2);
    let beg = 0;
    let end = 0;
    for (let k = 0; k < matches.length; k++) {
      const m = matches[k];
      end = m[0];
      if (m[1] != 0) out.push(s.substring(beg, end));
      beg = m[1];
    }
    if (end != s.length) out.push(s.substring(beg));
    return out;
  }
}

/** UTF-16 width of the code point at pos (2 for a surrogate pair). */
function width(s: string, pos: i32): i32 {
  const c = s.charCodeAt(pos);
  if (c >= 0xd800 && c < 0xdc00 && pos + 1 < s.length) {
    const d = s.charCodeAt(pos + 1);
    if (d >= 0xdc00 && d < 0xe000) return 2;
  }
  return 1;
}

/** A decimal group number without leading zeros, else -1 (a name). */
function groupNumber(name: string): i32 {
  let num = 0;
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 0x30 || c > 0x39 || num >= 100000000) return -1;
    num = num * 10 + (c - 0x30);
  }
  if (name.charCodeAt(0) == 0x30 && name.length > 1) return -1;
  return num;
}

/** Compiles without the cache; null when Go's regexp.Compile would fail. */
export function compileRegexp(pattern: string): Regexp | null {
  const parsed = parseRegex(pattern);
  if (parsed === null) return null;
  const prog = compileProg(parsed.root, parsed.numCap);
  if (prog === null) return null;
  return new Regexp(prog, parsed.names, pattern);
}

/** A regex pattern, compiled once per evaluation. */
export function getRegexp(pattern: string): Regexp | null {
  const hit = cacheGet(KIND_REGEX, pattern);
  if (hit !== null) return hit.value === null ? null : changetype<Regexp>(hit.value);
  const re = compileRegexp(pattern);
  cachePut(KIND_REGEX, pattern, re);
  return re;
}

/** Go's regexp.QuoteMeta: escapes \.+*?()|[]{}^$ so the text matches literally. */
export function quoteMeta(s: string): string {
  const parts = new Array<string>();
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x5c || c == 0x2e || c == 0x2b || c == 0x2a || c == 0x3f || c == 0x28 || c == 0x29 || c == 0x7c ||
        c == 0x5b || c == 0x5d || c == 0x7b || c == 0x7d || c == 0x5e || c == 0x24) {
      parts.push(s.substring(last, i));
      parts.push("\\");
      last = i;
    }
  }
  parts.push(s.substring(last));
  return parts.join("");
}
