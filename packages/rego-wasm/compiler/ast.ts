/**
 * The Rego abstract syntax tree: the output of `parse/`, the input of `check/`.
 *
 * Shapes follow OPA's `ast` package closely so that OPA's semantics map onto
 * them one to one. Operators are calls, exactly as in OPA: `x + y` is the call
 * `plus(x, y)`, `x = y` is `eq(x, y)`, `x := y` is `assign(x, y)`, `x in xs` is
 * `internal.member_2(x, xs)`, `k, v in xs` is `internal.member_3(k, v, xs)`.
 * A template string `$"..{e}.."` is the call `internal.template_string([...])`
 * OPA's compiler lowers it to (see parse/template.ts).
 * Every node carries the position of its first character.
 */

/** 1-based row and column of a node's first character in its source file. */
export interface Location {
  file: string;
  row: number;
  col: number;
}

// ---------------------------------------------------------------- terms

export interface NullTerm {
  type: "null";
  loc: Location;
}
export interface BooleanTerm {
  type: "boolean";
  value: boolean;
  loc: Location;
}
/** Numbers keep their literal text (`3.0`, `1e3`, `-7`): precision is decided downstream. */
export interface NumberTerm {
  type: "number";
  value: string;
  loc: Location;
}
export interface StringTerm {
  type: "string";
  value: string;
  loc: Location;
}
/** A variable. `_` is kept as written; the checker renames each wildcard apart. */
export interface VarTerm {
  type: "var";
  name: string;
  loc: Location;
}
/**
 * A reference: `terms[0]` is the head (a var such as `data`, `input`, `x`, or a
 * call / composite / comprehension term), the rest are the path operands.
 * `a.b[c]["d"]` is `[var a, string "b", var c, string "d"]`.
 */
export interface RefTerm {
  type: "ref";
  terms: Term[];
  loc: Location;
}
export interface ArrayTerm {
  type: "array";
  items: Term[];
  loc: Location;
}
/** Object literal; entries in source order (duplicate keys are a runtime matter). */
export interface ObjectTerm {
  type: "object";
  items: Array<[Term, Term]>;
  loc: Location;
}
/** Set literal; `set()` is the empty set. */
export interface SetTerm {
  type: "set";
  items: Term[];
  loc: Location;
}
export interface ArrayComprehension {
  type: "arraycompr";
  term: Term;
  body: Body;
  loc: Location;
}
export interface SetComprehension {
  type: "setcompr";
  term: Term;
  body: Body;
  loc: Location;
}
export interface ObjectComprehension {
  type: "objectcompr";
  key: Term;
  value: Term;
  body: Body;
  loc: Location;
}
/**
 * A call. `op` is the callee's name as a ref: `count` is `[var count]`,
 * `data.lib.f` is `[var data, string lib, string f]`, `object.get` is
 * `[var object, string get]`. Infix operators are calls too (see file comment).
 */
export interface CallTerm {
  type: "call";
  op: RefTerm;
  args: Term[];
  loc: Location;
}

export type ScalarTerm = NullTerm | BooleanTerm | NumberTerm | StringTerm;
export type Term = ScalarTerm | VarTerm | RefTerm | ArrayTerm | ObjectTerm | SetTerm | ArrayComprehension | SetComprehension | ObjectComprehension | CallTerm;

// ---------------------------------------------------------------- expressions

/** `x with input.user as {...}` */
export interface With {
  target: RefTerm;
  value: Term;
  loc: Location;
}

/** A plain expression: a call (builtin, function or operator) or a bare term (true unless false/undefined). */
export interface TermExpr {
  type: "expr";
  kind: "term";
  term: Term;
  negated: boolean;
  /**
   * Negated in a module importing `future.keywords.not` (OPA 1.17): every
   * part of the expression is evaluated inside the negation. Without it, OPA
   * evaluates some parts before the `not` (see plan/negation.ts).
   */
  wholeNegated?: boolean;
  with: With[];
  loc: Location;
}

/** `some x, y` declaration. */
export interface SomeDeclExpr {
  type: "expr";
  kind: "some";
  vars: VarTerm[];
  negated: false;
  with: With[];
  loc: Location;
}

/** `some v in xs` / `some k, v in xs` (k and v may be patterns: `some [a, b] in xs`). */
export interface SomeInExpr {
  type: "expr";
  kind: "somein";
  key: Term | null;
  value: Term;
  collection: Term;
  negated: false;
  with: With[];
  loc: Location;
}

/** `every v in xs { ... }` / `every k, v in xs { ... }` */
export interface EveryExpr {
  type: "expr";
  kind: "every";
  key: VarTerm | null;
  value: VarTerm;
  domain: Term;
  body: Body;
  negated: boolean;
  with: With[];
  loc: Location;
}

export type Expr = TermExpr | SomeDeclExpr | SomeInExpr | EveryExpr;
export type Body = Expr[];

// ---------------------------------------------------------------- rules

/**
 * A rule head. `ref` is the rule's path relative to its package; `ref[0]` is a
 * var naming the rule, later entries are strings (`a.b.c := 1`) or any term
 * (`p[k] := v`, `p[x] if ...`).
 *
 *   p := 1                 ref [p]            value 1       assign
 *   p if ...               ref [p]            value null    (true)
 *   p contains x if ...    ref [p]            key x         (partial set)
 *   p[k] := v if ...       ref [p, k]         value v       (partial object / ref head)
 *   f(x) := y if ...       ref [f] args [x]   value y       (function)
 */
export interface RuleHead {
  ref: Term[];
  args: Term[] | null;
  key: Term | null;
  value: Term | null;
  /** true for `:=`, false for `=` or no value. */
  assign: boolean;
  loc: Location;
}

export interface Rule {
  type: "rule";
  default: boolean;
  head: RuleHead;
  /** `[]` for a rule with no body (always true). */
  body: Body;
  /** The next `else` of the chain; its head carries only a value (and args of the parent). */
  else: Rule | null;
  loc: Location;
}

export interface Import {
  /** `data.x.y` / `input.z` / `rego.v1` / `future.keywords.in` */
  path: RefTerm;
  alias: string | null;
  loc: Location;
}

export interface Package {
  /** Path without the leading `data`: `package a.b` is `["a", "b"]`. */
  path: string[];
  loc: Location;
}

/** Where a METADATA block applies (OPA's annotation scopes). */
export type AnnotationScope = "rule" | "document" | "package" | "subpackages";

/** A `# METADATA` comment block, attached to the package or rule after it. */
export interface Annotations {
  scope: AnnotationScope;
  /** OPA's object form of the block (`scope`, `title`, `authors`, `custom`, ...). */
  value: ObjectTerm;
  /** The package, or the rule (never an `else` branch) the block precedes. */
  target: Package | Rule;
  /** The `# METADATA` line. */
  loc: Location;
}

/**
 * The Rego syntax a module was parsed with (OPA's RegoVersion): `v1`; `v0`
 * (OPA 1.x `--v0-compatible`, a bundle's `rego_version: 0`); or `v0v1`, a v0
 * file that imports `rego.v1` and so must also satisfy v1's rules.
 */
export type RegoVersion = "v0" | "v0v1" | "v1";

export interface Module {
  file: string;
  source: string;
  regoVersion: RegoVersion;
  package: Package;
  imports: Import[];
  rules: Rule[];
  annotations: Annotations[];
}
