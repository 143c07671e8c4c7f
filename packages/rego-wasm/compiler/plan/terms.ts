/**
 * Planning terms into locals, continuation-passing: `planTerm(ctx, t, k)`
 * appends the statements computing `t` and calls `k` with the local holding
 * its value, once per value (refs with unbound vars iterate, so `k` is then
 * planned inside a Scan). Unification lives here too, since patterns and refs
 * bind vars the same way.
 */
import type { Term } from "../ast";
import { isConstant } from "../check/vars";
import { someTerm } from "../walk";
import { CompileError } from "../errors";
import type { Ctx } from "./context";
import { planDataRef } from "./data";
import { planBody, planCallValue } from "./exprs";
import type { ConstantValue, Local, Stmt } from "./ir";

type K = (v: Local) => void;

export function planTerm(ctx: Ctx, t: Term, k: K): void {
  const fb = ctx.fb;
  // Constants cannot iterate: build them directly, so a large literal does
  // not nest one continuation per element.
  if ((t.type === "array" || t.type === "set" || t.type === "object") && isConstant(t)) return k(planConstant(ctx, t));
  switch (t.type) {
    case "null": {
      const l = fb.newLocal();
      fb.emit({ type: "MakeNull", target: l });
      return k(l);
    }
    case "boolean": {
      const l = fb.newLocal();
      fb.emit({ type: "MakeBoolean", value: t.value, target: l });
      return k(l);
    }
    case "number":
      return k(makeNumber(ctx, t.value));
    case "string":
      return k(makeString(ctx, t.value));
    case "var":
      // `data` alone is the whole virtual document, not just base data.
      if (t.name === "data") return planDataRef(ctx, [], k);
      return k(varLocal(ctx, t.name, t.loc));
    case "ref":
      return planRef(ctx, t.terms, k);
    case "array":
      return planTerms(ctx, t.items, (ls) => {
        const a = fb.newLocal();
        fb.emit({ type: "MakeArray", capacity: ls.length, target: a });
        for (const l of ls) fb.emit({ type: "ArrayAppend", array: a, value: l });
        k(a);
      });
    case "set":
      return planTerms(ctx, t.items, (ls) => {
        const s = fb.newLocal();
        fb.emit({ type: "MakeSet", target: s });
        for (const l of ls) fb.emit({ type: "SetAdd", set: s, value: l });
        k(s);
      });
    case "object": {
      const order = insertOrder(t.items);
      return planTerms(ctx, t.items.flat(), (ls) => {
        const o = fb.newLocal();
        fb.emit({ type: "MakeObject", target: o });
        for (const i of order) fb.emit({ type: "ObjectInsert", object: o, key: ls[2 * i]!, value: ls[2 * i + 1]! });
        k(o);
      });
    }
    case "arraycompr": {
      const a = fb.newLocal();
      fb.emit({ type: "MakeArray", capacity: 0, target: a });
      fb.nested(() => planBody(ctx, t.body, () => planTerm(ctx, t.term, (v) => fb.emit({ type: "ArrayAppend", array: a, value: v }))));
      return k(a);
    }
    // Set and object comprehensions collect into arrays and sort once at the end
    // (rt_set_from_array, rt_object_from_arrays_once): inserting element by element
    // into the sorted set/object shifts it each time, n^2 for n elements (an input
    // array of a thousand names took milliseconds). Nothing reads the collection
    // before the comprehension ends, so only the cost changes.
    case "setcompr": {
      const a = fb.newLocal();
      fb.emit({ type: "MakeArray", capacity: 0, target: a });
      fb.nested(() => planBody(ctx, t.body, () => planTerm(ctx, t.term, (v) => fb.emit({ type: "ArrayAppend", array: a, value: v }))));
      const s = fb.newLocal();
      fb.emit({ type: "Call", func: "rt_set_from_array", args: [a], result: s });
      return k(s);
    }
    case "objectcompr": {
      const keys = fb.newLocal();
      const vals = fb.newLocal();
      fb.emit({ type: "MakeArray", capacity: 0, target: keys });
      fb.emit({ type: "MakeArray", capacity: 0, target: vals });
      fb.nested(() =>
        planBody(ctx, t.body, () =>
          planTerm(ctx, t.key, (kl) =>
            planTerm(ctx, t.value, (vl) => {
              fb.emit({ type: "ArrayAppend", array: keys, value: kl });
              fb.emit({ type: "ArrayAppend", array: vals, value: vl });
            }),
          ),
        ),
      );
      const o = fb.newLocal();
      fb.emit({ type: "Call", func: "rt_object_from_arrays_once", args: [keys, vals], result: o });
      return k(o);
    }
    case "call":
      return planCallValue(ctx, t, k);
  }
}

