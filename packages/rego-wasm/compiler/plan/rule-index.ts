/**
 * Rule indexing: the rules of a node are picked by a lookup on the input
 * instead of being tried one after the other, as OPA's Go evaluator picks
 * them with its rule index (ast/index.go). A route table of a thousand
 * `allow if { input.path == "/r/417"; ... }` then costs about what ten do.
 *
 * What is indexed: an expression `input.a.b == c` (or `=`, or `c == ...`)
 * comparing a ref into `input` whose path is all constants with a scalar
 * constant (string, number, boolean, null), not negated and without `with`;
 * for functions also a scalar argument pattern (`f("GET") := ...`), as
 * OPA indexes functions on their arguments. For the subject (ref or
 * argument) that tells most rules apart, consecutive rules that each
 * compare it become a Switch (ir.ts): the value is read once, a table built
 * when the module loads gives the case for it, and only the rules of that
 * case run, in their order. Rules before, between and after such a run
 * keep their place, so rules run in source order exactly as without the
 * index, minus the ones skipped. Within a case the next best subject is
 * indexed the same way.
 *
 * Why skipping is exactly the unindexed evaluation: a rule is skipped only
 * when its body would fail at that comparison (the ref is undefined, or its
 * value is not Rego-equal to the constant: the table's lookup is the
 * runtime's own equality, 1 == 1.0, "1" != 1) and nothing observable would
 * have happened before. So the comparison counts only when every expression
 * before it in the planned body is free of effects (effectFree): no print,
 * no call of a user function or host builtin, no `data` ref (it may
 * evaluate rules, whose conflicts abort), no object comprehension or
 * template string (both may abort), no `with`. The comparison stays in the
 * body and is evaluated again (the lookup only filters). `input` is the
 * rule function's own parameter, which a caller's `with input as` replaces,
 * so the lookup always reads the input the body would read.
 *
 * A function's arguments unify with its patterns before its body, without
 * effect, so a scalar pattern is such a comparison too.
 *
 * An `else` chain is one unit: it is skipped only when every rule of the
 * chain compares the subject, and it runs under each of their constants.
 * Default rules are not indexed (they apply when no other rule did, as
 * before).
 * Instrumented compilations (`rego test` coverage) put a probe, a host
 * call, before every expression, so nothing in them is indexed.
 */
import type { Expr, RefTerm, ScalarTerm, Term } from "../ast";
import type { CheckedRule, RuleNode } from "../check";
import { dataPath, dottedName } from "../check/resolve";
import type { Ctx } from "./context";
import type { Local, ScalarConstant, SwitchCase } from "./ir";
import { planTerm } from "./terms";
import { visitExpr, type VisitResult } from "../walk";

/** Consecutive rules need at least this many distinct constants to be worth a lookup. */
const MIN_CASES = 2;

/** What a rule compares: a ref into input, or a function's argument (its index). */
type Subject = RefTerm | number;

/** The rules (or else chains) of a node with what each compares, in source order. */
interface Item {
  rule: CheckedRule;
  /** Per subject (by key): the subject and the constants (by canonical key) the rule may run for. */
  conds: Map<string, { subject: Subject; values: Map<string, ScalarTerm> }>;
}

/**
 * Plans a node's rules (each with `planOne`) as top-level blocks of its
 * function, dispatched through Switches where the index applies (with
 * ctx.p.ruleIndex). Without it, one block per rule. `args`: the function's
 * argument locals (functions only).
 */
export function planIndexedRules(ctx: Ctx, node: RuleNode, args: Local[], planOne: (r: CheckedRule) => void): void {
  const items = node.rules.map((rule) => ({ rule, conds: ctx.p.ruleIndex ? chainConditions(ctx, rule) : new Map() }));
  planItems(ctx, items, new Set(), true, args, planOne);
}

function planItems(ctx: Ctx, items: Item[], used: Set<string>, top: boolean, args: Local[], planOne: (r: CheckedRule) => void): void {
  const fb = ctx.fb;
  const container = (fn: () => void): void => fb.reusingLocals(() => (top ? fb.topBlock(fn) : fb.nested(fn)));
  const ref = bestRef(items, used);
  if (ref === null) {
    for (const it of items) container(() => planOne(it.rule));
    return;
  }
  const inner = new Set(used).add(ref);
  for (const run of runs(items, ref)) {
    const values = distinctValues(run, ref);
    if (!run[0]!.conds.has(ref) || run.length < 2 || values.size < MIN_CASES) {
      planItems(ctx, run, inner, top, args, planOne);
      continue;
    }
    const cases = [...values.entries()].sort(([, a], [, b]) => regoOrder(a, b));
    const subject = run[0]!.conds.get(ref)!.subject;
    const valueOf = (k: (v: Local) => void): void => (typeof subject === "number" ? k(args[subject]!) : planTerm(ctx, subject, k));
    container(() =>
      valueOf((v) => {
        const switchCases: SwitchCase[] = cases.map(([, term]) => ({ key: scalarConstant(ctx, term), block: { stmts: [] } }));
        fb.emit({ type: "Switch", source: v, cases: switchCases });
        const chosen = itemsByValue(run, ref);
        cases.forEach(([canon], i) => fb.into(switchCases[i]!.block, () => planItems(ctx, chosen.get(canon)!, inner, false, args, planOne)));
      }),
    );
  }
}

