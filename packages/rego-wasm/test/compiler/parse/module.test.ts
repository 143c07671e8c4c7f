/** Modules: package, imports, every rule form, else chains, v1 checks, errors with file:row:col. */
import { parseModule, parseQuery, parseTerm } from "../../../compiler/parse";
import { printModule, printRule } from "../../../compiler/parse/print";
import { CompileErrors } from "../../../compiler/errors";
import type { Rule } from "../../../compiler/ast";

const mod = (body: string) => parseModule(`package test\n${body}`, "m.rego");
const rules = (body: string): string[] => mod(body).rules.map(printRule);

/** The error messages of parsing `src`, each `file:row:col: code: message`. */
function errorsOf(parse: () => unknown): string[] {
  try {
    parse();
  } catch (e) {
    if (e instanceof CompileErrors) return e.errors.map((x) => x.message);
    throw e;
  }
  throw new Error("expected a parse error");
}
const modErrors = (body: string): string[] => errorsOf(() => mod(body));

describe("package and imports", () => {
  it("parses package paths, with keywords and brackets", () => {
    expect(parseModule("package a.b.c", "m").package).toEqual({ path: ["a", "b", "c"], loc: { file: "m", row: 1, col: 1 } });
    expect(parseModule('package a["b"].c', "m").package.path).toEqual(["a", "b", "c"]);
    expect(parseModule("package foo.if.not.bar", "m").package.path).toEqual(["foo", "if", "not", "bar"]);
    expect(parseModule("package if.x", "m").package.path).toEqual(["if", "x"]);
  });

  it("parses imports", () => {
    const m = parseModule(
      [
        "package p",
        "import data.x.y",
        "import data.x as z",
        "import input.foo",
        "import input",
        "import rego.v1",
        "import future.keywords",
        "import future.keywords.in",
        "import data.foo.if as my_if",
        "import data.foo.not.bar",
      ].join("\n"),
      "m",
    );
    expect(printModule(m).split("\n").slice(1)).toEqual([
      "import data.x.y",
      "import data.x as z",
      "import input.foo",
      "import input",
      "import rego.v1",
      "import future.keywords",
      "import future.keywords.in",
      "import data.foo.if as my_if",
      "import data.foo.not.bar",
    ]);
    expect(m.imports[1]).toMatchObject({ alias: "z", loc: { row: 3, col: 1 }, path: { type: "ref", terms: [{ name: "data" }, { value: "x" }] } });
  });

  it("rejects bad imports", () => {
    expect(errorsOf(() => parseModule("package p\nimport foo.bar", "m"))).toEqual([
      "m:2:8: rego_parse_error: unexpected import path, must begin with one of: {data, future, input, rego}, got: foo (hint: if this is unexpected, try updating OPA)",
    ]);
    expect(errorsOf(() => parseModule("package p\nimport data.x.if", "m"))).toEqual([
      "m:2:15: rego_parse_error: unexpected import path, must not end with a keyword, got: if",
    ]);
    expect(errorsOf(() => parseModule("package p\nimport rego.v2", "m"))[0]).toContain("must be `rego.v1`");
  });

  it("requires the package first", () => {
    expect(errorsOf(() => parseModule("import data.x", "m"))).toEqual(["m:1:1: rego_parse_error: package expected"]);
    expect(errorsOf(() => parseModule("# only a comment\n", "m"))).toEqual(["m:1:1: rego_parse_error: empty module"]);
    expect(errorsOf(() => parseModule("package p\npackage q", "m"))).toEqual(["m:2:1: rego_parse_error: unexpected package"]);
  });
});

