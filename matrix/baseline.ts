/**
 * `portcullis matrix --baseline FILE`: what changed since a previous run,
 * read from that run's `--json` output and matched cell by cell on the
 * cell id (method, route, version, path template, persona, target, probe).
 *
 *   newly failing   failing now, passing or n/a in the baseline (a regression)
 *   newly passing   passing now, failing in the baseline (a fix)
 *   still failing   failing in both, the same way (a known failure)
 *   changed failure failing in both, differently (e.g. unexpected deny became unexpected allow)
 *   added/removed   cells only in this run / only in the baseline (a new
 *                   route, version or persona; a removed one)
 *   expectation     the matrix's expectation for a cell changed (e.g.
 *                   `deny 403` became `allow`): a reviewer must see it even
 *                   when the cell passes
 *
 * Exit code with --baseline (a ratchet for CI, README "The authorization
 * matrix"): 1 when the run is worse than the baseline, i.e. a newly failing
 * cell, an added cell that fails, a changed failure, or a problem of the
 * run itself (setup, persona restore, stale entry) the baseline did not
 * have; 0 otherwise, known failures included. The JUnit file and the terminal report still show every
 * failure: the baseline decides the exit code, it never hides a cell.
 */
import * as fs from "node:fs";
import type { CellResult, MatrixReport } from "./run";

type Outcome = CellResult["outcome"];

export interface CellChange {
  id: string;
  before: { outcome: Outcome; expected: string; status: number | null; code: string | null } | null;
  after: { outcome: Outcome; expected: string; status: number | null; code: string | null } | null;
}

export interface BaselineDiff {
  baseline_file: string;
  baseline_generated_at: string;
  newly_failing: CellChange[];
  newly_passing: CellChange[];
  changed_failure: CellChange[];
  still_failing: CellChange[];
  added: CellChange[];
  removed: CellChange[];
  expectation_changed: CellChange[];
  /** Problems of the run itself (setup, persona restore, stale entries) the baseline did not have. */
  new_run_problems: string[];
  /** ... and those it had too. */
  known_run_problems: string[];
  /** True when the run is worse than the baseline: the exit code is 1. */
  worse: boolean;
}

export class BaselineError extends Error {
  readonly code = "MATRIX_BAD_BASELINE";
}

/** Reads a previous `portcullis matrix --json` output; anything else is a BaselineError naming the file and what is wrong. */
export function readBaseline(file: string): MatrixReport {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new BaselineError(`--baseline ${file}: cannot read a JSON matrix report (${(err as Error).message})`);
  }
  const report = raw as Partial<MatrixReport>;
  if (typeof raw !== "object" || raw === null || !Array.isArray(report.cells) || typeof report.generated_at !== "string") {
    throw new BaselineError(`--baseline ${file}: not the output of \`portcullis matrix --json\` (no cells or generated_at)`);
  }
  report.cells.forEach((c, i) => {
    if (typeof c?.id !== "string" || typeof c.outcome !== "string" || typeof c.expected !== "string") {
      throw new BaselineError(`--baseline ${file}: cells[${i}] has no id, outcome or expected`);
    }
  });
  return report as MatrixReport;
}

const failing = (o: Outcome) => o !== "pass" && o !== "n/a";

export function diffBaseline(current: MatrixReport, baseline: MatrixReport, baselineFile: string): BaselineDiff {
  const before = new Map(baseline.cells.map((c) => [c.id, c]));
  const after = new Map(current.cells.map((c) => [c.id, c]));
  const view = (c: CellResult | undefined) => (c ? { outcome: c.outcome, expected: c.expected, status: c.status, code: c.code } : null);
  const diff: BaselineDiff = {
    baseline_file: baselineFile,
    baseline_generated_at: baseline.generated_at,
    newly_failing: [],
    newly_passing: [],
    changed_failure: [],
    still_failing: [],
    added: [],
    removed: [],
    expectation_changed: [],
    new_run_problems: [],
    known_run_problems: [],
    worse: false,
  };
  const problems = (r: MatrixReport) => [...(r.setup_problems ?? []), ...(r.restore_problems ?? []), ...(r.stale ?? [])];
  const knownProblems = new Set(problems(baseline));
  for (const p of problems(current)) (knownProblems.has(p) ? diff.known_run_problems : diff.new_run_problems).push(p);
  for (const [id, now] of after) {
    const was = before.get(id);
    const change = { id, before: view(was), after: view(now) };
    if (!was) {
      diff.added.push(change);
      if (failing(now.outcome)) diff.newly_failing.push(change);
      continue;
    }
    if (was.expected !== now.expected) diff.expectation_changed.push(change);
    if (failing(now.outcome) && !failing(was.outcome)) diff.newly_failing.push(change);
    else if (!failing(now.outcome) && failing(was.outcome)) diff.newly_passing.push(change);
    else if (failing(now.outcome) && (was.outcome !== now.outcome || was.status !== now.status || was.code !== now.code)) diff.changed_failure.push(change);
    else if (failing(now.outcome)) diff.still_failing.push(change);
  }
  for (const [id, was] of before) if (!after.has(id)) diff.removed.push({ id, before: view(was), after: null });
  diff.worse = diff.newly_failing.length + diff.changed_failure.length + diff.new_run_problems.length > 0;
  return diff;
}

/** The terminal text: counts first, then each changed cell by name. */
export function baselineText(diff: BaselineDiff): string {
  const show = (c: CellChange["before"]) =>
    c ? `${c.outcome} (expected ${c.expected}${c.status === null ? "" : `, got ${c.status}${c.code ? ` ${c.code}` : ""}`})` : "absent";
  const lines = [
    `against baseline ${diff.baseline_file} (run ${diff.baseline_generated_at}):`,
    `  ${diff.newly_failing.length} newly failing, ${diff.newly_passing.length} newly passing, ${diff.changed_failure.length} failing differently, ` +
      `${diff.still_failing.length} still failing, ${diff.added.length} added, ${diff.removed.length} removed, ${diff.expectation_changed.length} expectations changed, ` +
      `${diff.new_run_problems.length} new run problems (${diff.known_run_problems.length} known)`,
  ];
  const group = (title: string, changes: CellChange[], line: (c: CellChange) => string) => {
    if (changes.length > 0) lines.push(`${title}:`, ...changes.map((c) => `  ${line(c)}`));
  };
  group("NEWLY FAILING", diff.newly_failing, (c) => `${c.id}: ${show(c.before)} -> ${show(c.after)}`);
  group("FAILING DIFFERENTLY", diff.changed_failure, (c) => `${c.id}: ${show(c.before)} -> ${show(c.after)}`);
  group("newly passing", diff.newly_passing, (c) => `${c.id}: ${show(c.before)} -> ${show(c.after)}`);
  group("expectation changed", diff.expectation_changed, (c) => `${c.id}: ${c.before?.expected} -> ${c.after?.expected}`);
  group("added", diff.added, (c) => `${c.id}: ${show(c.after)}`);
  group("removed", diff.removed, (c) => `${c.id}: was ${show(c.before)}`);
  if (diff.new_run_problems.length > 0) lines.push("NEW RUN PROBLEMS:", ...diff.new_run_problems.map((p) => `  ${p}`));
  lines.push(diff.worse ? "WORSE than the baseline: exit 1" : "not worse than the baseline");
  return lines.join("\n");
}
