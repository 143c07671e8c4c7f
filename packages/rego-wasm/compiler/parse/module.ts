/**
 * Module assembly (OPA's parseModule and ParseRuleFromExpr): the package must
 * come first, bare statements become rules (`p := 1`, `f(x) := y`, `p[k] = v`,
 * `a.b.c`, `p contains`-less partial sets), then OPA's Rego v1 rule checks run
 * (`if` required before bodies, `contains` for partial sets, a value or a body,
 * no keyword as a rule name).
 */
import type { Expr, Import, Location, Module, Package, RegoVersion, Rule, RuleHead, Term } from "../ast";
import type { Catalogue } from "../builtins";
import { CompileError, CompileErrors } from "../errors";
import { parseAnnotations, type AnnotatableNode } from "./annotations";
import { refString, valueName } from "./cursor";
import { KEYWORDS, type Comment } from "./lexer";
import type { RuleMeta } from "./rules";
import type { Statement } from "./statements";

export function assembleModule(
  file: string,
  source: string,
  stmts: Statement[],
  meta: Map<Rule, RuleMeta>,
  builtins: Catalogue,
  comments: Comment[],
  regoVersion: RegoVersion,
): Module {
  const errors: CompileError[] = [];
  const fail = (loc: Location, message: string): void => {
    errors.push(new CompileError("rego_parse_error", message, loc));
  };
  if (stmts.length === 0) {
    throw new CompileErrors([new CompileError("rego_parse_error", "empty module", { file, row: 1, col: 1 })]);
  }
  let pkg: Package | null = null;
  if (stmts[0].kind === "package") pkg = stmts[0].pkg;
  else fail(statementLoc(stmts[0]), "package expected");
  // Statements in source order: what a METADATA block may precede.
  const nodes: AnnotatableNode[] = pkg ? [{ kind: "package", node: pkg }] : [];

  const imports: Import[] = [];
  const rules: Rule[] = [];
  for (const stmt of stmts.slice(1)) {
    switch (stmt.kind) {
      case "package":
        fail(stmt.pkg.loc, "unexpected package");
        break;
      case "import":
        imports.push(stmt.imp);
        nodes.push({ kind: "import", node: stmt.imp });
        break;
      case "rules":
        rules.push(...stmt.rules);
        for (const rule of stmt.rules) nodes.push({ kind: "rule", node: rule });
        break;
      case "body": {
        const converted = ruleFromBody(stmt.body, builtins);
        if (typeof converted === "string") {
          fail(stmt.body[0].loc, converted);
        } else {
          meta.set(converted.rule, converted.meta);
          rules.push(converted.rule);
          nodes.push({ kind: "rule", node: converted.rule });
        }
        break;
      }
    }
  }
  // v0 files skip v1's rule checks, unless they import rego.v1 (v0v1).
  if (regoVersion !== "v0") {
    for (const rule of rules) {
      for (let r: Rule | null = rule; r; r = r.else) checkRegoV1(r, meta.get(r), fail);
    }
  }
  if (errors.length || !pkg) throw new CompileErrors(errors);
  const annotations = parseAnnotations(file, comments, nodes, errors);
  if (errors.length) throw new CompileErrors(errors);
  return { file, source, regoVersion, package: pkg, imports, rules, annotations };
}

function statementLoc(stmt: Statement): Location {
  switch (stmt.kind) {
    case "package":
      return stmt.pkg.loc;
    case "import":
      return stmt.imp.loc;
    case "rules":
      return stmt.rules[0].loc;
    case "body":
      return stmt.body[0].loc;
  }
}

type Converted = { rule: Rule; meta: RuleMeta } | string;

/** A bare statement as a rule with no body, or OPA's message for why it is not one. */
function ruleFromBody(body: Expr[], builtins: Catalogue): Converted {
  if (body.length !== 1) return "multiple expressions cannot be used for rule head";
  const expr = body[0];
  if (expr.with.length > 0) return "expressions using with keyword cannot be used for rule head";
  if (expr.negated) return "negated expressions cannot be used for rule head";
  if (expr.kind === "some" || expr.kind === "somein") return "'some' declarations cannot be used for rule head";
  if (expr.kind !== "term") return "expression cannot be used for rule head";
  const term = expr.term;
  const loc = expr.loc;
  const make = (head: Omit<RuleHead, "loc">, generatedValue: boolean): Converted => ({
    rule: { type: "rule", default: false, head: { ...head, loc }, body: [], else: null, loc },
    meta: { generatedBody: true, generatedValue, hasIf: false, hasContains: false },
  });

  if (term.type !== "call") {
    if (term.type !== "ref") return `${valueName(term)} cannot be used for rule name`;
    if (term.terms[0].type !== "var") return `invalid rule head: ${refString(term.terms)}`;
    if (term.terms.length === 1) return "refs cannot be used for rule head";
    // `a.b.c` is a rule with value true; `p[x]` / `p.q` a v0 partial set.
    if (term.terms.length > 2) return make({ ref: term.terms, args: null, key: null, value: null, assign: false }, true);
    return make({ ref: [term.terms[0]], args: null, key: term.terms[1], value: null, assign: false }, false);
  }

  const opName = refString(term.op.terms);
  if (opName === "eq" || opName === "assign") {
    const [lhs, rhs] = term.args;
    if (!lhs || !rhs) return "assignment requires two operands";
    return completeRuleFromEq(lhs, rhs, opName === "assign", make);
  }
  if (builtins.lookup(opName)) return "rule name conflicts with built-in function";
  if (term.args.length === 0) return "rule argument list must take at least one argument";
  if (term.op.terms[0].type !== "var") return `invalid rule head: ${opName}`;
  return make({ ref: term.op.terms, args: term.args, key: null, value: null, assign: false }, false);
}

function completeRuleFromEq(lhs: Term, rhs: Term, assign: boolean, make: (head: Omit<RuleHead, "loc">, generatedValue: boolean) => Converted): Converted {
  if (lhs.type === "call") {
    // f(x) = y
    if (lhs.op.terms[0].type !== "var") return `invalid rule head: ${refString(lhs.op.terms)}`;
    const args = lhs.args.length > 0 ? lhs.args : null;
    return make({ ref: lhs.op.terms, args, key: null, value: rhs, assign }, false);
  }
  if (lhs.type === "ref") {
    // p[k] = v, a.b.c := v
    if (lhs.terms[0].type !== "var") return `invalid rule head: ${refString(lhs.terms)}`;
    return make({ ref: lhs.terms, args: null, key: null, value: rhs, assign }, false);
  }
  if (lhs.type === "var") return make({ ref: [lhs], args: null, key: null, value: rhs, assign }, false);
  return `${valueName(lhs)} cannot be used for rule name`;
}

/** OPA's checkRegoV1Rule. */
function checkRegoV1(rule: Rule, meta: RuleMeta | undefined, fail: (loc: Location, message: string) => void): void {
  if (!meta) return;
  const kind = rule.head.args ? "function" : "rule";
  const [name] = rule.head.ref;
  if (rule.head.ref.length < 2 && name.type === "var" && KEYWORDS.has(name.name)) {
    fail(rule.loc, `${name.name} keyword cannot be used for rule name`);
  }
  if (meta.generatedBody && meta.generatedValue) {
    fail(rule.loc, `${kind} must have value assignment and/or body declaration`);
  }
  if (!meta.generatedBody && !meta.hasIf && !rule.default) {
    fail(rule.loc, `\`if\` keyword is required before ${kind} body`);
  }
  if (rule.head.key && !meta.hasContains) {
    fail(rule.loc, "`contains` keyword is required for partial set rules");
  }
}
