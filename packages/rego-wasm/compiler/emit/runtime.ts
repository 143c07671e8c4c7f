/**
 * What the linker needs to know about build/runtime.wasm, read once from its
 * binary: function index space (imports first), exports by name with their
 * signatures, the env imports policy code calls (opa_abort, opa_builtinN),
 * the memory import, the `__heap_start` global, and where static data ends.
 *
 * Where static data ends is the one thing asked of the runtime itself: it is
 * instantiated once (per binary) with inert imports to call `rt_heap_base()`.
 */
import { HEAP_START_GLOBAL, RUNTIME_FUNCTIONS, type WasmType } from "../runtime-contract";
import { ByteReader } from "./wasm/bytes";
import { findSection, readModule, SectionId, type WasmModule } from "./wasm/module";
import {
  constI32,
  ExternKind,
  readDataSegments,
  readExports,
  readGlobals,
  readImports,
  readTypes,
  splitVec,
  ValType,
  type Export,
  type FuncType,
  type Global,
  type Import,
} from "./wasm/sections";

/** The runtime module is not what the contract promises (a runtime bug, not a policy error). */
export class RuntimeLinkError extends Error {
  constructor(message: string) {
    super(`runtime.wasm: ${message}`);
    this.name = "RuntimeLinkError";
  }
}

const WASM_TYPES: Record<WasmType, number> = { i32: ValType.i32, i64: ValType.i64, f64: ValType.f64 };

export class RuntimeModule {
  readonly module: WasmModule;
  readonly types: FuncType[];
  readonly imports: Import[];
  readonly exports: Export[];
  readonly globals: Global[];
  /** Type index of every function, imported ones first. */
  readonly funcTypes: number[];
  readonly importedFuncs: number;
  readonly importedGlobals: number;
  /** Number of functions defined in the module (not imported). */
  readonly definedFuncs: number;
  private readonly funcExports = new Map<string, number>();
  private readonly checked = new Set<string>();

  constructor(private readonly bytes: Uint8Array) {
    this.module = readModule(bytes);
    const body = (id: number) => findSection(this.module, id)?.body;
    this.types = readTypes(body(SectionId.type));
    this.imports = readImports(body(SectionId.import));
    this.exports = readExports(body(SectionId.export));
    this.globals = readGlobals(body(SectionId.global));
    const funcImports = this.imports.filter((i) => i.kind === ExternKind.func);
    this.importedFuncs = funcImports.length;
    this.importedGlobals = this.imports.filter((i) => i.kind === ExternKind.global).length;
    this.funcTypes = funcImports.map((i) => i.typeIndex as number);
    const fs = splitVec(body(SectionId.function));
    const r = new ByteReader(fs.items);
    for (let i = 0; i < fs.count; i++) this.funcTypes.push(r.u32());
    this.definedFuncs = fs.count;
    const codeCount = splitVec(body(SectionId.code)).count;
    if (codeCount !== fs.count) throw new RuntimeLinkError(`${fs.count} functions but ${codeCount} bodies`);
    for (const e of this.exports) if (e.kind === ExternKind.func) this.funcExports.set(e.name, e.index);
  }

  /** Function index of an exported function, or undefined. */
  exported(name: string): number | undefined {
    return this.funcExports.get(name);
  }

  /** The signature of function `index`. */
  typeOf(index: number): FuncType {
    const t = this.types[this.funcTypes[index]];
    if (!t) throw new RuntimeLinkError(`function ${index} has no type`);
    return t;
  }

  /** Index of a contract function `rt_*`, checking its signature against runtime-contract.ts. */
  rt(name: string): number {
    const index = this.exported(name);
    if (index === undefined) throw new RuntimeLinkError(`missing export ${name} (see runtime-contract.ts)`);
    if (!this.checked.has(name)) {
      const want = RUNTIME_FUNCTIONS[name];
      if (!want) throw new Error(`emit: ${name} is not in the runtime contract`);
      const got = this.typeOf(index);
      const params = want.params.map((p) => WASM_TYPES[p]);
      const results = want.result ? [WASM_TYPES[want.result]] : [];
      if (!sameTypes(got.params, params) || !sameTypes(got.results, results)) {
        throw new RuntimeLinkError(`export ${name} has signature ${show(got)}, the contract says ${show({ params, results })}`);
      }
      this.checked.add(name);
    }
    return index;
  }

