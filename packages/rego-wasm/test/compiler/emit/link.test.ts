/**
 * End to end: hand-built IR policies, linked with build/runtime.wasm and run
 * through @open-policy-agent/opa-wasm exactly as a host would.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { CompileError } from "../../../compiler/errors";
import { link } from "../../../compiler/emit/link";
import { memoisedAt } from "../../../compiler/emit/memo";
import { importedMemoryPages, loadSizedPolicy, MAX_MEMORY_PAGES, MemoryLimitError, policyMemory } from "../../../compiler/bundle/memory";
import { readModule, writeModule, findSection, SectionId, setSection } from "../../../compiler/emit/wasm/module";
import { encodeExports, readExports, readImports } from "../../../compiler/emit/wasm/sections";
import type { Block, Func, Plan, Policy, Stmt } from "../../../compiler/plan/ir";

const runtime = fs.readFileSync(path.join(__dirname, "../../../build/runtime.wasm"));

/** Strings used by the policies below; `S.x` is the index of "x". */
const STRINGS = ["result", "xs", "deny", "x", "roles", "1.5e3", "a", "b"];
const S = Object.fromEntries(STRINGS.map((s, i) => [s, i])) as Record<string, number>;

const block = (...stmts: Stmt[]): Block => ({ stmts });

/** Statements that add {"result": value} to the result set, using locals `obj` and `key`. */
const emitResult = (value: number, obj: number, key: number): Stmt[] => [
  { type: "MakeObject", target: obj },
  { type: "MakeString", index: S.result, target: key },
  { type: "ObjectInsert", object: obj, key, value },
  { type: "ResultSetAdd", value: obj },
];

/** A plan whose single block computes local 2 with `stmts`, then reports it (locals 3, 4 are scratch). */
const plan = (name: string, locals: number, ...stmts: Stmt[]): Plan => ({
  name,
  locals: Math.max(locals, 5),
  blocks: [block(...stmts, ...emitResult(2, 3, 4))],
});

const policy = (plans: Plan[], funcs: Func[] = [], hostBuiltins: Policy["hostBuiltins"] = []): Policy => ({
  strings: STRINGS,
  funcs,
  plans,
  hostBuiltins,
});

async function load(p: Policy, builtins: Record<string, (...args: never[]) => unknown> = {}): Promise<LoadedPolicy> {
  const wasm = link(p, runtime);
  expect(WebAssembly.validate(wasm)).toBe(true);
  return loadPolicy(wasm, undefined, builtins);
}

/** Evaluates on both ABI paths (1.2 fast path, 1.0 contexts) and checks they agree. */
function evaluate(opa: LoadedPolicy, input: unknown, entrypoint: number | string = 0): unknown {
  const fast = opa.evaluate(input, entrypoint);
  const loaded = opa as unknown as { minorVersion: number };
  const minor = loaded.minorVersion;
  loaded.minorVersion = 1;
  try {
    expect(opa.evaluate(input, entrypoint)).toEqual(fast);
  } finally {
    loaded.minorVersion = minor;
  }
  return fast;
}

/** What the module's `builtins()` export returns, read the way the SDK does. */
function builtinsOf(opa: LoadedPolicy): unknown {
  const { wasmInstance, mem } = opa as unknown as { wasmInstance: WebAssembly.Instance; mem: WebAssembly.Memory };
  const exports = wasmInstance.exports as Record<string, (...args: number[]) => number>;
  const addr = exports.opa_json_dump(exports.builtins());
  const bytes = new Uint8Array(mem.buffer);
  const end = bytes.indexOf(0, addr);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(addr, end)));
}

/** Func data.test.xs: the set of input.xs's elements (empty when there is no input.xs). */
const xsSet: Func = {
  name: "data.test.xs",
  path: "data.test.xs",
  params: [0, 1],
  ret: 2,
  locals: 7,
  blocks: [
    block({ type: "MakeSet", target: 2 }),
    block(
      { type: "MakeString", index: S.xs, target: 3 },
      { type: "Dot", source: 0, key: 3, target: 4 },
      { type: "Scan", source: 4, key: 5, value: 6, block: block({ type: "SetAdd", set: 2, value: 6 }) },
    ),
  ],
};

