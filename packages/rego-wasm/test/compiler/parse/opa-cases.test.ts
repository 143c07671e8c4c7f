/**
 * Cases taken from OPA's own parser tests (v1/ast/parser_test.go): keywords
 * in refs and rule heads, `|` versus comprehensions, comments inside rules,
 * error collection, else chains and bodies.
 */
import { parseModule, parseQuery, parseTerm } from "../../../compiler/parse";
import { printModule, printRule, printTerm } from "../../../compiler/parse/print";
import { CompileErrors } from "../../../compiler/errors";
import { KEYWORDS } from "../../../compiler/parse/lexer";

function errorsOf(parse: () => unknown): string[] {
  try {
    parse();
  } catch (e) {
    if (e instanceof CompileErrors) return e.errors.map((x) => x.message);
    throw e;
  }
  throw new Error("expected a parse error");
}
const rulesOf = (src: string): string[] => parseModule(`package t\n${src}`, "m.rego").rules.map(printRule);
const modErrors = (src: string): string[] => errorsOf(() => parseModule(`package t\n${src}`, "m.rego"));

describe.each([...KEYWORDS])("keyword %s in refs, packages, imports and rule heads", (kw) => {
  it("is a ref segment anywhere, and a ref head when directly followed by . or [", () => {
    for (const src of [`foo.${kw}`, `input.${kw}`, `data.${kw}.foo`, `data.${kw}["foo"]`, `${kw}.foo`, `${kw}["foo"]`]) {
      expect(parseQuery(src, "q")[0]).toMatchObject({ kind: "term", term: { type: "ref" } });
    }
    expect(rulesOf(`p if {\n  ${kw}.foo == 1\n  foo.${kw} == 2\n  foo.${kw}.bar == 3\n}`)).toEqual([
      `p if { equal(${kw}.foo, 1); equal(foo.${kw}, 2); equal(foo.${kw}.bar, 3) }`,
    ]);
  });

  it("may name packages and mid-path imports", () => {
    expect(parseModule(`package foo.${kw}.bar`, "m").package.path).toEqual(["foo", kw, "bar"]);
    expect(parseModule(`package ${kw}`, "m").package.path).toEqual([kw]);
    expect(parseModule(`package foo["${kw}"]`, "m").package.path).toEqual(["foo", kw]);
    expect(parseModule(`package t\nimport data.${kw}.foo`, "m").imports).toHaveLength(1);
    expect(parseModule(`package t\nimport data.${kw} as foo`, "m").imports[0].alias).toBe("foo");
  });

  it("may not start or end an import path, nor be an alias", () => {
    expect(modErrors(`import ${kw}`)[0]).toContain(`must begin with one of: {data, future, input, rego}, got: ${kw}`);
    expect(modErrors(`import input.${kw}`)[0]).toBe(`m.rego:2:14: rego_parse_error: unexpected import path, must not end with a keyword, got: ${kw}`);
    expect(modErrors(`import data.foo as ${kw}`)[0]).toBe(`m.rego:2:20: rego_parse_error: unexpected ${kw} keyword: expected var`);
  });

  it("may start or continue a rule head ref, but not be the rule name", () => {
    expect(rulesOf(`${kw}.foo if { true }`)).toEqual([`${kw}.foo if { true }`]);
    expect(rulesOf(`foo.${kw}.bar(x, y) if { true }`)).toEqual([`foo.${kw}.bar(x, y) if { true }`]);
    expect(rulesOf(`${kw}.foo contains 1 if { true }`)).toEqual([`${kw}.foo contains 1 if { true }`]);
    expect(rulesOf(`default foo["${kw}"].bar(_, _) := true`)).toEqual([`default foo.${kw}.bar(_, _) := true`]);
    for (const bad of [`${kw} if { true }`, `${kw}(x, y) if { true }`, `${kw} contains 1 if { true }`, `default ${kw} := 1`]) {
      expect(() => parseModule(`package t\n${bad}`, "m")).toThrow(CompileErrors);
    }
  });
});

