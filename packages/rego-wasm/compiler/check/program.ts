/**
 * The checker's output: every module's rules merged into one rule tree keyed
 * by full path (`data.a.b.p`), with bodies resolved (rule and import names
 * turned into `data...` refs, declared vars and wildcards renamed apart) and
 * reordered for safety. This is what `plan/` consumes.
 *
 * Conventions of a checked body:
 * - a ref or var whose head is the var `data` / `input` is a root document;
 *   no local variable is ever named `data` or `input`;
 * - a call whose op ref starts with `data` calls a user function; any other op
 *   names a builtin (dotted name), already checked against the catalogue;
 * - `some x` declarations are kept as no-op markers; `some x in xs` and
 *   `every` keep their shape with renamed vars;
 * - vars named `$<n>` are wildcards and `__local<n>__` are declared vars:
 *   neither is reported in query results.
 */
import type { Body, Location, Term, With } from "../ast";
import type { Catalogue } from "../builtins";

export type RuleKind = "complete" | "set" | "object" | "function";

export interface CheckedRule {
  kind: RuleKind;
  /** Path of the rule-tree node the rule contributes to, without `data`. */
  path: string[];
  /**
   * object: the head ref operands after the ground prefix (`p[x].y` -> [x, "y"]);
   * set: the single element term; otherwise empty.
   */
  key: Term[];
  /** Function parameters (patterns); empty for other kinds. */
  args: Term[];
  /** Value term: `true` when the head has none; for sets, unused; for set leaves, the element. */
  value: Term;
  /** object kind only: the key path leads to a set and `value` is added to it (`p[x] contains y`). */
  setLeaf: boolean;
  body: Body;
  else: CheckedRule | null;
  isDefault: boolean;
  loc: Location;
}

export interface RuleNode {
  /** Path without `data`; [] for the root. */
  path: string[];
  children: Map<string, RuleNode>;
  /** Non-default rules defined exactly at this path. */
  rules: CheckedRule[];
  defaultRule: CheckedRule | null;
  /** Kind of the rules at this node; null when it only has children. */
  kind: RuleKind | null;
  /** Number of parameters, for function nodes. */
  arity: number;
  /** A package is declared at this path (its document exists, possibly empty). */
  isPackage: boolean;
}

export interface Program {
  root: RuleNode;
  /** The builtins this compilation may call (catalogue + host declarations). */
  builtins: Catalogue;
}

/** A checked query: its body and the variables reported per solution. */
export interface CheckedQuery {
  body: Body;
  /** Result keys (as written) and the checked body's var for each. */
  outputs: Array<{ name: string; varName: string }>;
}

/** Finds the node at `path` (without `data`), or undefined. */
export function findNode(program: Program, path: readonly string[]): RuleNode | undefined {
  let node: RuleNode | undefined = program.root;
  for (const seg of path) {
    node = node.children.get(seg);
    if (!node) return undefined;
  }
  return node;
}

/**
 * True if the node contributes to the virtual document: it holds rules, is a
 * package, or has such descendants. (A function-only node is not a value,
 * but its enclosing objects exist, as in OPA.)
 */
export function hasRules(node: RuleNode): boolean {
  if (node.kind !== null || node.isPackage) return true;
  for (const c of node.children.values()) if (hasRules(c)) return true;
  return false;
}

export function isWildcard(name: string): boolean {
  return name.startsWith("$");
}

export function isGenerated(name: string): boolean {
  return name.startsWith("$") || name.startsWith("__local");
}

/**
 * A checked `with` modifier. `kind` says what the target replaces:
 * - input / data: the document at `path` (strings after the root);
 * - builtin: the builtin named `path[0]`; function: the user function at `path`.
 * `mock` is set when the value names a function (user or builtin) rather
 * than being a term to evaluate.
 */
export interface CheckedWith extends With {
  kind: "input" | "data" | "builtin" | "function";
  path: string[];
  mock: { kind: "builtin"; name: string } | { kind: "function"; path: string[] } | null;
}

export function isCheckedWith(w: With): w is CheckedWith {
  return (w as Partial<CheckedWith>).kind !== undefined;
}
