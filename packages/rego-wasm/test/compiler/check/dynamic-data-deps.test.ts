/**
 * A `data` ref with a dynamic segment depends on the rules it can reach, as
 * OPA's rule graph computes them (GetRulesDynamic), and is planned so that
 * only the document its key names is evaluated: a rule reading
 * `data[x].allow...` is not recursive merely because it sits under `data`.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";

type Source = { file: string; source: string };

async function evaluate(sources: Source[], query: string, data: unknown = {}, input: unknown = {}): Promise<unknown> {
  const wasm = compile(sources, { entrypoints: [{ name: "q", query }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData(data as object);
  return policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q");
}

const primary = { file: "primary.rego", source: 'package primary\nallow[action].something if action := "show"\nallow.see.something_else if true' };
const unrelated = { file: "unrelated.rego", source: "package unrelated\nallow.other.stuff if true" };

test("a bound dynamic key reads only the package it names (OPA issue 7399)", async () => {
  const test = { file: "test.rego", source: 'package test\np := data[first].allow.see.something_else if first := "primary"' };
  expect(await evaluate([test, primary, unrelated], "x = data.test.p")).toEqual([{ x: true }]);
});

test("a key from input, naming a package, a base document or nothing", async () => {
  const test = { file: "test.rego", source: "package test\np := data[input.pkg].allow.see" };
  const data = { base: { allow: { see: 7 } } };
  expect(await evaluate([test, primary], "x = data.test.p", data, { pkg: "primary" })).toEqual([{ x: { something_else: true } }]);
  expect(await evaluate([test, primary], "x = data.test.p", data, { pkg: "base" })).toEqual([{ x: 7 }]);
  expect(await evaluate([test, primary], "x = data.test.p", data, { pkg: "none" })).toEqual([]);
  expect(await evaluate([test, primary], "x = data.test.p", data, { pkg: 1 })).toEqual([]);
});

test("an unbound key enumerates virtual and base documents once each", async () => {
  const test = { file: "test.rego", source: "package test\np contains k if data[k].allow.see" };
  const data = { base: { allow: { see: 1 } }, primary: { allow: { see: 2 } }, other: { x: 1 } };
  expect(await evaluate([test, primary, unrelated], "x = data.test.p", data)).toEqual([{ x: ["base", "primary"] }]);
});

test("a dynamic ref that can reach the rule itself is still recursive", () => {
  const test = { file: "test.rego", source: 'package test\np := data[x].p if x := "test"' };
  expect(() => compile([test], { entrypoints: [{ name: "q", query: "data.test.p" }] })).toThrow(/rule data.test.p is recursive/);
});

test("a dynamic key whose rest binds a var reads the whole document below it: a recursion error, not a runtime crash", () => {
  // The planner builds all of data.t here (it cannot branch per key while `_` binds),
  // so the rule reads itself; OPA answers ["a"], planning per key with a binding rest is not done yet.
  const t = { file: "t.rego", source: 'package t\na.p := {"k": 1}\nb.q := r if {\n\tr := [x | some x; data.t[x].p[_]]\n}' };
  expect(() => compile([t], { entrypoints: ["t/b/q"] })).toThrow(/rego_recursion_error: rule data\.t\.b\.q is recursive/);
});
