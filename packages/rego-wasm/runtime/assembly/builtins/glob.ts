/**
 * glob.match and glob.quote_meta (OPA's topdown/glob.go over gobwas/glob,
 * the rewritten version OPA upgraded to: its syntax/lexer.go and parse.go).
 * A glob is lexed and parsed with gobwas' rules and translated
 * into an anchored regex for the engine in regex/ (linear-time matching,
 * shared per-evaluation compile cache):
 *
 *   *      any run of non-separator characters   -> [^seps]*
 *   **     any run of characters                 -> (?s:.*)
 *   ?      one non-separator character           -> [^seps]
 *   [abc] [!abc] [a-z] [!a-z]  one character in / not in the list or range
 *          (separators included, as in gobwas)
 *   {a,b}  alternatives (nestable)              -> (?:a|b)
 *   \c     the character c
 *
 * Delimiters: null = none; [] = ["."]; otherwise one-character strings.
 * gobwas rules kept: `,` and `}` are plain text outside `{...}`, `]`
 * outside `[...]`; an unclosed `{` or `[` and a trailing `\` are errors;
 * a class is a single range or a list of characters, never both.
 */

import { Value, StrV, T_STRING, T_NULL, T_ARRAY, asStr, asArr, boolV } from "../value";
import { compileRegexp, Regexp } from "./regex/regexp";
import { cacheGet, cachePut, KIND_GLOB, KIND_GLOB_NO_DELIMITERS } from "./regex/cache";

/** Lexer and parser state over the glob's code points. */
class Glob {
  src: Array<i32> = new Array<i32>();
  pos: i32 = 0;
  termsLevel: i32 = 0;
  failed: bool = false;
  /** The regex class body matching one non-separator character ("" = any). */
  notSep: string = "";

  constructor(pattern: string, seps: Array<i32>) {
    for (let i = 0; i < pattern.length; ) {
      const c = pattern.codePointAt(i);
      this.src.push(c);
      i += c > 0xffff ? 2 : 1;
    }
    if (seps.length > 0) {
      const parts = new Array<string>();
      parts.push("[^");
      for (let i = 0; i < seps.length; i++) parts.push(hex(seps[i]));
      parts.push("]");
      this.notSep = parts.join("");
    }
  }

  peek(): i32 {
    return this.pos < this.src.length ? this.src[this.pos] : -1;
  }

  /**
   * Translates terms up to the end of input or, inside `{...}`, up to the
   * `,` or `}` that ends the current alternative (left unread).
   */
  pattern(out: Array<string>): void {
    while (!this.failed) {
      const c = this.peek();
      if (c < 0) return;
      if (this.termsLevel > 0 && (c == 0x2c || c == 0x7d)) return; // , }
      this.pos++;
      if (c == 0x7b) {
        // { alternatives }
        this.termsLevel++;
        out.push("(?:");
        // (A loop ending in an unconditional `break` would trip an
        // AssemblyScript 0.28 flow bug that drops the code after it.)
        let more = true;
        while (more) {
          this.pattern(out);
          const d = this.peek();
          more = d == 0x2c;
          if (more) {
            this.pos++;
            out.push("|");
          } else if (d == 0x7d) this.pos++;
          else this.failed = true; // gobwas: "unclosed `{`"
        }
        this.termsLevel--;
        out.push(")");
      } else if (c == 0x5b) this.range(out);
      else if (c == 0x3f) out.push(this.notSep.length > 0 ? this.notSep : "(?s:.)");
      else if (c == 0x2a) {
        if (this.peek() == 0x2a) {
          this.pos++;
          out.push("(?s:.*)");
        } else out.push(this.notSep.length > 0 ? this.notSep + "*" : "(?s:.*)");
      } else {
        this.pos--;
        const text = this.text(this.termsLevel > 0);
        for (let i = 0; i < text.length; i++) out.push(hex(text[i]));
      }
    }
  }

  /** gobwas fetchText: characters up to a breaker, escapes resolved. */
  text(inTerms: bool): Array<i32> {
    const data = new Array<i32>();
    let escaped = false;
    while (this.pos < this.src.length) {
      const r = this.src[this.pos++];
      if (!escaped) {
        if (r == 0x5c) {
          escaped = true;
          continue;
        }
        if (r == 0x3f || r == 0x2a || r == 0x5b || r == 0x7b || (inTerms && (r == 0x7d || r == 0x2c))) {
          this.pos--;
          break;
        }
      }
      escaped = false;
      data.push(r);
    }
    if (escaped) this.failed = true; // gobwas: "trailing backslash"
    return data;
  }

