/**
 * `rego test --junit FILE`: the results as JUnit XML (report/junit.ts), for
 * CI servers. One testsuite per Rego package, one testcase per test, or per
 * case of a parameterized test (`test_levels/wrong`), so the file counts
 * what the summary line counts. A failure names the test's file:row, the
 * failing expression with its source line, and what the test printed; an
 * error (e.g. a timeout) fails with its code; a skipped test is skipped.
 *
 *   writeJUnit(file, regoTestJUnit(results, sourceLine));
 */
import type { JUnitCase, JUnitReport } from "../../../report/junit";
import { formatNs, type SubResult, type TestResult } from "./run";

export function regoTestJUnit(results: TestResult[], sourceLine: (file: string, row: number) => string | undefined): JUnitReport {
  const suites = new Map<string, JUnitCase[]>();
  for (const r of results) {
    const pkg = r.test.pkg;
    suites.set(pkg, [...(suites.get(pkg) ?? []), ...casesOf(r, sourceLine)]);
  }
  return { name: "rego test", suites: [...suites].map(([name, cases]) => ({ name, cases })) };
}

function casesOf(r: TestResult, sourceLine: (file: string, row: number) => string | undefined): JUnitCase[] {
  const base = { name: r.test.name, classname: r.test.pkg, time: r.durationNs / 1e9 };
  const where = `${r.test.file}:${r.test.row}: ${r.test.pkg}.${r.test.name}`;
  if (r.outcome === "skip") return [{ ...base, time: undefined, skipped: "todo_test_ (skipped)" }];
  const story = (head: string) => {
    const lines = [head, `at ${where} (${formatNs(r.durationNs)})`];
    if (r.failedAt) {
      lines.push(`failing expression at ${r.failedAt.file}:${r.failedAt.row}:`);
      const text = sourceLine(r.failedAt.file, r.failedAt.row);
      if (text !== undefined) lines.push(`  ${text.trim()}`);
    }
    if (r.output)
      lines.push(
        "printed:",
        ...r.output
          .trimEnd()
          .split("\n")
          .map((l) => `  | ${l}`),
      );
    return lines.join("\n");
  };
  if (r.outcome === "error")
    return [
      {
        ...base,
        failure: {
          type: r.errorCode ?? "error",
          message: `${r.errorCode ?? "error"}: ${r.detail ?? ""}`,
          body: story(`error ${r.errorCode ?? ""}: ${r.detail ?? ""}`),
        },
      },
    ];
  if (r.subResults && r.subResults.size > 0) {
    // One case per leaf, as the summary counts them; the time is the whole test's, on its first case.
    return leaves(r.subResults, []).map(([path, sr], i) => ({
      name: `${r.test.name}/${path.join("/")}`,
      classname: r.test.pkg,
      time: i === 0 ? base.time : 0,
      ...(sr.fail
        ? { failure: { type: "fail", message: `case ${path.join("/")} failed`, body: story(`case ${path.join("/")} of ${r.test.name} failed`) } }
        : {}),
    }));
  }
  if (r.outcome === "pass") return [base];
  return [{ ...base, failure: { type: "fail", message: r.detail ?? "failed", body: story(`failed: ${r.detail ?? ""}`) } }];
}

function leaves(m: Map<string, SubResult>, prefix: string[]): Array<[string[], SubResult]> {
  return [...m.keys()].sort().flatMap((k) => {
    const sr = m.get(k)!;
    return sr.sub.size === 0 ? [[[...prefix, k], sr] as [string[], SubResult]] : leaves(sr.sub, [...prefix, k]);
  });
}