/**
 * The order to insert an object literal's pairs in, once every value is
 * computed (values are still computed in source order): by key when the keys
 * are distinct string constants, so the runtime appends each pair after the
 * last one (ObjV#set's in-order case) instead of searching for its place;
 * the source order otherwise (a repeated key: the last one wins). The
 * resulting object is the same either way: only the cost changes.
 */
function insertOrder(items: Array<[Term, Term]>): number[] {
  const order = items.map((_, i) => i);
  const keys = items.map(([key]) => (key.type === "string" ? key.value : undefined));
  if (keys.some((key) => key === undefined) || new Set(keys).size !== keys.length) return order;
  // Rego orders strings by their UTF-8 bytes.
  const bytes = keys.map((key) => Buffer.from(key!, "utf8"));
  return order.sort((a, b) => Buffer.compare(bytes[a]!, bytes[b]!));
}

/**
 * A constant term's value. A composite (array, set, object of constants) is
 * one MakeConstant: the module builds it once per instance (emit/constants.ts)
 * instead of allocating and inserting element by element at every use.
 */
function planConstant(ctx: Ctx, t: Term): Local {
  const target = ctx.fb.newLocal();
  const value = constantValue(ctx, t);
  if (value.type === "array" || value.type === "set" || value.type === "object") ctx.fb.emit({ type: "MakeConstant", value, target });
  else throw new Error(`internal: ${t.type} term is not a composite constant`);
  return target;
}

function constantValue(ctx: Ctx, t: Term): ConstantValue {
  switch (t.type) {
    case "null":
      return { type: "null" };
    case "boolean":
      return { type: "boolean", value: t.value };
    case "number": {
      const st = numberStmt(ctx, t.value, 0);
      return st.type === "MakeNumberInt" ? { type: "int", value: st.value } : { type: "number", index: ctx.p.strings.get(t.value) };
    }
    case "string":
      return { type: "string", index: ctx.p.strings.get(t.value) };
    case "array":
      return { type: "array", items: t.items.map((x) => constantValue(ctx, x)) };
    case "set":
      return { type: "set", items: t.items.map((x) => constantValue(ctx, x)) };
    case "object":
      return { type: "object", items: t.items.map(([k, v]) => [constantValue(ctx, k), constantValue(ctx, v)]) };
    default:
      throw new Error(`internal: ${t.type} term is not a constant`);
  }
}

/**
 * Plans several terms (call arguments, collection items); `k` gets their
 * locals in the terms' order. Terms holding a ref that iterates (binds vars)
 * are planned first, so a var bound by a later term's ref is bound where an
 * earlier term uses it: `k != xs[k]`, `startswith(k, xs[k])` (what OPA's
 * RewriteDynamicTerms achieves by pulling such refs out of the call).
 */
export function planTerms(ctx: Ctx, ts: Term[], k: (ls: Local[]) => void): void {
  const order = ts.map((_, i) => i);
  const binding = ts.map((t) => bindsVars(ctx, t));
  if (binding.some((b) => b)) order.sort((i, j) => Number(binding[j]) - Number(binding[i]) || i - j);
  const locals: Local[] = new Array<Local>(ts.length);
  const go = (n: number): void => {
    if (n === order.length) return k([...locals]);
    const i = order[n]!;
    planTerm(ctx, ts[i]!, (l) => {
      locals[i] = l;
      go(n + 1);
    });
  };
  go(0);
}

