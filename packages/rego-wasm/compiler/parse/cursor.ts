/**
 * The parser's cursor over the token array: current token, backtracking and
 * error collection, shared by the term, body and rule parsers.
 *
 * Like OPA's parser, a failed production returns null and records an error in
 * the cursor state; callers that try alternatives save() the state first and
 * restore() it, which also forgets the errors of the abandoned attempt. Errors
 * still recorded when parsing ends are the parse errors reported.
 */
import type { Location, RefTerm, StringTerm, Term, VarTerm } from "../ast";
import { KEYWORDS, tokenName, type Token, type TokenKind } from "./lexer";

/** A recorded parse error; made a CompileError only if it survives (building Errors is costly). */
export interface ParseProblem {
  loc: Location;
  message: string;
}

export interface CursorState {
  pos: number;
  asIdent: boolean;
  errors: readonly ParseProblem[];
}

export class Cursor {
  protected pos = 0;
  /**
   * The current token is a keyword read as an identifier: OPA allows keywords
   * as the first segment of a ref (`if.foo`, `not.bar[x]`) and flips the token
   * to an identifier once it has looked ahead.
   */
  protected asIdent = false;
  protected errors: readonly ParseProblem[] = [];

  constructor(
    protected readonly tokens: Token[],
    protected readonly file: string,
  ) {}

  protected get tok(): Token {
    return this.tokens[this.pos];
  }

  /** Kind of the current token, `ident` for a keyword read as an identifier. */
  protected get kind(): TokenKind {
    return this.asIdent ? "ident" : this.tokens[this.pos].kind;
  }

  protected is(...kinds: TokenKind[]): boolean {
    return kinds.includes(this.kind);
  }

  /** The current token is one of `kinds` and directly follows the previous token. */
  protected isAdjacent(...kinds: TokenKind[]): boolean {
    return !this.tok.ws && this.is(...kinds);
  }

  protected next(): void {
    if (this.pos < this.tokens.length - 1) this.pos++;
    this.asIdent = false;
  }

  protected save(): CursorState {
    return { pos: this.pos, asIdent: this.asIdent, errors: this.errors };
  }

  protected restore(s: CursorState): void {
    this.pos = s.pos;
    this.asIdent = s.asIdent;
    this.errors = s.errors;
  }

  protected loc(t: Token = this.tok): Location {
    return { file: this.file, row: t.row, col: t.col };
  }

  protected error(loc: Location, message: string): void {
    this.errors = [...this.errors, { loc, message }];
  }

  /** OPA's `illegal`: "unexpected <token> token|keyword[: note]" at the current token. */
  protected illegal(note = ""): void {
    const kind = this.kind;
    const what = KEYWORDS.has(kind) ? `${kind} keyword` : `${tokenName(kind)} token`;
    this.error(this.loc(), note ? `unexpected ${what}: ${note}` : `unexpected ${what}`);
  }

  /**
   * A keyword directly followed by `.` or `[` starts a ref (`if.foo`): read it
   * as an identifier. Returns whether it did (OPA's scanAheadRef).
   */
  protected keywordAsRef(): boolean {
    if (this.asIdent || !KEYWORDS.has(this.tok.kind)) return false;
    const after = this.tokens[this.pos + 1];
    if (after && !after.ws && (after.kind === "." || after.kind === "[")) {
      this.asIdent = true;
      return true;
    }
    return false;
  }
}

// ---------------------------------------------------------------- node helpers

export const varTerm = (name: string, loc: Location): VarTerm => ({ type: "var", name, loc });
export const stringTerm = (value: string, loc: Location): StringTerm => ({ type: "string", value, loc });
export const refTerm = (terms: Term[], loc: Location): RefTerm => ({ type: "ref", terms, loc });

/** OPA's ValueName, used in messages ("array cannot be used for rule name"). */
export function valueName(t: Term): string {
  switch (t.type) {
    case "arraycompr":
      return "arraycomprehension";
    case "setcompr":
      return "setcomprehension";
    case "objectcompr":
      return "objectcomprehension";
    default:
      return t.type;
  }
}

/** Whether a term contains no variables (OPA's IsGround, which ignores a ref's head). */
export function isGround(t: Term): boolean {
  switch (t.type) {
    case "null":
    case "boolean":
    case "number":
    case "string":
      return true;
    case "ref":
      return t.terms.slice(1).every(isGround);
    case "array":
    case "set":
      return t.items.every(isGround);
    case "object":
      return t.items.every(([k, v]) => isGround(k) && isGround(v));
    default:
      return false;
  }
}

/** Renders a ref the way OPA prints it in messages: `p.q[x]["a b"]`. */
export function refString(terms: Term[]): string {
  return terms
    .map((t, i) => {
      if (i === 0) return termString(t);
      if (t.type === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) return "." + t.value;
      return `[${termString(t)}]`;
    })
    .join("");
}

function termString(t: Term): string {
  switch (t.type) {
    case "var":
      return t.name;
    case "string":
      return JSON.stringify(t.value);
    case "number":
      return t.value;
    case "boolean":
      return String(t.value);
    case "null":
      return "null";
    case "ref":
      return refString(t.terms);
    case "call":
      return `${refString(t.op.terms)}(${t.args.map(termString).join(", ")})`;
    case "array":
      return `[${t.items.map(termString).join(", ")}]`;
    case "set":
      return t.items.length ? `{${t.items.map(termString).join(", ")}}` : "set()";
    case "object":
      return `{${t.items.map(([k, v]) => `${termString(k)}: ${termString(v)}`).join(", ")}}`;
    default:
      return t.type;
  }
}
