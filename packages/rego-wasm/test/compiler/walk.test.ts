/**
 * The one place that knows a term's and an expression's parts
 * (compiler/walk.ts): the read-only visitor reaches every kind, in
 * source order, enters closures only when asked, skips and stops on request,
 * and names exactly the parts the rebuilding helpers rewrite.
 */
import type { Body, Expr, Term } from "../../compiler/ast";
import { parseQuery, parseTerm } from "../../compiler/parse";
import { mapExprParts, mapTermParts, someTerm, visitBody, visitExpr, visitTerm, type TermVisitor } from "../../compiler/walk";
import { printExpr, printTerm } from "../../compiler/parse/print";

/**
 * One term of each kind, keyed by kind: a new kind of term makes this object
 * incomplete, so the suite stops compiling (npm run typecheck) until the new
 * kind has a sample, and the tests below check the walk reaches it.
 */
const SAMPLES: { [K in Term["type"]]: string } = {
  null: "null",
  boolean: "true",
  number: "1",
  string: '"s"',
  var: "x",
  ref: "a.b[c]",
  array: "[1, y]",
  object: "{k: v}",
  set: "{s1, s2}",
  arraycompr: "[e | e := 1]",
  setcompr: "{f | f := 1}",
  objectcompr: "{g: h | g := 1; h := 2}",
  call: "count(xs)",
};

/** A sample as a term (a bare call is an expression, not a term: it is read from a query). */
function sample(kind: Term["type"]): Term {
  const source = SAMPLES[kind];
  const t = kind === "call" ? (parseQuery(source, "t.rego")[0] as Expr & { kind: "term" }).term : parseTerm(source, "t.rego");
  expect(t.type).toBe(kind);
  return t;
}

const KINDS = Object.keys(SAMPLES) as Array<Term["type"]>;

function body(source: string): Body {
  return parseQuery(source, "t.rego");
}

/** Every term reached, printed, with `*` marking the ones inside a closure. */
function trail(start: (v: TermVisitor) => boolean, options: Partial<TermVisitor> = {}): string[] {
  const seen: string[] = [];
  start({
    ...options,
    term: (t, inClosure) => {
      seen.push((inClosure ? "*" : "") + printTerm(t));
      return options.term?.(t, inClosure);
    },
  });
  return seen;
}

test("every kind of term is reached, nested inside every kind that has parts", () => {
  const all = KINDS.map(sample);
  const reached = new Set<string>();
  visitTerm({ type: "array", items: all, loc: all[0]!.loc }, { term: (t) => void reached.add(t.type) });
  expect([...reached].sort()).toEqual([...KINDS].sort());

  // Inside each kind that has parts, a var is found.
  const holders = KINDS.filter((k) => !["null", "boolean", "number", "string", "var"].includes(k));
  for (const kind of holders) {
    expect(someTerm(sample(kind), (t) => t.type === "var")).toBe(true);
  }
});

test("terms are visited depth first, a term before its parts, in source order", () => {
  expect(trail((v) => visitTerm(parseTerm('{"a": [x, y.z], "b": {w}}', "t.rego"), v))).toEqual([
    '{"a": [x, y.z], "b": {w}}',
    '"a"',
    "[x, y.z]",
    "x",
    "y.z",
    "y",
    '"z"',
    '"b"',
    "{w}",
    "w",
  ]);
});

test("a call's arguments are its parts, its callee is not", () => {
  expect(trail((v) => visitBody(body("startswith(a, b)"), v))).toEqual(["startswith(a, b)", "a", "b"]);
});

test("closure parts are marked as inside a closure: head terms, then the body", () => {
  expect(trail((v) => visitTerm(parseTerm("{k: v | some k; v := xs[k]}", "t.rego"), v))).toEqual([
    "{k: v | some k; assign(v, xs[k])}",
    "*k",
    "*v",
    "*assign(v, xs[k])",
    "*v",
    "*xs[k]",
    "*xs",
    "*k",
  ]);
});

test("an expression: its parts, then the values of its with modifiers (not their targets)", () => {
  expect(trail((v) => visitBody(body("some k, v in xs with input.a as q"), v))).toEqual(["k", "v", "xs", "q"]);
  expect(trail((v) => visitBody(body("every k, v in xs { v > k } with input.a as q"), v))).toEqual(["xs", "*k", "*v", "*gt(v, k)", "*v", "*k", "q"]);
  // `some x` only declares a name.
  expect(trail((v) => visitBody(body("some x"), v))).toEqual([]);
});

