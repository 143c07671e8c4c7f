/**
 * The parts of a negated expression OPA evaluates *before* the `not`.
 *
 * OPA's compiler rewrites every body (ast/compile.go) so that some parts of
 * an expression become expressions of their own, placed just before it and
 * carrying its `with` modifiers; for a negated expression they stay outside
 * the negation. When one of them is undefined the body fails, where
 * negating the whole expression would have made it true:
 * `allow if not blocked(input.user)` is undefined when input.user is missing
 * (OPA issues #1877, #4743, #7558, #8387). Two stages do it:
 *
 * - RewriteExprTerms (expandExpr / expandExprTerm / expandExprRef): every
 *   call nested in the expression's operands, in array/object/set items and
 *   in refs, innermost first; and a ref's head when it is a collection or a
 *   comprehension (`[1, 2][i]`), or a call (`f(x).foo`).
 * - RewriteDynamicTerms (rewriteDynamics), after RewriteEquals has made `==`
 *   in rule bodies `=` (queries keep `==` a call):
 *   - a call (`f(a)`, `a > b`, `a != b`, `x in xs`): each operand that is a
 *     ref (keys first) or a comprehension, also inside array/object/set
 *     operands (rewriteDynamicsOne);
 *   - `a = b`, and an expression that is a single term: a ref side is not
 *     itself moved out, only the refs and comprehensions in its keys; any
 *     other side as for a call operand (rewriteDynamicsInTerm).
 *   A var named `input` or `data` is a ref here, as in OPA once resolved.
 *
 * Elsewhere evaluating those parts earlier changes no result, so only
 * negated expressions are rewritten here. Comprehensions are moved out as
 * OPA moves them, though a comprehension is never undefined. The ones that
 * OPA writes inside comprehension and `every` bodies are planned there (each
 * body's negated expressions go through here). With `import
 * future.keywords.not` (OPA 1.17, `TermExpr.wholeNegated`) nothing moves.
 */
import type { CallTerm, RefTerm, Term } from "../ast";
import { dottedName } from "../check/resolve";

/** A part evaluated before the negation, bound to a var the rewritten expression reads. */
export interface Hoisted {
  name: string;
  term: Term;
}

export interface SplitNegation {
  /** In evaluation order; a later part may read an earlier one's var. */
  before: Hoisted[];
  /** The expression under `not`, its hoisted parts replaced by their vars. */
  term: Term;
}

/** `t` is the term of a negated expression; `fresh` names a var no Rego code can spell. */
export function splitNegated(t: Term, fresh: () => string): SplitNegation {
  const before: Hoisted[] = [];
  const hoist = (term: Term): Term => {
    const name = fresh();
    before.push({ name, term });
    return { type: "var", name, loc: term.loc };
  };

  // RewriteExprTerms.
  const expand = (x: Term): Term => {
    switch (x.type) {
      case "call":
        return hoist({ ...x, args: x.args.map(expand) });
      case "ref": {
        const [head, ...rest] = x.terms.map(expand);
        const subject = isCollection(head!) ? hoist(head!) : head!;
        return { ...x, terms: [subject, ...rest] };
      }
      case "array":
      case "set":
        return { ...x, items: x.items.map(expand) };
      case "object":
        return { ...x, items: x.items.map(([k, v]): [Term, Term] => [expand(k), expand(v)]) };
      default:
        return x;
    }
  };

  // RewriteDynamicTerms: rewriteDynamicsOne.
  const dynamicOne = (x: Term): Term => {
    switch (x.type) {
      case "ref":
        return hoist(dynamicKeys(x));
      case "var":
        return isRootDocument(x) ? hoist(x) : x;
      case "array":
      case "set":
        return { ...x, items: x.items.map(dynamicOne) };
      case "object":
        return { ...x, items: x.items.map(([k, v]): [Term, Term] => [dynamicOne(k), dynamicOne(v)]) };
      case "arraycompr":
      case "setcompr":
      case "objectcompr":
        return hoist(x);
      default:
        return x;
    }
  };
  const dynamicKeys = (r: RefTerm): RefTerm => ({ ...r, terms: [r.terms[0]!, ...r.terms.slice(1).map(dynamicOne)] });
  // rewriteDynamicsInTerm: a ref or comprehension stays where it is.
  const dynamicInTerm = (x: Term): Term => {
    if (x.type === "ref") return dynamicKeys(x);
    if (x.type === "arraycompr" || x.type === "setcompr" || x.type === "objectcompr" || isRootDocument(x)) return x;
    return dynamicOne(x);
  };

  if (t.type !== "call") return { term: dynamicInTerm(expand(t)), before };
  // print() is OPA's to rewrite differently (each operand a set of its values): left whole.
  if (dottedName(t.op) === "print") return { term: t, before };
  const args = t.args.map(expand);
  const rewritten = isUnification(t) ? args.map(dynamicInTerm) : args.map(dynamicOne);
  return { term: { ...t, args: rewritten }, before };
}

function isUnification(t: CallTerm): boolean {
  return dottedName(t.op) === "eq" && t.args.length === 2;
}

function isCollection(t: Term): boolean {
  return ["array", "object", "set", "arraycompr", "setcompr", "objectcompr"].includes(t.type);
}

function isRootDocument(t: Term): boolean {
  return t.type === "var" && (t.name === "input" || t.name === "data");
}