/** Whether planning `t` iterates a ref over an unbound var (outside closures, which bind their own). */
function bindsVars(ctx: Ctx, t: Term): boolean {
  return someTerm(t, (x) => x.type === "ref" && x.terms.slice(1).some((op) => hasUnboundVars(ctx, op)), false);
}

export function makeNumber(ctx: Ctx, text: string): Local {
  const l = ctx.fb.newLocal();
  ctx.fb.emit(numberStmt(ctx, text, l));
  return l;
}

/** Small integers inline; anything else keeps its literal text (precision is the runtime's). */
function numberStmt(ctx: Ctx, text: string, target: Local): Stmt {
  const n = Number(text);
  if (/^-?\d+$/.test(text) && Number.isSafeInteger(n) && n >= -(2 ** 31) && n < 2 ** 31) {
    return { type: "MakeNumberInt", value: n, target };
  }
  return { type: "MakeNumberRef", index: ctx.p.strings.get(text), target };
}

export function makeString(ctx: Ctx, s: string): Local {
  const l = ctx.fb.newLocal();
  ctx.fb.emit({ type: "MakeString", index: ctx.p.strings.get(s), target: l });
  return l;
}

function varLocal(ctx: Ctx, name: string, loc: Term["loc"]): Local {
  if (name === "input") {
    ctx.fb.emit({ type: "IsDefined", source: ctx.input });
    return ctx.input;
  }
  const l = ctx.fb.vars.get(name);
  if (l === undefined) throw new CompileError("rego_unsafe_var_error", `var ${name.startsWith("$") ? "_" : name} is unsafe`, loc);
  return l;
}

function planRef(ctx: Ctx, terms: Term[], k: K): void {
  const [head, ...ops] = terms;
  if (head!.type === "var" && head!.name === "data") return planDataRef(ctx, ops, k);
  planTerm(ctx, head!, (h) => planRefRest(ctx, h, ops, k));
}

/** A var not yet bound, or an array/object pattern holding one (outside refs and calls). */
export function hasUnboundVars(ctx: Ctx, t: Term): boolean {
  switch (t.type) {
    case "var":
      return t.name !== "data" && t.name !== "input" && !ctx.fb.vars.has(t.name);
    case "array":
      return t.items.some((x) => hasUnboundVars(ctx, x));
    case "object":
      return t.items.some(([, v]) => hasUnboundVars(ctx, v));
    default:
      return false;
  }
}

/** Follows ref operands from the value in `v`: bound operands index, unbound ones iterate. */
export function planRefRest(ctx: Ctx, v: Local, ops: Term[], k: K): void {
  const fb = ctx.fb;
  if (ops.length === 0) return k(v);
  const [op, ...rest] = ops;
  if (!hasUnboundVars(ctx, op!)) {
    return planTerm(ctx, op!, (key) => {
      const t = fb.newLocal();
      fb.emit({ type: "Dot", source: v, key, target: t });
      planRefRest(ctx, t, rest, k);
    });
  }
  const key = fb.newLocal();
  const val = fb.newLocal();
  const block = { stmts: [] };
  fb.emit({ type: "Scan", source: v, key, value: val, block });
  fb.scoped(() => fb.into(block, () => planUnifyLocal(ctx, key, op!, () => planRefRest(ctx, val, rest, k))));
}

// ------------------------------------------------------------- unification

