/**
 * Bodies and expressions (OPA's "literals"): `not`, `some`, `every`, `with`,
 * and the top-level `=` / `:=`, which bind looser than every infix operator.
 *
 * Expressions are separated by `;` or by a newline; two expressions on one
 * line are an error inside braces ("expected \n or ; or }"), while a query
 * (statement level) ends after each expression.
 */
import type { Body, EveryExpr, Expr, SomeDeclExpr, SomeInExpr, Term, TermExpr, VarTerm, With } from "../ast";
import { refTerm } from "./cursor";
import { tokenName, type TokenKind } from "./lexer";
import { TermParser } from "./terms";

export abstract class BodyParser extends TermParser {
  /** `not { ... }` bodies are enabled (`import future.keywords.not`). */
  protected notBodies = false;

  protected parseBody(end: TokenKind): Body | null {
    return this.parseQuery(false, end);
  }

  /**
   * Expressions up to (not past) `end`. With `requireSemi` (statements of a
   * module or query) only `;` continues the body; a newline ends it.
   */
  protected parseQuery(requireSemi: boolean, end: TokenKind): Body | null {
    if (this.is(end)) {
      this.error(this.loc(), "found empty body");
      return null;
    }
    const body: Body = [];
    for (;;) {
      const expr = this.parseLiteral();
      if (!expr) return null;
      body.push(expr);
      if (this.is(";")) {
        this.next();
        continue;
      }
      if (this.is(end) || requireSemi) return body;
      if (!this.tok.nl) {
        if (this.errors.length === 0) this.illegal(`expected \\n or ; or ${tokenName(end)}`);
        return null;
      }
    }
  }

  /** One expression, located at its first token (`not` included). */
  protected parseLiteral(): Expr | null {
    const loc = this.loc();
    if (this.keywordAsRef()) return this.parseLiteralExpr(false, loc);
    let negated = false;
    if (this.is("not")) {
      this.next();
      negated = true;
      if (this.notBodies && this.is("{")) {
        const negatedBody = this.parseNotBody(loc);
        if (negatedBody) return negatedBody;
      }
    }
    if (this.is("some")) {
      if (negated) {
        this.illegal("illegal negation of 'some'");
        return null;
      }
      return this.parseSome();
    }
    if (this.is("every")) {
      if (negated) {
        this.illegal("illegal negation of 'every'");
        return null;
      }
      return this.parseEvery();
    }
    return this.parseLiteralExpr(negated, loc);
  }

  /**
   * `not { a; b }`: true when the body has no solution. Read as the negation
   * of `[true | a; b][0]`, which is defined exactly when the body has one: the
   * body is a closure, as OPA's negated body is (outer vars bound before it,
   * its own vars local). Not a body (`not {1, 2}`): null, nothing consumed.
   */
  private parseNotBody(loc: TermExpr["loc"]): Expr | null {
    const s = this.save();
    this.next();
    const body = this.parseBody("}");
    if (!body || !this.is("}")) {
      this.restore(s);
      return null;
    }
    this.next();
    // `with` after the braces applies to the whole negated body, as in OPA (a bad one is already reported).
    const withs = this.is("with") ? (this.parseWith() ?? []) : [];
    const first: Term = { type: "arraycompr", term: { type: "boolean", value: true, loc }, body, loc };
    const term: Term = { type: "ref", terms: [first, { type: "number", value: "0", loc }], loc };
    return { type: "expr", kind: "term", term, negated: true, wholeNegated: true, with: withs, loc } satisfies TermExpr;
  }

  private parseLiteralExpr(negated: boolean, loc: TermExpr["loc"]): Expr | null {
    const term = this.parseExprTerm();
    if (!term) return null;
    const withs = this.is("with") ? this.parseWith() : [];
    if (!withs) return null;
    const expr: TermExpr = { type: "expr", kind: "term", term, negated, with: withs, loc };
    // `import future.keywords.not`: OPA 1.17 keeps every part of the expression inside the negation.
    return negated && this.notBodies ? { ...expr, wholeNegated: true } : expr;
  }

