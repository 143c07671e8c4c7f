/**
 * The planner: owns the policy being built (strings, functions, host
 * builtins) and plans rule-tree nodes into IR functions on demand, once per
 * node and mock environment (see context.ts), plus one plan per entrypoint.
 */
import type { Body } from "../ast";
import { checkQuery, type CheckedRule, type Program, type RuleNode } from "../check";
import { CompileError } from "../errors";
import { FuncBuilder, StringTable } from "./builder";
import { EMPTY_ENV, envKey, type Ctx, type MockEnv } from "./context";
import { planDataRef } from "./data";
import { planBody } from "./exprs";
import { MAX_TRAIL_BODIES, trailBodyOf } from "../trail";
import type { Func, HostBuiltin, Local, Plan, Policy, TrailBody } from "./ir";
import { planRuleBody } from "./rules";
import { makeString } from "./terms";

export interface Entrypoint {
  name: string;
  path?: string[];
  query?: Body;
}

export class Planner {
  readonly strings = new StringTable();
  readonly funcs: Func[] = [];
  readonly hostBuiltins: HostBuiltin[] = [];
  private readonly cache = new Map<string, Func>();
  private readonly active: string[] = [];
  private readonly variants = new Map<string, number>();
  /** The decision trail's table (../trail.ts), null when the compilation records none. */
  private readonly trail: TrailBody[] | null;
  /** Trail id per rule body: a body planned again under a mock keeps its id. */
  private readonly trailIds = new Map<CheckedRule, number>();

  /**
   * @param ruleIndex pick a node's rules by a lookup on the input where the
   *   rule index applies (rule-index.ts), instead of trying each in turn.
   * @param options.trail false: plan no TrailStmt (../trail.ts).
   */
  constructor(
    readonly program: Program,
    readonly ruleIndex = false,
    options: { trail?: boolean } = {},
  ) {
    this.trail = options.trail === false ? null : [];
  }

  policy(entrypoints: Entrypoint[]): Policy {
    const plans = entrypoints.map((ep) => this.planEntrypoint(ep));
    const policy: Policy = { strings: this.strings.strings, funcs: this.funcs, plans, hostBuiltins: this.hostBuiltins };
    if (this.trail) policy.trail = this.trail;
    return policy;
  }

  /**
   * Emits the TrailStmt saying `rule` (a body: plain, an `else` branch, the
   * `default`) succeeded, where its head takes its value; nothing when the
   * compilation records no trail or the table is full.
   */
  trailStmt(fb: FuncBuilder, rule: CheckedRule, kind: TrailBody["kind"]): void {
    if (!this.trail) return;
    let id = this.trailIds.get(rule);
    if (id === undefined) {
      if (this.trail.length >= MAX_TRAIL_BODIES) return;
      id = this.trail.length;
      this.trail.push(trailBodyOf(this.program, rule, kind));
      this.trailIds.set(rule, id);
    }
    fb.emit({ type: "Trail", body: id });
  }

  /** The CallStmt name of a host builtin, registering it on first use. */
  hostBuiltin(name: string, arity: number): string {
    if (!this.hostBuiltins.some((h) => h.name === name)) this.hostBuiltins.push({ name, arity });
    return `host:${name}`;
  }

  /** A function (params input, data) calling a 0-ary builtin once per evaluation (memoised). */
  onceFunc(name: string, callee: string): Func {
    const key = `builtin ${name}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const index = this.funcs.length;
    const func: Func = { name: key, params: [0, 1], ret: 2, locals: 3, path: name, blocks: [] };
    func.blocks.push({
      stmts: [
        { type: "MemoGet", func: index, target: 2 },
        { type: "ReturnLocal", source: 2 },
      ],
    });
    func.blocks.push({
      stmts: [
        { type: "Call", func: callee, args: [], result: 2 },
        { type: "MemoInsert", func: index, value: 2 },
      ],
    });
    this.funcs.push(func);
    this.cache.set(key, func);
    return func;
  }

  /** The IR function computing a node's value under a mock environment. */
  ruleFunc(node: RuleNode, env: MockEnv): Func {
    const path = `data.${node.path.join(".")}`;
    const key = `${path}|${envKey(env)}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    if (this.active.includes(key)) {
      const rule = node.rules[0] ?? node.defaultRule;
      const loc = rule ? rule.loc : { file: "", row: 0, col: 0 };
      throw new CompileError("rego_recursion_error", `rule ${path} is recursive`, loc);
    }
    const n = this.variants.get(path) ?? 0;
    this.variants.set(path, n + 1);
    const fb = new FuncBuilder();
    const input = fb.newLocal();
    const data = fb.newLocal();
    const slots = Array.from({ length: env.slots }, () => fb.newLocal());
    const args = Array.from({ length: node.kind === "function" ? node.arity : 0 }, () => fb.newLocal());
    const params = Array.from({ length: fb.nlocals }, (_, i) => i);
    const ret = fb.newLocal();
    const func: Func = { name: n === 0 ? path : `${path}#${n}`, params, ret, blocks: fb.blocks, locals: 0, path };
    const index = this.funcs.length;
    this.funcs.push(func);
    this.cache.set(key, func);
    this.active.push(key);
    try {
      const ctx: Ctx = { p: this, program: this.program, fb, input, data, env, slots };
      planRuleBody(ctx, node, index, ret, args);
    } finally {
      this.active.pop();
    }
    func.locals = fb.totalLocals;
    return func;
  }

  private planEntrypoint(ep: Entrypoint): Plan {
    const fb = new FuncBuilder();
    const input = fb.newLocal();
    const data = fb.newLocal();
    const ctx: Ctx = { p: this, program: this.program, fb, input, data, env: EMPTY_ENV, slots: [] };
    fb.topBlock(() => {
      if (ep.query) {
        const q = checkQuery(this.program, ep.query);
        planBody(ctx, q.body, () => {
          const obj = fb.newLocal();
          fb.emit({ type: "MakeObject", target: obj });
          for (const o of q.outputs) {
            const l: Local | undefined = fb.vars.get(o.varName);
            if (l !== undefined) fb.emit({ type: "ObjectInsert", object: obj, key: makeString(ctx, o.name), value: l });
          }
          fb.emit({ type: "ResultSetAdd", value: obj });
        });
      } else {
        const path = ep.path ?? ep.name.split("/").filter((s) => s !== "");
        const ops = path.map((s) => ({ type: "string" as const, value: s, loc: { file: ep.name, row: 1, col: 1 } }));
        planDataRef(ctx, ops, (v) => {
          const obj = fb.newLocal();
          fb.emit({ type: "MakeObject", target: obj });
          fb.emit({ type: "ObjectInsert", object: obj, key: makeString(ctx, "result"), value: v });
          fb.emit({ type: "ResultSetAdd", value: obj });
        });
      }
    });
    return { name: ep.name, blocks: fb.blocks, locals: fb.totalLocals };
  }
}
