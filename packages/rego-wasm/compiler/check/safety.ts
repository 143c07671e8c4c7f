/**
 * Safety analysis and reordering, after OPA's reorderBodyForSafety: a body's
 * expressions are scheduled in source order whenever every var they need is
 * bound (by an earlier expression, the enclosing scope, or the expression's
 * own outputs); closures run only once the outer vars they mention are bound.
 * Whatever cannot be scheduled is reported as `var x is unsafe`.
 *
 * Output vars of an expression (what it binds):
 * - refs iterate: `xs[i]` binds `i` once `xs` is bound (and so on along the ref);
 * - `=` / `:=` unify: a side binds its vars once the other side is bound;
 * - a call with one argument more than its arity binds its last argument;
 * - `some k, v in xs` binds the vars of k and v;
 * - negated expressions and `every` bind nothing.
 */
import type { Body, Expr, Location, Term } from "../ast";
import { CompileError } from "../errors";
import { dataPath, dottedName } from "./resolve";
import type { Program } from "./program";
import { findNode, isCheckedWith } from "./program";
import { closureVars, exprVars, termVars } from "./vars";
import { mapTermParts, visitTerm, type TermVisitor } from "../walk";

export interface SafetyEnv {
  program: Program;
  errors: CompileError[];
  /** Declared vars' fresh names -> the names written (ResolveEnv.written). */
  written?: ReadonlyMap<string, string>;
}

/**
 * Reorders `body` given the vars already bound (`globals`); recursively
 * reorders closures. Returns the reordered body and the vars bound after it.
 */
export function reorderBody(env: SafetyEnv, body: Body, globals: ReadonlySet<string>): { body: Body; safe: Set<string> } {
  const safe = new Set(globals);
  const outer = new Set(globals);
  for (const e of body) exprVars(e, outer);
  const pending = body.map((e, i) => ({ e, i }));
  const scheduled: Array<{ e: Expr; safeBefore: Set<string> }> = [];
  let progress = true;
  while (progress && pending.length > 0) {
    progress = false;
    for (let j = 0; j < pending.length; j++) {
      const { e } = pending[j]!;
      if (![...closureVars(e)].every((v) => !outer.has(v) || safe.has(v))) continue;
      const outs = outputVars(env, e, safe);
      const needs = neededVars(e);
      if (![...needs].every((v) => safe.has(v) || outs.has(v))) continue;
      scheduled.push({ e, safeBefore: new Set(safe) });
      for (const v of outs) safe.add(v);
      pending.splice(j, 1);
      j--;
      progress = true;
    }
  }
  // Each unsafe var once, at the first expression that needs it (as OPA does).
  const reported = new Set<string>();
  for (const { e } of pending) {
    const unsafe = [...neededVars(e), ...[...closureVars(e)].filter((v) => outer.has(v))].filter((v) => !safe.has(v));
    for (const v of [...new Set(unsafe)].sort()) {
      if (reported.has(v)) continue;
      reported.add(v);
      env.errors.push(unsafeVar(v, e.loc, env.written));
    }
  }
  const out = scheduled.map(({ e, safeBefore }) => reorderClosures(env, e, safeBefore, safe));
  return { body: out, safe };
}

export function unsafeVar(v: string, loc: Location, written?: ReadonlyMap<string, string>): CompileError {
  return new CompileError("rego_unsafe_var_error", `var ${displayName(v, written)} is unsafe`, loc);
}

function displayName(v: string, written?: ReadonlyMap<string, string>): string {
  return v.startsWith("$") ? "_" : (written?.get(v) ?? v);
}

/** Vars the expression needs bound, outside closures (function-valued `with` values excluded). */
function neededVars(e: Expr): Set<string> {
  const out = new Set<string>();
  const noWith = { ...e, with: [] } as Expr;
  exprVars(noWith, out);
  for (const w of e.with) if (!(isCheckedWith(w) && w.mock)) termVars(w.value, out);
  return out;
}

function outputVars(env: SafetyEnv, e: Expr, safe: ReadonlySet<string>): Set<string> {
  if (e.kind === "some" || e.kind === "every") return new Set();
  if (e.kind === "term" && e.negated) return new Set();
  if (e.kind === "somein") {
    const outs = refOutputs([e.collection], safe);
    const s = new Set([...safe, ...outs]);
    if (![...termVars(e.collection, new Set())].every((v) => s.has(v))) return outs;
    if (e.key) termVars(e.key, outs);
    termVars(e.value, outs);
    return outs;
  }
  const t = e.term;
  if (t.type !== "call") return refOutputs([t], safe);
  const outs = refOutputs(t.args, safe);
  const name = dottedName(t.op);
  if ((name === "eq" || name === "assign") && t.args.length === 2) {
    const s = new Set([...safe, ...outs]);
    unify(s, t.args[0]!, t.args[1]!);
    for (const v of s) if (!safe.has(v)) outs.add(v);
    return outs;
  }
  const arity = callArity(env, t.op);
  if (arity !== null && t.args.length === arity + 1) {
    const s = new Set([...safe, ...outs]);
    const inputs = new Set<string>();
    t.args.slice(0, arity).forEach((a) => termVars(a, inputs));
    if ([...inputs].every((v) => s.has(v))) termVars(t.args[arity]!, outs);
  }
  return outs;
}

function callArity(env: SafetyEnv, op: Term & { type: "ref" }): number | null {
  const path = dataPath(op);
  if (path) return findNode(env.program, path)?.arity ?? null;
  const name = dottedName(op);
  return name ? (env.program.builtins.lookup(name)?.arity ?? null) : null;
}

