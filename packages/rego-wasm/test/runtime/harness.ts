/**
 * Test harness for build/runtime.wasm: instantiates the runtime directly with
 * WebAssembly (no policy linked), the way an OPA host would, and offers
 * helpers to move values in and out.
 *
 * Usage (e.g. for a builtin `bi_object_get`):
 *
 *   import { loadRuntime, Runtime } from "../harness";   // from test/runtime/builtins/
 *   let rt: Runtime;
 *   beforeAll(async () => { rt = await loadRuntime(); });
 *   test("object.get", () => {
 *     const r = rt.call("bi_object_get", rt.value({ a: 1 }), rt.value("a"), rt.value(0));
 *     expect(rt.json(r)).toBe(1);       // rt.json(0) === undefined: "undefined" result
 *   });
 *
 * - `value(x)` JSON-encodes a JS value and parses it in Wasm (opa_json_parse);
 *   `valueText(s)` parses exact JSON text (big numbers); `rego(s)` parses
 *   Rego literal text (sets: `rego("{1, 2}")`, `rego("set()")`).
 * - `json(addr)` dumps a value as JSON and JSON.parses it (sets come back as
 *   arrays); `jsonText(addr)` / `regoText(addr)` give the raw dumped text.
 * - `call(name, ...args)` calls any export with numeric arguments.
 * - opa_abort throws an `OpaAbort` whose message is the runtime's message;
 *   print() output is collected in `printed`.
 * - Host builtins (`opa_builtinN`) throw unless `hostBuiltin` is passed.
 * - `reset()` rewinds the heap to where it was after instantiation, so a long
 *   test file does not grow memory without end.
 *
 * The runtime is rebuilt (`node runtime/build.mjs`) when build/runtime.wasm
 * is missing or older than any file under runtime/. Set
 * PORTCULLIS_NO_RUNTIME_BUILD=1 to use the existing file as is.
 */

import { execFileSync } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";

/** The package root (packages/rego-wasm). */
export const ROOT = path.resolve(__dirname, "../..");
export const RUNTIME_WASM = path.join(ROOT, "build/runtime.wasm");
const RUNTIME_SRC = path.join(ROOT, "runtime");

export class OpaAbort extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OpaAbort";
  }
}

export interface LoadOptions {
  /** Called for opa_builtinN(id, ctx, ...args); returns a value address (0 = undefined). */
  hostBuiltin?: (id: number, args: number[]) => number;
  /** Initial memory pages (the npm SDK uses 5). */
  pages?: number;
}

type Export = (...args: number[]) => number;

export interface Runtime {
  instance: WebAssembly.Instance;
  memory: WebAssembly.Memory;
  exports: Record<string, Export>;
  /** Lines passed to opa_println. */
  printed: string[];
  value(json: unknown): number;
  valueText(text: string): number;
  rego(text: string): number;
  json(addr: number): unknown;
  jsonText(addr: number): string;
  regoText(addr: number): string;
  call(name: string, ...args: number[]): number;
  /** Copies a string's UTF-8 bytes into Wasm memory: [address, byte length]. */
  bytes(s: string): [number, number];
  /** Reads a NUL-terminated UTF-8 string. */
  cstring(addr: number): string;
  reset(): void;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    const t = entry.isDirectory() ? newestSource(p) : statSync(p).mtimeMs;
    if (t > newest) newest = t;
  }
  return newest;
}

const isFresh = (): boolean => existsSync(RUNTIME_WASM) && statSync(RUNTIME_WASM).mtimeMs >= newestSource(RUNTIME_SRC);

/**
 * Builds build/runtime.wasm when it is missing or stale. Jest runs test files
 * in parallel workers: a lock file makes one of them build while the others
 * wait (a lock older than 5 minutes is considered abandoned).
 */
export function ensureRuntimeBuilt(): void {
  if (process.env.PORTCULLIS_NO_RUNTIME_BUILD && existsSync(RUNTIME_WASM)) return;
  const lock = path.join(ROOT, "build/.runtime-build.lock");
  const sleep = new Int32Array(new SharedArrayBuffer(4));
  while (!isFresh()) {
    let fd: number;
    try {
      fd = openSync(lock, "wx");
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { force: true });
      Atomics.wait(sleep, 0, 0, 200);
      continue;
    }
    try {
      execFileSync(process.execPath, [path.join(RUNTIME_SRC, "build.mjs")], { cwd: ROOT, stdio: "pipe" });
    } catch (e) {
      const err = e as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`runtime build failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`, { cause: e });
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
    return; // built from the sources as they were; do not loop if they change meanwhile
  }
}

export async function loadRuntime(opts: LoadOptions = {}): Promise<Runtime> {
  ensureRuntimeBuilt();
  const memory = new WebAssembly.Memory({ initial: opts.pages ?? 5 });
  const printed: string[] = [];
  const cstring = (addr: number): string => {
    const buf = new Uint8Array(memory.buffer);
    let end = addr;
    while (buf[end] !== 0) end++;
    return new TextDecoder().decode(buf.subarray(addr, end));
  };
  const builtin = (id: number, _ctx: number, ...args: number[]): number => {
    if (!opts.hostBuiltin) throw new Error(`host builtin ${id} called, but the harness has no hostBuiltin`);
    return opts.hostBuiltin(id, args);
  };
  const env = {
    memory,
    opa_abort: (addr: number) => {
      throw new OpaAbort(cstring(addr));
    },
    opa_println: (addr: number) => {
      printed.push(cstring(addr));
    },
    opa_builtin0: builtin,
    opa_builtin1: builtin,
    opa_builtin2: builtin,
    opa_builtin3: builtin,
    opa_builtin4: builtin,
  };
  const { instance } = await WebAssembly.instantiate(readFileSync(RUNTIME_WASM), { env });
  const exports = instance.exports as unknown as Record<string, Export>;
  const fn = (name: string): Export => {
    const f = exports[name];
    if (typeof f !== "function") throw new Error(`runtime.wasm has no function export ${name}`);
    return f;
  };

  const bytes = (s: string): [number, number] => {
    const b = new TextEncoder().encode(s);
    const addr = fn("opa_malloc")(b.length);
    new Uint8Array(memory.buffer).set(b, addr);
    return [addr, b.length];
  };
  const parse = (exportName: string, text: string): number => {
    const addr = fn(exportName)(...bytes(text));
    if (addr === 0) throw new Error(`${exportName} rejected: ${text}`);
    return addr;
  };
  const jsonText = (addr: number): string => cstring(fn("opa_json_dump")(addr));
  const base = fn("opa_heap_ptr_get")();

  return {
    instance,
    memory,
    exports,
    printed,
    value: (json) => (json === undefined ? 0 : parse("opa_json_parse", JSON.stringify(json))),
    valueText: (text) => parse("opa_json_parse", text),
    rego: (text) => parse("opa_value_parse", text),
    json: (addr) => (addr === 0 ? undefined : JSON.parse(jsonText(addr))),
    jsonText,
    regoText: (addr) => cstring(fn("opa_value_dump")(addr)),
    call: (name, ...args) => fn(name)(...args),
    bytes,
    cstring,
    reset: () => fn("opa_heap_ptr_set")(base),
  };
}
