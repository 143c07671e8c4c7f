/**
 * Planning bodies and expressions (continuation-passing, see builder.ts).
 *
 * - An expression that is a call fails when the call is undefined or false;
 *   with one argument more than the callee's arity, the result unifies with
 *   the last argument instead. A relation builtin (`walk`) yields each of
 *   its results in turn, wherever the call appears.
 * - `not` and `every` need "no solution" tests: the inner query runs in its
 *   own block and sets a flag when it succeeds; the test is on the flag, so
 *   iteration inside cannot be mistaken for success or failure. The parts of
 *   a negated expression OPA evaluates before the `not` (negation.ts) are
 *   planned before that block: when one is undefined the body fails.
 * - `with` computes the replaced input/data (copies, never mutation), opens a
 *   memo frame, and plans the expression under the new mock environment;
 *   the rest of the body runs outside that frame.
 */
import type { Body, CallTerm, Expr, Term, TermExpr } from "../ast";
import { dataPath, dottedName } from "../check/resolve";
import { findNode, isCheckedWith, type CheckedWith } from "../check";
import { JWS_SIGN_HOST_BUILTIN } from "../builtins/spec";
import { CompileError } from "../errors";
import { nativeBuiltinExport } from "../runtime-contract";
import { baseArgs, type Ctx, type FuncMock, type MockEnv } from "./context";
import { upsert } from "./data";
import { splitNegated } from "./negation";
import type { Block, Local } from "./ir";
import { makeString, planTerm, planTerms, planUnify, planUnifyLocal } from "./terms";

export function planBody(ctx: Ctx, body: Body, k: () => void): void {
  const go = (i: number): void => (i === body.length ? k() : planExpr(ctx, body[i]!, () => go(i + 1)));
  go(0);
}

export function planExpr(ctx: Ctx, e: Expr, k: () => void): void {
  if (e.with.length > 0) return planWith(ctx, e, k);
  switch (e.kind) {
    case "some":
      return k();
    case "somein":
      return planTerm(ctx, e.collection, (c) => {
        const fb = ctx.fb;
        const key = fb.newLocal();
        const val = fb.newLocal();
        const block = { stmts: [] };
        fb.emit({ type: "Scan", source: c, key, value: val, block });
        fb.scoped(() =>
          fb.into(block, () => {
            if (e.key) planUnifyLocal(ctx, key, e.key, () => planUnifyLocal(ctx, val, e.value, k));
            else planUnifyLocal(ctx, val, e.value, k);
          }),
        );
      });
    case "every":
      return planEvery(ctx, e, k);
    case "term":
      if (e.negated) return planNegated(ctx, e, k);
      return planTermExpr(ctx, e.term, k);
  }
}

/**
 * `not e`: the parts OPA evaluates before the negation first (negation.ts),
 * each bound to its var (once per value, so a relation iterates), then the
 * rest of `e` under `not`.
 */
function planNegated(ctx: Ctx, e: TermExpr, k: () => void): void {
  const fb = ctx.fb;
  const { before, term } = e.wholeNegated ? { before: [], term: e.term } : splitNegated(e.term, () => fb.freshVar());
  const go = (i: number): void => {
    if (i === before.length) return planNot(ctx, (success) => planTermExpr(ctx, term, success), k);
    planTerm(ctx, before[i]!.term, (v) => {
      fb.vars.set(before[i]!.name, v);
      go(i + 1);
    });
  };
  go(0);
}

/**
 * Plans `inner` in its own block; continues with `k` only if it has no
 * solution. The first solution sets the flag and leaves the block at once.
 */
function planNot(ctx: Ctx, inner: (success: () => void) => void, k: () => void): void {
  const fb = ctx.fb;
  const flag = fb.newLocal();
  fb.emit({ type: "ResetLocal", target: flag });
  fb.nested(() => {
    const depth = fb.depth;
    inner(() => {
      fb.emit({ type: "MakeBoolean", value: true, target: flag });
      fb.breakTo(depth);
    });
  });
  fb.emit({ type: "IsUndefined", source: flag });
  k();
}

