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

export const ROOTS = new Set(["data", "input"]);

/** Adds the vars of `t` to `out`; closures are skipped unless `closures`. */
export function termVars(t: Term, out: Set<string>, closures = false): Set<string> {
  switch (t.type) {
    case "var":
      if (!ROOTS.has(t.name)) out.add(t.name);
      break;
    case "ref":
      for (const x of t.terms) termVars(x, out, closures);
      break;
    case "array":
    case "set":
      for (const x of t.items) termVars(x, out, closures);
      break;
    case "object":
      for (const [k, v] of t.items) {
        termVars(k, out, closures);
        termVars(v, out, closures);
      }
      break;
    case "call":
      for (const x of t.args) termVars(x, out, closures);
      break;
    case "arraycompr":
    case "setcompr":
      if (closures) {
        termVars(t.term, out, true);
        bodyVars(t.body, out, true);
      }
      break;
    case "objectcompr":
      if (closures) {
        termVars(t.key, out, true);
        termVars(t.value, out, true);
        bodyVars(t.body, out, true);
      }
      break;
    default:
      break;
  }
  return out;
}

/** Vars an expression mentions outside its closures (with `closures`, inside too). */
export function exprVars(e: Expr, out: Set<string>, closures = false): Set<string> {
  switch (e.kind) {
    case "term":
      termVars(e.term, out, closures);
      break;
    case "some":
      break;
    case "somein":
      if (e.key) termVars(e.key, out, closures);
      termVars(e.value, out, closures);
      termVars(e.collection, out, closures);
      break;
    case "every":
      termVars(e.domain, out, closures);
      if (closures) {
        if (e.key) termVars(e.key, out, true);
        termVars(e.value, out, true);
        bodyVars(e.body, out, true);
      }
      break;
  }
  for (const w of e.with) termVars(w.value, out, closures);
  return out;
}

export function bodyVars(body: Body, out: Set<string>, closures = false): Set<string> {
  for (const e of body) exprVars(e, out, closures);
  return out;
}

/** Vars mentioned inside the closures (comprehensions, `every`) of an expression. */
export function closureVars(e: Expr): Set<string> {
  const out = new Set<string>();
  collectClosureOnly(e, out);
  return out;
}

function collectClosureOnly(e: Expr, out: Set<string>): void {
  const visit = (t: Term): void => {
    switch (t.type) {
      case "ref":
        t.terms.forEach(visit);
        break;
      case "array":
      case "set":
        t.items.forEach(visit);
        break;
      case "object":
        for (const [k, v] of t.items) {
          visit(k);
          visit(v);
        }
        break;
      case "call":
        t.args.forEach(visit);
        break;
      case "arraycompr":
      case "setcompr":
      case "objectcompr":
        termVars(t, out, true);
        break;
      default:
        break;
    }
  };
  switch (e.kind) {
    case "term":
      visit(e.term);
      break;
    case "somein":
      if (e.key) visit(e.key);
      visit(e.value);
      visit(e.collection);
      break;
    case "every":
      visit(e.domain);
      if (e.key) termVars(e.key, out, true);
      termVars(e.value, out, true);
      bodyVars(e.body, out, true);
      break;
    default:
      break;
  }
  for (const w of e.with) visit(w.value);
}

/** A term with no vars at all (closures count as non-ground). */
export function isGround(t: Term): boolean {
  switch (t.type) {
    case "null":
    case "boolean":
    case "number":
    case "string":
      return true;
    case "array":
    case "set":
      return t.items.every(isGround);
    case "object":
      return t.items.every(([k, v]) => isGround(k) && isGround(v));
    default:
      return false;
  }
}