test("expressions are visited too, each before its parts, closure bodies' included; skip and stop work on them", () => {
  const seen: string[] = [];
  const record: TermVisitor = {
    expr: (e, inClosure) => void seen.push(`${inClosure ? "*" : ""}expr ${printExpr(e)}`),
    term: (t, inClosure) => void seen.push((inClosure ? "*" : "") + printTerm(t)),
  };
  visitBody(body("x := [y | y := 1]; every v in xs { v > 0 }"), record);
  expect(seen).toEqual([
    "expr assign(x, [y | assign(y, 1)])",
    "assign(x, [y | assign(y, 1)])",
    "x",
    "[y | assign(y, 1)]",
    "*y",
    "*expr assign(y, 1)",
    "*assign(y, 1)",
    "*y",
    "*1",
    "expr every v in xs { gt(v, 0) }",
    "xs",
    "*v",
    "*expr gt(v, 0)",
    "*gt(v, 0)",
    "*v",
    "*0",
  ]);
  expect(trail((v) => visitBody(body("a; b with input as c; d"), v), { expr: (e) => (e.with.length ? "skip" : undefined) })).toEqual(["a", "d"]);
  expect(trail((v) => visitBody(body("a; b; c"), v), { expr: (e) => (printExpr(e) === "b" ? "stop" : undefined) })).toEqual(["a"]);
});

test("with closures off, comprehension and every parts are left out, the rest is visited", () => {
  const closuresOff = { closures: false } as const;
  expect(trail((v) => visitTerm(parseTerm("[x, [y | y := z]]", "t.rego"), v), closuresOff)).toEqual(["[x, [y | assign(y, z)]]", "x", "[y | assign(y, z)]"]);
  expect(trail((v) => visitBody(body("every v in xs { v > k } with input.a as [q | q := 1]"), v), closuresOff)).toEqual(["xs", "[q | assign(q, 1)]"]);
});

test("inClosure is relative to where the walk starts", () => {
  const compr = parseTerm("[y | y := z]", "t.rego");
  if (compr.type !== "arraycompr") throw new Error("not a comprehension");
  expect(trail((v) => visitBody(compr.body, v))).toEqual(["assign(y, z)", "y", "z"]);
});

test("skip leaves a term's parts out; stop ends the whole walk and says so", () => {
  const t = parseTerm("[a.b, c, [d]]", "t.rego");
  expect(trail((v) => visitTerm(t, v), { term: (x) => (x.type === "ref" ? "skip" : undefined) })).toEqual(["[a.b, c, [d]]", "a.b", "c", "[d]", "d"]);
  let stopped = true;
  expect(trail((v) => (stopped = visitTerm(t, v)), { term: (x) => (x.type === "var" && x.name === "c" ? "stop" : undefined) })).toEqual([
    "[a.b, c, [d]]",
    "a.b",
    "a",
    '"b"',
    "c",
  ]);
  expect(stopped).toBe(false);
  expect(visitTerm(t, { term: () => undefined })).toBe(true);
  expect(visitExpr(body("x")[0]!, { term: () => "stop" })).toBe(false);
});

test("someTerm, over a term or a body, enters closures unless told not to", () => {
  const t = parseTerm("[1, [y | y := 2]]", "t.rego");
  const isY = (x: Term): boolean => x.type === "var" && x.name === "y";
  expect(someTerm(t, isY)).toBe(true);
  expect(someTerm(t, isY, false)).toBe(false);
  expect(someTerm(body("x := 1; every v in xs { v > y }"), isY)).toBe(true);
  expect(someTerm(body("x := 1; every v in xs { v > y }"), isY, false)).toBe(false);
});

/** The direct parts (terms and bodies) the visitor reaches, and those the rebuilders hand to their callbacks. */
function visitedParts(start: (v: TermVisitor) => boolean, root: Term | null): string[] {
  const out: string[] = [];
  start({
    term: (t) => {
      if (t === root) return;
      out.push(printTerm(t));
      return "skip";
    },
  });
  return out;
}

function mappedParts(map: (term: (t: Term) => Term, body: (b: Body) => Body) => unknown): string[] {
  const out: string[] = [];
  map(
    (t) => (out.push(printTerm(t)), t),
    (b) => {
      // A body's own terms, as the visitor reaches them.
      for (const e of b) visitExpr(e, { term: (t) => (out.push(printTerm(t)), "skip") });
      return b;
    },
  );
  return out;
}

test("the visitor and mapTermParts name the same parts of every kind of term", () => {
  for (const kind of KINDS) {
    const t = sample(kind);
    // mapTermParts hands the closure body whole: its expressions' parts are compared.
    expect(visitedParts((v) => visitTerm(t, v), t)).toEqual(mappedParts((term, b) => mapTermParts(t, term, b)));
  }
});

test("the visitor and mapExprParts name the same parts of every kind of expression", () => {
  const exprs = ["x = 1 with input as q", "some x", "some k, v in xs with data.a as q", "every k, v in xs { v > k } with input as q"];
  for (const source of exprs) {
    const e = body(source)[0]!;
    const mapped = mappedParts((term, b) => mapExprParts(e, term, b));
    const visited = visitedParts((v) => visitExpr(e, v), null);
    // mapExprParts rewrites the with values first; the visitor reads them last, in source order.
    expect([...visited].sort()).toEqual([...mapped].sort());
  }
});

test("a rewrite may not turn the var an every declares into another kind of term", () => {
  const e = body("every v in xs { v > 1 }")[0]!;
  const one: Term = { type: "number", value: "1", loc: e.loc };
  expect(() =>
    mapExprParts(
      e,
      (t) => (t.type === "var" && t.name === "v" ? one : t),
      (b) => b,
    ),
  ).toThrow("declared var v");
});