describe("link + opa-wasm", () => {
  test("a plan returning {result: 1}; entrypoints() and builtins()", async () => {
    const opa = await load(policy([plan("test/one", 5, { type: "MakeNumberInt", value: 1, target: 2 })]));
    expect(opa.entrypoints).toEqual({ "test/one": 0 });
    expect(builtinsOf(opa)).toEqual({});
    expect(evaluate(opa, {})).toEqual([{ result: 1 }]);
    expect(evaluate(opa, undefined, "test/one")).toEqual([{ result: 1 }]);
  });

  test("constants of every kind", async () => {
    const p = plan(
      "test/consts",
      12,
      { type: "MakeArray", capacity: 0, target: 2 },
      { type: "MakeNull", target: 5 },
      { type: "MakeBoolean", value: false, target: 6 },
      { type: "MakeNumberRef", index: S["1.5e3"], target: 7 },
      { type: "MakeNumberInt", value: -7, target: 8 },
      { type: "MakeString", index: S.x, target: 9 },
      { type: "MakeSet", target: 10 },
      { type: "SetAdd", set: 10, value: 9 },
      ...[5, 6, 7, 8, 9, 10].map((value): Stmt => ({ type: "ArrayAppend", array: 2, value })),
    );
    const opa = await load(policy([p]));
    expect(evaluate(opa, {})).toEqual([{ result: [null, false, 1500, -7, "x", ["x"]] }]);
  });

  test("a Func scanning input.xs, called from a plan", async () => {
    const p = plan("test/xs", 5, { type: "Call", func: "data.test.xs", args: [0, 1], result: 2 });
    const opa = await load(policy([p], [xsSet]));
    expect(evaluate(opa, { xs: [3, 1, 2, 1] })).toEqual([{ result: [1, 2, 3] }]);
    expect(evaluate(opa, { xs: { a: "v", b: "w" } })).toEqual([{ result: ["v", "w"] }]);
    expect(evaluate(opa, { xs: [] })).toEqual([{ result: [] }]);
    expect(evaluate(opa, { xs: 7 })).toEqual([{ result: [] }]);
    expect(evaluate(opa, undefined)).toEqual([{ result: [] }]);
  });

  test("Not: allow unless input.deny == true", async () => {
    const p = plan(
      "test/allow",
      8,
      {
        type: "Not",
        block: block(
          { type: "MakeString", index: S.deny, target: 5 },
          { type: "Dot", source: 0, key: 5, target: 6 },
          { type: "MakeBoolean", value: true, target: 7 },
          { type: "Equal", a: 6, b: 7 },
        ),
      },
      { type: "MakeBoolean", value: true, target: 2 },
    );
    const opa = await load(policy([p]));
    expect(evaluate(opa, { deny: true })).toEqual([]);
    expect(evaluate(opa, { deny: false })).toEqual([{ result: true }]);
    expect(evaluate(opa, {})).toEqual([{ result: true }]);
  });

  test("failure, Break and nested blocks leave exactly the right blocks", async () => {
    // arr collects markers; Break{1} inside the inner block skips the rest of the outer one.
    const p: Plan = {
      name: "test/break",
      locals: 8,
      blocks: [
        block({ type: "MakeArray", capacity: 4, target: 2 }, { type: "MakeNumberInt", value: 1, target: 5 }),
        block(
          { type: "ArrayAppend", array: 2, value: 5 },
          { type: "Block", blocks: [block({ type: "Break", index: 1 }), block({ type: "ArrayAppend", array: 2, value: 5 })] },
          { type: "ArrayAppend", array: 2, value: 5 }, // skipped
        ),
        block({ type: "IsUndefined", source: 5 }, { type: "ArrayAppend", array: 2, value: 5 }), // fails first
        block({ type: "IsDefined", source: 5 }, { type: "IsArray", source: 2 }, { type: "ArrayAppend", array: 2, value: 5 }),
        block({ type: "IsObject", source: 2 }, { type: "ArrayAppend", array: 2, value: 5 }),
        block({ type: "Len", source: 2, target: 6 }, { type: "ArrayAppend", array: 2, value: 6 }),
        block(...emitResult(2, 3, 4)),
      ],
    };
    const opa = await load(policy([p]));
    expect(evaluate(opa, {})).toEqual([{ result: [1, 1, 2] }]);
  });

  test("data is reachable through local 1; ObjectMerge; NotEqual", async () => {
    const p = plan(
      "test/data",
      9,
      { type: "MakeString", index: S.roles, target: 5 },
      { type: "Dot", source: 1, key: 5, target: 6 },
      { type: "MakeObject", target: 7 },
      { type: "MakeString", index: S.b, target: 8 },
      { type: "ObjectInsertOnce", object: 7, key: 8, value: 8 },
      { type: "ObjectMerge", a: 6, b: 7, target: 2 },
      { type: "NotEqual", a: 6, b: 2 },
    );
    const opa = await load(policy([p]));
    opa.setData({ roles: { a: 1 } });
    expect(evaluate(opa, {})).toEqual([{ result: { a: 1, b: "b" } }]);
    opa.setData({});
    expect(evaluate(opa, {})).toEqual([]);
  });

  test("AssignVarOnce: same value is fine, a conflict aborts with the message", async () => {
    const rule = (second: number): Func => ({
      name: `data.test.r${second}`,
      path: `data.test.r${second}`,
      params: [0, 1],
      ret: 2,
      locals: 4,
      blocks: [
        block({ type: "MakeNumberInt", value: 1, target: 3 }, { type: "AssignVarOnce", source: 3, target: 2, message: "conflict!" }),
        block(
          { type: "MakeNumberInt", value: second, target: 3 },
          { type: "AssignVarOnce", source: 3, target: 2, message: "eval_conflict_error: complete rules must not produce multiple outputs" },
        ),
      ],
    });
    const ok = plan("test/ok", 5, { type: "Call", func: "data.test.r1", args: [0, 1], result: 2 });
    const bad = plan("test/bad", 5, { type: "Call", func: "data.test.r2", args: [0, 1], result: 2 });
    const opa = await load(policy([ok, bad], [rule(1), rule(2)]));
    expect(evaluate(opa, {}, "test/ok")).toEqual([{ result: 1 }]);
    expect(() => opa.evaluate({}, "test/bad")).toThrow(/complete rules must not produce multiple outputs/);
  });

  test("an unknown entrypoint id aborts", async () => {
    const opa = await load(policy([plan("test/one", 5, { type: "MakeNumberInt", value: 1, target: 2 })]));
    expect(() => opa.evaluate({}, 1)).toThrow(/invalid entrypoint id/);
    expect(() => opa.evaluate({}, -1)).toThrow(/invalid entrypoint id/);
  });

  test("host builtins go through opa_builtinN with their ids", async () => {
    const p = plan(
      "test/host",
      8,
      { type: "MakeString", index: S.x, target: 5 },
      { type: "Dot", source: 0, key: 5, target: 6 },
      { type: "Call", func: "host:custom.double", args: [6], result: 7 },
      { type: "Call", func: "host:custom.pair", args: [7, 6], result: 2 },
    );
    // An undefined operand makes the call undefined without reaching the host.
    const undef = plan("test/undef", 6, { type: "ResetLocal", target: 5 }, { type: "Call", func: "host:custom.double", args: [5], result: 2 });
    const hosts = [
      { name: "custom.pair", arity: 2 },
      { name: "custom.double", arity: 1 },
    ];
    const calls: unknown[] = [];
    const opa = await load(policy([p, undef], [], hosts), {
      "custom.double": (x: number) => (calls.push(x), x > 10 ? undefined : x * 2),
      "custom.pair": (a: unknown, b: unknown) => [a, b],
    });
    expect(evaluate(opa, { x: 4 })).toEqual([{ result: [8, 4] }]);
    expect(evaluate(opa, { x: 11 })).toEqual([]); // undefined from the host makes the call fail
    calls.length = 0;
    expect(evaluate(opa, {}, "test/undef")).toEqual([]);
    expect(calls).toEqual([]);
    expect(builtinsOf(opa)).toEqual({ "custom.pair": 0, "custom.double": 1 });
  });

  test("nested scans with Break out of both bodies", async () => {
    // pairs [a, b] of input.xs with a != b; reaching b == 3 abandons the rest of a's row.
    const pairs: Func = {
      name: "pairs",
      path: "data.test.pairs",
      params: [0, 1],
      ret: 2,
      locals: 11,
      blocks: [
        block({ type: "MakeArray", capacity: 0, target: 2 }, { type: "MakeNumberInt", value: 3, target: 10 }),
        block(
          { type: "MakeString", index: S.xs, target: 3 },
          { type: "Dot", source: 0, key: 3, target: 4 },
          {
            type: "Scan",
            source: 4,
            key: 5,
            value: 6,
            block: block({
              type: "Scan",
              source: 4,
              key: 7,
              value: 8,
              block: block(
                { type: "Block", blocks: [block({ type: "Equal", a: 8, b: 10 }, { type: "Break", index: 2 })] },
                { type: "NotEqual", a: 6, b: 8 },
                { type: "MakeArray", capacity: 2, target: 9 },
                { type: "ArrayAppend", array: 9, value: 6 },
                { type: "ArrayAppend", array: 9, value: 8 },
                { type: "ArrayAppend", array: 2, value: 9 },
              ),
            }),
          },
        ),
      ],
    };
    const opa = await load(policy([plan("test/pairs", 5, { type: "Call", func: "pairs", args: [0, 1], result: 2 })], [pairs]));
    expect(evaluate(opa, { xs: [1, 2, 3] })).toEqual([
      {
        result: [
          [1, 2],
          [2, 1],
          [3, 1],
          [3, 2],
        ],
      },
    ]);
  });

  test("memo statements and print", async () => {
    const memoised: Func = {
      name: "m",
      path: "data.test.m",
      params: [0, 1],
      ret: 2,
      locals: 3,
      blocks: [
        block({ type: "MemoGet", func: 0, target: 2 }, { type: "ReturnLocal", source: 2 }),
        block({ type: "MakeNumberInt", value: 5, target: 2 }, { type: "MemoInsert", func: 0, value: 2 }),
      ],
    };
    const p = plan(
      "test/memo",
      9,
      { type: "MemoPush" },
      { type: "Call", func: "m", args: [0, 1], result: 5 },
      { type: "MemoPop" },
      { type: "Call", func: "m", args: [0, 1], result: 6 },
      { type: "Call", func: "m", args: [0, 1], result: 2 },
      { type: "Equal", a: 5, b: 2 },
      { type: "MakeArray", capacity: 1, target: 7 },
      { type: "MakeSet", target: 8 },
      { type: "SetAdd", set: 8, value: 2 },
      { type: "ArrayAppend", array: 7, value: 8 },
      { type: "Print", args: 7 },
    );
    const opa = await load(policy([p], [memoised]));
    const log = jest.spyOn(console, "log").mockImplementation(() => {});
    try {
      expect(opa.evaluate({}, 0)).toEqual([{ result: 5 }]);
      expect(log).toHaveBeenCalledWith("5");
    } finally {
      log.mockRestore();
    }
  });

  test("a caller reads a memoised function's slot itself only when the function opens with its own memo check", () => {
    const body = block({ type: "MakeNumberInt", value: 5, target: 2 }, { type: "MemoInsert", func: 0, value: 2 });
    const func = (first: Stmt[]): Func => ({ name: "m", path: "data.test.m", params: [0, 1], ret: 2, locals: 3, blocks: [block(...first), body] });
    const get = (slot: number, target = 2): Stmt => ({ type: "MemoGet", func: slot, target });
    expect(memoisedAt(func([get(0), { type: "ReturnLocal", source: 2 }]), 0)).toBe(true);
    // Another function's slot, another local, more in the block, or no memo check at all (a Rego function): called every time.
    expect(memoisedAt(func([get(1), { type: "ReturnLocal", source: 2 }]), 0)).toBe(false);
    expect(memoisedAt(func([get(0, 1), { type: "ReturnLocal", source: 1 }]), 0)).toBe(false);
    expect(memoisedAt(func([get(0), { type: "ReturnLocal", source: 2 }, { type: "MakeNull", target: 1 }]), 0)).toBe(false);
    expect(memoisedAt(func([{ type: "MakeNull", target: 2 }]), 0)).toBe(false);
  });

  test("several plans dispatch by id and by name", async () => {
    const plans = [1, 2, 3].map((n) => plan(`test/p${n}`, 5, { type: "MakeNumberInt", value: n, target: 2 }));
    const opa = await load(policy(plans));
    expect(opa.entrypoints).toEqual({ "test/p1": 0, "test/p2": 1, "test/p3": 2 });
    expect([0, 1, 2].map((ep) => evaluate(opa, {}, ep))).toEqual([[{ result: 1 }], [{ result: 2 }], [{ result: 3 }]]);
    expect(evaluate(opa, {}, "test/p3")).toEqual([{ result: 3 }]);
  });

  test("the linked module exports exactly OPA's ABI", () => {
    const wasm = link(policy([plan("test/one", 5, { type: "MakeNumberInt", value: 1, target: 2 })]), runtime);
    const names = WebAssembly.Module.exports(new WebAssembly.Module(wasm)).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(["eval", "opa_eval", "entrypoints", "builtins", "memory", "opa_malloc"]));
    expect(names.filter((n) => n.startsWith("rt_") || n.startsWith("bi_") || n === "__heap_start")).toEqual([]);
    const kept = link(policy([]), runtime, { keepRuntimeExports: true });
    expect(WebAssembly.Module.exports(new WebAssembly.Module(kept)).map((e) => e.name)).toContain("rt_dot");
  });
});

