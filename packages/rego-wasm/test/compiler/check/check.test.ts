/**
 * The checker: rule tree, name resolution, renaming, safety reordering and
 * the compile errors OPA reports (codes and messages).
 */
import type { Expr, Term } from "../../../compiler/ast";
import { check, checkQuery, findNode, type Program } from "../../../compiler/check";
import { CompileErrors } from "../../../compiler/errors";
import { parseModule, parseQuery } from "../../../compiler/parse";

function program(...sources: string[]): Program {
  return check(sources.map((s, i) => parseModule(s, `m${i}.rego`)));
}

function errorsOf(...sources: string[]): string[] {
  try {
    program(...sources);
  } catch (e) {
    if (e instanceof CompileErrors) return e.errors.map((x) => x.message);
    throw e;
  }
  return [];
}

/** A compact text form of a checked term, for assertions. */
function show(t: Term): string {
  switch (t.type) {
    case "var":
      return t.name;
    case "string":
      return JSON.stringify(t.value);
    case "number":
      return t.value;
    case "boolean":
      return String(t.value);
    case "null":
      return "null";
    case "ref":
      return t.terms.map((x, i) => (i === 0 ? show(x) : x.type === "string" ? `.${x.value}` : `[${show(x)}]`)).join("");
    case "call":
      return `${show(t.op)}(${t.args.map(show).join(", ")})`;
    case "array":
      return `[${t.items.map(show).join(", ")}]`;
    case "set":
      return `{${t.items.map(show).join(", ")}}`;
    case "object":
      return `{${t.items.map(([k, v]) => `${show(k)}: ${show(v)}`).join(", ")}}`;
    case "arraycompr":
      return `[${show(t.term)} | ${t.body.map(showExpr).join("; ")}]`;
    case "setcompr":
      return `{${show(t.term)} | ${t.body.map(showExpr).join("; ")}}`;
    case "objectcompr":
      return `{${show(t.key)}: ${show(t.value)} | ${t.body.map(showExpr).join("; ")}}`;
  }
}

function showExpr(e: Expr): string {
  switch (e.kind) {
    case "term":
      return (e.negated ? "not " : "") + show(e.term);
    case "some":
      return `some ${e.vars.map(show).join(", ")}`;
    case "somein":
      return `some ${e.key ? show(e.key) + ", " : ""}${show(e.value)} in ${show(e.collection)}`;
    case "every":
      return `every ${e.key ? show(e.key) + ", " : ""}${show(e.value)} in ${show(e.domain)} { ${e.body.map(showExpr).join("; ")} }`;
  }
}

function body(p: Program, path: string[], i = 0): string[] {
  return findNode(p, path)!.rules[i]!.body.map(showExpr);
}

describe("rule tree", () => {
  test("groups rules by full path across modules and classifies them", () => {
    const p = program('package a\np := 1\ns contains 1\no[k] := 2 if k := "x"\nf(x) := x\nb.c.d := true', "package a\np := 1 if false\nq := 2");
    expect(findNode(p, ["a", "p"])).toMatchObject({ kind: "complete" });
    expect(findNode(p, ["a", "p"])!.rules).toHaveLength(2);
    expect(findNode(p, ["a", "s"])!.kind).toBe("set");
    expect(findNode(p, ["a", "o"])!.kind).toBe("object");
    expect(findNode(p, ["a", "f"])).toMatchObject({ kind: "function", arity: 1 });
    expect(findNode(p, ["a", "b", "c", "d"])!.kind).toBe("complete");
    expect(findNode(p, ["a"])!.isPackage).toBe(true);
  });

  test("rules below an object rule become contributions with longer key paths", () => {
    const p = program('package t\np[x] := 1 if some x in ["a"]\np.b.c := 2\np.s contains 3');
    const node = findNode(p, ["t", "p"])!;
    expect(node.children.size).toBe(0);
    expect(node.rules.map((r) => r.key.map(show).join("/"))).toEqual(["__local0__", '"b"/"c"', '"s"']);
    expect(node.rules[2]!.setLeaf).toBe(true);
  });

  test("a package at a rule's path conflicts with it", () => {
    expect(errorsOf("package a\nb := 1", "package a.b\nc := 2")).toContain(
      "m0.rego:1:1: rego_type_error: package a.b conflicts with rule b defined at m0.rego:2",
    );
  });

  test("conflicting kinds and duplicate defaults are type errors", () => {
    expect(errorsOf("package t\np := 1\np contains 2")).toEqual(["m0.rego:3:1: rego_type_error: conflicting rules data.t.p found"]);
    expect(errorsOf("package t\nf(x) := 1\nf(x, y) := 2")[0]).toMatch(/conflicting rules data.t.f found/);
    expect(errorsOf("package t\ndefault p := 1\ndefault p := 2")).toEqual(["m0.rego:3:1: rego_type_error: multiple default rules data.t.p found"]);
  });
});

