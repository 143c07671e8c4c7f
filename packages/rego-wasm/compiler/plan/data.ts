/**
 * Refs into `data`: the rule tree decides, segment by segment, whether a ref
 * reaches a rule (call its IR function, then index into the value), stays in
 * base data (index the `data` document), or stops at a node above rules: then
 * the value is the virtual document, base data at that path merged with the
 * value of every rule below it (functions excluded), as in OPA: where both
 * hold a non-object value, base data wins (ObjectMerge keeps `a`), and base
 * data that is not an object is the value as is.
 * Paths mocked by `with data...` are read from the (replaced) data document.
 */
import type { Term } from "../ast";
import { hasRules, type RuleNode } from "../check";
import { CompileError } from "../errors";
import { baseArgs, isMockedPath, type Ctx } from "./context";
import type { Local } from "./ir";
import { termVars } from "../check/vars";
import { hasUnboundVars, makeNumber, makeString, planRefRest, planTerm, planUnifyLocal } from "./terms";

export function planDataRef(ctx: Ctx, ops: Term[], k: (v: Local) => void): void {
  const step = (node: RuleNode, i: number, k: (v: Local) => void): void => {
    if (isMockedPath(ctx.env, node.path)) return planRefRest(ctx, dataAt(ctx, node.path), ops.slice(i), k);
    if (node.kind === "function") {
      throw new CompileError("rego_type_error", `function data.${node.path.join(".")} used as a value`, ops[0]!.loc);
    }
    if (node.kind !== null) return planRefRest(ctx, valueOf(ctx, node), ops.slice(i), k);
    if (i === ops.length) return k(valueOf(ctx, node));
    const op = ops[i]!;
    // OPA reads a literal integer operand of a data path as the key string
    // (`data[2]` is `data["2"]`), and as an index when the document is an array.
    const seg = op.type === "string" ? op.value : op.type === "number" && /^\d+$/.test(op.value) ? op.value : null;
    if (seg !== null) {
      const child = node.children.get(seg);
      if (child) return step(child, i + 1, k);
      return planBaseRest(ctx, dataAt(ctx, node.path), ops.slice(i), k);
    }
    if (canBranch(ctx, op, ops.slice(i + 1))) return planDynamicKey(ctx, node, op, (child, v) => step(child, i + 1, v), ops.slice(i + 1), k);
    planRefRest(ctx, valueOf(ctx, node), ops.slice(i), k);
  };
  step(ctx.program.root, 0, k);
}

/**
 * A dynamic key below a node without rules (`data[x].allow.see`): rather than
 * building the whole virtual document at the node, which would evaluate every
 * rule below it (the rule asking included, when it sits there), only the
 * child the key names is evaluated, as OPA's evaluation does. Each child
 * holding rules gets a branch comparing the key with its name and following
 * the rest of the ref statically; keys naming no such child read base data.
 * Done when the key is bound or a plain var (then bound to each key of the
 * document in turn) and the rest of the ref binds nothing, so that each
 * branch yields at most one value and `k` is planned once.
 */
function planDynamicKey(
  ctx: Ctx,
  node: RuleNode,
  op: Term,
  stepChild: (child: RuleNode, k: (v: Local) => void) => void,
  rest: Term[],
  k: (v: Local) => void,
): void {
  const fb = ctx.fb;
  const children = [...node.children.entries()].filter(([, c]) => c.kind !== "function" && hasRules(c));
  const withKey = (key: Local): void => {
    const res = fb.newLocal();
    fb.emit({ type: "ResetLocal", target: res });
    const assign = (v: Local): void => fb.emit({ type: "AssignVar", source: v, target: res });
    for (const [name, child] of children) {
      fb.nested(() => {
        fb.emit({ type: "Equal", a: key, b: makeString(ctx, name) });
        stepChild(child, assign);
      });
    }
    fb.nested(() => {
      for (const [name] of children) fb.emit({ type: "NotEqual", a: key, b: makeString(ctx, name) });
      const base = dataAt(ctx, node.path);
      fb.emit({ type: "IsObject", source: base });
      const t = fb.newLocal();
      fb.emit({ type: "Dot", source: base, key, target: t });
      planBaseRest(ctx, t, rest, assign);
    });
    fb.emit({ type: "IsDefined", source: res });
    k(res);
  };
  if (!hasUnboundVars(ctx, op)) return planTerm(ctx, op, withKey);
  // An unbound var: every key of the document, virtual or base, once.
  const keys = fb.newLocal();
  fb.emit({ type: "MakeSet", target: keys });
  for (const [name] of children) fb.emit({ type: "SetAdd", set: keys, value: makeString(ctx, name) });
  fb.nested(() => {
    const base = dataAt(ctx, node.path);
    fb.emit({ type: "IsObject", source: base });
    const key = fb.newLocal();
    const val = fb.newLocal();
    const block = { stmts: [] };
    fb.emit({ type: "Scan", source: base, key, value: val, block });
    fb.into(block, () => fb.emit({ type: "SetAdd", set: keys, value: key }));
  });
  const key = fb.newLocal();
  const val = fb.newLocal();
  const block = { stmts: [] };
  fb.emit({ type: "Scan", source: keys, key, value: val, block });
  fb.scoped(() => fb.into(block, () => planUnifyLocal(ctx, key, op, () => withKey(key))));
}

/** The key is bound or a plain var, and the rest of the ref binds no var. */
function canBranch(ctx: Ctx, op: Term, rest: Term[]): boolean {
  if (op.type !== "var" && hasUnboundVars(ctx, op)) return false;
  const vars = new Set<string>();
  rest.forEach((t) => termVars(t, vars, true));
  return [...vars].every((v) => ctx.fb.vars.has(v));
}

