/**
 * Base data merged with virtual documents (plan/data.ts -> ObjectMerge ->
 * rt_object_merge), end to end. OPA (topdown's evalTree.extent + merge, and
 * its Wasm runtime's opa_value_merge) keeps the *base* value where base data
 * and a rule define the same non-object leaf, and keeps non-object base data
 * as it is. Reading the rule itself still gives the rule's value.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";

async function run(modules: string[], query: string, data: object): Promise<unknown> {
  const sources = modules.map((source, i) => ({ file: `m${i}.rego`, source }));
  const { wasm } = compile(sources, { entrypoints: [{ name: "q", query }] });
  const policy = await loadPolicy(wasm);
  policy.setData(data);
  return policy.evaluate(undefined, "q");
}

test("on a shared non-object leaf the base document wins; objects merge deeply", async () => {
  const m = ["package a\np := 1\nq.r := 2"];
  const data = { a: { p: 5, q: { s: 3 }, z: 0 } };
  expect(await run(m, "x = data.a", data)).toEqual([{ x: { p: 5, q: { r: 2, s: 3 }, z: 0 } }]);
  expect(await run(m, "x = data", data)).toEqual([{ x: { a: { p: 5, q: { r: 2, s: 3 }, z: 0 } } }]);
  // The rule itself is still the rule.
  expect(await run(m, "x = data.a.p", data)).toEqual([{ x: 1 }]);
});

test("base data that is not an object is the document as is", async () => {
  const m = ["package a.b\np := 1"];
  expect(await run(m, "x = data.a", { a: 7 })).toEqual([{ x: 7 }]);
  expect(await run(m, "x = data.a", { a: { c: 1 } })).toEqual([{ x: { b: { p: 1 }, c: 1 } }]);
  expect(await run(m, "x = data.a", {})).toEqual([{ x: { b: { p: 1 } } }]);
});