export function planUnify(ctx: Ctx, a: Term, b: Term, k: () => void): void {
  const fb = ctx.fb;
  if (a.type === "var" && hasUnboundVars(ctx, a)) return planTerm(ctx, b, (v) => planUnifyLocal(ctx, v, a, k));
  if (b.type === "var" && hasUnboundVars(ctx, b)) return planTerm(ctx, a, (v) => planUnifyLocal(ctx, v, b, k));
  if (a.type === "array" && b.type === "array") {
    if (a.items.length !== b.items.length) return; // never unifies: the rest is unreachable
    return planUnifyPairs(
      ctx,
      a.items.map((x, i) => [x, b.items[i]!]),
      k,
    );
  }
  const constantKeys = (o: Term & { type: "object" }): boolean => o.items.every(([k]) => isConstant(k));
  if (a.type === "object" && b.type === "object" && constantKeys(a) && constantKeys(b) && (hasUnboundVars(ctx, a) || hasUnboundVars(ctx, b))) {
    if (a.items.length !== b.items.length) return;
    const pairs: Array<[Term, Term]> = [];
    for (const [ka, va] of a.items) {
      const other = b.items.find(([kb]) => sameTerm(ka, kb));
      if (!other) return;
      pairs.push([va, other[1]]);
    }
    return planUnifyPairs(ctx, pairs, k);
  }
  if (hasUnboundVars(ctx, a)) return planTerm(ctx, b, (v) => planUnifyLocal(ctx, v, a, k));
  if (hasUnboundVars(ctx, b)) return planTerm(ctx, a, (v) => planUnifyLocal(ctx, v, b, k));
  planTerm(ctx, a, (va) =>
    planTerm(ctx, b, (vb) => {
      fb.emit({ type: "Equal", a: va, b: vb });
      k();
    }),
  );
}

function planUnifyPairs(ctx: Ctx, pairs: Array<[Term, Term]>, k: () => void): void {
  const go = (i: number): void => (i === pairs.length ? k() : planUnify(ctx, pairs[i]![0], pairs[i]![1], () => go(i + 1)));
  go(0);
}

/** Unifies the value in local `v` with term `t`, binding t's unbound vars. */
export function planUnifyLocal(ctx: Ctx, v: Local, t: Term, k: () => void): void {
  const fb = ctx.fb;
  if (t.type === "var" && hasUnboundVars(ctx, t)) {
    fb.vars.set(t.name, v);
    return k();
  }
  if (t.type === "array" && hasUnboundVars(ctx, t)) {
    fb.emit({ type: "IsArray", source: v });
    lengthIs(ctx, v, t.items.length);
    const go = (i: number): void => {
      if (i === t.items.length) return k();
      const idx = ctx.fb.newLocal();
      fb.emit({ type: "MakeNumberInt", value: i, target: idx });
      const e = fb.newLocal();
      fb.emit({ type: "Dot", source: v, key: idx, target: e });
      planUnifyLocal(ctx, e, t.items[i]!, () => go(i + 1));
    };
    return go(0);
  }
  if (t.type === "object" && hasUnboundVars(ctx, t)) {
    fb.emit({ type: "IsObject", source: v });
    lengthIs(ctx, v, t.items.length);
    const go = (i: number): void => {
      if (i === t.items.length) return k();
      const [key, val] = t.items[i]!;
      planTerm(ctx, key, (kl) => {
        const e = fb.newLocal();
        fb.emit({ type: "Dot", source: v, key: kl, target: e });
        planUnifyLocal(ctx, e, val, () => go(i + 1));
      });
    };
    return go(0);
  }
  planTerm(ctx, t, (tl) => {
    fb.emit({ type: "Equal", a: v, b: tl });
    k();
  });
}

function lengthIs(ctx: Ctx, v: Local, n: number): void {
  const len = ctx.fb.newLocal();
  ctx.fb.emit({ type: "Len", source: v, target: len });
  const c = ctx.fb.newLocal();
  ctx.fb.emit({ type: "MakeNumberInt", value: n, target: c });
  ctx.fb.emit({ type: "Equal", a: len, b: c });
}

/** Structural equality of two terms, ignoring locations. */
export function sameTerm(a: Term, b: Term): boolean {
  const strip = (t: Term): string => JSON.stringify(t, (k, v) => (k === "loc" ? undefined : v));
  return strip(a) === strip(b);
}
