/**
 * `not` over an expression whose parts are undefined, as OPA decides it.
 *
 * OPA's compiler evaluates the parts of a negated expression that it rewrites
 * (nested calls: RewriteExprTerms; refs and comprehensions in call arguments,
 * in ref keys and in composite operands: RewriteDynamicTerms) as expressions
 * of their own before the `not` (compile.go expandExpr / rewriteDynamics).
 * When one is undefined the body fails: `allow if not blocked(input.user)`
 * is undefined, not true, when input.user is missing (OPA issues #1877,
 * #4743, #7558, #8387). A ref that is the whole negated expression, or a
 * side of `=` / `==`, is not rewritten: `not input.x` is true when input.x
 * is missing. With `import future.keywords.not` (OPA 1.17) every part stays
 * inside the negation instead (OPA's test-not-body.yaml).
 *
 * Every case compiles Rego with our compiler and evaluates it in the real
 * Wasm through @open-policy-agent/opa-wasm; each expectation is OPA's answer.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../compiler";

/** `x` of `query` (default `x = data.t.p`) for `package t` + `rules`, or undefined when there is none. */
async function valueOf(rules: string, input?: unknown, opts: { query?: string; data?: object; imports?: string } = {}): Promise<unknown> {
  const source = `package t\n${opts.imports ?? ""}\n${rules}`;
  const { wasm } = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query: opts.query ?? "x = data.t.p" }] });
  const policy = await loadPolicy(wasm);
  policy.setData(opts.data ?? {});
  const encoded = input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(input)).buffer;
  const result = policy.evaluate(encoded as ArrayBuffer | undefined, "q") as Array<{ x: unknown }>;
  return result.length === 0 ? undefined : result[0]!.x;
}

const FUTURE_NOT = "import future.keywords.not";

describe("a user function call: its arguments are evaluated before the negation", () => {
  const rules = `
default allow := false
blocked(user) if user in {"mallory"}
allow if not blocked(input.user)`;

  test("an undefined argument makes the body fail (OPA #1877, #8387): deny", async () => {
    expect(await valueOf(rules, {}, { query: "x = data.t.allow" })).toBe(false);
    expect(await valueOf(rules, undefined, { query: "x = data.t.allow" })).toBe(false);
  });

  test("a defined argument: the negation decides", async () => {
    expect(await valueOf(rules, { user: "alice" }, { query: "x = data.t.allow" })).toBe(true);
    expect(await valueOf(rules, { user: "mallory" }, { query: "x = data.t.allow" })).toBe(false);
  });

  test("the call itself being undefined stays inside the negation: true", async () => {
    expect(await valueOf("f(x) := x if x > 10\np if not f(input.n)", { n: 1 })).toBe(true);
  });

  test("a rule used as an argument is a ref too: undefined rule, failing body", async () => {
    expect(await valueOf("q if false\nf(_) := true\np if not f(q)", {})).toBeUndefined();
    expect(await valueOf("q := 1\nf(_) := false\np if not f(q)", {})).toBe(true);
  });

  test("a whole `input` argument is evaluated first too", async () => {
    expect(await valueOf("f(_) := false\np if not f(input)", undefined)).toBeUndefined();
    expect(await valueOf("f(_) := false\np if not f(input)", {})).toBe(true);
  });
});

describe("builtin calls and operators", () => {
  test("not regex.match(p, a[0][1]): a missing element fails the body", async () => {
    const rules = 'p if { a := input.a; not regex.match("^z", a[0][1]) }';
    expect(await valueOf(rules, { a: [] })).toBeUndefined();
    expect(await valueOf(rules, { a: [["k", "abc"]] })).toBe(true);
    expect(await valueOf(rules, { a: [["k", "zed"]] })).toBeUndefined();
  });

  test("comparisons and != are calls: their operands are evaluated first", async () => {
    expect(await valueOf("p if not input.x > 1", {})).toBeUndefined();
    expect(await valueOf("p if not input.x > 1", { x: 0 })).toBe(true);
    expect(await valueOf("p if not input.a != input.b", { b: 1 })).toBeUndefined();
    expect(await valueOf("p if not input.a != input.b", { a: 1, b: 1 })).toBe(true);
  });

  test("== in a rule is unification: a ref side is not evaluated first (OPA #1877 comment)", async () => {
    expect(await valueOf("p if not input.a == input.b", {})).toBe(true);
    expect(await valueOf("p if not input.x == 1", {})).toBe(true);
    expect(await valueOf("p if not input.x = 1", {})).toBe(true);
  });

  test("... but a query keeps == a call (OPA's query compiler does not rewrite equals)", async () => {
    expect(await valueOf("", {}, { query: "not input.x == 1; x := true" })).toBeUndefined();
    expect(await valueOf("", { x: 2 }, { query: "not input.x == 1; x := true" })).toBe(true);
    expect(await valueOf("", {}, { query: "not input.x = 1; x := true" })).toBe(true);
  });

  test("membership: not x in xs with x undefined fails", async () => {
    expect(await valueOf('p if not input.role in {"admin"}', {})).toBeUndefined();
    expect(await valueOf('p if not input.role in {"admin"}', { role: "dev" })).toBe(true);
  });

  test("a ref inside a composite operand is evaluated first, also beside ==", async () => {
    expect(await valueOf("p if not [input.x, 1] == [1, 1]", {})).toBeUndefined();
    expect(await valueOf("p if not [input.x, 1] == [1, 1]", { x: 2 })).toBe(true);
    expect(await valueOf('p if not {"k": input.x} == {"k": 1}', {})).toBeUndefined();
    expect(await valueOf("p if not count({input.x}) == 0", {})).toBeUndefined();
  });
});

