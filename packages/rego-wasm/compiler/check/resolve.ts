/**
 * Name resolution and renaming of one rule or query, as OPA's ResolveRefs and
 * RewriteLocalVars stages do:
 * - a var naming a rule of the package or an import alias becomes the full
 *   `data...` (or `input...`) ref, unless a local declaration shadows it;
 * - vars declared with `some`, `:=`, `some .. in` and `every` get fresh names
 *   (`__local<n>__`), so shadowing in closures cannot capture by accident;
 * - every `_` becomes a distinct wildcard `$<n>`;
 * - call ops become user-function refs (`data.pkg.f`) or catalogue builtins,
 *   checked for existence and arity;
 * - `with` targets and function-valued `with` values are classified.
 * Plain (unification-bound) vars keep their names: within a rule a name is one
 * variable, shared by closures that mention it.
 */
import type { Body, CallTerm, Expr, Location, RefTerm, RegoVersion, Term, VarTerm, With } from "../ast";
import { accepts, describeType, literalKind, type DeclaredType } from "../builtins/declared-types";
import { CompileError } from "../errors";
import type { CheckedWith, Program, RuleNode } from "./program";
import { findNode } from "./program";

/** Builtins handled by the compiler itself rather than the catalogue. */
const SPECIAL_CALLS = new Set(["print"]);
/** Calls every policy may make whatever the capabilities say: the compiler itself handles them. */
const COMPILER_CALLS = new Set(["print", "eq", "assign"]);

export class Scope {
  readonly names = new Map<string, string>();
  /** Plain (undeclared) vars used so far in this scope: `x := ...` after them is an error. */
  readonly used = new Set<string>();
  /**
   * `args`: the scope of a function's parameters. OPA keeps them in the same
   * frame as the body's own declarations, so the body may not declare them
   * again (`f(x) if { x := 1 }`: "arg x redeclared"); closures may shadow.
   */
  constructor(
    readonly parent: Scope | null,
    readonly args = false,
  ) {}
  lookup(name: string): string | undefined {
    return this.names.get(name) ?? this.parent?.lookup(name);
  }
}

export interface ResolveEnv {
  program: Program;
  /** Names visible in the module: rules of the package and imports -> ref terms. */
  globals: Map<string, Term[]>;
  counter: { n: number };
  /** Each declared var's fresh name -> the name written, so errors can say `k`, not `__local0__`. */
  written: Map<string, string>;
  errors: CompileError[];
  /** The syntax of the module being resolved: v0 modules still call OPA's deprecated builtins. */
  regoVersion?: RegoVersion;
}

/**
 * OPA's deprecated builtins that v0 modules may still call (OPA 1.x offers
 * them only to v0; v1 capabilities drop them, so in v1 and v0v1 modules they
 * stay undefined functions), each mapped to the builtin OPA registers the
 * same implementation for. Deprecated builtins without such an exact twin
 * (set_diff, any, all, cast_*) are not offered.
 */
const V0_DEPRECATED_BUILTINS: ReadonlyMap<string, string> = new Map([
  ["re_match", "regex.match"],
  ["net.cidr_overlap", "net.cidr_contains"],
]);

export function resolveBody(env: ResolveEnv, body: Body, parent: Scope): { body: Body; scope: Scope } {
  // Declarations take effect from their expression on (OPA's order): a
  // closure before `x := ...` has its own `x`.
  const scope = new Scope(parent);
  const out = body.map((e) => resolveExpr(env, e, scope));
  return { body: out, scope };
}

function fresh(env: ResolveEnv, written: string): string {
  const name = `__local${env.counter.n++}__`;
  env.written.set(name, written);
  return name;
}

/** Declares `v` in `scope`; errors are reported at `at` (OPA: the var for `:=`, the whole `some` for `some`). */
function declare(env: ResolveEnv, scope: Scope, v: VarTerm, what: "declared" | "assigned", at: Location = v.loc): void {
  if (v.name === "_") return;
  if (scope.parent?.args && scope.parent.names.has(v.name)) {
    env.errors.push(new CompileError("rego_compile_error", `arg ${v.name} redeclared`, at));
    return;
  }
  if (scope.names.has(v.name)) {
    env.errors.push(new CompileError("rego_compile_error", `var ${v.name} ${what} above`, at));
    return;
  }
  if (what === "assigned" && scope.used.has(v.name)) {
    env.errors.push(new CompileError("rego_compile_error", `var ${v.name} referenced above`, at));
    return;
  }
  scope.names.set(v.name, fresh(env, v.name));
}

function patternVars(t: Term): VarTerm[] {
  const out: VarTerm[] = [];
  const visit = (x: Term): void => {
    if (x.type === "var") out.push(x);
    else if (x.type === "array" || x.type === "set") x.items.forEach(visit);
    else if (x.type === "object") x.items.forEach(([, v]) => visit(v));
  };
  visit(t);
  return out;
}

