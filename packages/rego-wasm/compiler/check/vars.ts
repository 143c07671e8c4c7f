/**
 * Variable collection over checked (or unchecked) AST terms and expressions.
 *
 * "Vars" never include the root documents `data` and `input`, nor the names
 * of called functions: those are not variables a body must bind.
 * Closures (comprehensions, `every` bodies) are visited only on request,
 * because safety treats them apart: their free vars must be bound before the
 * closure runs, but they never bind anything outside.
 */
import type { Body, Expr, Term } from "../ast";
import { someTerm, visitBody, visitExpr, visitTerm, type TermVisitor } from "../walk";

export const ROOTS = new Set(["data", "input"]);

/** Adds the vars of `t` to `out`; closures are skipped unless `closures`. */
export function termVars(t: Term, out: Set<string>, closures = false): Set<string> {
  visitTerm(t, varsInto(out, closures));
  return out;
}

/** Vars an expression mentions outside its closures (with `closures`, inside too). */
export function exprVars(e: Expr, out: Set<string>, closures = false): Set<string> {
  visitExpr(e, varsInto(out, closures));
  return out;
}

export function bodyVars(body: Body, out: Set<string>, closures = false): Set<string> {
  visitBody(body, varsInto(out, closures));
  return out;
}

/** Vars mentioned inside the closures (comprehensions, `every`) of an expression. */
export function closureVars(e: Expr): Set<string> {
  const out = new Set<string>();
  visitExpr(e, {
    term: (t, inClosure) => {
      if (inClosure && t.type === "var" && !ROOTS.has(t.name)) out.add(t.name);
    },
  });
  return out;
}

function varsInto(out: Set<string>, closures: boolean): TermVisitor {
  return {
    closures,
    term: (t) => {
      if (t.type === "var" && !ROOTS.has(t.name)) out.add(t.name);
    },
  };
}

/**
 * A constant: a scalar, or an array, set or object of constants (no var, ref,
 * call or closure anywhere). Not OPA's IsGround (parse/cursor.ts isGround),
 * which also takes a ref whose operands are ground.
 */
export function isConstant(t: Term): boolean {
  return !someTerm(t, (x) => !LITERAL_KINDS.has(x.type));
}

const LITERAL_KINDS: ReadonlySet<Term["type"]> = new Set(["null", "boolean", "number", "string", "array", "set", "object"]);