describe("rules", () => {
  it("parses every head form", () => {
    expect(
      rules(
        [
          "default p := 1",
          'default q = {"a": [1]}',
          "p := v if { v := 1 }",
          "p = 2",
          "r if input.x",
          "s contains x if { x := 1 }",
          "s contains 2",
          "a.b.c := 1",
          "t[k] := v if { k := 1; v := 2 }",
          "u[x] if { x := 1 }",
          'p.q[r].s := v if { r := "a"; v := 2 }',
          "f(x, [a, b]) := y if { y := x }",
          "g(x) if x > 1",
          "h(x) := x",
          "data.lib.k(x) = 1",
          "default f2(_) := 1",
          "e(_) := 1",
        ].join("\n"),
      ),
    ).toEqual([
      "default p := 1",
      'default q = {"a": [1]}',
      "p := v if { assign(v, 1) }",
      "p = 2",
      "r if { input.x }",
      "s contains x if { assign(x, 1) }",
      "s contains 2",
      "a.b.c := 1",
      "t[k] := v if { assign(k, 1); assign(v, 2) }",
      "u[x] if { assign(x, 1) }",
      'p.q[r].s := v if { assign(r, "a"); assign(v, 2) }',
      "f(x, [a, b]) := y if { assign(y, x) }",
      "g(x) if { gt(x, 1) }",
      "h(x) := x",
      "data.lib.k(x) = 1",
      "default f2(_) := 1",
      "e(_) := 1",
    ]);
  });

  it("builds heads per the AST contract", () => {
    const [p, s, t, u, f, c] = mod(
      ["p if { true }", "s contains x if { x := 1 }", "t[k] := 1 if { k := 1 }", "u.v.w := 2", "f(x) := x", "c.d contains 1"].join("\n"),
    ).rules;
    expect(p.head).toMatchObject({ ref: [{ name: "p" }], args: null, key: null, value: null, assign: false });
    expect(s.head).toMatchObject({ ref: [{ name: "s" }], key: { name: "x" }, value: null });
    expect(t.head).toMatchObject({ ref: [{ name: "t" }, { name: "k" }], key: null, value: { value: "1" }, assign: true });
    expect(u.head).toMatchObject({ ref: [{ name: "u" }, { value: "v" }, { value: "w" }], value: { value: "2" }, assign: true });
    expect(u.body).toEqual([]);
    expect(f.head).toMatchObject({ ref: [{ name: "f" }], args: [{ name: "x" }], value: { name: "x" } });
    expect(c.head).toMatchObject({ ref: [{ name: "c" }, { value: "d" }], key: { value: "1" } });
    expect(p.loc).toEqual({ file: "m.rego", row: 2, col: 1 });
    expect(s.loc).toEqual({ file: "m.rego", row: 3, col: 1 });
  });

  it("parses else chains", () => {
    const [w] = mod("w := 1 if { false } else := 2 if { false } else = 3 if { true } else if { true } else := 5 if x\nelse := 6").rules;
    expect(printRule(w)).toBe("w := 1 if { false } else := 2 if { false } else = 3 if { true } else if { true } else := 5 if { x } else := 6");
    const chain: Rule[] = [];
    for (let r: Rule | null = w; r; r = r.else) chain.push(r);
    expect(chain.map((r) => [r.loc.row, r.loc.col])).toEqual([
      [2, 1],
      [2, 21],
      [2, 44],
      [2, 65],
      [2, 82],
      [3, 1],
    ]);
    expect(chain[3].head.value).toBeNull();
    expect(chain[5].body).toEqual([]);
    expect(mod("f(x) := 1 if { x } else := 2").rules[0].else?.head.args).toEqual([expect.objectContaining({ name: "x" })]);
  });

  it("parses keywords as rule ref heads", () => {
    expect(rules(["if.foo := 1", "foo.if := 2", "not.foo contains 1", "default not.foo(_) := 42", "else.x := 1 if { true } else := 2"].join("\n"))).toEqual([
      "if.foo := 1",
      "foo.if := 2",
      "not.foo contains 1",
      "default not.foo(_) := 42",
      "else.x := 1 if { true } else := 2",
    ]);
    expect(rules("p := 1 if { true }\nelse.foo := 2")).toEqual(["p := 1 if { true }", "else.foo := 2"]);
  });

  it("defines one rule per extra body", () => {
    expect(rules("p if { a } { b }")).toEqual(["p if { a }", "p if { b }"]);
  });

  it("reads p if { ... } as a body but p if {x: 1} as an object literal expression", () => {
    expect(rules("p if { true }")).toEqual(["p if { true }"]);
    expect(rules("p if { x: 1 }")).toEqual(["p if { {x: 1} }"]);
    expect(rules("p if {}")).toEqual(["p if { {} }"]);
  });
});