function planEvery(ctx: Ctx, e: Expr & { kind: "every" }, k: () => void): void {
  const fb = ctx.fb;
  planTerm(ctx, e.domain, (d) => {
    // OPA: `every` over a non-collection is false, not vacuously true.
    const ok = fb.newLocal();
    fb.emit({ type: "ResetLocal", target: ok });
    for (const type of ["IsArray", "IsObject", "IsSet"] as const) {
      fb.nested(() => {
        fb.emit({ type, source: d });
        fb.emit({ type: "MakeBoolean", value: true, target: ok });
      });
    }
    fb.emit({ type: "IsDefined", source: ok });
    planNot(
      ctx,
      (success) => {
        const key = fb.newLocal();
        const val = fb.newLocal();
        const block = { stmts: [] };
        fb.emit({ type: "Scan", source: d, key, value: val, block });
        fb.scoped(() =>
          fb.into(block, () => {
            if (e.key) fb.vars.set(e.key.name, key);
            fb.vars.set(e.value.name, val);
            planNot(ctx, (ok) => planBody(ctx, e.body, ok), success);
          }),
        );
      },
      k,
    );
  });
}

function planTermExpr(ctx: Ctx, t: Term, k: () => void): void {
  const fb = ctx.fb;
  if (t.type !== "call") return planTerm(ctx, t, (v) => notFalse(ctx, v, k));
  const name = dottedName(t.op);
  const [a, b] = t.args;
  if ((name === "eq" || name === "assign") && t.args.length === 2) return planUnify(ctx, a!, b!, k);
  if ((name === "equal" || name === "neq") && t.args.length === 2 && !ctx.env.funcs.has(name)) {
    return planTerms(ctx, [a!, b!], ([va, vb]) => {
      fb.emit({ type: name === "equal" ? "Equal" : "NotEqual", a: va!, b: vb! });
      k();
    });
  }
  if (name === "print") return planPrint(ctx, t.args, k);
  const arity = calleeArity(ctx, t);
  if (t.args.length === arity + 1) {
    const call: CallTerm = { ...t, args: t.args.slice(0, arity) };
    return planCallValue(ctx, call, (r) => planUnifyLocal(ctx, r, t.args[arity]!, k));
  }
  planCallValue(ctx, t, (r) => notFalse(ctx, r, k));
}

/** Continues only when the value is not `false` (undefined already failed). */
function notFalse(ctx: Ctx, v: Local, k: () => void): void {
  const f = ctx.fb.newLocal();
  ctx.fb.emit({ type: "MakeBoolean", value: false, target: f });
  ctx.fb.emit({ type: "NotEqual", a: v, b: f });
  k();
}

function calleeArity(ctx: Ctx, t: CallTerm): number {
  const path = dataPath(t.op);
  if (path) return findNode(ctx.program, path)?.arity ?? t.args.length;
  return ctx.program.builtins.lookup(dottedName(t.op) ?? "")?.arity ?? t.args.length;
}

/** print(): each argument as the set of its values (empty when undefined). */
function planPrint(ctx: Ctx, args: Term[], k: () => void): void {
  const fb = ctx.fb;
  const arr = fb.newLocal();
  fb.emit({ type: "MakeArray", capacity: args.length, target: arr });
  for (const arg of args) {
    const s = fb.newLocal();
    fb.emit({ type: "MakeSet", target: s });
    fb.nested(() => planTerm(ctx, arg, (v) => fb.emit({ type: "SetAdd", set: s, value: v })));
    fb.emit({ type: "ArrayAppend", array: arr, value: s });
  }
  fb.emit({ type: "Print", args: arr });
  k();
}

/** A call as a value: user function, builtin, or whatever a `with` mock put in its place. */
export function planCallValue(ctx: Ctx, t: CallTerm, k: (v: Local) => void): void {
  const path = dataPath(t.op);
  const name = path ? `data.${path.join(".")}` : (dottedName(t.op) ?? "");
  const mock = ctx.env.funcs.get(name);
  planTerms(ctx, t.args, (args) => {
    if (mock) return callMock(ctx, name, mock, args, k);
    if (path) return callFunction(ctx, path, ctx.env, args, k);
    callBuiltin(ctx, name, args, t, k);
  });
}

