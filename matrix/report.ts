/**
 * The terminal report: a summary, one line per route (cells, passed,
 * failed, n/a, per outcome), then every failing cell by name with what was
 * expected and what came back. `--json` prints the MatrixReport itself
 * (every expanded cell, explicit); the HTML page is html.ts.
 */
import type { CellResult, MatrixReport } from "./run";

export function terminalReport(report: MatrixReport, options: { allCells?: boolean } = {}): string {
  const s = report.summary;
  const roles = new Map<string, string[]>();
  for (const p of report.personas) roles.set(p.role, [...(roles.get(p.role) ?? []), p.id]);
  const tenants = [...new Set(report.personas.map((p) => p.tenant).filter((t): t is string => t !== null))];
  const lines: string[] = [
    `authorization matrix: ${report.matrix_file}`,
    `against ${report.base_url} (operations from ${report.source})`,
    `versions: ${report.versions.join(", ")}`,
    `tenants: ${tenants.join(", ")}`,
    ...[...roles].map(([role, ids]) => `  ${role.padEnd(9)} ${ids.join(", ")}`),
    "",
  ];
  const rows: string[][] = [["route", "method", "cells", "pass", "n/a", "unexp.allow", "unexp.deny", "mismatch", "missing"]];
  const byRoute = new Map<string, CellResult[]>();
  for (const c of report.cells) {
    const key = `${c.route}\t${c.method}`;
    byRoute.set(key, [...(byRoute.get(key) ?? []), c]);
  }
  for (const [key, cells] of byRoute) {
    const n = (o: string) => String(cells.filter((c) => c.outcome === o).length);
    rows.push([...key.split("\t"), String(cells.length), n("pass"), n("n/a"), n("unexpected_allow"), n("unexpected_deny"), n("mismatch"), n("missing")]);
  }
  lines.push(...table(rows), "");
  const failing = report.cells.filter((c) => c.outcome !== "pass" && c.outcome !== "n/a");
  for (const c of options.allCells ? report.cells : failing) lines.push(cellLine(c));
  for (const p of [...report.setup_problems, ...report.restore_problems, ...report.stale]) lines.push(`FAIL ${p}`);
  const cov = report.coverage;
  if (cov) {
    lines.push(
      "",
      `policy rules exercised: ${cov.reached} of ${cov.rules} (bundle ${cov.revision}; ${cov.inputs} cells' inputs evaluated, ${cov.cells_without_input} cells without one${cov.errors > 0 ? `, ${cov.errors} evaluations failed` : ""})`,
    );
    for (const r of cov.unreached) lines.push(`FINDING rule no cell reaches: ${r.rule} (${r.file}:${r.row})`);
  }
  lines.push("", "changed on the instance by this run:", ...report.changes.map((c) => `  ${c}`));
  lines.push(
    "",
    `${s.cells} cells: ${s.passed} passed, ${s.failed} failed, ${s.not_applicable} not applicable, ${s.missing} missing, ${s.stale} stale` +
      ` (${s.requests} requests${s.rate_limit_wait_sec > 0 ? `, ${s.rate_limit_wait_sec}s waiting for rate limits` : ""})`,
  );
  return lines.join("\n");
}

export function cellLine(c: CellResult): string {
  const mark = c.outcome === "pass" ? "ok  " : c.outcome === "n/a" ? "n/a " : "FAIL";
  const object = c.object ? `(${c.object})` : "";
  const got = c.status === null ? "" : ` got ${c.status}${c.code ? ` ${c.code}` : ""}`;
  return `${mark} ${c.outcome === "missing" ? c.detail : `${c.id}${object}: expected ${c.expected}${got}${c.outcome === "pass" ? "" : ` [${c.outcome}] ${c.detail}`}`}`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r, j) => {
    const line = r.map((v, i) => (i < 2 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ");
    return j === 0 ? `${line}\n${"-".repeat(line.length)}` : line;
  });
}