/** The ref not yet used with the most distinct constants over the items (at least MIN_CASES), or null. */
function bestRef(items: Item[], used: Set<string>): string | null {
  if (items.length < 2) return null;
  const seen = new Map<string, Set<string>>();
  for (const it of items) {
    for (const [key, c] of it.conds) {
      if (used.has(key)) continue;
      let s = seen.get(key);
      if (!s) seen.set(key, (s = new Set()));
      for (const canon of c.values.keys()) s.add(canon);
    }
  }
  let best: string | null = null;
  let bestCount = MIN_CASES - 1;
  for (const [key, s] of seen) {
    if (s.size > bestCount) {
      best = key;
      bestCount = s.size;
    }
  }
  return best;
}

/** Maximal runs of consecutive items that all compare `ref`, or all do not. */
function runs(items: Item[], ref: string): Item[][] {
  const out: Item[][] = [];
  for (const it of items) {
    const last = out[out.length - 1];
    if (last && last[0]!.conds.has(ref) === it.conds.has(ref)) last.push(it);
    else out.push([it]);
  }
  return out;
}

/** For each constant of `ref`, the items that run under it, in order. */
function itemsByValue(run: Item[], ref: string): Map<string, Item[]> {
  const out = new Map<string, Item[]>();
  for (const it of run) {
    for (const canon of it.conds.get(ref)!.values.keys()) {
      let list = out.get(canon);
      if (!list) out.set(canon, (list = []));
      list.push(it);
    }
  }
  return out;
}

function distinctValues(run: Item[], ref: string): Map<string, ScalarTerm> {
  const out = new Map<string, ScalarTerm>();
  for (const it of run) for (const [canon, term] of it.conds.get(ref)?.values ?? []) if (!out.has(canon)) out.set(canon, term);
  return out;
}

// ------------------------------------------------------------- conditions

/** A condition of one body: its subject must equal `value` for the body to hold. */
interface Condition {
  subject: Subject;
  value: ScalarTerm;
  canon: string;
}

/**
 * What an else chain compares: the subjects every rule of the chain
 * compares, with all their constants (the chain may run for any of them).
 */
function chainConditions(ctx: Ctx, rule: CheckedRule): Item["conds"] {
  const out: Item["conds"] = new Map();
  const first = ruleConditions(ctx, rule);
  const rest: Array<Map<string, Condition>> = [];
  for (let r = rule.else; r; r = r.else) rest.push(ruleConditions(ctx, r));
  for (const [key, c] of first) {
    const values = new Map([[c.canon, c.value]]);
    let all = true;
    for (const other of rest) {
      const o = other.get(key);
      if (!o) {
        all = false;
        break;
      }
      if (!values.has(o.canon)) values.set(o.canon, o.value);
    }
    if (all) out.set(key, { subject: c.subject, values });
  }
  return out;
}

/**
 * The conditions one rule fails at before anything observable happens: a
 * function's scalar argument patterns (`f("GET") := ...`: the arguments
 * unify, without effect, before the body), then the comparisons of the
 * body found before its first expression that is not effect-free. A
 * subject compared twice keeps its first constant (the rule fails at it
 * whatever comes next).
 */
function ruleConditions(ctx: Ctx, rule: CheckedRule): Map<string, Condition> {
  const out = new Map<string, Condition>();
  rule.args.forEach((a, i) => {
    const canon = isScalar(a) ? canonical(a) : null;
    if (isScalar(a) && canon !== null) out.set(`arg ${i}`, { subject: i, value: a, canon });
  });
  for (const e of rule.body) {
    const c = comparison(e);
    if (c) {
      if (!out.has(c.key)) out.set(c.key, c);
      continue;
    }
    if (!effectFree(ctx, e)) break;
  }
  return out;
}