/** Vars bound by iterating refs in `terms` (fixpoint: a ref needs its head and nested refs bound). */
function refOutputs(terms: Term[], safe: ReadonlySet<string>): Set<string> {
  const refs: Array<Term & { type: "ref" }> = [];
  // Closures bind their own vars: their refs are not iterated here.
  const collect: TermVisitor = {
    closures: false,
    term: (t) => {
      if (t.type === "ref") refs.push(t);
    },
  };
  terms.forEach((t) => visitTerm(t, collect));
  const outs = new Set<string>();
  const bound = (v: string): boolean => safe.has(v) || outs.has(v);
  let changed = true;
  while (changed) {
    changed = false;
    for (const r of refs) {
      if (![...termVars(r.terms[0]!, new Set())].every(bound)) continue;
      for (const op of r.terms.slice(1)) {
        // A nested ref or call operand must be fully bound; plain var and
        // pattern operands are bound by iterating.
        if (op.type === "ref" || op.type === "call") {
          if (![...termVars(op, new Set())].every(bound)) break;
          continue;
        }
        for (const v of termVars(op, new Set())) {
          if (!bound(v)) {
            outs.add(v);
            changed = true;
          }
        }
      }
    }
  }
  return outs;
}

/** Adds to `safe` the vars unification of a and b binds (to a fixpoint). */
function unify(safe: Set<string>, a: Term, b: Term): void {
  let before = -1;
  while (before !== safe.size) {
    before = safe.size;
    unifyOnce(safe, a, b);
  }
}

function allSafe(safe: ReadonlySet<string>, t: Term): boolean {
  return [...termVars(t, new Set())].every((v) => safe.has(v));
}

function isPattern(t: Term): boolean {
  return t.type === "var" || t.type === "array" || t.type === "object";
}

function unifyOnce(safe: Set<string>, a: Term, b: Term): void {
  if (a.type === "array" && b.type === "array" && a.items.length === b.items.length) {
    a.items.forEach((x, i) => unifyOnce(safe, x, b.items[i]!));
    return;
  }
  if (a.type === "object" && b.type === "object") {
    for (const [k, v] of a.items) {
      const other = b.items.find(([k2]) => JSON.stringify(strip(k2)) === JSON.stringify(strip(k)));
      if (other) unifyOnce(safe, v, other[1]);
    }
    return;
  }
  if (isPattern(a) && allSafe(safe, b)) termVars(a, safe);
  else if (isPattern(b) && allSafe(safe, a)) termVars(b, safe);
}

/** A term without locations, for structural comparison of literal keys. */
function strip(t: Term): unknown {
  return JSON.parse(JSON.stringify(t, (k, v) => (k === "loc" ? undefined : v)));
}

/** Reorders the closures inside an expression, given what was bound when it runs. */
function reorderClosures(env: SafetyEnv, e: Expr, safeBefore: Set<string>, safeAfter: Set<string>): Expr {
  // Vars bound by the expression itself (e.g. `x` in `x = [y | ...]`) are not
  // visible to its closures unless bound before; refs bound by iteration are.
  const g = new Set(safeBefore);
  for (const v of refOutputsOf(e, safeBefore)) g.add(v);
  const fix = (t: Term): Term => reorderTermClosures(env, t, g);
  let out: Expr;
  switch (e.kind) {
    case "term":
      out = { ...e, term: fix(e.term) };
      break;
    case "somein":
      out = { ...e, collection: fix(e.collection) };
      break;
    case "every": {
      const inner = new Set(g);
      if (e.key) inner.add(e.key.name);
      inner.add(e.value.name);
      out = { ...e, domain: fix(e.domain), body: reorderBody(env, e.body, inner).body };
      break;
    }
    default:
      out = e;
  }
  void safeAfter;
  return { ...out, with: e.with.map((w) => ({ ...w, value: fix(w.value) })) };
}

function refOutputsOf(e: Expr, safe: ReadonlySet<string>): Set<string> {
  if (e.kind === "term") return refOutputs([e.term], safe);
  if (e.kind === "somein") return refOutputs([e.collection], safe);
  return new Set();
}

/** Reorders the closures of a rule head term, given the vars its body binds. */
export function reorderHeadTerm(env: SafetyEnv, t: Term, safe: ReadonlySet<string>): Term {
  return reorderTermClosures(env, t, new Set(safe));
}

function reorderTermClosures(env: SafetyEnv, t: Term, g: Set<string>): Term {
  switch (t.type) {
    case "arraycompr":
    case "setcompr": {
      const res = reorderBody(env, t.body, g);
      checkHead(env, [t.term], res.safe, t.loc);
      return { ...t, body: res.body, term: reorderTermClosures(env, t.term, res.safe) };
    }
    case "objectcompr": {
      const res = reorderBody(env, t.body, g);
      checkHead(env, [t.key, t.value], res.safe, t.loc);
      return {
        ...t,
        body: res.body,
        key: reorderTermClosures(env, t.key, res.safe),
        value: reorderTermClosures(env, t.value, res.safe),
      };
    }
    default:
      // Not a closure: no body of its own to hand over.
      return mapTermParts(
        t,
        (x) => reorderTermClosures(env, x, g),
        (b) => b,
      );
  }
}

/** Head terms (rule heads, comprehension terms) need every var bound by the body. */
export function checkHead(env: SafetyEnv, terms: Term[], safe: ReadonlySet<string>, loc: Location): void {
  const vars = new Set<string>();
  terms.forEach((t) => termVars(t, vars));
  // Head values may iterate (`q(_) := xs[_]`): ref operands bind like in a body.
  const outs = refOutputs(terms, safe);
  for (const v of [...vars].sort()) if (!safe.has(v) && !outs.has(v)) env.errors.push(unsafeVar(v, loc, env.written));
}