describe("link: module layout", () => {
  test("large static data raises the memory minimum and is not overwritten by the heap", async () => {
    const big = "y".repeat(200_000) + "ü";
    const p = plan("test/big", 6, { type: "MakeString", index: 1, target: 2 }, { type: "MakeArray", capacity: 100000, target: 5 });
    const wasm = link({ strings: ["result", big], funcs: [], plans: [p], hostBuiltins: [] }, runtime);
    const minPages = (module: Uint8Array): number | undefined =>
      readImports(findSection(readModule(module), SectionId.import)!.body).find((i) => i.name === "memory")?.limits?.min;
    // The minimum covers the runtime's data and the 200 KB of strings, up to __heap_start, and no more.
    const kept = link({ strings: ["result", big], funcs: [], plans: [p], hostBuiltins: [] }, runtime, { keepRuntimeExports: true });
    const memory = new WebAssembly.Memory({ initial: 5 });
    const fail = () => {
      throw new Error("unexpected host call");
    };
    const env = {
      memory,
      opa_abort: fail,
      opa_println: fail,
      opa_builtin0: fail,
      opa_builtin1: fail,
      opa_builtin2: fail,
      opa_builtin3: fail,
      opa_builtin4: fail,
    };
    const heapStart = (new WebAssembly.Instance(new WebAssembly.Module(kept), { env }).exports.__heap_start as WebAssembly.Global).value as number;
    expect(heapStart).toBeGreaterThan(200_000);
    expect(minPages(wasm)).toBe(Math.ceil(heapStart / 65536));
    expect(minPages(wasm)!).toBeGreaterThan(minPages(runtime)!);
    const opa = await loadPolicy(wasm);
    opa.setData({ filler: "z".repeat(100_000) });
    expect(evaluate(opa, { more: "w".repeat(50_000) })).toEqual([{ result: big }]);
  });

  test("policy data sits just above rt_heap_base(), and __heap_start above it", () => {
    const wasm = link(policy([plan("test/one", 5, { type: "MakeString", index: S.roles, target: 2 })]), runtime, { keepRuntimeExports: true });
    const memory = new WebAssembly.Memory({ initial: 5 });
    const fail = () => {
      throw new Error("unexpected host call");
    };
    const env = {
      memory,
      opa_abort: fail,
      opa_println: fail,
      opa_builtin0: fail,
      opa_builtin1: fail,
      opa_builtin2: fail,
      opa_builtin3: fail,
      opa_builtin4: fail,
    };
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(wasm), { env });
    const base = ((exports.rt_heap_base as () => number)() + 15) & ~15;
    const text = new TextDecoder().decode(new Uint8Array(memory.buffer, base, 11));
    expect(text).toBe("roles" + "result");
    const heapStart = (exports.__heap_start as WebAssembly.Global).value as number;
    expect(heapStart % 16).toBe(0);
    expect(heapStart).toBeGreaterThanOrEqual(base + 11);
  });

  test("new functions are named in the name section", () => {
    const wasm = link(policy([plan("test/one", 5, { type: "MakeNumberInt", value: 1, target: 2 })], [xsSet]), runtime);
    const [names] = WebAssembly.Module.customSections(new WebAssembly.Module(wasm), "name");
    const text = new TextDecoder().decode(names);
    for (const n of ["data.test.xs", "plan:test/one", "opa_dispatch", "opa_eval", "entrypoints"]) expect(text).toContain(n);
  });
});

