/**
 * A var bound only by iterating a ref in another argument of the same call
 * is safe (OPA's outputVarsForTerms) and must be planned: the ref iterates
 * first, whatever the argument order (`k != xs[k]`, `startswith(k, xs[k])`),
 * as OPA's RewriteDynamicTerms does by pulling the ref out of the call.
 */
import { compile } from "../../../compiler";
import { resultSet, valueOfX } from "../evaluate-rego";

const XS = { xs: { a: "a", b: "x", ab: "abc" } };

test("the var comes before the ref that binds it: builtins and comparisons", async () => {
  expect(await valueOfX("package t\np contains k if { k != input.xs[k] }", XS)).toEqual(["ab", "b"]);
  expect(await valueOfX("package t\np contains k if { some k; k != input.xs[k] }", XS)).toEqual(["ab", "b"]);
  expect(await valueOfX("package t\np contains k if { startswith(k, input.xs[k]) }", XS)).toEqual(["a"]);
  expect(await valueOfX('package t\np contains k if { concat("", [k, input.xs[k]]) == "bx" }', XS)).toEqual(["b"]);
});

test("a user function and an output argument: the ref still binds first", async () => {
  const source = 'package t\nsame(a, b) if a == b\np contains k if { same(k, input.xs[k]) }\nq contains [k, s] if { sprintf("%s=%s", [k, input.xs[k]], s) }';
  expect(await valueOfX(source, XS)).toEqual(["a"]);
  expect(await resultSet(source, XS, "x = data.t.q")).toEqual([
    {
      x: [
        ["a", "a=a"],
        ["ab", "ab=abc"],
        ["b", "b=x"],
      ],
    },
  ]);
});

test("inside comprehensions and negations the same order holds; an undefined ref leaves no binding", async () => {
  expect(await valueOfX("package t\np := {k | startswith(k, input.xs[k])}", XS)).toEqual(["a"]);
  expect(await valueOfX('package t\np if { some k in ["b"]; not startswith(k, input.xs[k]) }', XS)).toBe(true);
  // OPA evaluates a ref argument before the `not` (RewriteDynamicTerms): undefined there fails the body.
  expect(await valueOfX('package t\np if { some k in ["zz"]; not startswith(k, input.xs[k]) }', XS)).toBeUndefined();
  expect(await valueOfX("package t\np contains k if { k != input.missing[k] }", XS)).toEqual([]);
});

test("a var that nothing binds is still unsafe", () => {
  expect(() => compile([{ file: "t.rego", source: "package t\np if { startswith(k, j) }" }], { entrypoints: [{ name: "q", query: "data.t.p" }] })).toThrow(
    /var (j|k) is unsafe/,
  );
});
