/**
 * rego.metadata.rule() and rego.metadata.chain(), lowered to constants before
 * any other check, as OPA's compiler does (v1/ast/compile.go
 * rewriteRegoMetadataCalls; that is also how OPA's Wasm target has them):
 *
 *   rule()  -> the rule-scope annotations of the rule, the block closest to it
 *              first; `{}` when it has none;
 *   chain() -> `[{"path": [...], "annotations": {...}}, ...]`: the rule's own
 *              blocks (closest first, or one entry with only its path), then
 *              the `document` block of its path, the `package` block of its
 *              package, and `subpackages` blocks from the package outward.
 *
 * An `else` branch is a rule of its own to OPA, without blocks of its own.
 * The annotation set also rejects a second `package` block for one package
 * or a second `document`/`subpackages` block for one path (rego_type_error,
 * OPA's setAnnotationSet), whether or not the calls are used.
 */
import type { Annotations, Body, Expr, Location, Module, ObjectTerm, Rule, Term } from "../ast";
import { CompileError } from "../errors";
import { mapExprParts, mapTermParts, someTerm } from "../walk";

const CHAIN = "rego.metadata.chain";
const RULE = "rego.metadata.rule";

/** The modules with every rego.metadata call replaced by its constant (the same objects when there are none). */
export function lowerRegoMetadata(modules: Module[], errors: CompileError[]): Module[] {
  const set = buildAnnotationSet(modules, errors);
  if (!modules.some((m) => m.rules.some(callsMetadata))) return modules;
  return modules.map((m) => {
    if (!m.rules.some(callsMetadata)) return m;
    const rules = m.rules.map((rule) => {
      if (!callsMetadata(rule)) return rule;
      const path = groundPrefix(rule);
      const lowerOne = (r: Rule, own: Annotations[]): Rule => {
        const consts = { chain: chainTerm(set, m, path, own), rule: own.length ? own[0].value : emptyObject(r.loc) };
        return {
          ...r,
          head: {
            ...r.head,
            ref: r.head.ref.map((t) => lowerTerm(t, consts)),
            args: r.head.args && r.head.args.map((t) => lowerTerm(t, consts)),
            key: r.head.key && lowerTerm(r.head.key, consts),
            value: r.head.value && lowerTerm(r.head.value, consts),
          },
          body: lowerBody(r.body, consts),
          else: r.else && lowerOne(r.else, []),
        };
      };
      return lowerOne(rule, set.byRule.get(rule) ?? []);
    });
    return { ...m, rules };
  });
}

// ---------------------------------------------------------------- the annotation set

interface PathNode {
  value: Annotations | null;
  children: Map<string, PathNode>;
}

interface AnnotationSet {
  /** Rule-scope blocks of each rule, closest to the rule first. */
  byRule: Map<Rule, Annotations[]>;
  byPackage: Map<string, Annotations>;
  /** `document` blocks at rule paths and `subpackages` blocks at package paths share one tree, as in OPA. */
  byPath: PathNode;
}

function buildAnnotationSet(modules: Module[], errors: CompileError[]): AnnotationSet {
  const set: AnnotationSet = { byRule: new Map(), byPackage: new Map(), byPath: newNode() };
  const redeclared = (a: Annotations, other: Location): void => {
    errors.push(new CompileError("rego_type_error", `${a.scope} annotation redeclared: ${other.file}:${other.row}:${other.col}`, a.loc));
  };
  // OPA visits modules by name.
  const sorted = [...modules].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const m of sorted) {
    for (const a of m.annotations) {
      const target = a.target;
      if (a.scope === "rule" && "head" in target) {
        const list = set.byRule.get(target) ?? [];
        list.push(a);
        set.byRule.set(target, list);
      } else if (a.scope === "package" && "path" in target) {
        const key = JSON.stringify(target.path);
        const exist = set.byPackage.get(key);
        if (exist) redeclared(a, exist.loc);
        else set.byPackage.set(key, a);
      } else if (a.scope === "document" && "head" in target) {
        const path = [...m.package.path.map((s) => str(s, a.loc)), ...groundPrefix(target)];
        const node = getNode(set.byPath, path);
        if (node?.value) redeclared(a, node.value.loc);
        else insertNode(set.byPath, path, a);
      } else if (a.scope === "subpackages" && "path" in target) {
        const node = getNode(
          set.byPath,
          target.path.map((s) => str(s, a.loc)),
        );
        if (node?.value) redeclared(a, node.value.loc);
        else
          insertNode(
            set.byPath,
            target.path.map((s) => str(s, a.loc)),
            a,
          );
      }
    }
  }
  for (const list of set.byRule.values()) list.sort((a, b) => compareLoc(b.loc, a.loc));
  return set;
}

function compareLoc(a: Location, b: Location): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.row - b.row || a.col - b.col;
}

function newNode(): PathNode {
  return { value: null, children: new Map() };
}

function keyOf(t: Term): string {
  return t.type === "string" ? t.value : JSON.stringify([t.type, "value" in t ? t.value : null]);
}

function getNode(root: PathNode, path: Term[]): PathNode | null {
  let node: PathNode | undefined = root;
  for (const t of path) {
    node = node.children.get(keyOf(t));
    if (!node) return null;
  }
  return node;
}

