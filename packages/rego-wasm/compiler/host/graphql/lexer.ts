/**
 * GraphQL tokens, read as gqlparser's lexer reads them (OPA's GraphQL
 * builtins are built on vektah/gqlparser): punctuators, names, Int and Float
 * numbers, "strings" and """block strings""" (their value already unescaped
 * or dedented); whitespace, commas, byte order marks and # comments are
 * skipped. Positions are 1-based lines and columns counted in code points.
 * A character the lexer cannot read raises a GraphQLError at once: gqlparser
 * hands such a token (kind Invalid) to the parser, which always fails on it.
 */

export type TokenKind =
  "<EOF>" | "!" | "$" | "&" | "(" | ")" | "..." | ":" | "=" | "@" | "[" | "]" | "{" | "}" | "|" | "Name" | "Int" | "Float" | "String" | "BlockString";

export interface Position {
  line: number;
  column: number;
}

export interface Token {
  kind: TokenKind;
  /** The name, the number's text or the string's value; "" for punctuators. */
  value: string;
  pos: Position;
}

/** A syntax or validation error at a position, worded as gqlparser words it. */
export class GraphQLError extends Error {
  constructor(
    readonly msg: string,
    readonly pos: Position | undefined,
  ) {
    super(pos ? `${msg} (${pos.line}:${pos.column})` : msg);
  }
}

/** Go's strconv.Quote for the texts tokens hold (printable text kept, the rest escaped). */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** How an error message names a token: `Name "x"`, `String "..."`, `}`, `<EOF>`. */
export function describeToken(t: Token): string {
  return t.value !== "" ? `${t.kind} ${goQuote(t.value)}` : t.kind;
}

const PUNCTUATORS: Record<string, TokenKind> = {
  "!": "!",
  $: "$",
  "&": "&",
  "(": "(",
  ")": ")",
  ":": ":",
  "=": "=",
  "@": "@",
  "[": "[",
  "]": "]",
  "{": "{",
  "}": "}",
  "|": "|",
};

const isNameStart = (c: number): boolean => c === 0x5f || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isNameChar = (c: number): boolean => isNameStart(c) || isDigit(c);

export class Lexer {
  private i = 0;
  private line = 1;
  /** Code points before the current line, and read so far: columns count code points as Go's lexer counts runes. */
  private lineStart = 0;
  private points = 0;

  constructor(private readonly src: string) {}

