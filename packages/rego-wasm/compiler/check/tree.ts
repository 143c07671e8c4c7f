/**
 * The rule tree: every rule of every module placed at its full path
 * (package path + ground prefix of its head ref), classified by kind.
 *
 *   p := 1 / p if ...          complete    at pkg.p
 *   a.b.c := 1                 complete    at pkg.a.b.c
 *   p contains x if ...        set         at pkg.p
 *   p[k] := v / p[x].y := z    object      at pkg.p, key [k] / [x, "y"]
 *   f(x) := y                  function    at pkg.f
 *
 * One path holds one kind (OPA: "conflicting rules"), at most one default
 * rule, and functions of one arity.
 */
import type { Module, Rule, Term } from "../ast";
import type { Catalogue } from "../builtins";
import { CompileError } from "../errors";
import type { Program, RuleKind, RuleNode } from "./program";

export interface RawRule {
  module: Module;
  rule: Rule;
  node: RuleNode;
  kind: RuleKind;
  path: string[];
  /** object: key path below the node; set: [element]. */
  key: Term[];
  /** The value term (null: `true`); for set leaves, the element. */
  value: Term | null;
  setLeaf: boolean;
}

function newNode(path: string[]): RuleNode {
  return { path, children: new Map(), rules: [], defaultRule: null, kind: null, arity: 0, isPackage: false };
}

function nodeAt(root: RuleNode, path: string[]): RuleNode {
  let node = root;
  for (const seg of path) {
    let next = node.children.get(seg);
    if (!next) {
      next = newNode([...node.path, seg]);
      node.children.set(seg, next);
    }
    node = next;
  }
  return node;
}

export function buildTree(modules: Module[], builtins: Catalogue, errors: CompileError[]): { program: Program; raw: RawRule[] } {
  const root = newNode([]);
  const raw: RawRule[] = [];
  const defaults = new Set<RuleNode>();
  for (const m of modules) {
    nodeAt(root, m.package.path).isPackage = true;
    for (const rule of m.rules) {
      const c = classify(m, rule);
      const node = nodeAt(root, c.path);
      const full = "data." + c.path.join(".");
      const arity = rule.head.args?.length ?? 0;
      if (node.kind !== null && (node.kind !== c.kind || (c.kind === "function" && node.arity !== arity))) {
        errors.push(new CompileError("rego_type_error", `conflicting rules ${full} found`, rule.loc));
        continue;
      }
      node.kind = c.kind;
      node.arity = arity;
      if (rule.default) {
        if (defaults.has(node)) {
          errors.push(new CompileError("rego_type_error", `multiple default rules ${full} found`, rule.loc));
          continue;
        }
        defaults.add(node);
      }
      raw.push({ module: m, rule, node, ...c });
    }
  }
  checkPackageConflicts(root, modules, raw, errors);
  absorb(root, raw);
  checkPrefixConflicts(root, errors, raw);
  return { program: { root, builtins }, raw };
}

function classify(m: Module, rule: Rule): Omit<RawRule, "module" | "rule" | "node"> {
  const [head, ...ops] = rule.head.ref;
  const name = head && head.type === "var" ? head.name : head && head.type === "string" ? head.value : "";
  const path = [...m.package.path, name];
  let i = 0;
  while (i < ops.length && ops[i]!.type === "string") {
    path.push((ops[i] as { value: string }).value);
    i++;
  }
  const none = { key: [], value: null, setLeaf: false };
  if (rule.head.args !== null) return { kind: "function", path, ...none, value: rule.head.value };
  if (i < ops.length) {
    // A ref head with a var: an object at the ground prefix, built key by key.
    const setLeaf = rule.head.key !== null;
    return { kind: "object", path, key: ops.slice(i), value: setLeaf ? rule.head.key : rule.head.value, setLeaf };
  }
  if (rule.head.key !== null) return { kind: "set", path, ...none, key: [rule.head.key] };
  return { kind: "complete", path, ...none, value: rule.head.value };
}