function callMock(ctx: Ctx, name: string, mock: FuncMock, args: Local[], k: (v: Local) => void): void {
  if (mock.kind === "value") return k(ctx.slots[mock.slot]!);
  // The replacement runs without function mocks (OPA: a mock never calls
  // another mock, and may call the function it replaces).
  void name;
  const env: MockEnv = { ...ctx.env, funcs: new Map() };
  if (mock.kind === "function") return callFunction(ctx, mock.path, env, args, k);
  callBuiltinFunc(ctx, mock.name, args, k);
}

function callFunction(ctx: Ctx, path: string[], env: MockEnv, args: Local[], k: (v: Local) => void): void {
  const node = findNode(ctx.program, path);
  if (!node || node.kind !== "function") throw new Error(`internal: no function data.${path.join(".")}`);
  const r = ctx.fb.newLocal();
  ctx.fb.emit({ type: "Call", func: ctx.p.ruleFunc(node, env).name, args: [...baseArgs(ctx), ...args], result: r });
  k(r);
}

function callBuiltin(ctx: Ctx, name: string, args: Local[], t: CallTerm, k: (v: Local) => void): void {
  if (!ctx.program.builtins.lookup(name)) throw new CompileError("rego_type_error", `undefined function ${name}`, t.loc);
  callBuiltinFunc(ctx, name, args, k);
}

function callBuiltinFunc(ctx: Ctx, name: string, args: Local[], k: (v: Local) => void): void {
  const spec = ctx.program.builtins.lookup(name)!;
  const r = ctx.fb.newLocal();
  if (spec.nondeterministic && spec.arity === 0) {
    // One value per evaluation (time.now_ns): through a memoised wrapper.
    ctx.fb.emit({ type: "Call", func: ctx.p.onceFunc(name, builtinFunc(ctx, name)).name, args: [ctx.input, ctx.data], result: r });
  } else if (spec.falseForNonString) {
    callUnlessNonString(ctx, builtinFunc(ctx, name), args, r);
  } else if (spec.jwsSignedByHost) {
    callSigningOnHost(ctx, builtinFunc(ctx, name), args, r);
  } else ctx.fb.emit({ type: "Call", func: builtinFunc(ctx, name), args, result: r });
  if (spec.relation) return eachResult(ctx, r, k);
  k(r);
}

/**
 * r = false when args[0] is not a string, else r = func(args) (undefined
 * when the call is): one of the two blocks holds, then r must be defined.
 */
function callUnlessNonString(ctx: Ctx, func: string, args: Local[], r: Local): void {
  const fb = ctx.fb;
  const isString = fb.newLocal();
  const no = fb.newLocal();
  fb.emit({ type: "Call", func: nativeBuiltinExport("is_string"), args: [args[0]!], result: isString });
  fb.emit({ type: "MakeBoolean", value: false, target: no });
  fb.emit({ type: "ResetLocal", target: r });
  const asString: Block = { stmts: [] };
  const otherwise: Block = { stmts: [] };
  fb.emit({ type: "Block", blocks: [asString, otherwise] });
  fb.into(asString, () => {
    fb.emit({ type: "NotEqual", a: isString, b: no });
    const answer = fb.newLocal();
    fb.emit({ type: "Call", func, args, result: answer });
    fb.emit({ type: "AssignVar", source: answer, target: r });
  });
  fb.into(otherwise, () => {
    fb.emit({ type: "Equal", a: isString, b: no });
    fb.emit({ type: "AssignVar", source: no, target: r });
  });
  fb.emit({ type: "IsDefined", source: r });
}

/**
 * r = the token io.jwt.encode_sign(_raw) answers: the runtime's own (HMAC),
 * or, when it answers [alg, signing input, key], the signing input, ".",
 * and the host's signature. Undefined when either step is.
 */
