/**
 * The Rego lexer: source text to a flat token array, the way OPA's scanner
 * (v1/ast/internal/scanner) cuts it.
 *
 * Whitespace and comments do not become tokens. Instead every token records
 * whether whitespace (or a comment) precedes it (`ws`) and whether a newline
 * does (`nl`): OPA's grammar is whitespace sensitive in two places only (a ref
 * or call continues only when `.`, `[` or `(` follows with no gap, and body
 * expressions are separated by newlines), and both are answered by these flags.
 * Keeping all tokens in an array lets the parser backtrack by index, as OPA's
 * parser does with its save()/restore().
 *
 * Columns count code points from 1, like OPA's scanner (a tab is one column).
 */
import type { Location } from "../ast";
import { CompileError, CompileErrors, type CompileErrorCode } from "../errors";

/**
 * The keywords Rego v0 only has once imported (`import future.keywords[.kw]`
 * or `import rego.v1`); before that they are identifiers (OPA's
 * futureKeywordsV0).
 */
export const FUTURE_KEYWORDS_V0: readonly string[] = ["in", "every", "contains", "if"];

/** Rego v1 keywords (OPA's default keywords plus the former future keywords). */
export const KEYWORDS: ReadonlySet<string> = new Set([
  "package",
  "import",
  "as",
  "default",
  "else",
  "not",
  "some",
  "with",
  "null",
  "true",
  "false",
  "every",
  "contains",
  "if",
  "in",
]);

export type TokenKind =
  | "ident"
  | "number"
  | "string"
  | "eof"
  // a piece of template-string text, up to and including `{` or the closing delimiter
  | "template"
  // keywords: the kind is the word itself
  | "package"
  | "import"
  | "as"
  | "default"
  | "else"
  | "not"
  | "some"
  | "with"
  | "null"
  | "true"
  | "false"
  | "every"
  | "contains"
  | "if"
  | "in"
  // punctuation and operators: the kind is the source text
  | "["
  | "]"
  | "{"
  | "}"
  | "("
  | ")"
  | ","
  | ":"
  | ";"
  | "."
  | ":="
  | "="
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "+"
  | "-"
  | "*"
  | "/"
  | "%"
  | "&"
  | "|";

export interface Token {
  kind: TokenKind;
  /** Source text (for strings: the decoded value, see `value`). */
  text: string;
  /** Decoded value of a string literal or of a template-string piece. */
  value?: string;
  /** A template-string piece that ends the template string (rather than opening an expression). */
  templateEnd?: boolean;
  row: number;
  col: number;
  /** Whitespace or a comment separates this token from the previous one. */
  ws: boolean;
  /** A newline separates this token from the previous one. */
  nl: boolean;
}

/**
 * The names OPA's parser uses for tokens in messages ("unexpected eq token"),
 * which for infix operators are also the builtins they call (`+` is `plus`).
 */
const TOKEN_NAMES: Partial<Record<TokenKind, string>> = {
  ident: "identifier",
  number: "number",
  string: "string",
  eof: "eof",
  template: "template-string",
  "+": "plus",
  "-": "minus",
  "*": "mul",
  "/": "div",
  "%": "rem",
  "&": "and",
  "|": "or",
  "=": "eq",
  "==": "equal",
  ":=": "assign",
  "!=": "neq",
  ">": "gt",
  "<": "lt",
  ">=": "gte",
  "<=": "lte",
};

export function tokenName(kind: TokenKind): string {
  return TOKEN_NAMES[kind] ?? kind;
}

const isLetter = (c: string): boolean => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
const isDecimal = (c: string): boolean => c >= "0" && c <= "9";

const PUNCT2 = new Set([":=", "==", "!=", "<=", ">="]);
const PUNCT1 = new Set("[]{}(),:;.=<>+-*/%&|");

/** A `#` comment: position of the `#`, text after it (OPA's ast.Comment). */
export interface Comment {
  row: number;
  col: number;
  text: string;
}