function insertNode(root: PathNode, path: Term[], value: Annotations): void {
  let node = root;
  for (const t of path) {
    const k = keyOf(t);
    let child = node.children.get(k);
    if (!child) node.children.set(k, (child = newNode()));
    node = child;
  }
  node.value = value;
}

/** The values along `path` from the root down, each with its path (OPA's annotationTreeNode.ancestors). */
function ancestors(root: PathNode, path: Term[]): Array<[Annotations, Term[]]> {
  const out: Array<[Annotations, Term[]]> = [];
  let node: PathNode | undefined = root;
  for (let i = 0; i < path.length; i++) {
    node = node.children.get(keyOf(path[i]));
    if (!node) break;
    if (node.value) out.push([node.value, path.slice(0, i + 1)]);
  }
  return out;
}

/** The rule's path inside `data` up to its first non-ground part (`p[x]` is `p`), the package included by the caller. */
function groundPrefix(rule: Rule): Term[] {
  const out: Term[] = [];
  for (const t of rule.head.ref) {
    if (t.type === "var" && out.length === 0) out.push(str(t.name, t.loc));
    else if (t.type === "string" || t.type === "number" || t.type === "boolean" || t.type === "null") out.push(t);
    else break;
  }
  return out;
}

// ---------------------------------------------------------------- the constants

function chainTerm(set: AnnotationSet, m: Module, rulePath: Term[], own: Annotations[]): Term {
  const loc = m.package.loc;
  const pkgPath = m.package.path.map((s) => str(s, loc));
  const fullPath = [...pkgPath, ...rulePath];
  const entry = (path: Term[], a: Annotations | null): Term => {
    const items: Array<[Term, Term]> = [[str("path", loc), { type: "array", items: path, loc }]];
    if (a) items.push([str("annotations", loc), a.value]);
    return { type: "object", items, loc };
  };
  const entries: Term[] = own.length ? own.map((a) => entry(fullPath, a)) : [entry(fullPath, null)];
  const doc = getNode(set.byPath, fullPath)?.value;
  if (doc) entries.push(entry(fullPath, doc));
  const pkg = set.byPackage.get(JSON.stringify(m.package.path));
  if (pkg) entries.push(entry(pkgPath, pkg));
  for (const [a, path] of ancestors(set.byPath, pkgPath).reverse()) entries.push(entry(path, a));
  return { type: "array", items: entries, loc };
}

function str(value: string, loc: Location): Term {
  return { type: "string", value, loc };
}

function emptyObject(loc: Location): ObjectTerm {
  return { type: "object", items: [], loc };
}

// ---------------------------------------------------------------- the rewrite

interface Consts {
  chain: Term;
  rule: Term;
}

function isMetadataCall(t: Term): string | null {
  if (t.type !== "call") return null;
  const op = t.op.terms;
  if (op.length !== 3 || op[0].type !== "var" || op[0].name !== "rego") return null;
  if (op[1].type !== "string" || op[1].value !== "metadata" || op[2].type !== "string") return null;
  const name = `rego.metadata.${op[2].value}`;
  return name === CHAIN || name === RULE ? name : null;
}

function callsMetadata(rule: Rule): boolean {
  const isCall = (t: Term): boolean => isMetadataCall(t) !== null;
  for (let r: Rule | null = rule; r; r = r.else) {
    const h = r.head;
    const heads = [...h.ref, ...(h.args ?? []), h.key, h.value].filter((t): t is Term => t !== null);
    if (heads.some((t) => someTerm(t, isCall)) || someTerm(r.body, isCall)) return true;
  }
  return false;
}

/** A fresh copy of a constant, placed at the call it replaces. */
function constAt(t: Term, loc: Location): Term {
  switch (t.type) {
    case "array":
      return { type: "array", items: t.items.map((x) => constAt(x, loc)), loc };
    case "object":
      return { type: "object", items: t.items.map(([k, v]) => [constAt(k, loc), constAt(v, loc)]), loc };
    default:
      return { ...t, loc } as Term;
  }
}

function lowerTerm(t: Term, c: Consts): Term {
  const name = isMetadataCall(t);
  if (name && t.type === "call" && t.args.length === 0) return constAt(name === CHAIN ? c.chain : c.rule, t.loc);
  return mapTermParts(
    t,
    (x) => lowerTerm(x, c),
    (b) => lowerBody(b, c),
  );
}

function lowerBody(body: Body, c: Consts): Body {
  return body.map((e) => lowerExpr(e, c));
}

function lowerExpr(e: Expr, c: Consts): Expr {
  const lowered = mapExprParts(
    e,
    (x) => lowerTerm(x, c),
    (b) => lowerBody(b, c),
  );
  // `rego.metadata.chain(x)`: the output operand is unified with the constant.
  if (e.kind === "term" && lowered.kind === "term" && e.term.type === "call" && e.term.args.length === 1) {
    const name = isMetadataCall(e.term);
    if (name) {
      const t = e.term;
      const value = constAt(name === CHAIN ? c.chain : c.rule, t.loc);
      const eq: Term = {
        type: "call",
        op: { type: "ref", terms: [{ type: "var", name: "eq", loc: t.loc }], loc: t.loc },
        args: [lowerTerm(t.args[0], c), value],
        loc: t.loc,
      };
      return { ...lowered, term: eq };
    }
  }
  return lowered;
}
