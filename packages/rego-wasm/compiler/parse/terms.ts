/**
 * Terms and infix operators, after OPA's parser (v1/ast/parser.go).
 *
 * Precedence, loosest first, each level left associative:
 *   in (`x in xs`, `k, v in xs`)  <  == != < > <= >=  <  |  <  &  <  + -  <  * / %
 * Inside collections and call arguments the `k, v in xs` form is off (the
 * comma separates items). `{a | b}` and `[a | b]` are comprehensions, not `or`
 * calls: composites first try a single term and fall back to an infix term.
 * A ref or call continues only when `.`, `[` or `(` directly follows.
 * Collections are parsed by the base class (collections.ts).
 */
import type { CallTerm, Expr, RefTerm, SetTerm, Term } from "../ast";
import { CollectionParser } from "./collections";
import { refTerm, stringTerm, varTerm } from "./cursor";
import { KEYWORDS, tokenName, type TokenKind } from "./lexer";
import { lowerTemplateString, templateExprProblem } from "./template";

const RELATIONS: TokenKind[] = ["==", "!=", "<", ">", "<=", ">="];
/** Tokens that may not directly follow a rule name (OPA's parseHeadFinish). */
const HEAD_INFIX: TokenKind[] = ["+", "-", "*", "/", "%", "&", "|", ...RELATIONS];
/** Binary exponents beyond this are rejected as "number too big", as in OPA. */
const MAX_BINARY_EXPONENT = 1e5;

export abstract class TermParser extends CollectionParser {
  /**
   * Successful parseTerm results by start position: composites are parsed
   * twice on fallback. Backtracking never crosses a statement, so the
   * statement loop clears it (`forgetTerms`) to keep it small.
   */
  private readonly termCache = new Map<number, { term: Term; end: number }>();
  /** Numbers the vars that template strings introduce (see template.ts). */
  private readonly templateVars = { n: 0 };

  /** One expression with its `with` modifiers (body.ts). */
  protected abstract parseLiteral(): Expr | null;

  protected forgetTerms(): void {
    this.termCache.clear();
  }

  /** An infix term, with `k, v in xs` allowed. */
  protected parseTermInfixCall(): Term | null {
    return this.parseTermIn(null, true);
  }

  /** An infix term inside a collection or argument list. */
  protected parseTermInfixCallInList(): Term | null {
    return this.parseTermIn(null, false);
  }

  private parseTermIn(lhs: Term | null, keyVal: boolean): Term | null {
    lhs ??= this.parseTermRelation();
    if (!lhs) return null;
    if (keyVal && this.is(",")) {
      const s = this.save();
      this.next();
      const mhs = this.parseTermRelation();
      if (mhs && this.is("in")) {
        const op = this.memberOp(3);
        this.next();
        const rhs = this.parseTermRelation();
        if (rhs) {
          const call = callTerm(op, [lhs, mhs, rhs], lhs);
          return this.is("in") ? this.parseTermIn(call, keyVal) : call;
        }
      }
      this.restore(s);
    }
    this.keywordAsRef();
    if (this.is("in")) {
      const op = this.memberOp(2);
      this.next();
      const rhs = this.parseTermRelation();
      if (rhs) {
        const call = callTerm(op, [lhs, rhs], lhs);
        return this.is("in") ? this.parseTermIn(call, keyVal) : call;
      }
    }
    return lhs;
  }

  private memberOp(arity: 2 | 3): RefTerm {
    const loc = this.loc();
    return refTerm([varTerm("internal", loc), stringTerm(`member_${arity}`, loc)], loc);
  }

  /** One left-associative binary level: `sub (op sub)*`. */
  private binary(ops: TokenKind[], sub: () => Term | null): Term | null {
    let lhs = sub();
    while (lhs && this.is(...ops)) {
      const op = this.operator();
      const rhs = sub();
      if (!rhs) return lhs;
      lhs = callTerm(op, [lhs, rhs], lhs);
    }
    return lhs;
  }