/**
 * Rules below an object node (`p[x] := 1` with `p.a.b := 2`) build the same
 * object: they become contributions of the object node with a longer key
 * path, so one function computes p and key conflicts abort as in OPA.
 */
function absorb(node: RuleNode, raw: RawRule[]): void {
  if (node.kind !== "object") {
    for (const c of node.children.values()) absorb(c, raw);
    return;
  }
  for (const r of raw) {
    if (r.node === node || !isBelow(node.path, r.node.path) || r.kind === "function") continue;
    const loc = r.rule.head.loc;
    const prefix: Term[] = r.node.path.slice(node.path.length).map((s) => ({ type: "string", value: s, loc }));
    if (r.kind === "set") {
      Object.assign(r, { key: prefix, value: r.key[0]!, setLeaf: true });
    } else r.key = [...prefix, ...r.key];
    r.kind = "object";
    r.node = node;
    r.path = node.path;
  }
  node.children.clear();
}

function isBelow(parent: string[], path: string[]): boolean {
  return path.length > parent.length && parent.every((s, i) => s === path[i]);
}

/** A package cannot live at or below a rule's path (OPA: "package x conflicts with rule r defined at ..."). */
function checkPackageConflicts(root: RuleNode, modules: Module[], raw: RawRule[], errors: CompileError[]): void {
  for (const m of modules) {
    let node = root;
    for (const seg of m.package.path) {
      node = node.children.get(seg)!;
      if (node.kind === null) continue;
      const r = raw.find((x) => x.node === node);
      if (!r) continue;
      // OPA reports it at the package of the rule's module, naming the rule.
      const at = `${r.rule.loc.file}:${r.rule.loc.row}`;
      const rule = node.path.slice(r.module.package.path.length).join(".");
      const msg = `package ${m.package.path.join(".")} conflicts with rule ${rule} defined at ${at}`;
      errors.push(new CompileError("rego_type_error", msg, r.module.package.loc));
      break;
    }
  }
}

/** A complete rule, set or function cannot have rules below it (OPA: rule conflicts). */
function checkPrefixConflicts(node: RuleNode, errors: CompileError[], raw: RawRule[]): void {
  const below = [...node.children.values()].filter((c) => c.kind !== null || c.children.size > 0);
  if ((node.kind === "complete" || node.kind === "function" || node.kind === "set") && below.length > 0) {
    const r = raw.find((x) => x.node === node);
    const names = below.map((c) => `data.${c.path.join(".")}`);
    if (r) {
      errors.push(new CompileError("rego_type_error", `rule data.${node.path.join(".")} conflicts with [${names.join(" ")}]`, r.rule.loc));
    }
  }
  for (const c of node.children.values()) checkPrefixConflicts(c, errors, raw);
}

/** Names visible in a module: its package's rules (across modules) and its imports. */
export function packageGlobals(m: Module, modules: Module[]): Map<string, Term[]> {
  const globals = new Map<string, Term[]>();
  const loc = m.package.loc;
  const pkgRef: Term[] = [{ type: "var", name: "data", loc }, ...m.package.path.map((s) => str(s, loc))];
  for (const imp of m.imports) {
    const terms = imp.path.terms;
    const head = terms[0];
    if (!head || head.type !== "var" || (head.name !== "data" && head.name !== "input")) continue;
    const last = terms[terms.length - 1]!;
    const alias = imp.alias ?? (last.type === "string" ? last.value : last.type === "var" ? last.name : null);
    if (alias) globals.set(alias, terms);
  }
  const samePkg = modules.filter((o) => o.package.path.join(".") === m.package.path.join("."));
  for (const o of samePkg) {
    for (const rule of o.rules) {
      const head = rule.head.ref[0];
      if (head && head.type === "var") globals.set(head.name, [...pkgRef, str(head.name, loc)]);
    }
  }
  return globals;
}

function str(value: string, loc: Term["loc"]): Term {
  return { type: "string", value, loc };
}
