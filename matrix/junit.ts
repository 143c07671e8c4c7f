/**
 * The matrix as JUnit XML (`portcullis matrix --junit FILE`): one testsuite
 * per route and method, one testcase per cell. A failing cell's failure says
 * what the matrix expected, what came back and the request that was sent;
 * an n/a cell is skipped with its reason; a missing cell (an operation the
 * matrix has no expectation for) fails. Problems of the run itself (setup,
 * persona restore, stale matrix entries) fail in a suite of their own, so a
 * CI server shows them even when every cell passed.
 */
import { writeJUnit, type JUnitCase, type JUnitReport, type JUnitSuite } from "../report/junit";
import type { CellResult, MatrixReport } from "./run";

export function matrixJUnit(report: MatrixReport): JUnitReport {
  const suites = new Map<string, JUnitCase[]>();
  for (const c of report.cells) {
    const suite = `${c.method} ${c.route}`;
    suites.set(suite, [...(suites.get(suite) ?? []), cellCase(c, suite)]);
  }
  const properties = {
    base_url: report.base_url,
    matrix_file: report.matrix_file,
    source: report.source,
    versions: report.versions.join(", "),
    test_run: report.test_run ?? "",
  };
  const out: JUnitSuite[] = [...suites].map(([name, cases]) => ({ name, cases, timestamp: report.generated_at, properties }));
  const runProblems = [
    ...report.setup_problems.map((p) => ["setup", p]),
    ...report.restore_problems.map((p) => ["restore", p]),
    ...report.stale.map((p) => ["stale", p]),
  ];
  out.push({
    name: "matrix run",
    timestamp: report.generated_at,
    properties,
    cases:
      runProblems.length === 0
        ? [{ name: "setup, persona restore and stale entries", classname: "matrix run" }]
        : runProblems.map(([type, p], i) => ({ name: `${type} ${i + 1}: ${p}`, classname: "matrix run", failure: { type, message: p, body: p } })),
  });
  return { name: `authorization matrix against ${report.base_url}`, suites: out };
}

export function writeMatrixJUnit(report: MatrixReport, file: string): string {
  return writeJUnit(file, matrixJUnit(report));
}

function cellCase(c: CellResult, classname: string): JUnitCase {
  const tc: JUnitCase = { name: c.id, classname };
  if (c.outcome === "pass") return tc;
  if (c.outcome === "n/a") return { ...tc, skipped: c.expected.replace(/^n\/a:\s*/, "") };
  const actual = c.status === null ? "no answer" : `${c.status}${c.code ? ` ${c.code}` : ""}`;
  const message =
    c.outcome === "missing" ? `missing: ${c.detail}` : `expected ${c.expected}${c.expected_status ? ` (${c.expected_status})` : ""}, got ${actual}`;
  const body = [
    `outcome:  ${c.outcome}`,
    `expected: ${c.expected}${c.expected_status ? ` (status ${c.expected_status})` : ""}`,
    `actual:   ${actual}`,
    c.request ? `request:  ${c.request}` : "",
    c.persona
      ? `persona:  ${c.persona} (${c.role}, ${c.tenant ?? "no tenant"}), target ${c.target}${c.object ? `, object ${c.object}` : ""}${c.probe ? `, probe field ${c.probe}` : ""}`
      : "",
    c.detail ? `detail:   ${c.detail}` : "",
  ]
    .filter((line) => line !== "")
    .join("\n");
  return { ...tc, failure: { type: c.outcome, message, body } };
}
