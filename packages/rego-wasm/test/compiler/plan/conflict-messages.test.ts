/**
 * Conflict errors of complete rules and functions carry both of OPA's
 * wordings: the released one (`complete rules must not produce multiple
 * outputs`) and the current one naming the document (`rule data.a.p produced
 * conflicting values`), so either is found as a substring.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";

async function evaluate(source: string, query: string): Promise<unknown> {
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return policy.evaluate({}, "q");
}

/** The text of the evaluation error (the SDK throws the abort as a plain value). */
async function errorOf(source: string, query: string): Promise<string> {
  try {
    await evaluate(source, query);
  } catch (err) {
    return err instanceof Error ? err.message : JSON.stringify(err);
  }
  throw new Error("evaluation did not fail");
}

test("complete rule conflict: both wordings, with the rule's path", async () => {
  const source = "package generated\np := true\np := false if false\np := false";
  expect(await errorOf(source, "x = data.generated.p")).toMatch(/eval_conflict_error: complete rules must not produce multiple outputs/);
  expect(await errorOf(source, "x = data.generated.p")).toMatch(/rule data\.generated\.p produced conflicting values/);
});

test("a nested complete rule conflict names the rule that conflicts", async () => {
  const source = "package g\np if data.g.q\nq := true\nq := false";
  expect(await errorOf(source, "x = data.g.p")).toMatch(/rule data\.g\.q produced conflicting values/);
});

test("function conflict, output used as a boolean or captured: both wordings", async () => {
  const boolean = 'package test\no := ["1", "2"]\nf(x) := o[_] == x\np if f("1")';
  expect(await errorOf(boolean, "x = data.test.p")).toMatch(/function data\.test\.f produced conflicting values for the same inputs/);
  const captured = "package test3\np(1, a) := y if { y = a }\np(x, y) := z if { z = x }\nr := y if { data.test3.p(1, 0, y) }";
  expect(await errorOf(captured, "x = data.test3.r")).toMatch(/functions must not produce multiple outputs for same inputs/);
  expect(await errorOf(captured, "x = data.test3.r")).toMatch(/function data\.test3\.p produced conflicting values/);
});

test("no conflict when the values agree", async () => {
  expect(await evaluate("package t\np := 1\np := 1", "x = data.t.p")).toEqual([{ x: 1 }]);
});