  private parseTermRelation = (): Term | null => this.binary(RELATIONS, this.parseTermOr);
  private parseTermOr = (): Term | null => this.binary(["|"], this.parseTermAnd);
  private parseTermAnd = (): Term | null => this.binary(["&"], this.parseTermArith);
  private parseTermArith = (): Term | null => this.binary(["+", "-"], this.parseTermFactor);
  private parseTermFactor = (): Term | null => this.binary(["*", "/", "%"], () => this.parseTerm());

  /** The current operator token as the ref of the builtin it calls; advances. */
  protected operator(): RefTerm {
    const loc = this.loc();
    const op = refTerm([varTerm(tokenName(this.kind), loc)], loc);
    this.next();
    return op;
  }

  /** One term with its ref / call continuation. Leaves the cursor after it. */
  protected parseTerm(): Term | null {
    const key = this.pos * 2 + (this.asIdent ? 1 : 0);
    const cached = this.termCache.get(key);
    if (cached) {
      this.pos = cached.end;
      this.asIdent = false;
      return cached.term;
    }
    const term = this.parseTermFinish(this.parseTermHead());
    if (term) this.termCache.set(key, { term, end: this.pos });
    return term;
  }

  /** The term itself; composites leave the cursor on their closing token. */
  private parseTermHead(): Term | null {
    const loc = this.loc();
    switch (this.kind) {
      case "null":
        return { type: "null", loc };
      case "true":
        return { type: "boolean", value: true, loc };
      case "false":
        return { type: "boolean", value: false, loc };
      case "-":
      case ".":
      case "number":
        return this.parseNumber();
      case "string":
        return stringTerm(this.tok.value ?? "", loc);
      case "template":
        return this.parseTemplateString();
      case "ident":
      case "contains":
        return varTerm(this.tok.text, loc);
      case "[":
        return this.parseArray();
      case "{":
        return this.parseSetOrObject();
      case "(": {
        this.next();
        const inner = this.parseTermInfixCall();
        if (!inner) return null;
        if (!this.is(")")) {
          this.error(this.loc(), "non-terminated expression");
          return null;
        }
        return inner;
      }
      default:
        this.illegal();
        return null;
    }
  }

  /** Steps over the head's last token and parses an adjacent ref/call continuation. */
  private parseTermFinish(head: Term | null): Term | null {
    if (!head) return null;
    this.next();
    if (this.isAdjacent("(", ".", "[")) return this.parseRef(head);
    return rootRef(head);
  }

  /**
   * A rule head's name: like parseTermFinish, but `.`, `[` and `(` continue
   * the ref after whitespace too, and an operator directly after is an error.
   */
  protected parseHeadFinish(head: Term): Term | null {
    this.next();
    if (this.isAdjacent(...HEAD_INFIX)) this.illegal();
    if (this.is("(", ".", "[")) return this.parseRef(head);
    return rootRef(head);
  }

  private parseRef(head: Term): Term | null {
    switch (head.type) {
      case "var":
      case "array":
      case "object":
      case "set":
      case "arraycompr":
      case "setcompr":
      case "objectcompr":
      case "call":
        break;
      default:
        this.error(head.loc, `illegal ref (head cannot be ${head.type})`);
    }
    const terms: Term[] = [head];
    for (;;) {
      if (this.is(".")) {
        this.next();
        if (this.tok.ws) {
          this.error(this.loc(), "unexpected whitespace token: expected identifier");
          return null;
        }
        if (this.tok.kind !== "ident" && !this.isKeywordToken()) {
          this.illegal("expected identifier");
          return null;
        }
        terms.push(stringTerm(this.tok.text, this.loc()));
        this.next();
      } else if (this.is("(")) {
        const call = this.parseCall(refTerm(terms, head.loc));
        if (call && this.isAdjacent(".", "[")) return this.parseRef(call);
        return call;
      } else if (this.is("[")) {
        this.next();
        const term = this.parseTermInfixCall();
        if (!term) return null;
        if (!this.is("]")) {
          this.illegal("expected ]");
          return null;
        }
        terms.push(term);
        this.next();
      } else {
        return refTerm(terms, head.loc);
      }
      if (!this.isAdjacent(".", "[", "(")) return refTerm(terms, head.loc);
    }
  }

