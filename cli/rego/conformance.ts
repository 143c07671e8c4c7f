/**
 * `rego conformance`: run OPA's YAML conformance cases through our compiler
 * and @open-policy-agent/opa-wasm. Prints each failing case with its reason,
 * a per-family table, and `N passed, N failed, N skipped` as the last line.
 * Nothing is skipped: the SOURCE notes name no case OPA skips for Wasm.
 */
import * as fs from "node:fs";
import { familySummary, loadCases, runCases } from "@portcullis/rego-wasm/conformance";
import { one, parseArgs, UsageError } from "../args";

export async function conformanceCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: { "--json": "json", "--min": "min", "--family": "family" },
    switches: { "-q": "quiet", "--quiet": "quiet", "--v0-compatible": "v0" },
  });
  if (args.positionals.length !== 1) throw new UsageError("give one directory of conformance cases");
  const families = new Set(args.values.get("family") ?? []);
  let cases = loadCases(args.positionals[0]);
  if (families.size > 0) cases = cases.filter((c) => families.has(c.family));
  const report = await runCases(cases, undefined, args.switches.has("v0") ? "v0" : "v1");

  if (!args.switches.has("quiet")) {
    for (const r of report.cases.filter((c) => !c.passed)) console.log(`FAIL ${r.file}: ${r.note}: ${r.reason.slice(0, 400)}`);
    console.log("");
    for (const f of familySummary(report)) console.log(`${f.family.padEnd(28)} ${String(f.passed).padStart(4)} / ${f.total}`);
    console.log("");
  }
  const jsonPath = one(args, "json");
  if (jsonPath) fs.writeFileSync(jsonPath, JSON.stringify({ ...report, families: familySummary(report) }, null, 2));
  const ratio = report.total === 0 ? 0 : report.passed / report.total;
  console.log(`pass rate ${(ratio * 100).toFixed(1)}%`);
  console.log(`${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`);
  const min = one(args, "min");
  return min !== undefined && ratio < Number(min) ? 1 : 0;
}