/**
 * Splits `source` into tokens; the last is always `eof`. Throws
 * rego_parse_error on illegal input. Comments go to `comments` when given
 * (METADATA blocks are read from them, see annotations.ts).
 */
export function lex(source: string, file: string, comments?: Comment[]): Token[] {
  const tokens: Token[] = [];
  const end = source.length;
  let i = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  let row = 1;
  let col = 1;
  let ws = false;
  let nl = false;
  // OPA reports scanner errors at the start of the offending token.
  let tokRow = 1;
  let tokCol = 1;

  const fail = (message: string, code: CompileErrorCode = "rego_parse_error"): never => {
    const loc: Location = { file, row: tokRow, col: tokCol };
    throw new CompileErrors([new CompileError(code, message, loc)]);
  };
  /** The UTF-16 unit at i + k ("" past the end); enough for every ASCII decision. */
  const peek = (k = 0): string => source[i + k] ?? "";
  /** Steps over one code point; columns count code points, as OPA counts runes. */
  const advance = (): void => {
    const c = source.charCodeAt(i++);
    if (c === 10) {
      row++;
      col = 1;
      return;
    }
    if (c >= 0xd800 && c < 0xdc00 && i < end) {
      const lo = source.charCodeAt(i);
      if (lo >= 0xdc00 && lo < 0xe000) i++;
    }
    col++;
  };
  /** OPA's isDigit: identifiers may continue with any Unicode decimal digit. */
  const isDigitAt = (): boolean => {
    const c = peek();
    if (isDecimal(c)) return true;
    if (c <= "\x7f" || c === "") return false;
    return /\p{Nd}/u.test(String.fromCodePoint(source.codePointAt(i) ?? 0));
  };

  let start = 0;
  const push = (kind: TokenKind, value?: string, templateEnd?: boolean): void => {
    tokens.push({ kind, text: source.slice(start, i), value, row: tokRow, col: tokCol, ws, nl, templateEnd });
    ws = false;
    nl = false;
  };
  /**
   * Open template strings, innermost last: whether raw, and how many `{` of
   * the embedded expression are still open. The `}` that closes the
   * expression itself resumes the template's text, as OPA's parser asks its
   * scanner to (ContinueTemplateString).
   */
  const templates: Array<{ raw: boolean; depth: number }> = [];

  while (i < end) {
    const c = source[i];
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      if (c === "\n") nl = true;
      ws = true;
      advance();
      continue;
    }
    if (c === "#") {
      const at = i;
      const commentRow = row;
      const commentCol = col;
      while (i < end && source[i] !== "\n") advance();
      comments?.push({ row: commentRow, col: commentCol, text: source.slice(at + 1, i) });
      ws = true;
      continue;
    }
    tokRow = row;
    tokCol = col;
    start = i;

    if (isLetter(c)) {
      while (i < end && (isLetter(peek()) || isDigitAt())) advance();
      const text = source.slice(start, i);
      push(KEYWORDS.has(text) ? (text as TokenKind) : "ident");
    } else if (isDecimal(c)) {
      scanNumber();
      push("number");
    } else if (c === '"') {
      scanString();
      push("string", decodeString(source.slice(start, i)));
    } else if (c === "`") {
      advance();
      while (peek() !== "`") {
        if (i >= end) fail("non-terminated string");
        advance();
      }
      advance();
      push("string", source.slice(start + 1, i - 1));
    } else if (PUNCT2.has(c + peek(1))) {
      advance();
      advance();
      push(source.slice(start, i) as TokenKind);
    } else if (PUNCT1.has(c)) {
      advance();
      push(c as TokenKind);
      const open = templates[templates.length - 1];
      if (open && c === "{") open.depth++;
      else if (open && c === "}" && open.depth-- === 0) {
        templates.pop();
        tokRow = row;
        tokCol = col;
        start = i;
        scanTemplatePart(open.raw);
      }
    } else if (c === "!") {
      fail("illegal ! character");
    } else if (c === "$" && (peek(1) === '"' || peek(1) === "`")) {
      advance();
      advance();
      scanTemplatePart(source[i - 1] === "`");
    } else if (c === "$") {
      fail("illegal $ character");
    } else if (c === "\0") {
      fail("illegal null character");
    } else {
      fail("illegal token");
    }
  }
  tokens.push({ kind: "eof", text: "", row, col, ws, nl });
  return tokens;

  function scanNumber(): void {
    while (isDecimal(peek())) advance();
    if (peek() === ".") {
      advance();
      if (!isDecimal(peek())) fail("expected fraction");
      while (isDecimal(peek())) advance();
    }
    if (peek() === "e" || peek() === "E") {
      advance();
      if (peek() === "+" || peek() === "-") advance();
      if (!isDecimal(peek())) fail("expected exponent");
      while (isDecimal(peek())) advance();
    }
    // `0a2b` is one illegal number, not a number followed by an identifier.
    if (isLetter(peek())) fail("illegal number format");
  }

  function scanString(): void {
    advance();
    for (;;) {
      const ch = peek();
      if (ch === "\n" || i >= end) fail("non-terminated string");
      advance();
      if (ch === '"') return;
      if (ch === "\\") {
        const e = peek();
        if (e !== "" && '\\"/bfnrt'.includes(e)) advance();
        // Like OPA's scanner, take the four units after \u blindly; decoding validates them.
        else if (e === "u") for (let k = 0; k < 5 && i < end && peek() !== "\n"; k++) advance();
        else fail("illegal escape sequence");
      }
    }
  }

  /**
   * One piece of template-string text (the opening delimiter or `}` already
   * consumed), pushed as a "template" token; when it ends at `{`, the
   * template stays open for the embedded expression. `\{` (and, in the
   * quoted form, `\}`) stand for a literal brace; the quoted form otherwise
   * has the escapes of strings and may not span lines, the raw form has none.
   */
  function scanTemplatePart(raw: boolean): void {
    const close = raw ? "`" : '"';
    let text = "";
    let escapes = false;
    let closed = false;
    for (;;) {
      if (i >= end || (!raw && peek() === "\n")) fail("non-terminated string");
      const ch = peek();
      const from = i;
      advance();
      if (ch === close) {
        closed = true;
        break;
      }
      if (ch === "{") break;
      if (ch === "\\") {
        const e = peek();
        if (e === "{" || (e === "}" && !raw)) {
          advance();
          text += e;
          continue;
        }
        if (!raw) {
          escapes = true;
          if (e !== "" && '\\"/bfnrt'.includes(e)) advance();
          else if (e === "u") for (let k = 0; k < 5 && i < end && peek() !== "\n"; k++) advance();
          else fail("illegal escape sequence");
        }
      }
      text += source.slice(from, i);
    }
    const value = escapes ? (unescapeJson(text) ?? fail(`illegal template-string part: ${source.slice(start, i)}`)) : text;
    push("template", value, closed);
    if (!closed) templates.push({ raw, depth: 0 });
  }

  function decodeString(raw: string): string {
    const inner = raw.slice(1, -1);
    if (!inner.includes("\\")) return inner;
    return unescapeJson(inner) ?? fail(`illegal string literal: ${raw}`);
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * Decodes the JSON escapes of a string body, as Go's encoding/json does for
 * OPA: a lone surrogate becomes U+FFFD, a control character is an error (null).
 */
export function unescapeJson(s: string): string | null {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c < " ") return null;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = s[++i];
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
      continue;
    }
    if (e !== "u") return null;
    const hi = hex4(s, i + 1);
    if (hi < 0) return null;
    i += 4;
    if (hi >= 0xd800 && hi < 0xdc00 && s[i + 1] === "\\" && s[i + 2] === "u") {
      const lo = hex4(s, i + 3);
      if (lo >= 0xdc00 && lo < 0xe000) {
        out += String.fromCharCode(hi, lo);
        i += 6;
        continue;
      }
    }
    out += hi >= 0xd800 && hi < 0xe000 ? "\uFFFD" : String.fromCharCode(hi);
  }
  return out;
}

function hex4(s: string, at: number): number {
  const h = s.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(h) ? parseInt(h, 16) : -1;
}
