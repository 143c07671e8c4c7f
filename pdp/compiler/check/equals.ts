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

export function rewriteEqualsBody(body: Body): Body {
  return body.map(rewriteExpr);
}

export function rewriteEqualsTerm(t: Term): Term {
  switch (t.type) {
    case "ref":
      return { ...t, terms: t.terms.map(rewriteEqualsTerm) };
    case "array":
    case "set":
      return { ...t, items: t.items.map(rewriteEqualsTerm) };
    case "object":
      return { ...t, items: t.items.map(([k, v]) => [rewriteEqualsTerm(k), rewriteEqualsTerm(v)] as [Term, Term]) };
    case "call":
      return { ...t, args: t.args.map(rewriteEqualsTerm) };
    case "arraycompr":
    case "setcompr":
      return { ...t, term: rewriteEqualsTerm(t.term), body: rewriteEqualsBody(t.body) };
    case "objectcompr":
      return { ...t, key: rewriteEqualsTerm(t.key), value: rewriteEqualsTerm(t.value), body: rewriteEqualsBody(t.body) };
    default:
      return t;
  }
}

function rewriteExpr(e: Expr): Expr {
  const withs = e.with.map((w) => ({ ...w, value: rewriteEqualsTerm(w.value) }));
  switch (e.kind) {
    case "term": {
      const t = rewriteEqualsTerm(e.term);
      return { ...e, term: isDoubleEquals(t) ? { ...t, op: unifyOp(t.op) } : t, with: withs };
    }
    case "somein":
      return { ...e, collection: rewriteEqualsTerm(e.collection), with: withs };
    case "every":
      return { ...e, domain: rewriteEqualsTerm(e.domain), body: rewriteEqualsBody(e.body), with: withs };
    default:
      return e;
  }
}

function isDoubleEquals(t: Term): t is Term & { type: "call" } {
  if (t.type !== "call" || t.args.length !== 2 || t.op.terms.length !== 1) return false;
  const head = t.op.terms[0]!;
  return head.type === "var" && head.name === "equal";
}

function unifyOp(op: RefTerm): RefTerm {
  return { ...op, terms: [{ type: "var", name: "eq", loc: op.loc }] };
}
