/**
 * Rego v0 syntax (OPA 1.x `--v0-compatible`): the parser's v0 mode, the
 * per-file version (`import rego.v1` in a v0 file), future.keywords imports,
 * v0-only deprecated builtins, errors still at file:row:col, and v0 policies
 * compiled to real Wasm and evaluated through the SDK.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import { CompileErrors } from "../../../compiler/errors";
import { parseModule } from "../../../compiler/parse";
import { printRule } from "../../../compiler/parse/print";

const v0 = (src: string) => parseModule(src, "m.rego", undefined, "v0");
const v1 = (src: string) => parseModule(src, "m.rego");

function errorsOf(parse: () => unknown): string[] {
  try {
    parse();
  } catch (e) {
    if (e instanceof CompileErrors) return e.errors.map((x) => x.message);
    throw e;
  }
  throw new Error("expected a parse error");
}

/** x of `x = data.t.p` with the module compiled as `version`. */
async function valueOf(source: string, version: "v0" | "v1" = "v0", input: unknown = {}): Promise<unknown> {
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query: "x = data.t.p" }], regoVersion: version }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  const rs = policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q") as Array<{ x: unknown }>;
  return rs.length ? rs[0].x : undefined;
}

describe("v0 rule forms", () => {
  it("accepts rules without `if`, partial sets `p[x] { }`, `p[k] = v { }`, `=` defaults and else chains", () => {
    const m = v0(`package t
default allow = false
allow { input.x }
s[x] { x := input.xs[_] }
o[k] = v { some k; v := input.o[k] }
f(x) = y { y := x + 1 }
level = "a" { input.a } else = "b" { input.b } else = "c"
`);
    expect(m.regoVersion).toBe("v0");
    expect(m.rules.map(printRule)).toEqual([
      "default allow = false",
      // printed in v1 form: the same rules
      "allow if { input.x }",
      "s contains x if { assign(x, input.xs[_]) }",
      "o[k] = v if { some k; assign(v, input.o[k]) }",
      "f(x) = y if { assign(y, plus(x, 1)) }",
      'level = "a" if { input.a } else = "b" if { input.b } else = "c"',
    ]);
  });

  it("the same file is refused in v1, at file:row:col", () => {
    expect(errorsOf(() => v1("package t\nallow { input.x }\ns[x] { x := 1 }"))).toEqual([
      "m.rego:2:1: rego_parse_error: `if` keyword is required before rule body",
      "m.rego:3:1: rego_parse_error: `if` keyword is required before rule body",
      "m.rego:3:1: rego_parse_error: `contains` keyword is required for partial set rules",
    ]);
  });

  it("v0 parse errors keep file:row:col", () => {
    expect(errorsOf(() => v0("package t\n\np {\n  x := \n}"))).toEqual([expect.stringMatching(/^m\.rego:5:1: rego_parse_error: /)]);
  });
});

describe("v0 keywords", () => {
  it("in, every, contains and if are identifiers unless imported", () => {
    const m = v0("package t\nif = 1\ncontains[x] { x := 1 }\nevery = 2\nin { true }");
    expect(m.rules.map(printRule)).toEqual(["if = 1", "contains contains x if { assign(x, 1) }", "every = 2", "in if { true }"]);
    expect(() => v1("package t\nif = 1")).toThrow(CompileErrors);
  });

  it("an import makes its keyword a keyword from there on; importing every imports in", () => {
    expect(printRule(v0("package t\nimport future.keywords.in\np { 1 in [1] }").rules[0])).toBe("p if { internal.member_2(1, [1]) }");
    expect(printRule(v0("package t\nimport future.keywords.every\np { every x in [1] { x > 0 } }").rules[0])).toContain("every x in [1]");
    // Only the imported keyword: `if` stays an identifier, so `p if { }` is not a rule with a body.
    expect(() => v0("package t\nimport future.keywords.in\np if { true }")).toThrow(CompileErrors);
    expect(printRule(v0("package t\nimport future.keywords\np contains x if { x := 1 }").rules[0])).toBe("p contains x if { assign(x, 1) }");
  });

  it("`import rego.v1` in a v0 file applies v1's rules to that file only", () => {
    const m = v0("package t\nimport rego.v1\np contains x if { x := 1 }");
    expect(m.regoVersion).toBe("v0v1");
    expect(errorsOf(() => v0("package t\nimport rego.v1\np { true }"))).toEqual(["m.rego:3:1: rego_parse_error: `if` keyword is required before rule body"]);
    // A sibling file without the import stays v0.
    expect(v0("package t\np { true }").regoVersion).toBe("v0");
  });
});

