/**
 * Probes for `rego test` (coverage, failing expressions, timeouts): a stage
 * between check and plan that only test compilations run
 * (`compile(..., { instrument: true })`); a bundle for the PDP is compiled
 * without it and carries nothing of it.
 *
 * Before every expression of every checked body (rule, `else`, function,
 * default, comprehension and `every` bodies) it inserts the call
 * `internal.probe(<id>)`, and after the last expression of each rule body one
 * for the rule's head: the module calls the host (`opa_builtin1`), which
 * records the id and answers `true`. So an expression's probe fires when
 * evaluation reaches the expression (OPA's Eval event), and a head's when the
 * rule's body succeeded (OPA's Exit event): what OPA's cover package records.
 * Bodies are instrumented after the checker reordered them for safety, so a
 * probe sits exactly where its expression runs.
 */
import type { Body, Expr, Location, Term } from "./ast";
import type { CheckedRule, Program, RuleNode } from "./check";
import { mapTermParts } from "./walk";

/** The host builtin every probe calls; the host answers `true`. */
export const PROBE_BUILTIN = "internal.probe";

export interface Probe {
  id: number;
  loc: Location;
  /** expr: an expression was reached; head: a rule's body succeeded. */
  kind: "expr" | "head";
  /** OPA leaves `some` declarations out of the lines a report counts as not covered. */
  declaration: boolean;
  /** The rule-tree path of the rule whose own body (not a nested one) holds the expression. */
  rulePath: string;
  /** For expressions: directly in that rule's body, not in a comprehension or `every` inside it. */
  topLevel: boolean;
}

/** Inserts the probes into `program` (in place) and returns their table, indexed by id. */
export function instrumentProgram(program: Program): Probe[] {
  const probes: Probe[] = [];
  const visit = (node: RuleNode) => {
    const path = node.path.join("/");
    for (const rule of node.rules) instrumentRule(rule, path, probes);
    if (node.defaultRule) instrumentRule(node.defaultRule, path, probes);
    for (const child of node.children.values()) visit(child);
  };
  visit(program.root);
  return probes;
}

function instrumentRule(rule: CheckedRule, rulePath: string, probes: Probe[]): void {
  for (let r: CheckedRule | null = rule; r; r = r.else) {
    const body = instrumentBody(r.body, rulePath, true, probes);
    body.push(probeExpr(newProbe(probes, { loc: r.loc, kind: "head", declaration: false, rulePath, topLevel: true })));
    r.body = body;
  }
}

function instrumentBody(body: Body, rulePath: string, topLevel: boolean, probes: Probe[]): Body {
  const out: Body = [];
  for (const e of body) {
    const declaration = e.kind === "some" || e.kind === "somein";
    out.push(probeExpr(newProbe(probes, { loc: e.loc, kind: "expr", declaration, rulePath, topLevel })));
    out.push(instrumentExpr(e, rulePath, probes));
  }
  return out;
}

function instrumentExpr(e: Expr, rulePath: string, probes: Probe[]): Expr {
  const term = (t: Term) => instrumentTerm(t, rulePath, probes);
  switch (e.kind) {
    case "term":
      return { ...e, term: term(e.term) };
    case "somein":
      return { ...e, collection: term(e.collection) };
    case "every":
      return { ...e, domain: term(e.domain), body: instrumentBody(e.body, rulePath, false, probes) };
    default:
      return e;
  }
}

/** Comprehension bodies inside a term get probes too. */
function instrumentTerm(t: Term, rulePath: string, probes: Probe[]): Term {
  return mapTermParts(
    t,
    (x) => instrumentTerm(x, rulePath, probes),
    (b) => instrumentBody(b, rulePath, false, probes),
  );
}

function newProbe(probes: Probe[], p: Omit<Probe, "id">): Probe {
  const probe = { id: probes.length, ...p };
  probes.push(probe);
  return probe;
}

function probeExpr(p: Probe): Expr {
  return internalCallExpr("probe", [{ type: "number", value: String(p.id), loc: p.loc }], p.loc);
}

/** The expression `internal.<name>(args...)`: a call only compilations for tests insert (probes, test cases). */
export function internalCallExpr(name: string, args: Term[], loc: Location): Expr {
  return {
    type: "expr",
    kind: "term",
    term: {
      type: "call",
      op: {
        type: "ref",
        terms: [
          { type: "var", name: "internal", loc },
          { type: "string", value: name, loc },
        ],
        loc,
      },
      args,
      loc,
    },
    negated: false,
    with: [],
    loc,
  };
}
