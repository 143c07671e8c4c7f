/**
 * The `check/` stage: parsed modules -> Program (rule tree of checked rules).
 *
 * Steps, in OPA's order of concern:
 * 1. build the rule tree: rules grouped by full path across modules,
 *    classified (complete, partial set, partial object / ref head, function),
 *    conflicting kinds and duplicate defaults rejected (`tree.ts`);
 * 2. per rule: resolve names (`resolve.ts`), then reorder bodies for safety
 *    and check that head vars are bound (`safety.ts`), then turn `==`
 *    expressions into unification, as OPA does (`equals.ts`);
 * 3. reject recursion between rules (`recursion.ts`).
 * Errors are collected and thrown together as CompileErrors.
 */
import type { Body, Expr, Module, Term } from "../ast";
import { DEFAULT_CATALOGUE, type Catalogue } from "../builtins";
import { CompileError, CompileErrors } from "../errors";
import type { CheckedQuery, CheckedRule, Program } from "./program";
import { isGenerated } from "./program";
import { rewriteEqualsBody, rewriteEqualsTerm } from "./equals";
import { lowerRegoMetadata } from "./metadata";
import { checkRecursion } from "./recursion";
import { checkV1Module } from "./v1-module";
import { resolveBody, resolveTerm, Scope, type ResolveEnv } from "./resolve";
import { checkHead, reorderBody, reorderHeadTerm, type SafetyEnv } from "./safety";
import { buildTree, packageGlobals, type RawRule } from "./tree";
import { hoistTemplateArgs } from "./template";
import { exprVars, termVars } from "./vars";

export type { CheckedQuery, CheckedRule, CheckedWith, Program, RuleKind, RuleNode } from "./program";
export { findNode, hasRules, isCheckedWith, isGenerated, isWildcard } from "./program";

export function check(parsed: Module[], builtins: Catalogue = DEFAULT_CATALOGUE): Program {
  const errors: CompileError[] = [];
  // rego.metadata.* calls become constants first, as OPA rewrites them (metadata.ts).
  const modules = lowerRegoMetadata(parsed, errors);
  // v1's compile checks; v0 modules skip them (v1-module.ts).
  for (const m of modules) checkV1Module(m, errors);
  if (errors.length) throw new CompileErrors(errors);
  const { program, raw } = buildTree(modules, builtins, errors);
  if (errors.length) throw new CompileErrors(errors);
  const counter = { n: 0 };
  const written = new Map<string, string>();
  const globals = new Map<Module, Map<string, Term[]>>();
  for (const r of raw) {
    let g = globals.get(r.module);
    if (!g) globals.set(r.module, (g = packageGlobals(r.module, modules)));
    const env: ResolveEnv = { program, globals: g, counter, written, errors, regoVersion: r.module.regoVersion };
    const checked = checkRule(env, r);
    if (r.rule.default) r.node.defaultRule = checked;
    else r.node.rules.push(checked);
  }
  if (errors.length) throw new CompileErrors(errors);
  checkRecursion(program, errors);
  if (errors.length) throw new CompileErrors(errors);
  return program;
}

function checkRule(env: ResolveEnv, r: RawRule): CheckedRule {
  const top = new Scope(null, true);
  const hoisted = hoistTemplateArgs(r.rule.head.args ?? []);
  const rawArgs = hoisted.args;
  const argVars = new Set<string>();
  rawArgs.forEach((a) => termVars(a, argVars));
  for (const v of argVars) {
    if (v === "input" || v === "data") {
      env.errors.push(new CompileError("rego_compile_error", `args must not shadow ${v} (use a different variable name)`, r.rule.loc));
    } else if (v !== "_") top.names.set(v, v);
  }
  const args = rawArgs.map((a) => resolveTerm(env, a, top));
  const resolvedArgVars = new Set<string>();
  args.forEach((a) => termVars(a, resolvedArgVars));
  const senv: SafetyEnv = { program: env.program, errors: env.errors, written: env.written };

  const one = (rule: typeof r.rule, key: Term[], valueTerm: Term | null): CheckedRule => {
    const res = resolveBody(env, [...rule.body, ...hoisted.binds], top);
    const safe = reorderBody(senv, res.body, resolvedArgVars);
    const resolved = valueTerm ? resolveTerm(env, valueTerm, res.scope) : trueTerm(rule.head.loc);
    const value = reorderHeadTerm(senv, resolved, safe.safe);
    const keys = key.map((k) => reorderHeadTerm(senv, resolveTerm(env, k, res.scope), safe.safe));
    checkHead(senv, [value, ...keys], safe.safe, rule.loc);
    // OPA rewrites `==` into `=` after the safety check (equals.ts).
    const els = rule.else ? one(rule.else, key, rule.else.head.value) : null;
    return {
      kind: r.kind,
      path: r.path,
      key: keys.map(rewriteEqualsTerm),
      args,
      value: rewriteEqualsTerm(value),
      setLeaf: r.setLeaf,
      body: rewriteEqualsBody(safe.body),
      else: els,
      isDefault: rule.default,
      loc: rule.loc,
    };
  };
  return one(r.rule, r.key, r.value);
}

function trueTerm(loc: Term["loc"]): Term {
  return { type: "boolean", value: true, loc };
}

/**
 * Checks a query against the program: refs must be explicit (`data.x.p`),
 * vars are resolved and reordered as in a rule body. Every var written in the
 * query (not `_`) is reported, under the name written.
 */
export function checkQuery(program: Program, body: Body): CheckedQuery {
  const errors: CompileError[] = [];
  const env: ResolveEnv = { program, globals: new Map(), counter: { n: 0 }, written: new Map(), errors };
  const res = resolveBody(env, body, new Scope(null));
  const safe = reorderBody({ program, errors, written: env.written }, res.body, new Set());
  if (errors.length) throw new CompileErrors(errors);
  const outputs: CheckedQuery["outputs"] = [];
  const seen = new Set<string>();
  const written = new Set<string>();
  body.forEach((e) => collectWritten(e, written));
  for (const name of written) {
    if (name === "_" || seen.has(name)) continue;
    seen.add(name);
    const varName = res.scope.lookup(name) ?? name;
    if (!isGenerated(name)) outputs.push({ name, varName });
  }
  return { body: safe.body, outputs: outputs.filter((o) => safe.safe.has(o.varName)) };
}

/** The vars an expression writes outside its closures and its with values, and the names it declares. */
function collectWritten(e: Expr, out: Set<string>): void {
  if (e.kind === "some") e.vars.forEach((v) => out.add(v.name));
  else exprVars({ ...e, with: [] }, out);
}

export { CompileError, CompileErrors };