function declareIn(env: ResolveEnv, e: Expr, scope: Scope): void {
  if (e.kind === "some") for (const v of e.vars) declare(env, scope, v, "declared", e.loc);
  else if (e.kind === "somein") {
    if (e.key) patternVars(e.key).forEach((v) => declare(env, scope, v, "declared", e.loc));
    patternVars(e.value).forEach((v) => declare(env, scope, v, "declared", e.loc));
  } else if (e.kind === "term" && e.term.type === "call" && isOp(e.term, "assign")) {
    const lhs = e.term.args[0];
    if (lhs) patternVars(lhs).forEach((v) => declare(env, scope, v, "assigned"));
  }
}

function isOp(c: CallTerm, name: string): boolean {
  return c.op.terms.length === 1 && c.op.terms[0]!.type === "var" && c.op.terms[0]!.name === name;
}

function resolveExpr(env: ResolveEnv, e: Expr, scope: Scope): Expr {
  const withs = e.with.map((w) => resolveWith(env, w, scope));
  switch (e.kind) {
    case "term": {
      const t = e.term;
      if (t.type === "call" && isOp(t, "assign") && t.args.length === 2) {
        const rhs = resolveTerm(env, t.args[1]!, scope);
        declareIn(env, e, scope);
        const lhs = resolveTerm(env, t.args[0]!, scope);
        return { ...e, term: { ...t, args: [lhs, rhs] }, with: withs };
      }
      return { ...e, term: resolveTerm(env, t, scope), with: withs };
    }
    case "some":
      declareIn(env, e, scope);
      return { ...e, vars: e.vars.map((v) => ({ ...v, name: scope.lookup(v.name) ?? v.name })), with: withs };
    case "somein": {
      const collection = resolveTerm(env, e.collection, scope);
      declareIn(env, e, scope);
      return {
        ...e,
        key: e.key ? resolveTerm(env, e.key, scope) : null,
        value: resolveTerm(env, e.value, scope),
        collection,
        with: withs,
      };
    }
    case "every": {
      const domain = resolveTerm(env, e.domain, scope);
      const inner = new Scope(scope);
      if (e.key) declare(env, inner, e.key, "declared");
      declare(env, inner, e.value, "declared");
      const key = e.key ? (resolveTerm(env, e.key, inner) as VarTerm) : null;
      const value = resolveTerm(env, e.value, inner) as VarTerm;
      const body = resolveBody(env, e.body, inner).body;
      return { ...e, key, value, domain, body, with: withs };
    }
  }
}

export function resolveTerm(env: ResolveEnv, t: Term, scope: Scope): Term {
  switch (t.type) {
    case "var":
      return resolveVar(env, t, scope);
    case "ref": {
      const head = t.terms[0]!;
      const rest = t.terms.slice(1).map((x) => resolveTerm(env, x, scope));
      const h = resolveTerm(env, head, scope);
      if (h.type === "ref") return { ...t, terms: [...h.terms, ...rest] };
      return { ...t, terms: [h, ...rest] };
    }
    case "array":
      return { ...t, items: t.items.map((x) => resolveTerm(env, x, scope)) };
    case "set":
      return { ...t, items: t.items.map((x) => resolveTerm(env, x, scope)) };
    case "object":
      return { ...t, items: t.items.map(([k, v]) => [resolveTerm(env, k, scope), resolveTerm(env, v, scope)] as [Term, Term]) };
    case "call":
      return resolveCall(env, t, scope);
    case "arraycompr":
    case "setcompr": {
      const r = resolveBody(env, t.body, scope);
      return { ...t, body: r.body, term: resolveTerm(env, t.term, r.scope) };
    }
    case "objectcompr": {
      const r = resolveBody(env, t.body, scope);
      return { ...t, body: r.body, key: resolveTerm(env, t.key, r.scope), value: resolveTerm(env, t.value, r.scope) };
    }
    default:
      return t;
  }
}

function resolveVar(env: ResolveEnv, t: VarTerm, scope: Scope): Term {
  if (t.name === "_") return { ...t, name: `$${env.counter.n++}` };
  const local = scope.lookup(t.name);
  if (local !== undefined) return { ...t, name: local };
  const g = env.globals.get(t.name);
  if (g) return { type: "ref", terms: g.map((x) => ({ ...x, loc: t.loc })), loc: t.loc };
  scope.used.add(t.name);
  return t;
}

/** The dotted name of a ref made of a var and strings (`object.get`), or null. */
export function dottedName(ref: RefTerm): string | null {
  const head = ref.terms[0];
  if (!head || head.type !== "var") return null;
  const parts = [head.name];
  for (const x of ref.terms.slice(1)) {
    if (x.type !== "string") return null;
    parts.push(x.value);
  }
  return parts.join(".");
}

/** Path of a `data` ref made only of strings, without the `data` head, or null. */
export function dataPath(ref: RefTerm): string[] | null {
  const head = ref.terms[0];
  if (!head || head.type !== "var" || head.name !== "data") return null;
  const out: string[] = [];
  for (const x of ref.terms.slice(1)) {
    if (x.type !== "string") return null;
    out.push(x.value);
  }
  return out;
}

/** Resolves a callee ref: user function (`data` ref) or builtin (name as written). */
function resolveOp(env: ResolveEnv, op: RefTerm, scope: Scope): RefTerm {
  const head = op.terms[0]!;
  if (head.type === "var" && scope.lookup(head.name) === undefined && env.globals.has(head.name)) {
    return resolveTerm(env, op, scope) as RefTerm;
  }
  return op;
}