  next(): Token {
    this.skipIgnored();
    const start = this.here();
    if (this.i >= this.src.length) return { kind: "<EOF>", value: "", pos: start };
    const ch = this.src[this.i]!;
    const c = ch.charCodeAt(0);
    const punct = PUNCTUATORS[ch];
    if (punct !== undefined) {
      this.advance(1);
      return { kind: punct, value: "", pos: start };
    }
    if (ch === "." && this.src.startsWith("...", this.i)) {
      this.advance(3);
      return { kind: "...", value: "", pos: start };
    }
    if (isNameStart(c)) {
      const from = this.i;
      while (this.i < this.src.length && isNameChar(this.src.charCodeAt(this.i))) this.advance(1);
      return { kind: "Name", value: this.src.slice(from, this.i), pos: start };
    }
    if (c === 0x2d || isDigit(c)) return this.number(start);
    if (ch === '"') return this.src.startsWith('"""', this.i) ? this.blockString(start) : this.string(start);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) this.fail(`Cannot contain the invalid character "\\u${c.toString().padStart(4, "0")}"`);
    if (ch === "'") this.fail(`Unexpected single quote character ('), did you mean to use a double quote (")?`);
    this.fail(`Cannot parse the unexpected character "${String.fromCodePoint(this.src.codePointAt(this.i)!)}".`);
  }

  private here(): Position {
    return { line: this.line, column: this.points - this.lineStart + 1 };
  }

  private fail(msg: string): never {
    throw new GraphQLError(msg, this.here());
  }

  /** Moves n UTF-16 units forward, counting code points. */
  private advance(n: number): void {
    for (const end = this.i + n; this.i < end;) {
      const c = this.src.codePointAt(this.i)!;
      this.i += c > 0xffff ? 2 : 1;
      this.points++;
    }
  }

  private newLine(): void {
    this.line++;
    this.lineStart = this.points;
  }

  private skipIgnored(): void {
    while (this.i < this.src.length) {
      const ch = this.src[this.i]!;
      if (ch === " " || ch === "\t" || ch === "," || ch === "\ufeff") this.advance(1);
      else if (ch === "\n") {
        this.advance(1);
        this.newLine();
      } else if (ch === "\r") {
        this.advance(1);
        this.newLine();
        if (this.src[this.i] === "\n") this.advance(1);
      } else if (ch === "#") {
        // A comment runs to the end of the line (any character but a control one other than tab).
        while (this.i < this.src.length) {
          const c = this.src.charCodeAt(this.i);
          if (c > 0x1f || c === 0x09) this.advance(1);
          else break;
        }
      } else return;
    }
  }

  private digits(): number {
    const from = this.i;
    while (this.i < this.src.length && isDigit(this.src.charCodeAt(this.i))) this.advance(1);
    return this.i - from;
  }

  private describeNext(): string {
    return this.i < this.src.length ? `"${this.src[this.i]}"` : "<EOF>";
  }

  /** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; a fraction or exponent makes it a Float. */
  private number(start: Position): Token {
    const from = this.i;
    let float = false;
    if (this.src[this.i] === "-") this.advance(1);
    if (this.src[this.i] === "0") {
      this.advance(1);
      if (this.i < this.src.length && isDigit(this.src.charCodeAt(this.i))) this.fail(`Invalid number, unexpected digit after 0: ${this.describeNext()}.`);
    } else if (this.digits() === 0) this.fail(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    if (this.src[this.i] === ".") {
      float = true;
      this.advance(1);
      if (this.digits() === 0) this.fail(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    }
    if (this.src[this.i] === "e" || this.src[this.i] === "E") {
      float = true;
      this.advance(1);
      if (this.src[this.i] === "+" || this.src[this.i] === "-") this.advance(1);
      if (this.digits() === 0) this.fail(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    }
    return { kind: float ? "Float" : "Int", value: this.src.slice(from, this.i), pos: start };
  }

  /** A one-line string with JSON-like escapes; its position is the opening quote's. */
  private string(start: Position): Token {
    this.advance(1);
    let value = "";
    while (this.i < this.src.length) {
      const ch = this.src[this.i]!;
      const c = ch.charCodeAt(0);
      if (ch === "\n" || ch === "\r") break;
      if (c < 0x20 && c !== 0x09) this.fail(`Invalid character within String: "\\u${c.toString().padStart(4, "0")}".`);
      if (ch === '"') {
        this.advance(1);
        return { kind: "String", value, pos: start };
      }
      if (ch !== "\\") {
        const cp = this.src.codePointAt(this.i)!;
        value += String.fromCodePoint(cp);
        this.advance(cp > 0xffff ? 2 : 1);
        continue;
      }
      const esc = this.src[this.i + 1];
      if (esc === undefined) {
        this.advance(1);
        this.fail("Invalid character escape sequence.");
      }
      if (esc === "u") {
        const hex = this.src.slice(this.i + 2, this.i + 6);
        if (this.i + 6 >= this.src.length || !/^[0-9a-fA-F]{4}$/.test(hex)) {
          this.advance(1);
          this.fail(`Invalid character escape sequence: \\${this.src.slice(this.i, this.i + 5)}.`);
        }
        const cp = parseInt(hex, 16);
        // Go writes a lone surrogate as the replacement character.
        value += cp >= 0xd800 && cp <= 0xdfff ? "\ufffd" : String.fromCharCode(cp);
        this.advance(6);
        continue;
      }
      const simple: Record<string, string> = { '"': '"', "/": "/", "\\": "\\", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (simple[esc] === undefined) {
        this.advance(1);
        this.fail(`Invalid character escape sequence: \\${esc}.`);
      }
      value += simple[esc];
      this.advance(2);
    }
    this.fail("Unterminated string.");
  }

  /** A """block string""": raw text (only \""" escaped), line breaks normalised, then dedented. */
  private blockString(start: Position): Token {
    this.advance(3);
    let raw = "";
    while (this.i < this.src.length) {
      const ch = this.src[this.i]!;
      const c = ch.charCodeAt(0);
      if (this.src.startsWith('"""', this.i)) {
        this.advance(3);
        return { kind: "BlockString", value: blockStringValue(raw), pos: start };
      }
      if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) this.fail(`Invalid character within String: "\\u${c.toString().padStart(4, "0")}".`);
      if (this.src.startsWith('\\"""', this.i)) {
        raw += '"""';
        this.advance(4);
      } else if (ch === "\r") {
        if (this.src[this.i + 1] === "\n") this.advance(1);
        raw += "\n";
        this.advance(1);
        this.newLine();
      } else {
        const cp = this.src.codePointAt(this.i)!;
        raw += String.fromCodePoint(cp);
        this.advance(cp > 0xffff ? 2 : 1);
        if (ch === "\n") this.newLine();
      }
    }
    this.fail("Unterminated string.");
  }
}

/**
 * gqlparser's BlockStringValue: the smallest indentation of the non-blank
 * lines (the first one included, unlike the spec says) is removed from the
 * lines after the first, then leading and trailing blank lines are dropped.
 */
export function blockStringValue(raw: string): string {
  const lines = raw.split("\n");
  const indentOf = (l: string): number => l.length - l.replace(/^[ \t]+/, "").length;
  const blank = (l: string): boolean => indentOf(l) === l.length;
  let common: number | null = null;
  for (const l of lines) {
    if (!blank(l) && (common === null || indentOf(l) < common)) common = indentOf(l);
  }
  const out = lines.map((l, i) => (i === 0 || common === null ? l : l.length < common ? "" : l.slice(common)));
  while (out.length > 0 && blank(out[0]!)) out.shift();
  while (out.length > 0 && blank(out[out.length - 1]!)) out.pop();
  return out.join("\n");
}