  /** `lhs`, or `lhs = rhs` / `lhs := rhs` as an eq / assign call. */
  private parseExprTerm(): Term | null {
    const lhs = this.parseTermInfixCall();
    if (!lhs) return null;
    if (!this.is(":=", "=")) return lhs;
    const op = this.operator();
    const rhs = this.parseTermInfixCall();
    return rhs && { type: "call", op, args: [lhs, rhs], loc: lhs.loc };
  }

  /** `with target as value` clauses, one or more. */
  protected parseWith(): With[] | null {
    const withs: With[] = [];
    while (this.is("with")) {
      const loc = this.loc();
      this.next();
      if (!this.is("ident")) {
        this.illegal("expected ident");
        return null;
      }
      const target = this.parseTerm();
      if (!target) return null;
      if (target.type !== "ref" && target.type !== "var") this.illegal("expected with target path");
      if (!this.is("as")) {
        this.illegal("expected as keyword");
        return null;
      }
      this.next();
      const value = this.parseTermInfixCall();
      if (!value) return null;
      const ref = target.type === "ref" ? target : refTerm([target], target.loc);
      withs.push({ target: ref, value, loc });
    }
    return withs;
  }

  /** `some x, y` or `some [k, ]v in xs`. */
  private parseSome(): Expr | null {
    const loc = this.loc();
    const s = this.save();
    this.next();
    const term = this.parseTermInfixCall();
    if (term && term.type === "call") {
      const arity = memberArity(term);
      if (!arity) {
        this.illegal("expected `x in xs` or `x, y in xs` expression");
        return null;
      }
      if (arity !== term.args.length) {
        this.illegal("illegal domain");
        return null;
      }
      const { key, value, collection } = memberParts(term.args);
      const withs = this.is("with") ? this.parseWith() : [];
      if (!withs) return null;
      return { type: "expr", kind: "somein", key, value, collection, negated: false, with: withs, loc } satisfies SomeInExpr;
    }
    this.restore(s);
    const vars: VarTerm[] = [];
    for (;;) {
      this.next();
      if (!this.is("ident")) {
        this.illegal("expected var");
        return null;
      }
      vars.push({ type: "var", name: this.tok.text, loc: this.loc() });
      this.next();
      if (!this.is(",")) break;
    }
    return { type: "expr", kind: "some", vars, negated: false, with: [], loc } satisfies SomeDeclExpr;
  }

  /** `every [k, ]v in xs { body }`. */
  private parseEvery(): Expr | null {
    const loc = this.loc();
    this.next();
    const term = this.parseTermInfixCall();
    if (!term) return null;
    const arity = term.type === "call" ? memberArity(term) : 0;
    if (term.type !== "call" || !arity) {
      this.illegal("expected `x[, y] in xs { ... }` expression");
      return null;
    }
    if (arity !== term.args.length) {
      this.illegal("illegal domain");
      return null;
    }
    const { key, value, collection: domain } = memberParts(term.args);
    if (key && key.type !== "var") {
      this.illegal("expected key to be a variable");
      return null;
    }
    if (value.type !== "var") {
      this.illegal("expected value to be a variable");
      return null;
    }
    if (!this.is("{")) {
      this.illegal("missing body");
      return null;
    }
    this.next();
    const body = this.parseBody("}");
    if (!body) return null;
    this.next();
    const withs = this.is("with") ? this.parseWith() : [];
    if (!withs) return null;
    return { type: "expr", kind: "every", key, value, domain, body, negated: false, with: withs, loc } satisfies EveryExpr;
  }
}

/** The operands of a member call: `[k, ]v in collection`. */
function memberParts(args: Term[]): { key: Term | null; value: Term; collection: Term } {
  return args.length === 3 ? { key: args[0], value: args[1], collection: args[2] } : { key: null, value: args[0], collection: args[1] };
}

/** 2 for a call of `internal.member_2` (`x in xs`), 3 for `internal.member_3` (`k, v in xs`), else 0. */
function memberArity(call: Extract<Term, { type: "call" }>): 0 | 2 | 3 {
  const [head, name] = call.op.terms;
  if (call.op.terms.length !== 2 || head.type !== "var" || head.name !== "internal" || name.type !== "string") return 0;
  if (name.value === "member_2") return 2;
  if (name.value === "member_3") return 3;
  return 0;
}