describe("OPA parser_test.go cases", () => {
  it.each([
    ["[x|y,z]", "[or(x, y), z]"],
    ["[z,x|y,a]", "[z, or(x, y), a]"],
    ["{x|y,}", "{or(x, y)}"],
    ["{x:y|z,a:b}", "{x: or(y, z), a: b}"],
    ['{, 1 | 1: "bar"}', '{or(1, 1): "bar"}'],
    ["{ a: b+c | d }", "{a: or(plus(b, c), d)}"],
    ["[ 1 + 2 | 3 ]", "[or(plus(1, 2), 3)]"],
    ["{ 1+2: 3 | 4}", "{plus(1, 2): 3 | 4}"],
    ["[ a | b ]", "[a | b]"],
    ["foo[baz[1][borge[i]]].bar", "foo[baz[1][borge[i]]].bar"],
    [".5", "0.5"],
    ["-.25", "-0.25"],
    ["foo.bar(1)[0](1).baz", "foo.bar(1)[0](1).baz"],
  ])("term %s", (src, want) => {
    expect(printTerm(parseTerm(src, "t"))).toBe(want);
  });

  it.each([
    "03",
    "-03",
    "6abc",
    "6d7",
    "'a string'",
    "0[0]",
    '"foo".bar',
    "foo.",
    "foo[].bar",
    "foo[1,2]",
    "bar(..",
    "{a:1,,b:2}",
    "[a,,b]",
    "{a,,}",
    "{foo bar}",
    "set(",
    "[foo bar]",
    "{x|!!!}",
    "墳",
  ])("rejects term %s", (src) => {
    expect(() => parseTerm(src, "t")).toThrow(CompileErrors);
  });

  it("parses statements spread over lines, with comments anywhere", () => {
    const src = `package a.b.c

    import input.e.f as g  # end of line
    import input.h

    p[x] = y if { y = "foo";
        # inside a rule
        x = "bar";
        x != y;
        q[x]
	}

    import input.xyz.abc

    q # interrupting

	contains a  # the head of a rule

	if { m = [1,2,
    3, ];
    a = m[i]

	}

	r contains x if { x = [ a | # inside comprehension
					  a = z[i]
	                  b[i].a = a ]
	}`;
    expect(printModule(parseModule(src, "m")).split("\n")).toEqual([
      "package a.b.c",
      "import input.e.f as g",
      "import input.h",
      "import input.xyz.abc",
      'p[x] = y if { eq(y, "foo"); eq(x, "bar"); neq(x, y); q[x] }',
      "q contains a if { eq(m, [1, 2, 3]); eq(a, m[i]) }",
      "r contains x if { eq(x, [a | eq(a, z[i]); eq(b[i].a, a)]) }",
    ]);
  });

  it("separates expressions on new lines after calls, refs and composites", () => {
    const q = (s: string): number => parseQuery(s, "q").length;
    expect(q("f(x)\n [1]")).toBe(2);
    expect(q("f(x);{1}")).toBe(2);
    expect(q("[1]\n [2]")).toBe(2);
    expect(q("data.p.q\n {1}")).toBe(2);
    expect(q("input = 2 \n {1}")).toBe(2);
  });

  it("collects every module error", () => {
    const src = "\n\tx = 1\n\tpackage a\n\t1 = 2\n\t1 != 2\n\tx = y; x = 1\n";
    expect(errorsOf(() => parseModule(src, "test.rego"))).toEqual([
      "test.rego:2:2: rego_parse_error: package expected",
      "test.rego:3:2: rego_parse_error: unexpected package",
      "test.rego:4:2: rego_parse_error: number cannot be used for rule name",
      "test.rego:5:2: rego_parse_error: rule name conflicts with built-in function",
      "test.rego:6:2: rego_parse_error: multiple expressions cannot be used for rule head",
    ]);
  });

  it("turns bare statements into rules, or says why not", () => {
    expect(rulesOf('foo.bar["baz"] := true\ntest contains arr[0]\nfoo.bar[i].baz(x) = 3 if { i := 1 }\nf(1)\nfoo.bar[x] = "buz"')).toEqual([
      "foo.bar.baz := true",
      "test contains arr[0]",
      "foo.bar[i].baz(x) = 3 if { assign(i, 1) }",
      "f(1)",
      'foo.bar[x] = "buz"',
    ]);
    expect(modErrors("data")).toEqual(["m.rego:2:1: rego_parse_error: refs cannot be used for rule head"]);
    expect(modErrors("p()")).toEqual(["m.rego:2:1: rego_parse_error: rule argument list must take at least one argument"]);
    expect(modErrors('"foo" := 1')).toEqual(["m.rego:2:1: rego_parse_error: string cannot be used for rule name"]);
    expect(modErrors("[][0]")).toEqual(["m.rego:2:1: rego_parse_error: invalid rule head: [][0]"]);
    expect(modErrors("eq(x)")).toEqual(["m.rego:2:1: rego_parse_error: assignment requires two operands"]);
    expect(modErrors("foo = input with input as 1")[0]).toContain("expressions using with keyword cannot be used for rule head");
    expect(modErrors("some x")[0]).toContain("'some' declarations cannot be used for rule head");
  });

  it("requires `if` before every else body, not only the first", () => {
    expect(modErrors("p if { a } else { b }")).toEqual(["m.rego:2:12: rego_parse_error: `if` keyword is required before rule body"]);
    expect(modErrors("f(x) := x if { x == 1 } else := 1 if { x == 2 } else := 42 { x == 3 }")).toEqual([
      "m.rego:2:49: rego_parse_error: `if` keyword is required before function body",
    ]);
    expect(rulesOf("f(x) if { x == 1 } else := 42")).toEqual(["f(x) if { equal(x, 1) } else := 42"]);
    expect(rulesOf("p if true else := 3 if 2 < 1")).toEqual(["p if { true } else := 3 if { lt(2, 1) }"]);
  });

  it("rejects misplaced else and if around chained bodies", () => {
    expect(modErrors("p if { false } { false } else if { true }")[0]).toContain("unexpected else keyword");
    expect(modErrors("p if { false } else if { false } { true }")[0]).toContain("expected else keyword");
    expect(modErrors("p if {\n\tinput.x == 1\n} if {\n\tinput.x == 2\n}")).toEqual(["m.rego:4:3: rego_parse_error: unexpected if keyword"]);
    expect(rulesOf("p[1] if { false } else if { true }")).toEqual(["p[1] if { false } else if { true }"]);
  });

  it("rejects contains on functions and bad some / every domains", () => {
    expect(modErrors("p() contains x if { x := 1 }")[0]).toContain(
      "the contains keyword can only be used with multi-value rule definitions (e.g., p contains <VALUE> { ... })",
    );
    expect(errorsOf(() => parseQuery("some internal.member_2()", "q"))[0]).toContain("illegal domain");
    expect(errorsOf(() => parseQuery("every internal.member_3()", "q"))[0]).toContain("illegal domain");
    expect(errorsOf(() => parseQuery("some f(x)", "q"))[0]).toContain("expected `x in xs` or `x, y in xs` expression");
    expect(errorsOf(() => parseQuery("every 10, x in xs { true }", "q"))[0]).toContain("unexpected { token: expected key to be a variable");
    expect(errorsOf(() => parseQuery("not every x in xs { true }", "q"))[0]).toContain("unexpected every keyword: illegal negation of 'every'");
  });

  it("lowers template strings to internal.template_string, as OPA's compiler does", () => {
    expect(rulesOf('p := $"a{1}{x}{ {y | y := x} }b\\{"')).toEqual([
      'p := internal.template_string(["a", "1", {$tmpl0 | eq($tmpl0, x)}, {$tmpl1 | eq($tmpl1, {y | assign(y, x)})}, "b{"])',
    ]);
    // Text alone (scalars included) is a constant string.
    expect(rulesOf('p := $`{"}"}{true}\\n`')).toEqual(['p := "}true\\\\n"']);
    expect(modErrors('p := $"{some x in y}"')[0]).toBe("m.rego:2:9: rego_parse_error: unexpected 'some' in template-string expression");
    expect(modErrors('p := $"{1"')[0]).toBe("m.rego:2:10: rego_parse_error: non-terminated string");
  });
});
