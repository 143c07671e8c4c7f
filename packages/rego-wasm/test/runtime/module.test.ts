/**
 * The shape of build/runtime.wasm: only the imports an OPA host provides,
 * every rt_* export of the contract with its exact signature, the ABI
 * exports, and the linker's `__heap_start` global.
 */
import { readFileSync } from "node:fs";
import { RUNTIME_FUNCTIONS, HEAP_START_GLOBAL } from "../../compiler/runtime-contract";
import { ensureRuntimeBuilt, RUNTIME_WASM, loadRuntime } from "./harness";
import { readModule, patchGlobalInit } from "./wasm-binary";

const ALLOWED = ["memory", "opa_abort", "opa_println", "opa_builtin0", "opa_builtin1", "opa_builtin2", "opa_builtin3", "opa_builtin4"];

const ABI_FUNCTIONS: Record<string, [string[], string[]]> = {
  opa_malloc: [["i32"], ["i32"]],
  opa_free: [["i32"], []],
  opa_json_parse: [["i32", "i32"], ["i32"]],
  opa_value_parse: [["i32", "i32"], ["i32"]],
  opa_json_dump: [["i32"], ["i32"]],
  opa_value_dump: [["i32"], ["i32"]],
  opa_heap_ptr_get: [[], ["i32"]],
  opa_heap_ptr_set: [["i32"], []],
  opa_value_add_path: [["i32", "i32", "i32"], ["i32"]],
  opa_value_remove_path: [["i32", "i32"], ["i32"]],
  opa_value_free: [["i32"], []],
  opa_heap_blocks_stash: [[], []],
  opa_heap_blocks_restore: [[], []],
  opa_heap_stash_clear: [[], []],
  opa_eval_ctx_new: [[], ["i32"]],
  opa_eval_ctx_set_input: [["i32", "i32"], []],
  opa_eval_ctx_set_data: [["i32", "i32"], []],
  opa_eval_ctx_set_entrypoint: [["i32", "i32"], []],
  opa_eval_ctx_get_result: [["i32"], ["i32"]],
};

let info: ReturnType<typeof readModule>;
let bytes: Uint8Array;
beforeAll(() => {
  ensureRuntimeBuilt();
  bytes = readFileSync(RUNTIME_WASM);
  info = readModule(bytes);
});

test("imports only what an OPA host provides", () => {
  for (const i of info.imports) {
    expect(i.module).toBe("env");
    expect(ALLOWED).toContain(i.name);
  }
  const mem = info.imports.find((i) => i.name === "memory")!;
  expect(mem.kind).toBe(2);
  expect(mem.memory!.initial).toBeLessThanOrEqual(5); // the SDK passes 5 pages
  expect(mem.memory!.maximum).toBeUndefined();
});

test("exports every contract function with its exact signature", () => {
  for (const [name, fn] of Object.entries(RUNTIME_FUNCTIONS)) {
    const sig = info.functions.get(name);
    expect({ name, sig }).toEqual({ name, sig: { params: fn.params, results: fn.result ? [fn.result] : [] } });
  }
});

test("exports the policy-independent OPA ABI", () => {
  for (const [name, [params, results]] of Object.entries(ABI_FUNCTIONS)) {
    expect({ name, sig: info.functions.get(name) }).toEqual({ name, sig: { params, results } });
  }
  expect(info.globals.get("opa_wasm_abi_version")).toEqual({ mutable: false, init: 1 });
  expect(info.globals.get("opa_wasm_abi_minor_version")).toEqual({ mutable: false, init: 3 });
  // policy-dependent exports are the linker's
  for (const name of ["eval", "opa_eval", "entrypoints", "builtins"]) expect(info.functions.has(name)).toBe(false);
});

test("__heap_start is an exported mutable i32 global initialised to 0", () => {
  expect(info.globals.get(HEAP_START_GLOBAL)).toEqual({ mutable: true, init: 0 });
});

test("the heap starts above __heap_base, or above a patched __heap_start", async () => {
  const rt = await loadRuntime();
  const base = rt.call("rt_heap_base");
  expect(rt.call("opa_heap_ptr_get")).toBeGreaterThanOrEqual(base);

  // The smallest memory the module accepts, and a heap start past its end: the allocator must grow memory.
  const initial = info.imports.find((i) => i.name === "memory")!.memory!.initial;
  const start = initial * 65536 + 4000;
  expect(start).toBeGreaterThan(base);
  const patched = patchGlobalInit(bytes, HEAP_START_GLOBAL, start);
  expect(readModule(patched).globals.get(HEAP_START_GLOBAL)).toEqual({ mutable: true, init: start });
  const memory = new WebAssembly.Memory({ initial });
  const fail = () => {
    throw new Error("unexpected host call");
  };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(patched), {
    env: { memory, opa_abort: fail, opa_println: fail, opa_builtin0: fail, opa_builtin1: fail, opa_builtin2: fail, opa_builtin3: fail, opa_builtin4: fail },
  });
  const x = instance.exports as Record<string, (...a: number[]) => number>;
  expect(x.opa_heap_ptr_get()).toBeGreaterThanOrEqual(start);
  const p = x.opa_malloc(100);
  expect(p).toBeGreaterThanOrEqual(start);
  expect(memory.buffer.byteLength).toBeGreaterThanOrEqual(p + 100);
});
