/**
 * The planner's IR, checked structurally and through its printed form:
 * entrypoint plans, rule functions, memoisation, conflicts, `with` mocks.
 */
import { check } from "../../../compiler/check";
import { parseModule, parseQuery } from "../../../compiler/parse";
import { plan, printPolicy, type Entrypoint } from "../../../compiler/plan";
import type { Block, Policy, Stmt } from "../../../compiler/plan/ir";

function policyOf(sources: string[], entrypoints: Entrypoint[]): Policy {
  return plan(check(sources.map((s, i) => parseModule(s, `m${i}.rego`))), entrypoints);
}

function stmts(blocks: Block[]): Stmt[] {
  const out: Stmt[] = [];
  const walk = (b: Block): void => {
    for (const s of b.stmts) {
      out.push(s);
      if (s.type === "Scan" || s.type === "Not") walk(s.block);
      if (s.type === "Block") s.blocks.forEach(walk);
    }
  };
  blocks.forEach(walk);
  return out;
}

test("a path entrypoint calls the rule function and adds {result: value}", () => {
  const p = policyOf(["package a\np := 1"], [{ name: "a/p", path: ["a", "p"] }]);
  expect(p.plans).toHaveLength(1);
  expect(p.funcs.map((f) => f.name)).toEqual(["data.a.p"]);
  const s = stmts(p.plans[0]!.blocks);
  expect(s.map((x) => x.type)).toEqual(["Call", "MakeObject", "MakeString", "ObjectInsert", "ResultSetAdd"]);
  expect(s[0]).toMatchObject({ type: "Call", func: "data.a.p", args: [0, 1] });
  expect(p.strings).toContain("result");
});

test("complete rules: memoised, AssignVarOnce with OPA's conflict message, default last", () => {
  const p = policyOf(["package a\ndefault p := 0\np := 1 if input.x\np := 2 if input.y"], [{ name: "a/p" }]);
  const f = p.funcs[0]!;
  expect(f.params).toEqual([0, 1]);
  const s = stmts(f.blocks);
  expect(s[0]).toMatchObject({ type: "MemoGet", func: 0 });
  const once = s.filter((x) => x.type === "AssignVarOnce");
  expect(once).toHaveLength(2);
  expect(once[0]).toMatchObject({
    message: "eval_conflict_error: complete rules must not produce multiple outputs (rule data.a.p produced conflicting values)",
  });
  const blocks = f.blocks.map((b) => b.stmts[0]!.type);
  // The last block memoises the value, undefined included.
  expect(blocks).toEqual(["MemoGet", "IsDefined", "IsDefined", "IsUndefined", "MemoInsert"]);
  expect(s[s.length - 1]).toMatchObject({ type: "MemoInsert", func: 0 });
});

test("functions take input, data and their args; outputs must agree", () => {
  const p = policyOf(["package a\nf(x) := x + 1\np := f(1)"], [{ name: "a/p" }]);
  const f = p.funcs.find((x) => x.name === "data.a.f")!;
  expect(f.params).toEqual([0, 1, 2]);
  const s = stmts(f.blocks);
  expect(s.some((x) => x.type === "MemoGet")).toBe(false);
  expect(s.find((x) => x.type === "AssignVarOnce")).toMatchObject({
    message:
      "eval_conflict_error: functions must not produce multiple outputs for same inputs (function data.a.f produced conflicting values for the same inputs)",
  });
  expect(s.find((x) => x.type === "Call")).toMatchObject({ func: "bi_plus" });
});

test("a package entrypoint builds the virtual document: base data merged with rule values", () => {
  const p = policyOf(["package a\np := 1\nf(x) := x\nq contains 2"], [{ name: "a", path: ["a"] }]);
  const s = stmts(p.plans[0]!.blocks);
  expect(s.filter((x) => x.type === "Call").map((x) => (x as { func: string }).func)).toEqual(["data.a.p", "data.a.q"]);
  expect(s.some((x) => x.type === "ObjectMerge")).toBe(true);
});

test("query entrypoints report each query var per solution", () => {
  const p = policyOf(['package a\np := {"k": 1}'], [{ name: "q", query: parseQuery("data.a.p[k] = v", "q") }]);
  const s = stmts(p.plans[0]!.blocks);
  expect(s.some((x) => x.type === "Scan")).toBe(true);
  const keys = s.filter((x) => x.type === "MakeString").map((x) => p.strings[(x as { index: number }).index]);
  expect(keys).toEqual(expect.arrayContaining(["k", "v"]));
});

test("`with` opens a memo frame and re-plans callees under a builtin mock", () => {
  const p = policyOf(["package a\np if { q with count as 7 }\nq if count([]) == 7"], [{ name: "a/p" }]);
  // q is only ever called under the mock, so only that variant exists.
  expect(p.funcs.map((f) => f.name)).toEqual(["data.a.p", "data.a.q"]);
  const mocked = p.funcs[1]!;
  // The mocked value travels as an extra parameter; the builtin is not called.
  expect(mocked.params).toEqual([0, 1, 2]);
  expect(stmts(mocked.blocks).some((x) => x.type === "Call" && x.func === "bi_count")).toBe(false);
  const ps = stmts(p.funcs.find((f) => f.name === "data.a.p")!.blocks).map((x) => x.type);
  expect(ps.indexOf("MemoPush")).toBeGreaterThan(-1);
  expect(ps.filter((t) => t === "MemoPop")).toHaveLength(2);
});

