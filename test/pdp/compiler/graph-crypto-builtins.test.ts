/**
 * graph.reachable, graph.reachable_paths and the crypto hash/HMAC builtins,
 * compiled natively into the runtime: results as OPA gives them, undefined
 * where OPA raises a (non-strict) builtin error.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../pdp/compiler";

async function evaluate(source: string, input: unknown): Promise<unknown> {
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query: "x = data.t.p" }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q");
}

/** The value of p for input, or undefined when p is undefined. */
async function p(source: string, input: unknown = {}): Promise<unknown> {
  const r = (await evaluate(`package t\n${source}`, input)) as Array<{ x: unknown }>;
  return r.length === 0 ? undefined : r[0].x;
}

describe("graph.reachable", () => {
  const rule = "p := graph.reachable(input.g, input.init)";

  test("follows arrays and sets of neighbours, through cycles", async () => {
    const g = { a: ["b", "c"], b: ["d"], c: ["d"], d: [], e: ["f"], f: ["e"], x: ["x"] };
    expect(await p(rule, { g, init: ["b", "e"] })).toEqual(["b", "d", "e", "f"]);
    expect(await p(rule, { g, init: ["a"] })).toEqual(["a", "b", "c", "d"]);
    expect(await p('p := graph.reachable({"a": {"b"}, "b": {"a"}}, {"b"})')).toEqual(["a", "b"]);
  });

  test("a node not in the graph is not reached; a node whose value is not a collection is reached but leads nowhere", async () => {
    expect(await p(rule, { g: { a: ["b", "zz"], b: null }, init: ["a", "nope"] })).toEqual(["a", "b"]);
    expect(await p(rule, { g: { a: 1 }, init: ["a"] })).toEqual(["a"]);
    expect(await p(rule, { g: {}, init: ["a"] })).toEqual([]);
    expect(await p(rule, { g: { a: ["b"] }, init: [] })).toEqual([]);
  });

  test("non-string nodes", async () => {
    expect(await p("p := graph.reachable({1: [2], 2: [[3]], [3]: []}, [1])")).toEqual([1, 2, [3]]);
  });

  test("a graph that is not an object, or initial nodes not an array or set, is undefined", async () => {
    expect(await p(rule, { g: 1, init: ["a"] })).toBeUndefined();
    expect(await p(rule, { g: { a: [] }, init: "a" })).toBeUndefined();
    expect(await p(rule, { g: { a: [] }, init: { a: true } })).toBeUndefined();
  });
});

describe("graph.reachable_paths", () => {
  const rule = "p := graph.reachable_paths(input.g, input.init)";

  test("every maximal path; a cycle ends the path before the repeated node", async () => {
    expect(await p(rule, { g: { a: ["b"], b: ["c"], c: ["a"] }, init: ["a"] })).toEqual([["a", "b", "c"]]);
    expect(await p(rule, { g: { a: ["b", "c"], b: ["c"], c: [] }, init: ["a"] })).toEqual([
      ["a", "b", "c"],
      ["a", "c"],
    ]);
  });

  test("a neighbour not in the graph ends the path without it; initial nodes not in the graph give nothing", async () => {
    expect(await p(rule, { g: { a: ["b"], b: ["nonexistent"] }, init: ["a", "b", "q"] })).toEqual([["a", "b"], ["b"]]);
    expect(await p(rule, { g: { a: null }, init: ["a"] })).toEqual([["a"]]);
    expect(await p(rule, { g: {}, init: ["a"] })).toEqual([]);
  });

  test("a self-loop on an initial node repeats it once, as OPA", async () => {
    expect(await p(rule, { g: { x: ["x"] }, init: ["x"] })).toEqual([["x", "x"]]);
    expect(await p(rule, { g: { a: ["x"], x: ["x"] }, init: ["a"] })).toEqual([["a", "x"]]);
  });

  test("type errors are undefined", async () => {
    expect(await p(rule, { g: 1, init: [1] })).toBeUndefined();
    expect(await p(rule, { g: { a: [] }, init: "a" })).toBeUndefined();
  });
});