/** `input.a.b == c` (after the checker's rewrite: `eq`) with a constant path and a scalar c. */
function comparison(e: Expr): (Condition & { key: string }) | null {
  if (e.kind !== "term" || e.negated || e.with.length > 0) return null;
  const t = e.term;
  if (t.type !== "call" || t.args.length !== 2 || dottedName(t.op) !== "eq") return null;
  const [a, b] = t.args as [Term, Term];
  const ref = inputRef(a) ? a : inputRef(b) ? b : null;
  const value = ref === a ? b : a;
  if (!ref || ref.type !== "ref" || !isScalar(value)) return null;
  const canon = canonical(value);
  if (canon === null) return null;
  const key = `input ${JSON.stringify(ref.terms.slice(1).map((x) => [x.type, (x as ScalarTerm & { value?: unknown }).value ?? null]))}`;
  return { key, subject: ref, value, canon };
}

/** `input.a[0]["b"]`: a ref into input whose path is all scalar constants. */
function inputRef(t: Term): t is RefTerm {
  if (t.type !== "ref" || t.terms.length < 2) return false;
  const head = t.terms[0]!;
  return head.type === "var" && head.name === "input" && t.terms.slice(1).every(isScalar);
}

function isScalar(t: Term): t is ScalarTerm {
  return t.type === "string" || t.type === "number" || t.type === "boolean" || t.type === "null";
}

/**
 * A key equal for exactly the constants Rego finds equal: numbers by their
 * exact decimal value (1, 1.0 and 1e0 are one key; the runtime compares
 * literals exactly), never colliding across types. Null for a number text
 * this does not understand (the comparison is then not indexed).
 */
function canonical(t: ScalarTerm): string | null {
  switch (t.type) {
    case "null":
      return "null";
    case "boolean":
      return `boolean:${t.value}`;
    case "string":
      return `string:${t.value}`;
    case "number": {
      const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(t.value);
      if (!m) return null;
      const frac = m[3] ?? "";
      let digits = (m[2]! + frac).replace(/^0+/, "");
      if (digits === "") return "number:0";
      let exp = BigInt(m[4] ?? "0") - BigInt(frac.length);
      const trimmed = digits.replace(/0+$/, "");
      exp += BigInt(digits.length - trimmed.length);
      digits = trimmed;
      return `number:${m[1]}${digits}e${exp}`;
    }
  }
}

function scalarConstant(ctx: Ctx, t: ScalarTerm): ScalarConstant {
  switch (t.type) {
    case "null":
      return { type: "null" };
    case "boolean":
      return { type: "boolean", value: t.value };
    case "number":
      return { type: "number", index: ctx.p.strings.get(t.value) };
    case "string":
      return { type: "string", index: ctx.p.strings.get(t.value) };
  }
}

/**
 * Rego's order of scalars (null < booleans < numbers < strings by code
 * point), so a table's keys are inserted in order. Only the cost of building
 * the table depends on it.
 */
function regoOrder(a: ScalarTerm, b: ScalarTerm): number {
  const rank = { null: 0, boolean: 1, number: 2, string: 3 } as const;
  if (a.type !== b.type) return rank[a.type] - rank[b.type];
  if (a.type === "boolean" && b.type === "boolean") return Number(a.value) - Number(b.value);
  if (a.type === "number" && b.type === "number") return Number(a.value) - Number(b.value);
  if (a.type === "string" && b.type === "string") {
    const x = [...a.value];
    const y = [...b.value];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
      if (d !== 0) return d;
    }
    return x.length - y.length;
  }
  return 0;
}

// ------------------------------------------------------------- effects

/** Builtins that reach outside the evaluation or abort it. */
const EFFECTFUL_BUILTINS = new Set(["print", "trace", "internal.template_string"]);

/**
 * Whether evaluating `e` can do nothing observable but succeed, fail or
 * bind vars: no output, no abort, no host call, no rule evaluated. Every
 * part is looked at, closure bodies included.
 */
function effectFree(ctx: Ctx, e: Expr): boolean {
  let free = true;
  const fail = (): VisitResult => {
    free = false;
    return "stop";
  };
  visitExpr(e, {
    expr: (x) => (x.with.length > 0 ? fail() : undefined),
    term: (t) => (pureNode(ctx, t) ? undefined : fail()),
  });
  return free;
}

/** Whether `t` itself, apart from its parts (the visitor reaches those), is free of effects. */
function pureNode(ctx: Ctx, t: Term): boolean {
  switch (t.type) {
    case "var":
      return t.name !== "data";
    case "objectcompr":
      // Two values for one key abort (eval_conflict_error).
      return false;
    case "call":
      return pureCall(ctx, t.op);
    default:
      return true;
  }
}

function pureCall(ctx: Ctx, op: RefTerm): boolean {
  if (dataPath(op)) return false;
  const name = dottedName(op);
  if (name === null || EFFECTFUL_BUILTINS.has(name) || ctx.env.funcs.has(name)) return false;
  if (name === "eq" || name === "assign") return true;
  const spec = ctx.program.builtins.lookup(name);
  return spec !== undefined && !spec.host && !spec.nondeterministic && !spec.jwsSignedByHost && !spec.falseForNonString;
}
