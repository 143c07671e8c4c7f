/**
 * Recursion is forbidden in Rego: a rule (or function) may not depend on
 * itself, directly or through other rules. Dependencies are the `data` refs
 * and function calls in a rule's head and bodies, each depending on the rules
 * it may reach (`addDeps`, as OPA's rule graph computes it).
 */
import type { Term } from "../ast";
import { CompileError } from "../errors";
import type { CheckedRule, Program, RuleNode } from "./program";
import { isConstant, termVars } from "./vars";
import { visitBody, visitTerm, type TermVisitor } from "../walk";

export function checkRecursion(program: Program, errors: CompileError[]): void {
  const nodes: RuleNode[] = [];
  const collect = (n: RuleNode): void => {
    if (n.kind !== null) nodes.push(n);
    n.children.forEach(collect);
  };
  collect(program.root);
  const deps = new Map<RuleNode, Set<RuleNode>>();
  for (const n of nodes) {
    const out = new Set<RuleNode>();
    const rules = [...n.rules, ...(n.defaultRule ? [n.defaultRule] : [])];
    for (const r of rules) ruleRefs(r, (t) => addDeps(program.root, t, out));
    deps.set(n, out);
  }
  const state = new Map<RuleNode, "active" | "done">();
  const stack: RuleNode[] = [];
  const reported = new Set<RuleNode>();
  const visit = (n: RuleNode): void => {
    state.set(n, "active");
    stack.push(n);
    for (const d of deps.get(n) ?? []) {
      const s = state.get(d);
      if (s === "active") {
        if (!reported.has(d)) {
          reported.add(d);
          const cycle = stack.slice(stack.indexOf(d)).concat([d]).map(name);
          const loc = (d.rules[0] ?? d.defaultRule)!.loc;
          errors.push(new CompileError("rego_recursion_error", `rule ${name(d)} is recursive: ${cycle.join(" -> ")}`, loc));
        }
      } else if (s === undefined) visit(d);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const n of nodes) if (!state.has(n)) visit(n);
}

/**
 * The rule nodes one rule body may read: its head's terms and its body (one
 * link of an `else` chain, without the links after it). The decision trail
 * (../trail.ts) names a body's dependencies with it.
 */
export function ruleBodyDeps(root: RuleNode, r: CheckedRule): Set<RuleNode> {
  const out = new Set<RuleNode>();
  bodyRefs(r, (terms) => addDeps(root, terms, out));
  return out;
}

function name(n: RuleNode): string {
  return n.path.length ? `data.${n.path.join(".")}` : "data";
}

/**
 * The rule nodes a `data` ref may read, computed as OPA's GetRulesDynamic
 * does: a constant segment follows that child and stops at the first node
 * holding rules; a dynamic segment (var, ref, call...) tries every child,
 * taking each one's rules and continuing below it; a ref that ends above the
 * rules reads every rule under that point. The hidden `data.system` subtree
 * is reached only by naming it.
 */
function addDeps(root: RuleNode, terms: Term[], out: Set<RuleNode>): void {
  const walk = (node: RuleNode, i: number): void => {
    if (i >= terms.length) return all(node);
    const t = terms[i]!;
    if (isConstant(t)) {
      const seg = t.type === "string" || t.type === "number" ? t.value : null;
      const child = seg === null ? undefined : node.children.get(seg);
      if (!child) return; // base data only
      if (child.kind !== null) out.add(child);
      else walk(child, i + 1);
      return;
    }
    // The planner evaluates one child per key only when the key is a plain var or
    // binds nothing and the rest of the ref binds nothing (plan/data.ts canBranch);
    // otherwise it builds the whole document here, which reads every rule below.
    if (!branchable(t, terms.slice(i + 1))) return all(node);
    for (const child of node.children.values()) {
      if (isHidden(child)) continue;
      if (child.kind !== null) out.add(child);
      walk(child, i + 1);
    }
  };
  const all = (n: RuleNode): void => {
    if (n.kind !== null) out.add(n);
    if (!isHidden(n)) n.children.forEach(all);
  };
  walk(root, 1);
}

/**
 * Whether the planner may branch on this dynamic key (see plan/data.ts
 * canBranch), judged without knowing which vars are bound by then: a key
 * that is a var or has none, and a rest of the ref without vars.
 */
function branchable(key: Term, rest: Term[]): boolean {
  if (key.type !== "var" && termVars(key, new Set()).size > 0) return false;
  const vars = new Set<string>();
  rest.forEach((t) => termVars(t, vars, true));
  return vars.size === 0;
}

function isHidden(n: RuleNode): boolean {
  return n.path.length === 1 && n.path[0] === "system";
}

/** Calls `f` with the terms of every `data` ref (and user-function callee) in a rule. */
function ruleRefs(r: CheckedRule, f: (terms: Term[]) => void): void {
  for (let c: CheckedRule | null = r; c; c = c.else) bodyRefs(c, f);
}

/** The same for one link of an `else` chain: its head's terms and its body. */
function bodyRefs(c: CheckedRule, f: (terms: Term[]) => void): void {
  const refs: TermVisitor = {
    term: (t) => {
      if (isData(t)) f([t]);
      else if (t.type === "call" && isData(t.op.terms[0]!)) f(t.op.terms);
      else if (t.type === "ref" && isData(t.terms[0]!)) {
        // The whole ref is the read; its head is not a read of all of `data`.
        f(t.terms);
        t.terms.slice(1).forEach((x) => visitTerm(x, refs));
        return "skip";
      }
    },
  };
  [c.value, ...c.key, ...c.args].forEach((t) => visitTerm(t, refs));
  visitBody(c.body, refs);
}

function isData(t: Term): boolean {
  return t.type === "var" && t.name === "data";
}
