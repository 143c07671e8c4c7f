/**
 * `a == b` in a rule body is evaluated as the unification `a = b` once
 * safety is checked (OPA's RewriteEquals), so a var bound only by iterating a
 * ref inside the same expression (`some k; k == xs[k]`) is safe and planned.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";

async function evaluate(source: string, input: unknown, query = "x = data.t.p"): Promise<unknown> {
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q");
}

const keyIsValue = "package t\np := k if {\n\tsome k\n\tk == input.xs[k]\n}";

test("a var bound by the ref on the other side of == is found by iterating", async () => {
  expect(await evaluate(keyIsValue, { xs: [2, 1, 0] })).toEqual([{ x: 1 }]);
  expect(await evaluate(keyIsValue, { xs: ["a"] })).toEqual([]);
  expect(await evaluate(keyIsValue, {})).toEqual([]);
});

test("the same in comprehensions, with the var on either side", async () => {
  const source = "package t\np := [k | some k; input.xs[k] == k]";
  expect(await evaluate(source, { xs: [0, 5, 2, 3] })).toEqual([{ x: [0, 2, 3] }]);
});

test("== still compares bound values (numbers by value), negated too", async () => {
  expect(await evaluate("package t\np if input.a == 1.0", { a: 1 })).toEqual([{ x: true }]);
  expect(await evaluate("package t\np if input.a == 2", { a: 1 })).toEqual([]);
  expect(await evaluate("package t\np if not input.a == 2", { a: 1 })).toEqual([{ x: true }]);
});

test("a nested == keeps its boolean value", async () => {
  expect(await evaluate("package t\np := input.a == 2", { a: 1 })).toEqual([{ x: false }]);
  expect(await evaluate("package t\np := y if { y := input.a == 1 }", { a: 1 })).toEqual([{ x: true }]);
});

test("an unbound var on both sides of == is still unsafe", () => {
  expect(() => compile([{ file: "t.rego", source: "package t\np if { some k; k == j }" }], { entrypoints: [{ name: "q", query: "data.t.p" }] })).toThrow(
    /var j is unsafe/,
  );
});
