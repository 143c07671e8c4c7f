/**
 * What `rego test` prints.
 *
 * pretty (default): a line per failure, error and skipped test (with `-v`,
 * per passing test too), each with file:row, the test's full name and its
 * time; under a failure the failing expression with its file:row; under a
 * parameterized test its failed cases (with `-v`, all of them); then
 * `N passed, N failed[, N skipped]` alone on the last line. Cases of a
 * parameterized test are counted one by one, as OPA counts them; errors
 * count as failures.
 *
 * json (`--format json`): OPA's array of results (`location`, `package`,
 * `name`, `fail`/`error`/`skip`, `duration` in ns, `sub_results`,
 * `benchmark_result`, `output`: what it printed, base64), and nothing else on stdout.
 */
import { formatNs, type SubResult, type TestResult } from "./run";

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

export function tally(results: TestResult[]): Tally {
  const t: Tally = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) {
    if (r.outcome === "skip") t.skipped++;
    else if (r.outcome === "error") t.failed++;
    else if (r.subResults && r.subResults.size > 0) {
      for (const [, sr] of leaves(r.subResults, [])) {
        if (sr.fail) t.failed++;
        else t.passed++;
      }
    } else if (r.outcome === "pass") t.passed++;
    else t.failed++;
  }
  return t;
}

export function summaryLine(t: Tally): string {
  return `${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ""}`;
}

/** The pretty report's lines; `sourceLine` gives the text of a file's row (the failing expression). */
export function prettyLines(results: TestResult[], verbose: boolean, sourceLine: (file: string, row: number) => string | undefined): string[] {
  const out: string[] = [];
  for (const r of results) {
    const where = `${r.test.file}:${r.test.row}: ${r.test.pkg}.${r.test.name}`;
    if (r.outcome === "skip") {
      out.push(`SKIP ${where}`);
      continue;
    }
    const time = `(${formatNs(r.durationNs)})`;
    if (r.bench && r.outcome === "pass") {
      out.push(benchLine(r));
      continue;
    }
    if (r.outcome === "pass") {
      if (verbose) out.push(`PASS ${where} ${time}`);
    } else if (r.outcome === "error") {
      out.push(`ERROR ${where}: ${r.errorCode}: ${r.detail} ${time}`);
    } else {
      out.push(`FAIL ${where}: ${r.detail} ${time}`);
      if (r.failedAt) {
        out.push(`  ${r.failedAt.file}:${r.failedAt.row}:`);
        const text = sourceLine(r.failedAt.file, r.failedAt.row);
        if (text !== undefined) out.push(`    ${text.trim()}`);
      }
    }
    // What the test printed, under a test the report shows (as OPA's pretty reporter does).
    if (r.output && (verbose || r.outcome !== "pass")) for (const line of r.output.trimEnd().split("\n")) out.push(`  | ${line}`);
    if (r.subResults) {
      for (const [path, sr] of walk(r.subResults, [])) {
        if (sr.fail || verbose) out.push(`${"  ".repeat(path.length)}${sr.name}: ${sr.fail ? "FAIL" : "PASS"}`);
      }
    }
  }
  return out;
}

/** Go's benchmark line: name, runs, time per run. */
function benchLine(r: TestResult): string {
  const { n, totalNs } = r.bench!;
  const perOp = totalNs / n;
  const nsop = perOp < 100 ? perOp.toFixed(2) : String(Math.round(perOp));
  return `${r.test.pkg}.${r.test.name}\t${String(n).padStart(8)}\t${nsop.padStart(10)} ns/op`;
}

/** OPA's JSON results. */
export function jsonResults(results: TestResult[]): unknown[] {
  return results.map((r) => ({
    location: { file: r.test.file, row: r.test.row, col: r.test.col },
    package: r.test.pkg,
    name: r.test.name,
    ...(r.outcome === "fail" ? { fail: true } : {}),
    ...(r.outcome === "error" ? { error: { code: r.errorCode, message: r.detail } } : {}),
    ...(r.outcome === "skip" ? { skip: true } : {}),
    duration: r.durationNs,
    ...(r.failedAt ? { failed_at: { location: r.failedAt } } : {}),
    ...(r.subResults && r.subResults.size > 0 ? { sub_results: subResultsJson(r.subResults) } : {}),
    ...(r.bench ? { benchmark_result: { N: r.bench.n, T: r.bench.totalNs } } : {}),
    ...(r.output ? { output: Buffer.from(r.output).toString("base64") } : {}),
  }));
}

function subResultsJson(m: Map<string, SubResult>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of [...m.keys()].sort()) {
    const sr = m.get(k)!;
    out[k] = { name: sr.name, ...(sr.fail ? { fail: true } : {}), ...(sr.sub.size > 0 ? { sub_results: subResultsJson(sr.sub) } : {}) };
  }
  return out;
}

/** Depth first, keys sorted (OPA's SubResultMap.Iter). */
function* walk(m: Map<string, SubResult>, prefix: string[]): Generator<[string[], SubResult]> {
  for (const k of [...m.keys()].sort()) {
    const sr = m.get(k)!;
    const path = [...prefix, k];
    yield [path, sr];
    yield* walk(sr.sub, path);
  }
}

function* leaves(m: Map<string, SubResult>, prefix: string[]): Generator<[string[], SubResult]> {
  for (const [path, sr] of walk(m, prefix)) if (sr.sub.size === 0) yield [path, sr];
}
