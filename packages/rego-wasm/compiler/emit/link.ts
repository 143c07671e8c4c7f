/**
 * The linker: a planned Policy + build/runtime.wasm -> one policy.wasm that
 * `@open-policy-agent/opa-wasm` loads.
 *
 * The runtime's code is never decoded or moved. New functions (the policy's
 * funcs and plans, then the ABI glue) are appended after the existing ones and
 * no import is added or removed, so every existing function index stays
 * valid. What changes: the type/function/code sections grow, one active data
 * segment with the policy's strings goes at the aligned end of the runtime's
 * static data, `__heap_start` moves past it, the memory import's minimum grows
 * if needed, the export section becomes the OPA ABI, and one global per
 * constant plus a new start function that builds them (constants.ts) are
 * added; the new start function calls the runtime's own first.
 *
 * Example:
 *   const wasm = link(policy, fs.readFileSync("build/runtime.wasm"));
 *   const opa = await loadSizedPolicy(wasm, data); // memory sized from the import (bundle/memory.ts)
 */
import { describePages, MAX_MEMORY_PAGES, PAGE_BYTES } from "../bundle/memory";
import { CompileError } from "../errors";
import { BUILTINS } from "../builtins";
import type { Block, DotStmt, Func, Policy } from "../plan/ir";
import { nativeBuiltinExport } from "../runtime-contract";
import { encodeTrailTable, TRAIL_EXPORT, TRAIL_SECTION, trailLayout, trailRegionSize } from "../trail";
import { emitBinaryEval, emitDispatch, emitEval, emitNameTable, emitOpaEval, emitTrailAddress, emitTrailReset, type AbiContext } from "./abi";
import { BINARY_EVAL_EXPORT } from "../binary-input";
import { inputRefPaths } from "./input-refs";
import { emitMemoReset, memoisedAt, memoRegionSize, memoSlot, type MemoLayout } from "./memo";
import { ConstantPool } from "./constants";
import { emitFunc, emitPlan, type Callee, type EmitContext, type EmittedFunction } from "./emit";
import { DataLayout } from "./layout";
import { RuntimeLinkError, RuntimeModule } from "./runtime";
import { ByteReader, ByteWriter } from "./wasm/bytes";
import { findSection, SectionId, setCustom, setSection, writeModule } from "./wasm/module";
import { addFunctionNames } from "./wasm/names";
import {
  appendVec,
  encodeDataSegment,
  encodeExports,
  encodeFuncType,
  encodeGlobals,
  encodeImports,
  ExternKind,
  i32ConstExpr,
  splitVec,
  ValType,
  type Export,
  type FuncType,
} from "./wasm/sections";

export interface LinkOptions {
  /**
   * Keep the runtime's non-ABI exports (`rt_*`, `bi_*`, `__heap_start`).
   * Off by default: the module's surface is exactly OPA's ABI, as `opa build`
   * produces. Handy on for poking at the runtime from tests.
   */
  keepRuntimeExports?: boolean;
}

const PAGE = PAGE_BYTES;

/** Exports defined by OPA's ABI (opa-wasm-abi.md, section 1). */
const ABI_EXPORTS = new Set([
  "opa_wasm_abi_version",
  "opa_wasm_abi_minor_version",
  "memory",
  "eval",
  "builtins",
  "entrypoints",
  "opa_eval_ctx_new",
  "opa_eval_ctx_set_input",
  "opa_eval_ctx_set_data",
  "opa_eval_ctx_set_entrypoint",
  "opa_eval_ctx_get_result",
  "opa_malloc",
  "opa_free",
  "opa_json_parse",
  "opa_value_parse",
  "opa_json_dump",
  "opa_value_dump",
  "opa_heap_ptr_get",
  "opa_heap_ptr_set",
  "opa_value_add_path",
  "opa_value_remove_path",
  "opa_eval",
  "opa_value_free",
  "opa_heap_blocks_stash",
  "opa_heap_blocks_restore",
  "opa_heap_stash_clear",
]);

/** The exports this linker writes; the runtime's own (if any) are replaced. */
const POLICY_EXPORTS = ["eval", "opa_eval", "entrypoints", "builtins", BINARY_EVAL_EXPORT];

/** IR carries no source positions; link errors name the rule in their text instead. */
const LINK_LOC = { file: "policy.wasm", row: 0, col: 0 };

