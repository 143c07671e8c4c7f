/**
 * @portcullis/rego-wasm/conformance: OPA's conformance cases (YAML) loaded
 * from a directory and run through compile() and the OPA SDK, one report per
 * run (`portcullis rego conformance`, `make conformance`). A separate entry
 * because only the tooling runs it; the service never loads it.
 */
export { loadCases } from "./compiler/conformance/cases";
export type { ConformanceCase } from "./compiler/conformance/cases";
export { familySummary, runCase, runCases } from "./compiler/conformance/run";
export type { CaseResult, ConformanceReport } from "./compiler/conformance/run";
