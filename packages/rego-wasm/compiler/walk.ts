/**
 * Which parts a term or an expression has, written down once: every walk of
 * the syntax tree goes through here, either reading (`visitTerm`,
 * `visitExpr`, `visitBody`) or rebuilding (`mapTermParts`, `mapExprParts`).
 *
 * The parts, in source order:
 * - ref: its terms, head first; array, set: the items; object: each key, then
 *   its value; call: the arguments (the callee is a name, not a part);
 * - comprehension: the head term(s), then the body; `every`: the domain, then
 *   the key, the value and the body. These are closures: they bind their own
 *   vars and are evaluated apart from the expression holding them;
 * - `some v in xs`: key, value, collection; any expression: then the values
 *   of its `with` modifiers (a `with` target is a path, not a part);
 * - `some x` declares names and has no parts; scalars and vars have none.
 *
 * Both switches end in `never`, so a new term or expression kind does not
 * compile until both say what its parts are.
 */
import type { Body, Expr, Term, VarTerm } from "./ast";

/**
 * What a visitor answers for a term or an expression: nothing to go on into
 * its parts, "skip" to leave them out, "stop" to end the whole walk.
 */
export type VisitResult = void | "skip" | "stop";

export interface TermVisitor {
  /**
   * Called on every term reached, a term before its parts. `inClosure`: the
   * term lies inside a closure of the node the walk started from.
   */
  term(t: Term, inClosure: boolean): VisitResult;
  /** Called on every expression reached (closure bodies' included), before its parts. */
  expr?(e: Expr, inClosure: boolean): VisitResult;
  /** false: closures' parts are not entered (the comprehension term itself is still visited). Default true. */
  closures?: boolean;
}

/** Visits `t` and its parts depth first; false when the visitor stopped the walk. */
export function visitTerm(t: Term, v: TermVisitor): boolean {
  return walkTerm(t, v, false);
}

export function visitExpr(e: Expr, v: TermVisitor): boolean {
  return walkExpr(e, v, false);
}

export function visitBody(b: Body, v: TermVisitor): boolean {
  return walkBody(b, v, false);
}

/** Whether `test` holds for a term of `node` (a term and its parts, or a body); closures are entered unless `closures` is false. */
export function someTerm(node: Term | Body, test: (t: Term) => boolean, closures = true): boolean {
  const v: TermVisitor = { closures, term: (t) => (test(t) ? "stop" : undefined) };
  return !(Array.isArray(node) ? visitBody(node, v) : visitTerm(node, v));
}

function walkTerm(t: Term, v: TermVisitor, inClosure: boolean): boolean {
  const answer = v.term(t, inClosure);
  if (answer === "stop") return false;
  if (answer === "skip") return true;
  const enter = v.closures !== false;
  switch (t.type) {
    case "null":
    case "boolean":
    case "number":
    case "string":
    case "var":
      return true;
    case "ref":
      return walkTerms(t.terms, v, inClosure);
    case "array":
    case "set":
      return walkTerms(t.items, v, inClosure);
    case "object":
      return t.items.every(([key, value]) => walkTerm(key, v, inClosure) && walkTerm(value, v, inClosure));
    case "call":
      return walkTerms(t.args, v, inClosure);
    case "arraycompr":
    case "setcompr":
      return !enter || (walkTerm(t.term, v, true) && walkBody(t.body, v, true));
    case "objectcompr":
      return !enter || (walkTerm(t.key, v, true) && walkTerm(t.value, v, true) && walkBody(t.body, v, true));
    default:
      return unknownKind(t);
  }
}

function walkTerms(ts: Term[], v: TermVisitor, inClosure: boolean): boolean {
  return ts.every((t) => walkTerm(t, v, inClosure));
}

function walkExpr(e: Expr, v: TermVisitor, inClosure: boolean): boolean {
  const answer = v.expr?.(e, inClosure);
  if (answer === "stop") return false;
  if (answer === "skip") return true;
  const enter = v.closures !== false;
  let going: boolean;
  switch (e.kind) {
    case "term":
      going = walkTerm(e.term, v, inClosure);
      break;
    case "some":
      going = true;
      break;
    case "somein":
      going = (!e.key || walkTerm(e.key, v, inClosure)) && walkTerm(e.value, v, inClosure) && walkTerm(e.collection, v, inClosure);
      break;
    case "every":
      going = walkTerm(e.domain, v, inClosure) && (!enter || ((!e.key || walkTerm(e.key, v, true)) && walkTerm(e.value, v, true) && walkBody(e.body, v, true)));
      break;
    default:
      return unknownKind(e);
  }
  return going && e.with.every((w) => walkTerm(w.value, v, inClosure));
}

function walkBody(b: Body, v: TermVisitor, inClosure: boolean): boolean {
  return b.every((e) => walkExpr(e, v, inClosure));
}

/**
 * One level of a term rebuilt from rewritten parts, for whole-tree rewrites
 * (check/equals.ts, check/metadata.ts, check/safety.ts, instrument.ts): each says what it
 * changes and hands the rest of the tree to these, with itself as `term` and
 * `body`, so every part (closure bodies and `with` values included) is
 * rewritten the same way.
 */
export function mapTermParts(t: Term, term: (t: Term) => Term, body: (b: Body) => Body): Term {
  switch (t.type) {
    case "null":
    case "boolean":
    case "number":
    case "string":
    case "var":
      return t;
    case "ref":
      return { ...t, terms: t.terms.map(term) };
    case "array":
    case "set":
      return { ...t, items: t.items.map(term) };
    case "object":
      return { ...t, items: t.items.map(([k, v]): [Term, Term] => [term(k), term(v)]) };
    case "call":
      return { ...t, args: t.args.map(term) };
    case "arraycompr":
    case "setcompr":
      return { ...t, term: term(t.term), body: body(t.body) };
    case "objectcompr":
      return { ...t, key: term(t.key), value: term(t.value), body: body(t.body) };
    default:
      return unknownKind(t);
  }
}

export function mapExprParts(e: Expr, term: (t: Term) => Term, body: (b: Body) => Body): Expr {
  const withs = e.with.map((w) => ({ ...w, value: term(w.value) }));
  switch (e.kind) {
    case "term":
      return { ...e, term: term(e.term), with: withs };
    case "some":
      return { ...e, with: withs };
    case "somein":
      return { ...e, key: e.key && term(e.key), value: term(e.value), collection: term(e.collection), with: withs };
    case "every":
      return { ...e, domain: term(e.domain), key: e.key && declared(e.key, term), value: declared(e.value, term), body: body(e.body), with: withs };
    default:
      return unknownKind(e);
  }
}

/** An `every` key or value rewritten: it declares a var, so it must stay one. */
function declared(v: VarTerm, term: (t: Term) => Term): VarTerm {
  const out = term(v);
  if (out.type !== "var") throw new Error(`internal: a rewrite turned the declared var ${v.name} into a ${out.type}`);
  return out;
}

function unknownKind(node: never): never {
  throw new Error(`internal: no parts known for ${JSON.stringify(node)}`);
}