function resolveCall(env: ResolveEnv, t: CallTerm, scope: Scope): Term {
  let op = resolveOp(env, t.op, scope);
  const args = t.args.map((x) => resolveTerm(env, x, scope));
  const path = dataPath(op);
  if (path) {
    const node = findNode(env.program, path);
    if (!node || node.kind !== "function") {
      env.errors.push(new CompileError("rego_type_error", `undefined function data.${path.join(".")}`, t.loc));
    } else checkArity(env, `data.${path.join(".")}`, node.arity, args.length, t.loc);
    return { ...t, op, args };
  }
  const written = dottedName(op);
  const twin = env.regoVersion === "v0" && written !== null ? V0_DEPRECATED_BUILTINS.get(written) : undefined;
  if (twin) {
    const [head, ...rest] = twin.split(".");
    op = { ...op, terms: [{ type: "var", name: head, loc: op.loc }, ...rest.map((value): Term => ({ type: "string", value, loc: op.loc }))] };
  }
  const name = twin ?? written;
  if (name === null || !(SPECIAL_CALLS.has(name) || env.program.builtins.lookup(name) || name === "eq" || name === "assign")) {
    env.errors.push(new CompileError("rego_type_error", `undefined function ${name ?? "call"}`, t.loc));
    return { ...t, op, args };
  }
  // Capabilities (OPA's --capabilities) name what a policy may call; v0's deprecated names count as written.
  if (!COMPILER_CALLS.has(name) && !env.program.builtins.permits(name) && !(written !== null && env.program.builtins.permits(written))) {
    env.errors.push(new CompileError("rego_type_error", `undefined function ${name}`, t.loc));
    return { ...t, op, args };
  }
  const spec = env.program.builtins.lookup(name);
  if (spec) checkArity(env, name, spec.arity, args.length, t.loc);
  if (spec?.args) checkDeclaredTypes(env, name, spec.args, t.args);
  return { ...t, op, args };
}

/** A host builtin's literal operands against its declared types (see ../builtins/declared-types.ts). */
function checkDeclaredTypes(env: ResolveEnv, name: string, declared: DeclaredType[], args: Term[]): void {
  declared.forEach((want, i) => {
    const arg = args[i];
    const have = arg ? literalKind(arg) : null;
    if (arg && have && !accepts(want, have)) {
      env.errors.push(new CompileError("rego_type_error", `${name}: invalid argument(s): operand ${i + 1} is ${have}, want ${describeType(want)}`, arg.loc));
    }
  });
}

/** OPA's messages: builtins "name: arity mismatch", user functions "function f has arity N, got M arguments". */
function checkArity(env: ResolveEnv, name: string, arity: number, given: number, loc: Location): void {
  if (given === arity || given === arity + 1) return;
  const msg = name.startsWith("data.") ? `function ${name} has arity ${arity}, got ${given} argument${given === 1 ? "" : "s"}` : `${name}: arity mismatch`;
  env.errors.push(new CompileError("rego_type_error", msg, loc));
}

function resolveWith(env: ResolveEnv, w: With, scope: Scope): CheckedWith {
  const target = resolveOp(env, w.target, scope);
  const value = resolveTerm(env, w.value, scope);
  const out: CheckedWith = { ...w, target, value, kind: "input", path: [], mock: functionValue(env, w.value, scope) };
  const head = target.terms[0]!;
  const strings = target.terms.slice(1).map((x) => (x.type === "string" ? x.value : null));
  const bad = (): CheckedWith => {
    env.errors.push(new CompileError("rego_compile_error", "with keyword target must reference existing input, data, or a function", w.loc));
    return out;
  };
  if (head.type !== "var" || strings.some((s) => s === null)) return bad();
  const path = strings as string[];
  if (head.name === "input") return { ...out, kind: "input", path };
  if (head.name === "data") {
    const node = findNode(env.program, path);
    if (node && node.kind === "function") return { ...out, kind: "function", path };
    return { ...out, kind: "data", path };
  }
  const name = dottedName(target);
  if (name !== null && env.program.builtins.lookup(name)) return { ...out, kind: "builtin", path: [name] };
  return bad();
}

/** A `with` value naming a function (user function or builtin) mocks by replacement. */
function functionValue(env: ResolveEnv, v: Term, scope: Scope): CheckedWith["mock"] {
  if (v.type !== "var" && v.type !== "ref") return null;
  const ref: RefTerm = v.type === "var" ? { type: "ref", terms: [v], loc: v.loc } : v;
  const head = ref.terms[0]!;
  if (head.type === "var" && scope.lookup(head.name) !== undefined) return null;
  const resolved = resolveOp(env, ref, scope);
  const path = dataPath(resolved);
  if (path) {
    const node: RuleNode | undefined = findNode(env.program, path);
    return node && node.kind === "function" ? { kind: "function", path } : null;
  }
  const name = dottedName(resolved);
  if (name !== null && env.program.builtins.lookup(name)) return { kind: "builtin", name };
  return null;
}
