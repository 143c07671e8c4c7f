/**
 * OPA's conformance cases of the regex and glob families (regexmatch,
 * regexfind, regexisvalid, regexreplace, regexmatchtemplate, globmatch),
 * end to end: compiled by our compiler against the current
 * build/runtime.wasm and evaluated through @open-policy-agent/opa-wasm
 * (compiler/conformance/run.ts). All of them must pass.
 */
import { readFileSync } from "node:fs";
import { conformanceCasesDir, loadCases } from "../../../compiler/conformance/cases";
import { runCase } from "../../../compiler/conformance/run";
import { ensureRuntimeBuilt, RUNTIME_WASM } from "../harness";

const FAMILIES = ["regexmatch", "regexfind", "regexisvalid", "regexreplace", "regexmatchtemplate", "globmatch"];

test("regex and glob conformance cases pass end to end", async () => {
  ensureRuntimeBuilt();
  const cases = loadCases(conformanceCasesDir()).filter((c) => FAMILIES.includes(c.family));
  expect(cases).toHaveLength(61);
  const wasm = readFileSync(RUNTIME_WASM);
  const failures: string[] = [];
  for (const c of cases) {
    const r = await runCase(c, wasm);
    if (!r.passed) failures.push(`${r.note}: ${r.reason}`);
  }
  expect(failures).toEqual([]);
}, 120_000);