  /** After `[`: gobwas fetchRange + parserRange; a list or one range, optionally negated by `!`. */
  range(out: Array<string>): void {
    let not = false;
    let lo = -1;
    let hi = -1;
    let chars: Array<i32> | null = null;
    // `!` first negates; `x-` starts a range; anything else starts the list.
    if (this.peek() == 0x21) {
      not = true;
      this.pos++;
    }
    if (this.pos + 1 < this.src.length && this.src[this.pos + 1] == 0x2d) {
      lo = this.src[this.pos];
      this.pos += 2;
      hi = this.peek();
      if (hi < 0 || hi < lo) {
        this.failed = true; // unexpected end, or hi below lo
        return;
      }
      this.pos++;
    } else if (this.pos < this.src.length) {
      chars = this.listText();
    }
    // Exactly one closing bracket must follow (gobwas: "expected close range character").
    if (this.peek() != 0x5d) {
      this.failed = true;
      return;
    }
    this.pos++;
    const isRange = lo >= 0 && hi >= 0;
    const isChars = chars !== null && chars.length > 0;
    if (isRange == isChars) {
      this.failed = true; // gobwas: "could not parse range"
      return;
    }
    out.push(not ? "[^" : "[");
    if (isRange) {
      out.push(hex(lo));
      out.push("-");
      out.push(hex(hi));
    } else {
      const list = chars!;
      for (let i = 0; i < list.length; i++) out.push(hex(list[i]));
    }
    out.push("]");
  }

  /** Class members: text up to `]`, escapes resolved. */
  listText(): Array<i32> {
    const data = new Array<i32>();
    let escaped = false;
    while (this.pos < this.src.length) {
      const r = this.src[this.pos++];
      if (!escaped) {
        if (r == 0x5c) {
          escaped = true;
          continue;
        }
        if (r == 0x5d) {
          this.pos--;
          break;
        }
      }
      escaped = false;
      data.push(r);
    }
    if (escaped) this.failed = true; // gobwas: "trailing backslash"
    return data;
  }
}

function hex(c: i32): string {
  return "\\x{" + c.toString(16) + "}";
}

/** The glob as an anchored regex pattern, or null when gobwas would reject it. */
function globToRegex(pattern: string, seps: Array<i32>): string | null {
  const g = new Glob(pattern, seps);
  const out = new Array<string>();
  out.push("\\A(?:");
  g.pattern(out);
  if (g.failed) return null;
  out.push(")\\z");
  return out.join("");
}

/** glob.match(pattern, delimiters, match): whether match matches the glob pattern. */
export function bi_glob_match(pattern: Value | null, delimiters: Value | null, match: Value | null): Value | null {
  if (pattern === null || pattern.kind != T_STRING || match === null || match.kind != T_STRING) return null;
  if (delimiters === null) return null;
  const seps = new Array<i32>();
  if (delimiters.kind == T_ARRAY) {
    const items = asArr(delimiters).items;
    for (let i = 0; i < items.length; i++) {
      const d = items[i];
      if (d.kind != T_STRING) return null;
      const s = asStr(d).value;
      const c = s.length > 0 ? s.codePointAt(0) : -1;
      if (c < 0 || s.length != (c > 0xffff ? 2 : 1)) return null; // must be one character
      seps.push(c);
    }
    if (seps.length == 0) seps.push(0x2e); // [] means ["."]
  } else if (delimiters.kind != T_NULL) return null;
  const p = asStr(pattern).value;
  // Key: the pattern alone without delimiters; else their count, the
  // delimiters (one code point each) and the pattern: unambiguous.
  let key = p;
  if (seps.length > 0) {
    const keyParts = new Array<string>();
    keyParts.push(String.fromCharCode(seps.length));
    for (let i = 0; i < seps.length; i++) keyParts.push(String.fromCodePoint(seps[i]));
    keyParts.push(p);
    key = keyParts.join("");
  }
  const kind = seps.length > 0 ? KIND_GLOB : KIND_GLOB_NO_DELIMITERS;
  let re: Regexp | null = null;
  const hit = cacheGet(kind, key);
  if (hit !== null) {
    if (hit.value !== null) re = changetype<Regexp>(hit.value);
  } else {
    const src = globToRegex(p, seps);
    if (src !== null) re = compileRegexp(src);
    cachePut(kind, key, re);
  }
  if (re === null) return null;
  return boolV(re.matchString(asStr(match).value));
}

/** glob.quote_meta(pattern): escapes the glob metacharacters * ? \ [ ] { }. */
export function bi_glob_quote_meta(pattern: Value | null): Value | null {
  if (pattern === null || pattern.kind != T_STRING) return null;
  const s = asStr(pattern).value;
  const parts = new Array<string>();
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x2a || c == 0x3f || c == 0x5c || c == 0x5b || c == 0x5d || c == 0x7b || c == 0x7d) {
      parts.push(s.substring(last, i));
      parts.push("\\");
      last = i;
    }
  }
  parts.push(s.substring(last));
  return new StrV(parts.join(""));
}
