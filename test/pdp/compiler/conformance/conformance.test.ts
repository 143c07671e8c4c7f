/**
 * OPA's conformance cases through the whole pipeline and the real SDK.
 * The bar: at least 80% of the cases pass. The full report (every case with
 * its reason) is written to var/conformance.json for inspection.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { packageRoot } from "../../../../pdp/compiler";
import { conformanceCasesDir, loadCases } from "../../../../pdp/compiler/conformance/cases";
import { familySummary, runCases } from "../../../../pdp/compiler/conformance/run";

const CASES_DIR = conformanceCasesDir();
const MIN_PASS_RATE = 0.8;

test("the conformance corpus is the one the issue counts", () => {
  expect(loadCases(CASES_DIR)).toHaveLength(1188);
});

test(`at least ${MIN_PASS_RATE * 100}% of OPA's conformance cases pass through @open-policy-agent/opa-wasm`, async () => {
  const report = await runCases(loadCases(CASES_DIR));
  fs.mkdirSync(path.join(packageRoot(), "var"), { recursive: true });
  fs.writeFileSync(
    path.join(packageRoot(), "var", "conformance.json"),
    JSON.stringify({ ...report, families: familySummary(report) }, null, 2),
  );
  expect(report.skipped).toBe(0);
  expect(report.passed / report.total).toBeGreaterThanOrEqual(MIN_PASS_RATE);
}, 900_000);