  private isKeywordToken(): boolean {
    return KEYWORDS.has(this.tok.kind);
  }

  /** `op(args)`; `set()` is the empty set. Leaves the cursor after `)`. */
  private parseCall(op: RefTerm): Term | null {
    this.next();
    if (this.is(")")) {
      this.next();
      if (op.terms.length === 1 && op.terms[0].type === "var" && op.terms[0].name === "set") {
        return { type: "set", items: [], loc: op.loc } satisfies SetTerm;
      }
      return { type: "call", op, args: [], loc: op.loc } satisfies CallTerm;
    }
    const args = this.parseTermList(")", []);
    if (!args) return null;
    this.next();
    return { type: "call", op, args, loc: op.loc } satisfies CallTerm;
  }

  /**
   * `$"text {expr} text"`: pieces of text alternate with embedded expressions
   * (the lexer cut the text at each unescaped `{` and resumes it after the
   * matching `}`). Leaves the cursor on the last piece.
   */
  private parseTemplateString(): Term | null {
    const loc = this.loc();
    const parts: Array<Term | Expr> = [];
    for (;;) {
      const piece = this.tok;
      if (piece.value) parts.push(stringTerm(piece.value, this.loc()));
      if (piece.templateEnd) break;
      this.next();
      const expr = this.parseLiteral();
      if (!expr) {
        this.error(this.loc(), "invalid template-string expression");
        return null;
      }
      const problem = templateExprProblem(expr);
      if (problem) {
        this.error(expr.loc, problem);
        return null;
      }
      if (!this.is("}")) {
        this.error(this.loc(), "expected } to end template string expression");
        return null;
      }
      this.next();
      parts.push(expr);
    }
    return lowerTemplateString(parts, loc, this.templateVars);
  }

  private parseNumber(): Term | null {
    const loc = this.loc();
    let prefix = "";
    if (this.is("-")) {
      prefix = "-";
      this.next();
      if (!this.is("number", ".")) {
        this.illegal("expected number");
        return null;
      }
    }
    if (this.is(".")) {
      prefix += ".";
      this.next();
      if (!this.is("number")) {
        this.illegal("expected number");
        return null;
      }
    }
    const lit = this.tok.text;
    if (!prefix.endsWith(".") && lit.length > 1 && lit[0] === "0" && !/^0(\.|[eE].)/.test(lit)) {
      this.illegal("expected number without leading zero");
      return null;
    }
    const text = prefix + lit;
    if (Math.abs(decimalExponent(text) * Math.log2(10)) > MAX_BINARY_EXPONENT) {
      this.error(this.loc(), "number too big");
      return null;
    }
    // `.5` is OPA's number ".5"; spelled "0.5" here so that the text stays valid JSON.
    return { type: "number", value: text.replace(/^(-?)\./, "$10."), loc };
  }
}

/** A call located at its first operand, as OPA locates infix calls. */
function callTerm(op: RefTerm, args: Term[], first: Term): CallTerm {
  return { type: "call", op, args, loc: first.loc };
}

/** The root documents `data` and `input` are refs even when written bare. */
function rootRef(t: Term): Term {
  if (t.type === "var" && (t.name === "data" || t.name === "input")) return refTerm([t], t.loc);
  return t;
}

/**
 * The power of ten of a number literal's leading digit (`12.5e3` is 4), so
 * that absurd exponents are refused without building the number.
 */
function decimalExponent(text: string): number {
  const m = /^-?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return 0;
  const [, int = "", frac = "", exp = "0"] = m;
  const digits = int + frac;
  const first = digits.search(/[1-9]/);
  if (first < 0) return 0;
  return Number(exp) + int.length - 1 - first;
}
