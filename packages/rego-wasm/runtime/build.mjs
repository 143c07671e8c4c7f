#!/usr/bin/env node
/**
 * Builds the policy runtime: compiles runtime/assembly/index.ts with the
 * AssemblyScript compiler (in process, via `asc.main`) into build/runtime.wasm.
 *
 *   node runtime/build.mjs            optimised release build (-O3 --noAssert)
 *   node runtime/build.mjs --debug    fast unoptimised build with names
 *   node runtime/build.mjs --wat      also write build/runtime.wat
 *   node runtime/build.mjs --names --out build/runtime-names.wasm
 *                                         release build that keeps function names (profiling)
 *   --entry <file.ts> --out <file.wasm>   build another entry (tests) with the same flags
 *
 * The flags make the module loadable by OPA hosts: the memory is imported
 * (`env.memory`, 2 initial pages, as the runtime's static data passed 64 KiB;
 * no maximum: the SDK passes 5 pages), the
 * custom bump allocator `assembly/rt.ts` is the runtime, and AssemblyScript's
 * `abort` is redirected to a shim that calls `env.opa_abort`, so the only
 * imports are env.memory, env.opa_abort, env.opa_println, env.opa_builtin0..4.
 * After compiling, the imports are checked against that list.
 *
 * Paths: build/ is the package's (packages/rego-wasm/build); `--out` is read
 * from the package root, `--entry` from the working directory.
 */

import asc from "assemblyscript/asc";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ALLOWED_IMPORTS = new Set([
  "env.memory",
  "env.opa_abort",
  "env.opa_println",
  "env.opa_builtin0",
  "env.opa_builtin1",
  "env.opa_builtin2",
  "env.opa_builtin3",
  "env.opa_builtin4",
]);

/** asc arguments for a build; paths are relative to the package root (asc's baseDir), packages/rego-wasm. */
export function ascArgs({ debug = false, names = false, textFile, outFile = "build/runtime.wasm", entry = "runtime/assembly/index.ts" } = {}) {
  const args = [
    entry,
    "--baseDir",
    root,
    "--outFile",
    outFile,
    "--runtime",
    "runtime/assembly/rt",
    "--use",
    "abort=runtime/assembly/rt/opaAbortShim",
    "--importMemory",
    "--initialMemory",
    "2",
    "--noColors",
  ];
  if (debug) args.push("--debug", "-O0");
  else args.push("-O3", "--noAssert");
  // Optimised code, but with the name section, so CPU profiles name Wasm functions.
  if (names && !debug) args.push("--debug");
  if (textFile) args.push("--textFile", textFile);
  return args;
}

/**
 * asc treats any custom `--runtime` path like its incremental GC and
 * instruments every function with a 32 KiB shadow stack for the collector to
 * scan. Our bump allocator never scans, so switch that off before compiling:
 * it would cost ~2000 global get/set pairs and 32 KiB of memory.
 */
const noShadowStack = {
  afterInitialize(program) {
    program.options.stackSize = 0;
    program.module.useShadowStack = false;
  },
};

/**
 * Compiles the runtime; resolves to the output path, rejects with asc's
 * diagnostics. Writes a temporary file and renames it, so concurrent builds
 * (parallel test runs) never expose a half-written runtime.wasm.
 */
export async function buildRuntime(opts = {}) {
  const out = path.resolve(root, opts.out ?? "build/runtime.wasm");
  await mkdir(path.dirname(out), { recursive: true });
  const tmp = path.relative(root, path.join(path.dirname(out), `.tmp-${process.pid}-${Date.now()}.wasm`));
  let stderr = "";
  const textFile = opts.wat ? path.relative(root, out.replace(/\.wasm$/, "") + ".wat") : undefined;
  const entry = opts.entry ? path.relative(root, path.resolve(opts.entry)) : undefined;
  const { error } = await asc.main(ascArgs({ debug: opts.debug, names: opts.names, entry, textFile, outFile: tmp }), {
    transforms: [noShadowStack],
    stdout: { write: () => {} },
    stderr: {
      write: (s) => {
        stderr += String(s);
      },
    },
  });
  if (error) {
    await rm(path.join(root, tmp), { force: true });
    throw new Error(`asc failed: ${error.message}\n${stderr}`);
  }
  const bytes = await readFile(path.join(root, tmp));
  const mod = new WebAssembly.Module(bytes);
  const bad = WebAssembly.Module.imports(mod)
    .map((i) => `${i.module}.${i.name}`)
    .filter((n) => !ALLOWED_IMPORTS.has(n));
  if (bad.length) {
    await rm(path.join(root, tmp), { force: true });
    throw new Error(`runtime.wasm has imports an OPA host does not provide: ${bad.join(", ")}`);
  }
  await rename(path.join(root, tmp), out);
  return { path: out, size: bytes.length, warnings: stderr };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const debug = argv.includes("--debug");
  const wat = argv.includes("--wat");
  const names = argv.includes("--names");
  const valueOf = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const entry = valueOf("--entry");
  const out = valueOf("--out");
  const t0 = performance.now();
  try {
    const { path: written, size, warnings } = await buildRuntime({ debug, names, wat, entry, out });
    if (warnings.trim()) process.stderr.write(warnings);
    const ms = (performance.now() - t0).toFixed(0);
    console.log(`${path.relative(process.cwd(), written)}: ${size} bytes, ${debug ? "debug" : "release"} build in ${ms} ms`);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