const align16 = (n: number) => (n + 15) & ~15;

export function link(policy: Policy, runtimeWasm: Uint8Array, options: LinkOptions = {}): Uint8Array<ArrayBuffer> {
  const rt = new RuntimeModule(runtimeWasm);
  const layout = new DataLayout(align16(rt.staticDataEnd()));
  // The decision trail's region (../trail.ts): reserved first, so its address is known to every function emitted.
  const bodies = policy.trail?.length;
  const trail = bodies === undefined ? undefined : trailLayout(layout.reserve(trailRegionSize(bodies)), bodies);
  // The memo frame's region (memo.ts): one slot per planned function, then one per input path some function dots (input-refs.ts).
  const refs = inputRefSlots([...policy.funcs.map((f) => f.blocks), ...policy.plans.map((p) => p.blocks)]);
  const slots = policy.funcs.length + refs.count;
  const memo: MemoLayout = { base: layout.reserve(memoRegionSize(slots)), slots, funcs: policy.funcs.length };
  const abort = rt.envImport("opa_abort");
  if (abort === undefined) throw new RuntimeLinkError("must import env.opa_abort");

  // New function indices, in the order the bodies are appended.
  let next = rt.importedFuncs + rt.definedFuncs;
  const funcIndex = new Map<string, { index: number; params: number; memo?: number }>();
  policy.funcs.forEach((f, i) => {
    if (funcIndex.has(f.name)) throw new Error(`emit: duplicate function name ${f.name}`);
    funcIndex.set(f.name, { index: next++, params: f.params.length, memo: memoisedAt(f, i) ? memoSlot(memo, i) : undefined });
  });
  const planNames = new Set(policy.plans.map((p) => p.name));
  if (planNames.size !== policy.plans.length) throw new Error("emit: two plans share an entrypoint name");
  const planIndex = policy.plans.map(() => next++);
  const [dispatch, evalFn, opaEval, entrypoints, builtins, binaryEval] = [next++, next++, next++, next++, next++, next++];
  const [trailReset, trailAddress] = trail ? [next++, next++] : [undefined, undefined];
  const memoReset = next++;
  const start = next++;

  const stringAt = (index: number) => {
    const s = policy.strings[index];
    if (s === undefined) throw new Error(`emit: string constant ${index} out of range`);
    return layout.string(s);
  };
  const constants = new ConstantPool(rt.importedGlobals + rt.globals.length, { rt: (name) => rt.rt(name), string: stringAt });
  const ctx: EmitContext = {
    rt: (name) => rt.rt(name),
    abort,
    message: (text) => layout.message(text),
    string: stringAt,
    callee: (name, argc, caller) => resolveCallee(policy, rt, funcIndex, name, argc, caller),
    constant: (c) => constants.global(c),
    trail,
    memo,
  };
  const abi: AbiContext = { rt: ctx.rt, abort, layout, trailReset, memoReset };

  const emitted: Array<{ name: string; fn: EmittedFunction }> = [
    ...policy.funcs.map((f, i) => ({ name: debugName(f), fn: emitFunc(f, ctx, refs.slots[i]!) })),
    ...policy.plans.map((p, i) => ({ name: `plan:${p.name}`, fn: emitPlan(p, ctx, refs.slots[policy.funcs.length + i]!) })),
    { name: "opa_dispatch", fn: emitDispatch(planIndex, abi) },
    { name: "eval", fn: emitEval(dispatch, abi) },
    { name: "opa_eval", fn: emitOpaEval(dispatch, abi) },
    {
      name: "entrypoints",
      fn: emitNameTable(
        policy.plans.map((p) => p.name),
        abi,
      ),
    },
    {
      name: "builtins",
      fn: emitNameTable(
        policy.hostBuiltins.map((b) => b.name),
        abi,
      ),
    },
    { name: BINARY_EVAL_EXPORT, fn: emitBinaryEval(dispatch, abi) },
  ];
  if (trail) emitted.push({ name: "trail_reset", fn: emitTrailReset(trail) }, { name: TRAIL_EXPORT, fn: emitTrailAddress(trail) });
  emitted.push({ name: "memo_reset", fn: emitMemoReset(memo) });
  // Last: it builds every constant the functions above asked for.
  emitted.push({ name: "opa_init_constants", fn: constants.emitStart(startFunction(rt)) });

  appendFunctions(
    rt,
    emitted.map((e) => e.fn),
  );
  addConstantGlobals(rt, constants.size, start);
  addData(rt, layout);
  setExports(
    rt,
    {
      eval: evalFn,
      opa_eval: opaEval,
      entrypoints,
      builtins,
      [BINARY_EVAL_EXPORT]: binaryEval,
      ...(trailAddress === undefined ? {} : { [TRAIL_EXPORT]: trailAddress }),
    },
    options,
  );
  if (policy.trail) setCustom(rt.module, TRAIL_SECTION, encodeTrailTable(policy.trail));
  const first = rt.importedFuncs + rt.definedFuncs;
  addFunctionNames(
    rt.module,
    emitted.map((e, i) => [first + i, e.name]),
  );
  return writeModule(rt.module);
}

