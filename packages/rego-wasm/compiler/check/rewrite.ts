/**
 * One level of a term or expression rebuilt from rewritten parts, for the
 * checker's whole-rule rewrites (equals.ts, metadata.ts): each says what it
 * changes and hands the rest of the tree to these, with itself as `term` and
 * `body`, so every part (closure bodies and `with` values included) is
 * visited the same way.
 */
import type { Body, Expr, Term } from "../ast";

export function mapTermParts(t: Term, term: (t: Term) => Term, body: (b: Body) => Body): Term {
  switch (t.type) {
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
      return t;
  }
}

export function mapExprParts(e: Expr, term: (t: Term) => Term, body: (b: Body) => Body): Expr {
  const withs = e.with.map((w) => ({ ...w, value: term(w.value) }));
  switch (e.kind) {
    case "term":
      return { ...e, term: term(e.term), with: withs };
    case "somein":
      return { ...e, key: e.key && term(e.key), value: term(e.value), collection: term(e.collection), with: withs };
    case "every":
      return { ...e, domain: term(e.domain), body: body(e.body), with: withs };
    default:
      return { ...e, with: withs };
  }
}