  /** Function index of an imported `env` function, or undefined. */
  envImport(name: string): number | undefined {
    let index = 0;
    for (const imp of this.imports) {
      if (imp.kind !== ExternKind.func) continue;
      if (imp.module === "env" && imp.name === name) return index;
      index++;
    }
    return undefined;
  }

  /** The `env.memory` import (the ABI requires the host to provide memory). */
  memoryImport(): Import {
    const mem = this.imports.find((i) => i.kind === ExternKind.memory);
    if (!mem || mem.module !== "env" || mem.name !== "memory" || !mem.limits) {
      throw new RuntimeLinkError("memory must be imported as env.memory (build with --importMemory)");
    }
    return mem;
  }

  /** Position in `globals` of the exported mutable i32 `__heap_start`. */
  heapStartGlobal(): number {
    const e = this.exports.find((x) => x.name === HEAP_START_GLOBAL && x.kind === ExternKind.global);
    if (!e) throw new RuntimeLinkError(`missing exported global ${HEAP_START_GLOBAL}`);
    const at = e.index - this.importedGlobals;
    const g = this.globals[at];
    if (at < 0 || !g) throw new RuntimeLinkError(`${HEAP_START_GLOBAL} must be defined in the module, not imported`);
    if (!g.mutable || g.type !== ValType.i32) throw new RuntimeLinkError(`${HEAP_START_GLOBAL} must be a mutable i32`);
    return at;
  }

  /**
   * First free address after the runtime's static data: its own
   * `rt_heap_base()` (AssemblyScript's `__heap_base`, which lies above the
   * data segments and the shadow stack), and never below the end of a data
   * segment or `__heap_start`'s initial value.
   */
  staticDataEnd(): number {
    const { segments, other } = readDataSegments(findSection(this.module, SectionId.data)?.body);
    if (other) throw new RuntimeLinkError("data segments must be active with constant offsets");
    let end = this.heapBase();
    for (const s of segments) end = Math.max(end, s.offset + s.length);
    const start = constI32(this.globals[this.heapStartGlobal()].init);
    if (start === undefined) throw new RuntimeLinkError(`${HEAP_START_GLOBAL} must be initialised by an i32.const`);
    return Math.max(end, start >>> 0);
  }

  /**
   * Calls `rt_heap_base()` in a throwaway instance. `__heap_base` is a
   * compile-time constant of the runtime but not visible in a release binary,
   * so asking the function is the robust way. Cached per runtime binary.
   */
  private heapBase(): number {
    const cached = heapBaseCache.get(this.bytes);
    if (cached !== undefined) return cached;
    this.rt("rt_heap_base");
    const mod = new WebAssembly.Module(this.bytes as Uint8Array<ArrayBuffer>);
    const env: Record<string, WebAssembly.ImportValue> = {};
    for (const imp of this.imports) {
      if (imp.module !== "env") throw new RuntimeLinkError(`unexpected import ${imp.module}.${imp.name}`);
      if (imp.kind === ExternKind.memory) env[imp.name] = new WebAssembly.Memory({ initial: imp.limits?.min ?? 1 });
      else if (imp.kind === ExternKind.func) {
        env[imp.name] = () => {
          throw new RuntimeLinkError(`${imp.name} called while asking rt_heap_base()`);
        };
      } else throw new RuntimeLinkError(`unexpected import ${imp.module}.${imp.name}`);
    }
    const instance = new WebAssembly.Instance(mod, { env });
    const base = (instance.exports.rt_heap_base as () => number)() >>> 0;
    heapBaseCache.set(this.bytes, base);
    return base;
  }
}

const heapBaseCache = new WeakMap<Uint8Array, number>();

function sameTypes(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function show(t: FuncType): string {
  const name = (v: number) => Object.entries(ValType).find(([, code]) => code === v)?.[0] ?? `0x${v.toString(16)}`;
  return `(${t.params.map(name).join(", ")}) -> ${t.results.length ? t.results.map(name).join(", ") : "()"}`;
}
