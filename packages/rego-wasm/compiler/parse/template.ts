/**
 * Template strings (`$"Hello {input.name}!"`, raw form `` $`...` ``), OPA v1.12.
 *
 * They get no node of their own: the parser lowers each one straight to the
 * call OPA's compiler lowers it to (StageRewriteTemplateStrings),
 *
 *   internal.template_string([part, ...])
 *
 * where a part is text (literal, or a scalar written in the braces), or for
 * any other embedded expression the set of its values, as the comprehension
 * `{$tmpl<n> | $tmpl<n> = expr with ...}`. The set is empty when the
 * expression is undefined (rendered `<undefined>`); more than one value is a
 * runtime error. The comprehension makes the expression a closure, so the
 * checker's usual rules apply to it: its free vars must be bound outside,
 * and it never binds anything in the enclosing body.
 * The builtin itself renders the parts (runtime builtins/template-string.ts).
 */
import type { CallTerm, Expr, Location, SetComprehension, StringTerm, Term, TermExpr } from "../ast";
import { refTerm, stringTerm, varTerm } from "./cursor";

/** OPA's parse error for an expression that may not stand in a template string, or null. */
export function templateExprProblem(e: Expr): string | null {
  if (e.kind === "every") return "unexpected 'every' in template-string expression";
  if (e.kind === "some" || e.kind === "somein") return "unexpected 'some' in template-string expression";
  if (e.negated) return "unexpected negation ('not') in template-string expression";
  if (e.term.type === "call" && e.term.op.terms.length === 1 && e.term.op.terms[0]!.type === "var") {
    const op = e.term.op.terms[0]!.name;
    if (op === "eq") return "unexpected unification ('=') in template-string expression";
    if (op === "assign") return "unexpected assignment (':=') in template-string expression";
  }
  return null;
}

/**
 * The term for a template string's parts (text as string terms, embedded
 * expressions as parsed). `counter` numbers the comprehension vars: they are
 * named with a `$`, like the checker's wildcards, so they can neither clash
 * with a user's var nor show up in query results.
 */
export function lowerTemplateString(parts: Array<Term | Expr>, loc: Location, counter: { n: number }): CallTerm | StringTerm {
  const items = parts.map((p): Term => {
    if (p.type !== "expr") return p;
    const e = p as TermExpr;
    // A scalar written in the braces is rendered here, as OPA renders it: a
    // number as written (`1e3`, not `1000`).
    const t = e.term;
    switch (t.type) {
      case "string":
        return t;
      case "number":
        return stringTerm(t.value, t.loc);
      case "boolean":
        return stringTerm(String(t.value), t.loc);
      case "null":
        return stringTerm("null", t.loc);
    }
    const v = varTerm(`$tmpl${counter.n++}`, e.loc);
    const bind: TermExpr = {
      type: "expr",
      kind: "term",
      term: { type: "call", op: refTerm([varTerm("eq", e.loc)], e.loc), args: [v, e.term], loc: e.loc },
      negated: false,
      with: e.with,
      loc: e.loc,
    };
    return { type: "setcompr", term: v, body: [bind], loc: e.loc } satisfies SetComprehension;
  });
  // Text alone is a constant (`default p := $"v{1}"` stays a valid default).
  if (items.every((t) => t.type === "string")) return stringTerm(items.map((t) => (t as StringTerm).value).join(""), loc);
  const op = refTerm([varTerm("internal", loc), stringTerm("template_string", loc)], loc);
  return { type: "call", op, args: [{ type: "array", items, loc }], loc };
}