describe("v0 compiled and evaluated", () => {
  it("partial sets, objects, else and defaults decide as in OPA", async () => {
    const src = `package t
import future.keywords.in
s[x] { x := input.xs[_] }
o[k] = v { some k, v in input.o }
level = "a" { input.a } else = "b" { input.b } else = "c"
p = [s, o, level]`;
    expect(await valueOf(src, "v0", { xs: [1, 2, 2], o: { a: 1 }, b: true })).toEqual([[1, 2], { a: 1 }, "b"]);
  });

  it("re_match and net.cidr_overlap (deprecated, removed in v1) are offered to v0 modules only", async () => {
    expect(await valueOf('package t\np { re_match("^a+$", "aaa"); net.cidr_overlap("10.0.0.0/8", "10.1.2.3") }')).toBe(true);
    expect(await valueOf('package t\np { re_match("^a+$", "b") }')).toBeUndefined();
    expect(() => compile([{ file: "t.rego", source: 'package t\np if re_match("a", "a")' }], { entrypoints: ["t/p"] })).toThrow(/undefined function re_match/);
    expect(() =>
      compile([{ file: "t.rego", source: 'package t\nimport rego.v1\np if re_match("a", "a")' }], { entrypoints: ["t/p"], regoVersion: "v0" }),
    ).toThrow(/undefined function re_match/);
  });

  it("a user function named like a deprecated builtin is the user's", async () => {
    expect(await valueOf('package t\nre_match(a, b) = "mine"\np = re_match(1, 2)')).toBe("mine");
  });
});

describe("v1's compile checks, skipped for v0 modules", () => {
  const build = (source: string, regoVersion: "v0" | "v1") => () => compile([{ file: "t.rego", source }], { entrypoints: ["t/p"], regoVersion });

  it("rules, arguments and variables shadowing input or data: allowed in v0, errors in v1 and v0v1", () => {
    expect(build("package t\ninput = 1\np { true }", "v0")).not.toThrow();
    expect(build("package t\ninput := 1\np := true", "v1")).toThrow("t.rego:2:1: rego_compile_error: rules must not shadow input (use a different rule name)");
    expect(build("package t\nf(data) := 1\np := true", "v1")).toThrow("rego_compile_error: args must not shadow data (use a different variable name)");
    expect(build("package t\np { input := 1; input == 1 }", "v0")).not.toThrow();
    expect(build("package t\np if { input := 1; input == 1 }", "v1")).toThrow(
      "t.rego:2:8: rego_compile_error: variables must not shadow input (use a different variable name)",
    );
    expect(build("package t\nimport rego.v1\np if { input := 1; input == 1 }", "v0")).toThrow("rego_compile_error: variables must not shadow input");
  });

  it("deprecated builtins (any, all): allowed in v0, errors in v1", async () => {
    expect(await valueOf("package t\np = [any([false, true]), all([true, false])]")).toEqual([true, false]);
    expect(build("package t\np := any([true])", "v1")).toThrow("t.rego:2:6: rego_type_error: deprecated built-in function calls in expression: any");
    expect(build("package t\nimport rego.v1\np := all([true])", "v0")).toThrow("rego_type_error: deprecated built-in function calls in expression: all");
  });

  it("reports a module's deprecated calls in source order, an expression before its with values", () => {
    const source = "package t\np if {\n\tany([true]) with input as all([false])\n}";
    const errors = errorsOf(() => compile([{ file: "t.rego", source }], { entrypoints: ["t/p"] }));
    expect(errors).toEqual([
      "t.rego:3:2: rego_type_error: deprecated built-in function calls in expression: any",
      "t.rego:3:28: rego_type_error: deprecated built-in function calls in expression: all",
    ]);
  });
});