describe("nested calls are evaluated before the negation (RewriteExprTerms)", () => {
  test("an undefined nested call fails the body; the outer call stays inside", async () => {
    expect(await valueOf("p if not input.x + input.y == input.z", {})).toBeUndefined();
    expect(await valueOf("default p := false\np if not input.x + input.y == input.z", {})).toBe(false);
    expect(await valueOf("p if not input.x + input.y == input.z", { x: 1, y: 2 })).toBe(true);
    expect(await valueOf("p if not input.x + input.y == input.z", { x: 1, y: 2, z: 3 })).toBeUndefined();
    expect(await valueOf("p if not count(input.xs) == 0", {})).toBeUndefined();
    expect(await valueOf("p if not count(input.xs) == 0", { xs: [1] })).toBe(true);
  });

  test("f(g(x)): g undefined fails, f undefined is negated", async () => {
    const rules = "g(x) := x if x > 0\nf(x) := true if x > 5\np if not f(g(input.n))";
    expect(await valueOf(rules, { n: -1 })).toBeUndefined();
    expect(await valueOf(rules, { n: 1 })).toBe(true);
    expect(await valueOf(rules, { n: 9 })).toBeUndefined();
  });

  test("a call as the head of a ref: not f(x).foo (OPA #7558)", async () => {
    const rules = 'v := {"foo": true}\nvariable := v if false\nfunction(_) := v if false';
    expect(await valueOf(`${rules}\np if not variable.foo`, {})).toBe(true);
    expect(await valueOf(`${rules}\np if not function("bar").foo`, {})).toBeUndefined();
  });

  test("a nested call is evaluated once, before the negation, with its value kept", async () => {
    expect(await valueOf('p if not contains(lower(input.s), "x")', { s: "ABC" })).toBe(true);
    expect(await valueOf('p if not contains(lower(input.s), "x")', { s: "AXC" })).toBeUndefined();
    expect(await valueOf('p if not contains(lower(input.s), "x")', {})).toBeUndefined();
  });
});

describe("refs with dynamic keys: the keys are evaluated first", () => {
  test("not obj[input.key] (OPA #4743)", async () => {
    expect(await valueOf("obj := {}\np if not obj[input.key_not_present]", {})).toBeUndefined();
    expect(await valueOf("obj := {}\np if not obj[input.key]", { key: "k" })).toBe(true);
  });

  test("not allowed[input.name] over a partial set", async () => {
    const rules = 'allowed contains "alice"\ndeny if not allowed[input.name]';
    expect(await valueOf(rules, {}, { query: "x = data.t.deny" })).toBeUndefined();
    expect(await valueOf(rules, { name: "bob" }, { query: "x = data.t.deny" })).toBe(true);
    expect(await valueOf(rules, { name: "alice" }, { query: "x = data.t.deny" })).toBeUndefined();
  });

  test("not data.x[input.a][input.b] over base data", async () => {
    const data = { x: { a: { b: true } } };
    const rules = "p if not data.x[input.a][input.b]";
    expect(await valueOf(rules, { a: "a" }, { data })).toBeUndefined();
    expect(await valueOf(rules, { b: "b" }, { data })).toBeUndefined();
    expect(await valueOf(rules, { a: "a", b: "c" }, { data })).toBe(true);
    expect(await valueOf(rules, { a: "a", b: "b" }, { data })).toBeUndefined();
  });

  test("a key that is itself a ref with a dynamic key", async () => {
    const rules = 'm := {"k": "v"}\nseen := {"v": true}\np if not seen[m[input.k]]';
    expect(await valueOf(rules, {})).toBeUndefined();
    expect(await valueOf(rules, { k: "other" })).toBeUndefined();
    expect(await valueOf(rules, { k: "k" })).toBeUndefined();
    expect(await valueOf('m := {"k": "w"}\nseen := {"v": true}\np if not seen[m[input.k]]', { k: "k" })).toBe(true);
  });

  test("a plain ref stays inside: not input.x, not input.a.b.c, not a rule", async () => {
    expect(await valueOf("p if not input.x", {})).toBe(true);
    expect(await valueOf("p if not input.a.b.c", { a: {} })).toBe(true);
    expect(await valueOf("q if false\np if not q", {})).toBe(true);
    expect(await valueOf("p if { xs := [[1]]; not xs[0][1] }", {})).toBe(true);
  });
});

