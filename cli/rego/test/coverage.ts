/**
 * OPA's coverage report (its `cover` package), from the probes a test run hit:
 *
 *   {"files": {"rego/authz.rego": {"covered": [{"start": {"row": 3}, "end": {"row": 5}}],
 *                                  "not_covered": [{"start": {"row": 9}, "end": {"row": 9}}],
 *                                  "covered_lines": 3, "not_covered_lines": 1, "coverage": 75}},
 *    "covered_lines": 3, "not_covered_lines": 1, "coverage": 75}
 *
 * A line is covered when an expression on it was reached or a rule whose
 * head is on it succeeded; not covered when it holds a rule head or an
 * expression (a `some` declaration excepted) and nothing on it was covered.
 * Percentages are rounded as OPA's `round(x, 2)` does: to steps of 0.05
 * (`math.Round(x*10*2) / (10*2)`), so the figures match `opa test --coverage`.
 */
import type { Probe } from "@portcullis/rego-wasm";

export interface Range {
  start: { row: number };
  end: { row: number };
}

export interface FileReport {
  covered?: Range[];
  not_covered?: Range[];
  covered_lines?: number;
  not_covered_lines?: number;
  coverage?: number;
}

export interface CoverageReport {
  files: Record<string, FileReport>;
  covered_lines: number;
  not_covered_lines: number;
  coverage: number;
}

export function coverageReport(files: string[], probes: Probe[], hits: ReadonlySet<number>): CoverageReport {
  const covered = new Map<string, Set<number>>(files.map((f) => [f, new Set()]));
  const candidates = new Map<string, Set<number>>(files.map((f) => [f, new Set()]));
  for (const p of probes) {
    if (hits.has(p.id)) covered.get(p.loc.file)?.add(p.loc.row);
    if (p.kind === "head" || !p.declaration) candidates.get(p.loc.file)?.add(p.loc.row);
  }
  const report: CoverageReport = { files: {}, covered_lines: 0, not_covered_lines: 0, coverage: 0 };
  for (const file of [...files].sort()) {
    const hitRows = covered.get(file)!;
    const missed = [...candidates.get(file)!].filter((row) => !hitRows.has(row));
    const fr: FileReport = {};
    const coveredRanges = ranges([...hitRows]);
    const missedRanges = ranges(missed);
    const nCovered = lineCount(coveredRanges);
    const nMissed = lineCount(missedRanges);
    if (coveredRanges.length) fr.covered = coveredRanges;
    if (missedRanges.length) fr.not_covered = missedRanges;
    if (nCovered) fr.covered_lines = nCovered;
    if (nMissed) fr.not_covered_lines = nMissed;
    const pct = nCovered + nMissed === 0 ? 0 : opaRound((100 * nCovered) / (nCovered + nMissed));
    if (pct) fr.coverage = pct;
    report.files[file] = fr;
    report.covered_lines += nCovered;
    report.not_covered_lines += nMissed;
  }
  const total = report.covered_lines + report.not_covered_lines;
  report.coverage = total === 0 ? 0 : opaRound((100 * report.covered_lines) / total);
  return report;
}

/** Sorted rows folded into runs of consecutive rows. */
function ranges(rows: number[]): Range[] {
  const out: Range[] = [];
  for (const row of [...new Set(rows)].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && row === last.end.row + 1) last.end.row = row;
    else out.push({ start: { row }, end: { row } });
  }
  return out;
}

function lineCount(rs: Range[]): number {
  return rs.reduce((n, r) => n + r.end.row - r.start.row + 1, 0);
}

/** OPA's cover.round(x, 2): math.Round(x*10*2) / (10*2), half away from zero. */
function opaRound(x: number): number {
  return Math.round(x * 20) / 20;
}