describe("Rego v1 checks and parse errors", () => {
  it.each([
    ["p { true }", "m.rego:2:1: rego_parse_error: `if` keyword is required before rule body"],
    ["f(x) { true }", "m.rego:2:1: rego_parse_error: `if` keyword is required before function body"],
    ["p[x]", "m.rego:2:1: rego_parse_error: `contains` keyword is required for partial set rules"],
    ["a.b.c", "m.rego:2:1: rego_parse_error: rule must have value assignment and/or body declaration"],
    ["x", "m.rego:2:1: rego_parse_error: var cannot be used for rule name"],
    ["count(x)", "m.rego:2:1: rego_parse_error: rule name conflicts with built-in function"],
    ["p = 1; q = 2", "m.rego:2:1: rego_parse_error: multiple expressions cannot be used for rule head"],
    ["not p", "m.rego:2:1: rego_parse_error: negated expressions cannot be used for rule head"],
    ["contains := 1", "m.rego:2:1: rego_parse_error: contains keyword cannot be used for rule name"],
    ["default p := x", "m.rego:2:1: rego_parse_error: illegal default rule (value cannot contain var)"],
    ["default p[x]", "m.rego:2:1: rego_parse_error: illegal default rule (must have a value)"],
    ["default f([x]) := 1", "m.rego:2:1: rego_parse_error: illegal default rule (arguments cannot contain array)"],
    ["p[x] := 1 if { x := 1 } else := 2", "m.rego:2:25: rego_parse_error: else keyword cannot be used on rules with variables in head"],
    ["p contains 1 if { true } else := 2", "m.rego:2:26: rego_parse_error: else keyword cannot be used on multi-value rules"],
    ["p if { x := 1 y := 2 }", "m.rego:2:15: rego_parse_error: unexpected identifier token: expected \\n or ; or }"],
    ["p if { x := }", "m.rego:2:13: rego_parse_error: unexpected } token"],
    ["p if { x = y = z }", "m.rego:2:14: rego_parse_error: unexpected eq token: expected \\n or ; or }"],
    ["p if { x.  y }", "m.rego:2:12: rego_parse_error: unexpected whitespace token: expected identifier"],
    ["p if { not some x }", "m.rego:2:12: rego_parse_error: unexpected some keyword: illegal negation of 'some'"],
    ["p if { every x in xs }", "m.rego:2:22: rego_parse_error: unexpected } token: missing body"],
    ["p if { every [a] in xs { true } }", "m.rego:2:24: rego_parse_error: unexpected { token: expected value to be a variable"],
    ["p if { some 1 }", "m.rego:2:13: rego_parse_error: unexpected number token: expected var"],
    ["p if { [1, 2 }", 'm.rego:2:14: rego_parse_error: unexpected } token: expected "," or "]"'],
    ["p if { f(x }", 'm.rego:2:12: rego_parse_error: unexpected } token: expected "," or ")"'],
    ['p if { x := {"a" 1} }', "m.rego:2:18: rego_parse_error: unexpected number token: non-terminated set"],
    ["p if { x with 1 as 2 }", "m.rego:2:15: rego_parse_error: unexpected number token: expected ident"],
    ["p if { x with y 2 }", "m.rego:2:17: rego_parse_error: unexpected number token: expected as keyword"],
    ["p if { (1 + 2 }", "m.rego:2:15: rego_parse_error: non-terminated expression"],
    ["p := [x | ]", "m.rego:2:11: rego_parse_error: found empty body"],
    ["p := 1e400000", "m.rego:2:6: rego_parse_error: number too big"],
    ["p if { x := -y }", "m.rego:2:14: rego_parse_error: unexpected identifier token: expected number"],
    ["p if { if }", "m.rego:2:8: rego_parse_error: unexpected if keyword"],
    ['p := "abc', "m.rego:2:6: rego_parse_error: non-terminated string"],
  ])("%s", (body, want) => {
    expect(modErrors(body)[0]).toBe(want);
  });

  it("a default value: each var, ref or call inside its collections is an error, once; comprehensions may refer to anything", () => {
    const illegal = (what: string) => `m.rego:2:1: rego_parse_error: illegal default rule (value cannot contain ${what})`;
    expect(modErrors('default p := {"a": [1, {input.x}]}')).toEqual([illegal("ref")]);
    expect(modErrors("default p := [count([1]), {y: 1}]")).toEqual([illegal("call"), illegal("var")]);
    expect(mod("default p := [[x | some x in input.xs], {y | y := z}]").rules).toHaveLength(1);
  });

  it("rejects numbers with leading zeros", () => {
    expect(modErrors("p := 01")[0]).toBe("m.rego:2:6: rego_parse_error: unexpected number token: expected number without leading zero");
    expect(rules("p := 0.5\nq := 0e1")).toEqual(["p := 0.5", "q := 0e1"]);
  });

  it("reports parse errors of queries and terms too", () => {
    expect(errorsOf(() => parseQuery("x := ", "q"))).toEqual(["q:1:6: rego_parse_error: unexpected eof token"]);
    expect(errorsOf(() => parseQuery("package p", "q"))[0]).toContain("expected body but got package");
    expect(errorsOf(() => parseTerm("1; 2", "t"))[0]).toContain("expected exactly one term");
    expect(errorsOf(() => parseTerm("f(x)", "t"))[0]).toContain("expected term");
  });
});