describe("link errors", () => {
  test("a native builtin the runtime lacks is a CompileError naming it", () => {
    const m = readModule(runtime);
    const exports = readExports(findSection(m, SectionId.export)!.body).filter((e) => e.name !== "bi_object_get");
    setSection(m, SectionId.export, encodeExports(exports));
    const stripped = writeModule(m);
    const p = plan("test/b", 5, { type: "Call", func: "bi_object_get", args: [0, 1, 1], result: 2 });
    expect(() => link(policy([p]), stripped)).toThrow(CompileError);
    expect(() => link(policy([p]), stripped)).toThrow(/builtin object.get .*missing export bi_object_get/);
  });

  test("static data beyond the SDK's 5 pages raises the memory import's minimum; sized loading instantiates it", async () => {
    const big = { ...policy([plan("test/big", 5, { type: "MakeString", index: 0, target: 2 })]), strings: ["x".repeat(6 * 65536)] };
    const wasm = link(big, runtime);
    const pages = importedMemoryPages(wasm);
    expect(pages).toBeGreaterThan(6);
    // The SDK's default 5-page memory cannot satisfy the import...
    await expect(loadPolicy(wasm)).rejects.toThrow(/memory/i);
    // ...memory sized from the import can, bounded by the limit.
    expect(policyMemory(wasm)).toEqual({ initial: pages, maximum: MAX_MEMORY_PAGES });
    const opa = await loadSizedPolicy(wasm, {});
    expect(opa.mem.buffer.byteLength).toBeGreaterThanOrEqual(pages * 65536);
    expect(() => policyMemory(wasm, pages - 1)).toThrow(MemoryLimitError);
    expect(() => policyMemory(wasm, pages - 1)).toThrow(`memory_limit_exceeded: policy.wasm's static data needs ${pages} pages`);
  });

  test("a module importing less than 5 pages (as opa build writes it) still gets the SDK's 5", () => {
    const m = readModule(runtime);
    const imports = readImports(findSection(m, SectionId.import)!.body);
    const memory = imports.find((i) => i.name === "memory")!;
    expect(memory.limits!.min).toBeLessThanOrEqual(5);
    expect(policyMemory(runtime)).toEqual({ initial: 5, maximum: MAX_MEMORY_PAGES });
  });

  test("planner mistakes are reported, not emitted", () => {
    expect(() => link(policy([plan("t/a", 5, { type: "AssignVar", source: 9, target: 2 })]), runtime)).toThrow(/local 9 out of range/);
    expect(() => link(policy([plan("t/a", 5, { type: "Break", index: 3 })]), runtime)).toThrow(/break out of 4 blocks/);
    expect(() => link(policy([plan("t/a", 5, { type: "Call", func: "nope", args: [], result: 2 })]), runtime)).toThrow(/unknown function nope/);
  });
});
