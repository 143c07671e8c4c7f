/**
 * Template strings in function arguments: `f($"{x}-{y}") := ... if { x := ... }`.
 *
 * Arguments are patterns unified with the call's operands before the body
 * runs, but a template string is a computed value (the call
 * `internal.template_string([...])`, see parse/template.ts) whose embedded
 * expressions may use the body's vars. As OPA's compiler does, each one is
 * replaced by a fresh var, and the body gets `var = <template string>`:
 * safety reordering then places it after whatever binds its vars.
 */
import type { Body, CallTerm, Term, TermExpr } from "../ast";

export function isTemplateString(t: Term): t is CallTerm {
  if (t.type !== "call" || t.op.terms.length !== 2) return false;
  const [head, name] = t.op.terms;
  return head!.type === "var" && head!.name === "internal" && name!.type === "string" && name!.value === "template_string";
}

/** `args` with every template string (outside closures) replaced by a var, and the bindings for the body. */
export function hoistTemplateArgs(args: Term[]): { args: Term[]; binds: Body } {
  const binds: Body = [];
  const hoist = (t: Term): Term => {
    if (isTemplateString(t)) {
      const v: Term = { type: "var", name: `$targ${binds.length}`, loc: t.loc };
      const eq: Term = { type: "call", op: { type: "ref", terms: [{ type: "var", name: "eq", loc: t.loc }], loc: t.loc }, args: [v, t], loc: t.loc };
      binds.push({ type: "expr", kind: "term", term: eq, negated: false, with: [], loc: t.loc } satisfies TermExpr);
      return v;
    }
    switch (t.type) {
      case "array":
      case "set":
        return { ...t, items: t.items.map(hoist) };
      case "object":
        return { ...t, items: t.items.map(([k, v]) => [hoist(k), hoist(v)] as [Term, Term]) };
      default:
        return t;
    }
  };
  return { args: args.map(hoist), binds };
}