function callSigningOnHost(ctx: Ctx, func: string, args: Local[], r: Local): void {
  const fb = ctx.fb;
  const prepared = fb.newLocal();
  fb.emit({ type: "Call", func, args, result: prepared });
  fb.emit({ type: "ResetLocal", target: r });
  const signedHere: Block = { stmts: [] };
  const signedByHost: Block = { stmts: [] };
  fb.emit({ type: "Block", blocks: [signedHere, signedByHost] });
  fb.into(signedHere, () => {
    const isString = fb.newLocal();
    const no = fb.newLocal();
    fb.emit({ type: "Call", func: nativeBuiltinExport("is_string"), args: [prepared], result: isString });
    fb.emit({ type: "MakeBoolean", value: false, target: no });
    fb.emit({ type: "NotEqual", a: isString, b: no });
    fb.emit({ type: "AssignVar", source: prepared, target: r });
  });
  fb.into(signedByHost, () => {
    fb.emit({ type: "IsArray", source: prepared });
    const parts = [0, 1, 2].map((i) => {
      const index = fb.newLocal();
      const part = fb.newLocal();
      fb.emit({ type: "MakeNumberInt", value: i, target: index });
      fb.emit({ type: "Dot", source: prepared, key: index, target: part });
      return part;
    });
    const signature = fb.newLocal();
    fb.emit({ type: "Call", func: ctx.p.hostBuiltin(JWS_SIGN_HOST_BUILTIN, 3), args: parts, result: signature });
    const joined = fb.newLocal();
    const pieces = fb.newLocal();
    fb.emit({ type: "MakeArray", capacity: 2, target: pieces });
    fb.emit({ type: "ArrayAppend", array: pieces, value: parts[1]! });
    fb.emit({ type: "ArrayAppend", array: pieces, value: signature });
    fb.emit({ type: "Call", func: nativeBuiltinExport("concat"), args: [makeString(ctx, "."), pieces], result: joined });
    fb.emit({ type: "AssignVar", source: joined, target: r });
  });
  fb.emit({ type: "IsDefined", source: r });
}

/**
 * A relation (`walk`) continues once per result: the call returned them all
 * as one array. As in OPA's topdown, each result then unifies with the output
 * argument, or, without one, counts as a success (results are never false).
 */
function eachResult(ctx: Ctx, results: Local, k: (v: Local) => void): void {
  const fb = ctx.fb;
  const key = fb.newLocal();
  const val = fb.newLocal();
  const block = { stmts: [] };
  fb.emit({ type: "Scan", source: results, key, value: val, block });
  fb.scoped(() => fb.into(block, () => k(val)));
}

function builtinFunc(ctx: Ctx, name: string): string {
  const spec = ctx.program.builtins.lookup(name)!;
  return spec.host ? ctx.p.hostBuiltin(name, spec.arity) : nativeBuiltinExport(name);
}

function planWith(ctx: Ctx, e: Expr, k: () => void): void {
  const fb = ctx.fb;
  const withs = e.with.filter(isCheckedWith) as CheckedWith[];
  const valued = withs.filter((w) => !w.mock);
  planTerms(
    ctx,
    valued.map((w) => w.value),
    (values) => {
      let input = ctx.input;
      let data = ctx.data;
      const env: MockEnv = { dataPaths: [...ctx.env.dataPaths], funcs: new Map(ctx.env.funcs), slots: ctx.env.slots };
      const slots = [...ctx.slots];
      for (const w of withs) {
        const v = w.mock ? 0 : values[valued.indexOf(w)]!;
        if (w.kind === "input") input = upsert(ctx, input, w.path, v);
        else if (w.kind === "data") {
          data = upsert(ctx, data, w.path, v);
          env.dataPaths.push(w.path);
        } else {
          const key = w.kind === "builtin" ? w.path[0]! : `data.${w.path.join(".")}`;
          if (w.mock) env.funcs.set(key, w.mock);
          else {
            env.funcs.set(key, { kind: "value", slot: slots.length });
            slots.push(v);
            env.slots = slots.length;
          }
        }
      }
      const inner: Ctx = { ...ctx, input, data, env, slots };
      fb.emit({ type: "MemoPush" });
      fb.nested(() =>
        planExpr(inner, { ...e, with: [] }, () => {
          fb.emit({ type: "MemoPop" });
          fb.nested(k);
          fb.emit({ type: "MemoPush" });
        }),
      );
      fb.emit({ type: "MemoPop" });
    },
  );
}