describe("resolution", () => {
  test("rule names and imports become data refs; locals shadow them", () => {
    const p = program(
      "package lib\nx := 1",
      'package t\nimport data.lib\nimport input.user as u\nq := 2\np if { q == lib.x; u.name == "a"; some q in [1]; q > 0 }',
    );
    expect(body(p, ["t", "p"])).toEqual(["eq(data.t.q, data.lib.x)", 'eq(input.user.name, "a")', "some __local0__ in [1]", "gt(__local0__, 0)"]);
  });

  test("wildcards are renamed apart and declared vars get fresh names", () => {
    const p = program("package t\np if { x := input[_]; y := input[_]; x == y }");
    expect(body(p, ["t", "p"])).toEqual(["assign(__local1__, input[$0])", "assign(__local3__, input[$2])", "eq(__local1__, __local3__)"]);
  });

  test("a closure before a declaration keeps its own variable", () => {
    const p = program("package t\nxs := [1]\np := x if { y := [x | x := xs[_]]; x := count(y) }");
    expect(body(p, ["t", "p"])).toEqual(["assign(__local2__, [__local1__ | assign(__local1__, data.t.xs[$0])])", "assign(__local3__, count(__local2__))"]);
  });

  test("calls: user functions by path, builtins checked against the catalogue", () => {
    const p = program("package t\nf(x) := x\np if { f(1) == count([]) + 1 }");
    expect(body(p, ["t", "p"])).toEqual(["eq(data.t.f(1), plus(count([]), 1))"]);
    expect(errorsOf("package t\np if nope(1)")).toEqual(["m0.rego:2:6: rego_type_error: undefined function nope"]);
    expect(errorsOf("package t\np if count(1, 2, 3)")[0]).toMatch(/rego_type_error: count: arity mismatch/);
    expect(errorsOf("package t\nf(x) := x\np if f(1, 2, 3)")[0]).toMatch(/rego_type_error: function data.t.f has arity 1, got 3 arguments/);
  });

  test("`with` targets are classified; bad targets are compile errors", () => {
    const p = program("package t\nf(x) := 1\np if { q with input.a as 1 with data.x as 2 with count as f }\nq := true");
    const w = findNode(p, ["t", "p"])!.rules[0]!.body[0]!.with;
    expect(w.map((x) => (x as unknown as { kind: string }).kind)).toEqual(["input", "data", "builtin"]);
    expect(errorsOf("package t\np if { true with foo as 1 }")[0]).toMatch(
      /rego_compile_error: with keyword target must reference existing input, data, or a function/,
    );
  });

  test("re-assigning a declared var is a compile error", () => {
    expect(errorsOf("package t\np if { x := 1; x := 2 }")).toEqual(["m0.rego:2:16: rego_compile_error: var x assigned above"]);
    expect(errorsOf("package t\np if { x > 1; x := 2 }")).toEqual(["m0.rego:2:15: rego_compile_error: var x referenced above"]);
  });
});

describe("safety", () => {
  test("bodies are reordered so every var is bound before use", () => {
    const p = program("package t\np if { x > 1; not y == 2; x = input.a; y = x + 1 }");
    // As in OPA: each pass schedules, in source order, whatever is safe so far.
    expect(body(p, ["t", "p"])).toEqual(["eq(x, input.a)", "eq(y, plus(x, 1))", "gt(x, 1)", "not eq(y, 2)"]);
  });

  test("closures run after the outer vars they use are bound", () => {
    const p = program("package t\np if { ys := [y | y := x[_]]; x = input.xs }");
    expect(body(p, ["t", "p"])[0]).toBe("eq(x, input.xs)");
  });

  test("unbound vars are reported as unsafe", () => {
    expect(errorsOf("package t\np if { x > 1 }")).toEqual(["m0.rego:2:8: rego_unsafe_var_error: var x is unsafe"]);
    expect(errorsOf("package t\np if { not input.x[_] == 1 }")).toEqual(["m0.rego:2:8: rego_unsafe_var_error: var _ is unsafe"]);
    expect(errorsOf("package t\np := y if { true }")[0]).toMatch(/rego_unsafe_var_error: var y is unsafe/);
  });

  test("output arguments and ref iteration bind vars", () => {
    const p = program("package t\np if { count(input.xs, n); input.ys[i] == n }");
    expect(body(p, ["t", "p"])).toEqual(["count(input.xs, n)", "eq(input.ys[i], n)"]);
  });
});

describe("recursion", () => {
  test("rules depending on themselves are rejected", () => {
    expect(errorsOf("package t\np if q\nq if p")[0]).toMatch(/rego_recursion_error: rule data.t.(p|q) is recursive/);
    expect(errorsOf("package t\nf(x) := f(x)")[0]).toMatch(/rego_recursion_error: rule data.t.f is recursive: data.t.f -> data.t.f/);
  });

  test("refs into base data are not dependencies", () => {
    expect(errorsOf("package t\np := data.other[_]")).toEqual([]);
  });
});

describe("queries", () => {
  test("written vars are the outputs; wildcards are not", () => {
    const p = program('package t\np := {"a": 1}');
    const q = checkQuery(p, parseQuery("data.t.p[k] = v; x := 1; _ = 2", "q"));
    expect(q.outputs.map((o) => o.name).sort()).toEqual(["k", "v", "x"]);
  });
});
