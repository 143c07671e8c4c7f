/**
 * OPA's RewriteEquals stage: in rule bodies, an expression `a == b` is
 * evaluated as the unification `a = b` once safety has been checked.
 *
 * Safety treats `==` as a builtin with no outputs, so the rewrite changes no
 * result (both sides are bound by then); what it changes is how the planner
 * binds vars that the expression's own refs iterate: in
 * `some k; k == xs[k]` the var `k` is bound only while `xs[k]` is scanned,
 * which unification plans (the var side is matched after the ref side) and a
 * plain comparison of the two operands, planned left to right, cannot.
 *
 * Only expression-level calls are rewritten, never a nested `a == b` whose
 * boolean value is used (`x := a == b`). Queries are not rewritten (OPA's query
 * compiler does not either).
 */
import type { Body, Expr, RefTerm, Term } from "../ast";
import { mapExprParts, mapTermParts } from "../walk";

export function rewriteEqualsBody(body: Body): Body {
  return body.map(rewriteExpr);
}

export function rewriteEqualsTerm(t: Term): Term {
  return mapTermParts(t, rewriteEqualsTerm, rewriteEqualsBody);
}

function rewriteExpr(e: Expr): Expr {
  const out = mapExprParts(e, rewriteEqualsTerm, rewriteEqualsBody);
  return out.kind === "term" && isDoubleEquals(out.term) ? { ...out, term: { ...out.term, op: unifyOp(out.term.op) } } : out;
}

function isDoubleEquals(t: Term): t is Term & { type: "call" } {
  if (t.type !== "call" || t.args.length !== 2 || t.op.terms.length !== 1) return false;
  const head = t.op.terms[0]!;
  return head.type === "var" && head.name === "equal";
}

function unifyOp(op: RefTerm): RefTerm {
  return { ...op, terms: [{ type: "var", name: "eq", loc: op.loc }] };
}