test("host builtins are listed and called as host:<name>", () => {
  const p = policyOf(["package a\np := yaml.marshal({})"], [{ name: "a/p" }]);
  expect(p.hostBuiltins).toEqual([{ name: "yaml.marshal", arity: 1 }]);
  expect(stmts(p.funcs[0]!.blocks).some((x) => x.type === "Call" && x.func === "host:yaml.marshal")).toBe(true);
});

test("printPolicy shows functions, plans and nested blocks", () => {
  const p = policyOf(["package a\np contains x if some x in input.xs"], [{ name: "a/p" }]);
  const text = printPolicy(p);
  expect(text).toContain("func 0 data.a.p (l0, l1) -> l2");
  expect(text).toContain("plan 0 a/p");
  // The body succeeded for this element: its trail id (packages/rego-wasm/compiler/trail.ts), then the element.
  expect(text).toMatch(/Scan l\d+ -> key l\d+, value l\d+\n\s+block\n\s+Trail body 0\n\s+SetAdd l2 \+= l\d+/);
});

test("early exit: `not` stops at its first solution; constant-valued rules stop after one", () => {
  const p = policyOf(["package a\np if { some x in input.xs; not input.ys[x] }"], [{ name: "a/p" }]);
  const text = printPolicy(p);
  // Inside the `not` block: set the flag, leave that block.
  expect(text).toMatch(/l\d+ = true\n\s+Break 0/);
  // After the rule's value is assigned: leave the scan body and the rule's block.
  expect(text).toMatch(/AssignVarOnce l2 = l\d+\n\s+Break 1/);
  const q = policyOf(["package a\np := x if some x in input.xs"], [{ name: "a/p" }]);
  expect(stmts(q.funcs[0]!.blocks).some((s) => s.type === "Break")).toBe(false);
});

test("locals stay bounded: rule bodies reuse locals, a constant literal is one statement", () => {
  const rules = Array.from({ length: 500 }, (_, i) => `p if { x := input.xs[_]; x.id == ${i}; y := [x.a, x.b] }`);
  const many = policyOf([`package a\n${rules.join("\n")}`], [{ name: "a/p" }]);
  expect(many.funcs[0]!.locals).toBeLessThan(40);
  const big = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: i })));
  const lit = policyOf([`package a\np := ${big}`], [{ name: "a/p" }]);
  expect(lit.funcs[0]!.locals).toBeLessThan(20);
});

test("a literal whose elements are all constants is one MakeConstant; one with a var or a ref is built in the body", () => {
  const p = policyOf(
    ['package a\nk := {"status": 403, "reasons": ["x", 1.5e3], "tags": {"a", "b"}, "none": {}}\nv := {"status": input.s, "list": [1, 2]}'],
    [{ name: "a/k" }, { name: "a/v" }],
  );
  const [k, v] = [p.funcs.find((f) => f.name === "data.a.k")!, p.funcs.find((f) => f.name === "data.a.v")!];
  const made = (f: typeof k) => stmts(f.blocks).filter((x) => x.type.startsWith("Make") && x.type !== "MakeString" && x.type !== "MakeNumberInt");
  expect(made(k).map((x) => x.type)).toEqual(["MakeConstant"]);
  expect(made(k)[0]).toMatchObject({
    value: {
      type: "object",
      items: [
        [{ type: "string" }, { type: "int", value: 403 }],
        [{ type: "string" }, { type: "array", items: [{ type: "string" }, { type: "number" }] }],
        [{ type: "string" }, { type: "set", items: [{ type: "string" }, { type: "string" }] }],
        [{ type: "string" }, { type: "object", items: [] }],
      ],
    },
  });
  // The object with input.s is built in the body; its constant [1, 2] is a MakeConstant of its own.
  expect(made(v).map((x) => x.type)).toEqual(["MakeConstant", "MakeObject"]);
  expect(printPolicy(p)).toContain('= constant {"status": 403, "reasons": ["x", number "1.5e3"], "tags": {"a", "b"}, "none": {}}');
});

test("an object literal with distinct constant string keys inserts them in key order, after computing its values in source order", () => {
  const p = policyOf(['package a\np := {"zeta": input.z, "alpha": input.a, "ä": 1, "b": input.b}'], [{ name: "a/p" }]);
  const s = stmts(p.funcs[0]!.blocks);
  const keyOf = new Map<number, string>();
  for (const x of s) if (x.type === "MakeString") keyOf.set(x.target, p.strings[x.index]!);
  const inserted = s.filter((x) => x.type === "ObjectInsert").map((x) => keyOf.get((x as { key: number }).key));
  expect(inserted).toEqual(["alpha", "b", "zeta", "ä"]); // UTF-8 byte order: "ä" (0xC3 0xA4) after ASCII
  const dots = s.filter((x) => x.type === "Dot").map((x) => keyOf.get((x as { key: number }).key));
  expect(dots).toEqual(["z", "a", "b"]);
});

test("an object literal with a repeated or a non-constant key inserts in source order (the last repeated key wins)", () => {
  const insertedKeys = (source: string) => {
    const p = policyOf([source], [{ name: "a/p" }]);
    const s = stmts(p.funcs[0]!.blocks);
    const keyOf = new Map<number, string>();
    for (const x of s) if (x.type === "MakeString") keyOf.set(x.target, p.strings[x.index]!);
    return s.filter((x) => x.type === "ObjectInsert").map((x) => keyOf.get((x as { key: number }).key) ?? "?");
  };
  expect(insertedKeys('package a\np := {"b": input.x, input.k: 1, "a": 2}')).toEqual(["b", "?", "a"]);
  expect(insertedKeys('package a\np := {"b": input.x, "a": input.y, 1: 2}')).toEqual(["b", "a", "?"]);
});
