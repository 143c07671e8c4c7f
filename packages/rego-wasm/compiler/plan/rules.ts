/**
 * The IR function of one rule-tree node (all its rules, across modules),
 * params [input, data, ...value slots, ...function args]:
 *
 * - complete: each rule (with its `else` chain) assigns its value once;
 *   two different values abort (eval_conflict_error); `default` fills in
 *   when nothing else did;
 * - partial set / object: the collection starts empty and each solution of
 *   each body adds its element / key path (ObjectInsertOnce: conflicts abort);
 * - function: args unify with the params first; outputs must agree.
 * Which rules run is picked by a lookup on the input where the rule index
 * applies (rule-index.ts); the others run in source order.
 * Rule (non-function) values are memoised per evaluation, undefined
 * included: MemoGet first, MemoInsert at the end (`with` opens a fresh memo
 * frame, see exprs.ts).
 */
import type { CheckedRule, RuleNode } from "../check";
import { isConstant } from "../check/vars";
import type { Ctx } from "./context";
import { planBody } from "./exprs";
import type { Local } from "./ir";
import { insertPath } from "./objects";
import { planIndexedRules } from "./rule-index";
import { planTerm, planTerms, planUnifyLocal } from "./terms";

/**
 * The abort message of a complete rule or function producing two values.
 * OPA's wording changed: releases up to now say `complete rules must not
 * produce multiple outputs` / `functions must not produce multiple outputs
 * for same inputs`; current development names the document instead (`rule
 * data.a.p produced conflicting values`, `function data.a.f produced
 * conflicting values for the same inputs`). Callers, OPA's test cases among
 * them, match a substring of the message (with the code prefix for some), so
 * the message keeps the released wording and adds the newer one after it.
 */
export function conflictMessage(node: RuleNode): string {
  const path = `data.${node.path.join(".")}`;
  return node.kind === "function"
    ? `eval_conflict_error: functions must not produce multiple outputs for same inputs (function ${path} produced conflicting values for the same inputs)`
    : `eval_conflict_error: complete rules must not produce multiple outputs (rule ${path} produced conflicting values)`;
}

/** Plans the body of a node's function into ctx.fb; `ret` and `args` are its locals. */
export function planRuleBody(ctx: Ctx, node: RuleNode, funcIndex: number, ret: Local, args: Local[]): void {
  const fb = ctx.fb;
  const memo = node.kind !== "function";
  if (memo) {
    fb.topBlock(() => {
      fb.emit({ type: "MemoGet", func: funcIndex, target: ret });
      fb.emit({ type: "ReturnLocal", source: ret });
    });
  }
  switch (node.kind) {
    case "complete":
    case "function": {
      const msg = conflictMessage(node);
      planIndexedRules(ctx, node, args, (r) => planChain(ctx, r, ret, args, msg));
      const d = node.defaultRule;
      if (d) {
        fb.topBlock(() => {
          fb.emit({ type: "IsUndefined", source: ret });
          fb.scoped(() =>
            unifyArgs(ctx, d, args, () =>
              planBody(ctx, d.body, () =>
                planTerm(ctx, d.value, (v) => {
                  ctx.p.trailStmt(fb, d, "default");
                  fb.emit({ type: "AssignVar", source: v, target: ret });
                }),
              ),
            ),
          );
        });
      }
      break;
    }
    case "set":
      fb.topBlock(() => fb.emit({ type: "MakeSet", target: ret }));
      planIndexedRules(ctx, node, args, (r) =>
        fb.scoped(() =>
          planBody(ctx, r.body, () =>
            planTerm(ctx, r.key[0]!, (v) => {
              ctx.p.trailStmt(fb, r, "body");
              fb.emit({ type: "SetAdd", set: ret, value: v });
            }),
          ),
        ),
      );
      break;
    case "object": {
      // Nested key paths need the shadow of leaf positions to detect conflicts.
      const shadow = node.rules.some((r) => r.key.length > 1 || r.setLeaf) ? fb.newLocal() : null;
      fb.topBlock(() => {
        fb.emit({ type: "MakeObject", target: ret });
        if (shadow !== null) fb.emit({ type: "MakeObject", target: shadow });
      });
      planIndexedRules(ctx, node, args, (r) =>
        fb.scoped(() =>
          planBody(ctx, r.body, () =>
            planTerms(ctx, [...r.key, r.value], (ls) => {
              ctx.p.trailStmt(fb, r, "body");
              insertPath(ctx, { obj: ret, shadow }, ls.slice(0, -1), ls[ls.length - 1]!, r.setLeaf);
            }),
          ),
        ),
      );
      break;
    }
    default:
      break;
  }
  // Undefined is memoised too: rules that do not hold are referenced often
  // (`not x`, else chains) and would otherwise be evaluated at every reference.
  if (memo) fb.topBlock(() => fb.emit({ type: "MemoInsert", func: funcIndex, value: ret }));
}

/** One rule and its `else` chain: the first body that succeeds gives the chain's value. */
function planChain(ctx: Ctx, rule: CheckedRule, ret: Local, args: Local[], msg: string): void {
  const fb = ctx.fb;
  const one = (r: CheckedRule, target: Local): void => {
    const kind = r === rule ? "body" : "else";
    // A constant value cannot conflict with itself: stop at the first solution
    // (OPA's early exit).
    const depth = fb.depth;
    const exit = isConstant(r.value);
    fb.scoped(() =>
      unifyArgs(ctx, r, args, () =>
        planBody(ctx, r.body, () =>
          planTerm(ctx, r.value, (v) => {
            ctx.p.trailStmt(fb, r, kind);
            fb.emit({ type: "AssignVarOnce", source: v, target, message: msg });
            if (exit) fb.breakTo(depth);
          }),
        ),
      ),
    );
  };
  if (!rule.else) return one(rule, ret);
  const chain = fb.newLocal();
  fb.emit({ type: "ResetLocal", target: chain });
  let first = true;
  for (let r: CheckedRule | null = rule; r; r = r.else) {
    const cur = r;
    const isFirst = first;
    fb.nested(() => {
      if (!isFirst) fb.emit({ type: "IsUndefined", source: chain });
      one(cur, chain);
    });
    first = false;
  }
  fb.emit({ type: "IsDefined", source: chain });
  fb.emit({ type: "AssignVarOnce", source: chain, target: ret, message: msg });
}

function unifyArgs(ctx: Ctx, r: CheckedRule, args: Local[], k: () => void): void {
  const go = (i: number): void => (i >= r.args.length ? k() : planUnifyLocal(ctx, args[i]!, r.args[i]!, () => go(i + 1)));
  go(0);
}