/** Per function (of `bodies`), its input-ref Dots and the ref slot each reads (memo.ts refSlot: one per distinct path); `count` slots in all. */
function inputRefSlots(bodies: Block[][]): { slots: Array<Map<DotStmt, number>>; count: number } {
  const numbers = new Map<string, number>();
  const slots = bodies.map((blocks) => {
    const own = new Map<DotStmt, number>();
    for (const [dot, path] of inputRefPaths(blocks)) {
      if (!numbers.has(path)) numbers.set(path, numbers.size);
      own.set(dot, numbers.get(path)!);
    }
    return own;
  });
  return { slots, count: numbers.size };
}

/** The runtime's start function (AssemblyScript's static initialisation), if it has one. */
function startFunction(rt: RuntimeModule): number | undefined {
  const body = findSection(rt.module, SectionId.start)?.body;
  return body ? new ByteReader(body).u32() : undefined;
}

/** One mutable i32 global per constant (set by the start function), and that function as the start. */
function addConstantGlobals(rt: RuntimeModule, count: number, start: number): void {
  for (let i = 0; i < count; i++) rt.globals.push({ type: ValType.i32, mutable: true, init: i32ConstExpr(0) });
  setSection(rt.module, SectionId.global, encodeGlobals(rt.globals));
  setSection(rt.module, SectionId.start, new ByteWriter().u32(start).toBytes());
}

/** The rule's path for stack traces, plus the unique func name when one rule has several funcs. */
function debugName(f: Func): string {
  return !f.path || f.path === f.name ? f.name : `${f.path} (${f.name})`;
}

function resolveCallee(
  policy: Policy,
  rt: RuntimeModule,
  funcs: Map<string, { index: number; params: number; memo?: number }>,
  name: string,
  argc: number,
  caller: string,
): Callee {
  const arityError = (want: number) => new Error(`emit: ${caller}: ${name} takes ${want} arguments, called with ${argc}`);
  if (name.startsWith("host:")) {
    const builtin = name.slice("host:".length);
    const id = policy.hostBuiltins.findIndex((b) => b.name === builtin);
    if (id < 0) throw new Error(`emit: ${caller}: host builtin ${builtin} is not in Policy.hostBuiltins`);
    if (policy.hostBuiltins[id].arity !== argc) throw arityError(policy.hostBuiltins[id].arity);
    if (argc > 4) {
      throw new CompileError("rego_compile_error", `builtin ${builtin} (called in ${caller}) has ${argc} operands; host dispatch supports at most 4`, LINK_LOC);
    }
    const index = rt.envImport(`opa_builtin${argc}`);
    if (index === undefined) throw new RuntimeLinkError(`must import env.opa_builtin${argc} (host builtin ${builtin})`);
    return { index, prefix: [id, 0], builtin: true };
  }
  const func = funcs.get(name);
  if (func) {
    if (func.params !== argc) throw arityError(func.params);
    return { index: func.index, prefix: [], builtin: false, memo: func.memo };
  }
  const index = rt.exported(name);
  if (index === undefined) {
    if (name.startsWith("bi_")) {
      const builtin = builtinName(name);
      throw new CompileError(
        "rego_compile_error",
        `builtin ${builtin} (called in ${caller}) is not implemented by the runtime: missing export ${name}`,
        LINK_LOC,
      );
    }
    throw new Error(`emit: ${caller}: unknown function ${name}`);
  }
  const t = rt.typeOf(index);
  if (t.params.length !== argc || t.params.some((p) => p !== ValType.i32) || t.results.length !== 1 || t.results[0] !== ValType.i32) {
    // Either the planner passed the wrong number of operands or the runtime export has the wrong shape.
    throw new RuntimeLinkError(
      `export ${name} has type ${t.params.length} params -> ${t.results.length} results; ${caller} calls it with ${argc} value addresses and needs one back`,
    );
  }
  return { index, prefix: [], builtin: true };
}

