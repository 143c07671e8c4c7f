/**
 * Planner semantics end to end: Rego compiled by the whole pipeline and run
 * by @open-policy-agent/opa-wasm. Each case pins one OPA rule of evaluation
 * the planner is responsible for (undefined vs false, conflicts, `with`...).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";

async function run(modules: string[], query: string, opts: { input?: unknown; data?: object } = {}): Promise<unknown> {
  const sources = modules.map((source, i) => ({ file: `m${i}.rego`, source }));
  const { wasm } = compile(sources, { entrypoints: [{ name: "q", query }] });
  const policy = await loadPolicy(wasm);
  policy.setData(opts.data ?? {});
  const input = opts.input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(opts.input)).buffer;
  try {
    return policy.evaluate(input as ArrayBuffer | undefined, "q");
  } catch (e) {
    // The SDK throws the abort message as a plain object.
    throw new Error((e as { message?: string }).message ?? String(e), { cause: e });
  }
}

test("undefined never becomes false: `not` of undefined is true, false stays a value", async () => {
  const m = ["package t\np := false\nq if not input.missing\nr if not p"];
  expect(await run(m, "data.t.p = x")).toEqual([{ x: false }]);
  expect(await run(m, "data.t.q = x", { input: {} })).toEqual([{ x: true }]);
  expect(await run(m, "data.t.r = x")).toEqual([{ x: true }]);
  expect(await run(["package t\np if input.missing"], "data.t.p = x", { input: {} })).toEqual([]);
});

test("`not` of a rule that iterates means: no solution at all", async () => {
  const m = ["package t\nhas(v) if input.xs[_] == v\np if not has(3)\nq if not has(2)"];
  expect(await run(m, "data.t.p = x", { input: { xs: [1, 2] } })).toEqual([{ x: true }]);
  expect(await run(m, "data.t.q = x", { input: { xs: [1, 2] } })).toEqual([]);
});

test("else chains: the first body that succeeds wins", async () => {
  const m = ["package t\np := 1 if input.a\nelse := 2 if input.b\nelse := 3"];
  expect(await run(m, "data.t.p = x", { input: { a: true, b: true } })).toEqual([{ x: 1 }]);
  expect(await run(m, "data.t.p = x", { input: { b: true } })).toEqual([{ x: 2 }]);
  expect(await run(m, "data.t.p = x", { input: {} })).toEqual([{ x: 3 }]);
});

test("conflicts abort with OPA's messages", async () => {
  await expect(run(["package t\np := x if x := [1, 2][_]"], "data.t.p = x")).rejects.toThrow(/complete rules must not produce multiple outputs/);
  await expect(run(['package t\np[k] := v if { k := "a"; v := [1, 2][_] }'], "data.t.p = x")).rejects.toThrow(/object keys must be unique/);
  await expect(run(["package t\nf(_) := v if v := [1, 2][_]\np := f(0)"], "data.t.p = x")).rejects.toThrow(
    /functions must not produce multiple outputs for same inputs/,
  );
});

test("ref heads build nested objects merged across rules", async () => {
  const m = ['package t\na.b.c := 1\na.b.d := 2\np[x].y := x if some x in ["u", "v"]'];
  expect(await run(m, "data.t.a = x")).toEqual([{ x: { b: { c: 1, d: 2 } } }]);
  expect(await run(m, "data.t.p = x")).toEqual([{ x: { u: { y: "u" }, v: { y: "v" } } }]);
});

test("virtual documents merge base data with rule values; `data` itself works", async () => {
  const m = ["package a\np := 1"];
  expect(await run(m, "data.a = x", { data: { a: { base: true } } })).toEqual([{ x: { base: true, p: 1 } }]);
  expect(await run(m, "data = x", { data: { z: 0 } })).toEqual([{ x: { a: { p: 1 }, z: 0 } }]);
  expect(await run(m, "data.a[k] = v")).toEqual([{ k: "p", v: 1 }]);
});

test("every: false if one element fails, true for an empty domain, false for a non-collection", async () => {
  const m = ["package t\np if every x in input.xs { x > 0 }"];
  expect(await run(m, "data.t.p = x", { input: { xs: [1, 2] } })).toEqual([{ x: true }]);
  expect(await run(m, "data.t.p = x", { input: { xs: [1, 0] } })).toEqual([]);
  expect(await run(m, "data.t.p = x", { input: { xs: [] } })).toEqual([{ x: true }]);
  expect(await run(m, "data.t.p = x", { input: { xs: 5 } })).toEqual([]);
});

test("with: input, data (base and virtual), functions and builtins, transitively", async () => {
  const m = [
    "package t\nq := input.v\nr := data.t.s\ns := 1\ng(x) := count(x)\n" +
      "a := y if y := q with input.v as 7\n" +
      "b := y if y := r with data.t.s as 9\n" +
      "c := y if y := g([1]) with count as 42\n" +
      "f(x) := 100\nd := y if y := g([1]) with count as f",
  ];
  expect(await run(m, "data.t.a = a; data.t.b = b; data.t.c = c; data.t.d = d")).toEqual([{ a: 7, b: 9, c: 42, d: 100 }]);
  // Outside the `with`, the originals are back (memo frames are separate).
  expect(await run([m[0] + "\ne := [q, y] if y := q with input.v as 1"], "data.t.e = x", { input: { v: 2 } })).toEqual([{ x: [2, 1] }]);
});

test("comprehensions close over outer vars; object comprehension keys must be unique", async () => {
  const m = ["package t\np := ys if { n := 2; ys := [y | x := [1, 2][_]; y := x * n] }"];
  expect(await run(m, "data.t.p = x")).toEqual([{ x: [2, 4] }]);
  await expect(run(['package t\np := {k: v | v := [1, 2][_]; k := "a"}'], "data.t.p = x")).rejects.toThrow(/object keys must be unique/);
});

test("unification with patterns on either side and output arguments", async () => {
  const m = ['package t\np := [a, b] if { [a, {"k": b}] = input.v }\nq := n if count([1, 2, 3], n)'];
  expect(await run(m, "data.t.p = x", { input: { v: [1, { k: 2 }] } })).toEqual([{ x: [1, 2] }]);
  expect(await run(m, "data.t.q = x")).toEqual([{ x: 3 }]);
});

test("a ref-head rule may not write into another rule's value", async () => {
  const m = ['package t\np[q].r := v if { q := "q"; v := {"s": {"t": 1}} }\np.q.r.s.u := 42'];
  await expect(run(m, "data.t.p = x")).rejects.toThrow(/object keys must be unique/);
  const ok = ['package t\np[q].r := 1 if q := "a"\np.b.r := 2\np.s contains 3'];
  expect(await run(ok, "data.t.p = x")).toEqual([{ x: { a: { r: 1 }, b: { r: 2 }, s: [3] } }]);
});

test("`data` is the whole virtual document, also under `with data...`", async () => {
  const m = ["package a\np := 1\nq := data.a.p"];
  expect(await run(m, "x = data")).toEqual([{ x: { a: { p: 1, q: 1 } } }]);
  expect(await run(m, "x = data with data.a.p as 5")).toEqual([{ x: { a: { p: 5, q: 5 } } }]);
  // A rule reading all of `data` depends on itself.
  expect(() => compile([{ file: "r.rego", source: "package a\nall := data" }], { entrypoints: ["a"] })).toThrow(
    /rego_recursion_error: rule data.a.all is recursive/,
  );
});

test("set and object comprehensions of any size, in any order, with repeats: collected, then sorted once", async () => {
  const m = [
    `package t
s := {x | some x in input.xs}
o := {k: v | some k, v in input.obj}
pairs := {k: count([1 | some y in input.xs; y == k]) | some k in input.xs}
bad := {k: x | some x in input.nums; k := x % 3}
same := {k: k | some x in input.nums; k := x % 3}`,
  ];
  for (const n of [0, 1, 5, 8, 9, 40, 1500]) {
    // Names out of order (f10 < f2), each given twice, numbers and arrays mixed in.
    const names = Array.from({ length: n }, (_, i) => `f${(i * 7919) % Math.max(n, 1)}`);
    const xs = [...names, ...names.slice(0, n >> 1), ...(n > 0 ? [3, 1, [2], null, true] : [])];
    const obj = Object.fromEntries(names.map((k, i) => [k, i % 5]));
    const sortRego = (vs: unknown[]) => [...new Set(vs.map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v) as unknown);
    const [{ x: s }] = (await run(m, "data.t.s = x", { input: { xs } })) as Array<{ x: unknown[] }>;
    // Rego's order: null < booleans < numbers < strings < arrays; strings by code point.
    const want = sortRego(xs).sort(
      (a, b) => rank(a) - rank(b) || (typeof a === "string" && typeof b === "string" ? (a < b ? -1 : a > b ? 1 : 0) : (a as number) - (b as number)),
    );
    expect(s).toEqual(want);
    expect(await run(m, "data.t.o = x", { input: { obj } })).toEqual([{ x: obj }]);
    if (n <= 40) {
      const counts = Object.fromEntries(xs.filter((v): v is string => typeof v === "string").map((k) => [k, xs.filter((y) => y === k).length]));
      expect(await run(m, "data.t.pairs = x", { input: { xs: xs.filter((v) => typeof v === "string") } })).toEqual([{ x: counts }]);
    }
  }
  // A key given twice with different values is a conflict, wherever the repeat falls; equal values are one entry.
  const nums = Array.from({ length: 300 }, (_, i) => i);
  await expect(run(m, "data.t.bad = x", { input: { nums } })).rejects.toThrow(/object keys must be unique/);
  await expect(run(m, "data.t.bad = x", { input: { nums: [4, 1] } })).rejects.toThrow(/object keys must be unique/);
  expect(await run(m, "data.t.same = x", { input: { nums } })).toEqual([{ x: { 0: 0, 1: 1, 2: 2 } }]);
});

function rank(v: unknown): number {
  if (v === null) return 0;
  if (typeof v === "boolean") return 1;
  if (typeof v === "number") return 2;
  if (typeof v === "string") return 3;
  return 4;
}