describe("comprehension bodies, every, queries", () => {
  test("inside a comprehension body the same rule holds", async () => {
    const rules = 'p := [x | x := "foo"; not f(input.x)]\nf(_) := true';
    expect(await valueOf(rules, {})).toEqual([]);
    expect(await valueOf(rules, { x: 1 })).toEqual([]);
    expect(await valueOf('p := [x | x := "foo"; not f(input.x)]\nf(_) := false', { x: 1 })).toEqual(["foo"]);
  });

  test("inside every: an undefined argument fails the iteration, so every is false", async () => {
    const rules = "default p := false\np if {\n  every x in input.x {\n    not f(x, input.y)\n  }\n}\nf(_, _) := false";
    expect(await valueOf(rules, { x: [1, 2] })).toBe(false);
    expect(await valueOf(rules, { x: [1, 2], y: 3 })).toBe(true);
  });

  test("a negated expression in a query", async () => {
    const rules = 'blocked(u) if u == "mallory"';
    expect(await valueOf(rules, {}, { query: "not data.t.blocked(input.user); x := true" })).toBeUndefined();
    expect(await valueOf(rules, { user: "bob" }, { query: "not data.t.blocked(input.user); x := true" })).toBe(true);
  });
});

describe("with: the parts evaluated first see the replaced documents and functions", () => {
  const rules = 'blocked(u) if u == "eve"\ng(x) := x\nh(_) := "eve"';

  test("an argument read under `with input...`", async () => {
    expect(await valueOf(`${rules}\np if not blocked(input.user) with input.user as "eve"`, { user: "bob" })).toBeUndefined();
    expect(await valueOf(`${rules}\np if not blocked(input.user) with input.user as "bob"`, { user: "eve" })).toBe(true);
    expect(await valueOf(`${rules}\np if not blocked(input.user) with input as {}`, { user: "bob" })).toBeUndefined();
  });

  test("a nested call under a function mock", async () => {
    expect(await valueOf(`${rules}\np if not blocked(g("bob")) with g as h`, {})).toBeUndefined();
    expect(await valueOf(`${rules}\np if not blocked(g("bob"))`, {})).toBe(true);
  });

  test("a function replaced by a value: its argument is still evaluated first", async () => {
    expect(await valueOf("f(_) := true\np if not f(input.x) with f as false", {})).toBeUndefined();
    expect(await valueOf("f(_) := true\np if not f(input.x) with f as false", { x: 1 })).toBe(true);
  });

  test("an undefined `with` value fails the body (OPA evaluates it first)", async () => {
    expect(await valueOf(`${rules}\np if not blocked("bob") with input.user as input.missing`, {})).toBeUndefined();
  });
});

describe("import future.keywords.not (OPA 1.17): every part stays inside the negation", () => {
  test("undefined operands and arguments make `not` true (OPA's test-not-body.yaml)", async () => {
    const imports = FUTURE_NOT;
    expect(await valueOf("default p := false\np if not input.x + input.y == input.z", {}, { imports })).toBe(true);
    expect(await valueOf('default allow := false\nblocked(u) if u == "m"\nallow if not blocked(input.user)', {}, { imports, query: "x = data.t.allow" })).toBe(
      true,
    );
    expect(await valueOf('p := [x | x := "foo"; not f(input.x)]\nf(_) := true', {}, { imports })).toEqual(["foo"]);
    const every = "default p := false\np if {\n  every x in input.x {\n    not f(x, input.y)\n  }\n}\nf(_, _) := true";
    expect(await valueOf(every, { x: [1, 2] }, { imports })).toBe(true);
  });

  test("the import is per module: another module keeps OPA's default", async () => {
    const sources = [
      { file: "a.rego", source: `package a\n${FUTURE_NOT}\np if not f(input.u)\nf(_) := false` },
      { file: "b.rego", source: "package b\np if not f(input.u)\nf(_) := false" },
    ];
    const { wasm } = compile(sources, {
      entrypoints: [
        { name: "a", query: "x = data.a.p" },
        { name: "b", query: "x = data.b.p" },
      ],
    });
    const policy = await loadPolicy(wasm);
    policy.setData({});
    const input = new TextEncoder().encode("{}").buffer;
    expect(policy.evaluate(input, "a")).toEqual([{ x: true }]);
    expect(policy.evaluate(input, "b")).toEqual([]);
  });
});