/** `bi_object_get` -> `object.get`, using the catalogue since underscores are ambiguous. */
function builtinName(exportName: string): string {
  for (const b of BUILTINS.values()) if (nativeBuiltinExport(b.name) === exportName) return b.name;
  return exportName.slice(3);
}

/** Appends bodies and their types; signatures are all-i32 `(i32 x params) -> i32` (or `-> ()` when `results` is 0). */
function appendFunctions(rt: RuntimeModule, fns: EmittedFunction[]): void {
  const m = rt.module;
  const typeIndex = new Map<string, number>();
  const newTypes: Uint8Array[] = [];
  const allI32 = (t: FuncType, params: number, results: number) =>
    t.params.length === params && t.params.every((p) => p === ValType.i32) && t.results.length === results && t.results.every((r) => r === ValType.i32);
  // Reuse the runtime's own `(i32 x n) -> i32` types where it has them.
  const typeOf = (params: number, results: number): number => {
    const key = `${params}:${results}`;
    let index = typeIndex.get(key);
    if (index === undefined) {
      index = rt.types.findIndex((t) => allI32(t, params, results));
      if (index < 0) {
        index = rt.types.length + newTypes.length;
        newTypes.push(encodeFuncType({ params: new Array<number>(params).fill(ValType.i32), results: new Array<number>(results).fill(ValType.i32) }));
      }
      typeIndex.set(key, index);
    }
    return index;
  };
  const funcEntries = fns.map((f) => new ByteWriter().u32(typeOf(f.params, f.results ?? 1)).toBytes());
  setSection(m, SectionId.type, appendVec(findSection(m, SectionId.type)?.body, newTypes));
  setSection(m, SectionId.function, appendVec(findSection(m, SectionId.function)?.body, funcEntries));
  setSection(
    m,
    SectionId.code,
    appendVec(
      findSection(m, SectionId.code)?.body,
      fns.map((f) => f.body),
    ),
  );
}

/** Adds the data segment, moves `__heap_start` past it, sizes the memory import. */
function addData(rt: RuntimeModule, layout: DataLayout): void {
  const m = rt.module;
  const heapStart = align16(layout.end);
  const bytes = layout.toBytes();
  if (bytes.length) {
    setSection(m, SectionId.data, appendVec(findSection(m, SectionId.data)?.body, [encodeDataSegment(layout.segmentStart, bytes)]));
    const dc = findSection(m, SectionId.datacount);
    if (dc) setSection(m, SectionId.datacount, new ByteWriter().u32(splitVec(findSection(m, SectionId.data)?.body).count).toBytes());
  }
  const g = rt.heapStartGlobal();
  rt.globals[g].init = i32ConstExpr(heapStart);
  setSection(m, SectionId.global, encodeGlobals(rt.globals));

  const pages = Math.ceil(heapStart / PAGE);
  // Loaders size the memory from the import's minimum (bundle/memory.ts); only the ceiling binds here.
  if (pages > MAX_MEMORY_PAGES) {
    throw new CompileError(
      "rego_compile_error",
      `policy static data needs ${describePages(pages)}; a policy's memory is limited to ${describePages(MAX_MEMORY_PAGES)}`,
      LINK_LOC,
    );
  }
  const mem = rt.memoryImport();
  const limits = mem.limits!;
  if (pages > limits.min) {
    if (limits.max !== undefined && limits.max < pages) throw new RuntimeLinkError(`memory maximum ${limits.max} pages is below the ${pages} the data needs`);
    limits.min = pages;
    setSection(m, SectionId.import, encodeImports(rt.imports));
  }
}

function setExports(rt: RuntimeModule, added: Record<string, number>, options: LinkOptions): void {
  const keep = (e: Export) => !POLICY_EXPORTS.includes(e.name) && (options.keepRuntimeExports || ABI_EXPORTS.has(e.name));
  const exports = rt.exports.filter(keep);
  for (const [name, index] of Object.entries(added)) exports.push({ name, kind: ExternKind.func, index });
  setSection(rt.module, SectionId.export, encodeExports(exports));
}
