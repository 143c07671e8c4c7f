/**
 * `walk`, OPA's relation builtin, end to end: compiled by the whole pipeline
 * and run by @open-policy-agent/opa-wasm. The native `bi_walk` returns every
 * [path, value] pair as one array; the planner iterates over it and unifies
 * each pair with the call's output pattern, wherever the call appears.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import { printPolicy } from "../../../compiler/plan";

async function run(module: string, query: string, input?: unknown): Promise<unknown> {
  const { wasm } = compile([{ file: "w.rego", source: module }], { entrypoints: [{ name: "q", query }] });
  const policy = await loadPolicy(wasm);
  policy.setData({});
  const buf = input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(input)).buffer;
  return policy.evaluate(buf as ArrayBuffer | undefined, "q");
}

const DOC = { a: { b: [1, { c: 2 }] }, d: "x" };

test("every [path, value] pair, the root first with path [], arrays by index", async () => {
  const m = "package t\npairs := [[p, v] | walk(input, [p, v])]";
  expect(await run(m, "x = data.t.pairs", { a: [true, null] })).toEqual([
    {
      x: [
        [[], { a: [true, null] }],
        [["a"], [true, null]],
        [["a", 0], true],
        [["a", 1], null],
      ],
    },
  ]);
});

test("collecting all paths of an object", async () => {
  const m = "package t\npaths contains p if walk(input, [p, _])";
  const [res] = (await run(m, "x = data.t.paths", DOC)) as Array<{ x: unknown[] }>;
  expect(res!.x).toEqual(expect.arrayContaining([[], ["a"], ["a", "b"], ["a", "b", 0], ["a", "b", 1], ["a", "b", 1, "c"], ["d"]]));
  expect(res!.x).toHaveLength(7);
});

test("finding a key at any depth; patterns in the output argument filter pairs", async () => {
  const m = [
    "package t",
    "# every value stored under a key named c, at any depth",
    'cs contains v if { walk(input, [p, v]); p[count(p) - 1] == "c" }',
    "# pattern: only pairs whose path has exactly two segments",
    "two contains [a, b] if walk(input, [[a, b], _])",
    'has_c if { some p; walk(input, [p, 2]); p[_] == "c" }',
  ].join("\n");
  expect(await run(m, "x = data.t.cs", DOC)).toEqual([{ x: [2] }]);
  expect(await run(m, "x = data.t.two", DOC)).toEqual([{ x: [["a", "b"]] }]);
  expect(await run(m, "x = data.t.has_c", DOC)).toEqual([{ x: true }]);
  expect(await run(m, "x = data.t.has_c", { c: 3 })).toEqual([]);
});

test("`[p, v] := ...` and `x := walk(y)`: a call term iterates too", async () => {
  const m = ["package t", "a contains p if { [p, v] := walk(input); v == 1 }", "b contains x if x := walk(input)"].join("\n");
  expect(await run(m, "x = data.t.a", { k: 1, l: [1] })).toEqual([{ x: [["k"], ["l", 0]] }]);
  expect(await run(m, "x = data.t.b", 7)).toEqual([{ x: [[[], 7]] }]);
});

test("without an output argument the call succeeds once per pair, as in OPA's topdown", async () => {
  const m = "package t\nn := count([1 | walk(input)])";
  expect(await run(m, "x = data.t.n", { a: { b: 1 } })).toEqual([{ x: 3 }]);
});

test("sets: the element itself is the path segment; scalars give the root pair only", async () => {
  const m = "package t\nps := {p | walk(input.s, [p, _])}\nr := [v | walk(5, [_, v])]";
  expect(await run(m, "x = data.t.r")).toEqual([{ x: [5] }]);
  const m2 = 'package t\nps := [p | walk({"a", "b"}, [p, _])]';
  expect(await run(m2, "x = data.t.ps")).toEqual([{ x: [[], ["a"], ["b"]] }]);
  // A comprehension over an undefined document is empty, not undefined.
  expect(await run(m, "x = data.t.ps")).toEqual([{ x: [] }]);
});

test("under `with`: replaced input, and walk mocked by a value or a function", async () => {
  const m = [
    "package t",
    "keys contains k if walk(input, [[k], _])",
    'a := x if x := keys with input as {"m": 1, "n": 2}',
    'b := ps if ps := [p | walk(input, [p, _])] with walk as [["fake"], 0]',
    'fake(_) := [["f"], 1]',
    "c := vs if vs := [v | walk(input, [_, v])] with walk as fake",
  ].join("\n");
  expect(await run(m, "x = data.t.a", { z: 0 })).toEqual([{ x: ["m", "n"] }]);
  expect(await run(m, "x = data.t.b", { z: 0 })).toEqual([{ x: [["fake"]] }]);
  expect(await run(m, "x = data.t.c", { z: 0 })).toEqual([{ x: [1] }]);
});

test("the plan scans the native result array", () => {
  const { policy } = compile([{ file: "w.rego", source: "package t\np contains v if walk(input, [_, v])" }], {
    entrypoints: ["t/p"],
  });
  const text = printPolicy(policy);
  expect(text).toMatch(/Call bi_walk/);
  expect(text).toMatch(/Scan/);
});

test("arity is checked like any builtin's", () => {
  expect(() => compile([{ file: "w.rego", source: "package t\np if walk(1, 2, 3)" }], { entrypoints: ["t/p"] })).toThrow(
    /rego_type_error: walk: arity mismatch/,
  );
});
