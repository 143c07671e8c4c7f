/**
 * @portcullis/rego-wasm: the public API, everything the service (pdp/, cli/,
 * bench/, matrix/, the tests outside this package) may import. Deeper paths
 * are the package's own business (eslint's no-restricted-imports checks it).
 * The conformance runner is the one other entry: `@portcullis/rego-wasm/conformance`.
 * README.md lists each name with what it is for.
 */

// Compiling: Rego sources -> one policy.wasm (OPA's Wasm ABI), and the runtime it links.
export { catalogueFor, compile, compileModules, loadRuntimeWasm } from "./compiler";
export type { CompileOptions, CompileResult, EntrypointSpec, HostBuiltinDecl, Probe, SourceFile, SyntaxVersion } from "./compiler";
export { link } from "./compiler/emit/link";
export { printPolicy } from "./compiler/plan";

// Bundles: OPA's tar.gz layout, read and written; a policy loaded with its memory bounded.
export { BundleError, bundleFilePath, readBundle, regoVersionForFile, writeBundle } from "./compiler/bundle";
export type { Bundle, BundleInput, BundleSource, Manifest, WasmResolver } from "./compiler/bundle";
export { importedMemoryPages } from "./compiler/bundle/memory";
export { loadSizedPolicy, MAX_MEMORY_PAGES, MemoryLimitError } from "./compiler/bundle";
export type { SizedLoadOptions } from "./compiler/bundle";

// Host builtins: the builtins a policy calls back into JS for, behind one per-evaluation clock.
export { EvaluationClock } from "./compiler/host";
export { lookupBuiltin } from "./compiler/builtins";
export type { DeclaredType } from "./compiler/builtins";
export { invalidType } from "./compiler/builtins/declared-types";

// Instrumented compilations (coverage, explanations, `rego test`): probes and the syntax tree they name.
export { loadInstrumented } from "./compiler/instrumented-bundle";
// The decision trail a module records (compiler/trail.ts): its table and the export that locates it.
export { readTrailTable, TRAIL_EXPORT } from "./compiler/trail";
// The binary input encoding: input written straight into a module's memory for its portcullis_eval export.
export { BinaryInputWriter, BINARY_EVAL_EXPORT, binaryInputJson, RESULT_CODE } from "./compiler/binary-input";
export type { TrailBody } from "./compiler/trail";
export type { InstrumentedBundle } from "./compiler/instrumented-bundle";
export { internalCallExpr } from "./compiler/instrument";
export { parseModule } from "./compiler/parse";
export { exprVars, termVars } from "./compiler/check/vars";
export type { Expr, Module, Rule, Term } from "./compiler/ast";