/** Follows ref operands through base data, literal integers as index or key string. */
function planBaseRest(ctx: Ctx, v: Local, ops: Term[], k: (v: Local) => void): void {
  const fb = ctx.fb;
  const i = ops.findIndex((op) => op.type !== "string");
  const strings = i < 0 ? ops : ops.slice(0, i);
  let cur = v;
  for (const op of strings) {
    const key = makeString(ctx, (op as { value: string }).value);
    const t = fb.newLocal();
    fb.emit({ type: "Dot", source: cur, key, target: t });
    cur = t;
  }
  if (i < 0) return k(cur);
  const op = ops[i]!;
  if (op.type !== "number" || !/^\d+$/.test(op.value)) return planRefRest(ctx, cur, ops.slice(i), k);
  const t = fb.newLocal();
  fb.emit({ type: "ResetLocal", target: t });
  const src = cur;
  fb.nested(() => fb.emit({ type: "Dot", source: src, key: makeNumber(ctx, op.value), target: t }));
  fb.nested(() => {
    fb.emit({ type: "IsUndefined", source: t });
    fb.emit({ type: "Dot", source: src, key: makeString(ctx, op.value), target: t });
  });
  fb.emit({ type: "IsDefined", source: t });
  planBaseRest(ctx, t, ops.slice(i + 1), k);
}

/** Base data at `path`: fails (ends the block) when absent. */
function dataAt(ctx: Ctx, path: readonly string[]): Local {
  let cur = ctx.data;
  for (const seg of path) {
    const key = makeString(ctx, seg);
    const t = ctx.fb.newLocal();
    ctx.fb.emit({ type: "Dot", source: cur, key, target: t });
    cur = t;
  }
  return cur;
}

/** The value of a node: its rules' value, or the virtual document below it. Fails when undefined. */
export function valueOf(ctx: Ctx, node: RuleNode): Local {
  const fb = ctx.fb;
  if (isMockedPath(ctx.env, node.path)) return dataAt(ctx, node.path);
  if (node.kind !== null) {
    const r = fb.newLocal();
    fb.emit({ type: "Call", func: ctx.p.ruleFunc(node, ctx.env).name, args: baseArgs(ctx), result: r });
    let v = r;
    if (node.kind === "object" && [...node.children.values()].some(hasRules)) {
      const merged = fb.newLocal();
      fb.emit({ type: "ObjectMerge", a: r, b: childrenObject(ctx, node), target: merged });
      v = merged;
    }
    return withMocksBelow(ctx, node, v);
  }
  if (!hasRules(node)) return dataAt(ctx, node.path);
  const obj = childrenObject(ctx, node);
  fb.nested(() => {
    const base = dataAt(ctx, node.path);
    const m = fb.newLocal();
    fb.emit({ type: "ObjectMerge", a: base, b: obj, target: m });
    fb.emit({ type: "AssignVar", source: m, target: obj });
  });
  return obj;
}

/** An object of the defined values of a node's children that hold rules. */
function childrenObject(ctx: Ctx, node: RuleNode): Local {
  const fb = ctx.fb;
  const obj = fb.newLocal();
  fb.emit({ type: "MakeObject", target: obj });
  for (const [key, child] of node.children) {
    if (child.kind === "function" || !hasRules(child) || isMockedPath(ctx.env, child.path)) continue;
    fb.nested(() => {
      const v = valueOf(ctx, child);
      fb.emit({ type: "ObjectInsert", object: obj, key: makeString(ctx, key), value: v });
    });
  }
  return obj;
}

/** A rule value with mocked paths strictly below the rule written in (`with data.p.q as 1`). */
function withMocksBelow(ctx: Ctx, node: RuleNode, v: Local): Local {
  const below = ctx.env.dataPaths.filter((m) => m.length > node.path.length && node.path.every((s, i) => s === m[i]));
  if (below.length === 0) return v;
  const fb = ctx.fb;
  const out = fb.newLocal();
  fb.emit({ type: "AssignVar", source: v, target: out });
  for (const m of below) {
    fb.nested(() => {
      const t = upsert(ctx, out, m.slice(node.path.length), dataAt(ctx, m));
      fb.emit({ type: "AssignVar", source: t, target: out });
    });
  }
  return out;
}

/**
 * A copy of `src` with the value at `path` replaced by `v` (missing or
 * non-object levels become objects); `src` itself is not changed.
 */
export function upsert(ctx: Ctx, src: Local, path: readonly string[], v: Local): Local {
  const fb = ctx.fb;
  if (path.length === 0) return v;
  const o = fb.newLocal();
  fb.emit({ type: "MakeObject", target: o });
  fb.nested(() => {
    fb.emit({ type: "IsObject", source: src });
    const key = fb.newLocal();
    const val = fb.newLocal();
    const block = { stmts: [] };
    fb.emit({ type: "Scan", source: src, key, value: val, block });
    fb.into(block, () => fb.emit({ type: "ObjectInsert", object: o, key, value: val }));
  });
  const key = makeString(ctx, path[0]!);
  const child = fb.newLocal();
  fb.emit({ type: "ResetLocal", target: child });
  fb.nested(() => {
    fb.emit({ type: "IsDefined", source: src });
    fb.emit({ type: "Dot", source: src, key, target: child });
  });
  const nv = upsert(ctx, child, path.slice(1), v);
  fb.emit({ type: "ObjectInsert", object: o, key, value: nv });
  return o;
}
