/**
 * The auditor's page: one self-contained HTML file (inline CSS, no script,
 * no external asset) written to var/reports/matrix.html. One section per
 * route and method: rows are personas x targets (and field probes), columns
 * versions x path templates; every cell is coloured by its outcome, says
 * what was expected and what came back, and carries `data-cell` with its
 * id, so the page shows exactly the report's cells (the test counts them).
 * Each section also lists, per persona, which fields a read returns and a
 * write accepts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { RuleCoverage } from "./coverage";
import type { CellResult, MatrixReport } from "./run";

export const DEFAULT_HTML_REPORT = "var/reports/matrix.html";

export function writeHtmlReport(report: MatrixReport, file = DEFAULT_HTML_REPORT): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, htmlReport(report));
  return file;
}

const OUTCOMES: Array<[string, string, string]> = [
  ["pass", "pass", "the answer matched the matrix (status, fields, rows, re-read)"],
  ["unexpected_allow", "unexpected allow", "access the matrix denies was granted (or a denied write persisted, or extra fields/rows came back)"],
  ["unexpected_deny", "unexpected deny", "access the matrix allows was refused (or fields/rows missing)"],
  ["mismatch", "mismatch", "another difference (e.g. a different error status)"],
  ["n/a", "not applicable", "no request: the cell does not apply (reason shown)"],
  ["missing", "missing", "the registry serves an operation the matrix has no expectation for"],
];

export function htmlReport(report: MatrixReport): string {
  const s = report.summary;
  const sections = new Map<string, CellResult[]>();
  for (const c of report.cells.filter((c) => c.outcome !== "missing")) {
    const key = `${c.method} ${c.route}`;
    sections.set(key, [...(sections.get(key) ?? []), c]);
  }
  const failing = report.cells.filter((c) => c.outcome !== "pass" && c.outcome !== "n/a" && c.outcome !== "missing");
  const missing = report.cells.filter((c) => c.outcome === "missing");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Portcullis authorization matrix</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #bbb;padding:2px 5px;font-size:12px;vertical-align:top}
th{background:#eee;text-align:left}
td.cell{white-space:nowrap;text-align:center}
.pass{background:#c8f0c8}.unexpected_allow{background:#ff8a80;font-weight:bold}.unexpected_deny{background:#ffd180;font-weight:bold}
.mismatch{background:#d1c4e9;font-weight:bold}.na{background:#eceff1;color:#777}.missing{background:#000;color:#fff}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;border:1px solid #999}
code{font-size:12px}
</style></head><body>
<h1>Portcullis authorization matrix</h1>
<p>Matrix <code>${esc(report.matrix_file)}</code> run against <code>${esc(report.base_url)}</code> at ${esc(report.generated_at)};
operations from ${esc(report.source)}. Versions: ${report.versions.map(esc).join(", ")}.</p>
<p id="summary"><b>${s.cells}</b> cells: <b>${s.passed}</b> passed, <b>${s.failed}</b> failed, ${s.not_applicable} not applicable, ${s.missing} missing, ${s.stale} stale.</p>
<h2>Legend</h2><p class="legend">${OUTCOMES.map(([cls, label, what]) => `<span class="${cls === "n/a" ? "na" : cls}">${label}</span>${esc(what)}<br>`).join("")}</p>
<p>Each cell reads <i>expected</i> → <i>answer</i>: <code>allow</code> is the route's success status; <code>deny 404</code> a refusal with that status.
Rows are personas (user, role, tenant) and the object the request targets: <b>own</b> (the persona's row), <b>same_tenant</b> (another user's row
of the same tenant), <b>other_tenant</b> (a row of the other tenant), <b>none</b> (lists, searches, creation). Rows marked <b>+field</b>
send the same request with a field no one may write. Hover a cell for the request and the details.</p>
<h2>Personas</h2>
<table><tr><th>persona</th><th>role</th><th>tenant</th></tr>
${report.personas.map((p) => `<tr><td>${esc(p.id)}</td><td>${esc(p.role)}</td><td>${esc(p.tenant ?? "(none)")}</td></tr>`).join("\n")}</table>
${report.coverage ? coverageSection(report.coverage) : ""}
${failing.length + missing.length + report.setup_problems.length + report.restore_problems.length + report.stale.length > 0 ? `<h2>Failures</h2><ul>${[...report.setup_problems, ...report.restore_problems, ...report.stale].map((p) => `<li>${esc(p)}</li>`).join("")}${failing.map((c) => `<li class="${c.outcome}">${esc(c.id)}${c.object ? ` (${esc(c.object)})` : ""}: expected ${esc(c.expected)}, got ${c.status ?? "-"} ${esc(c.code ?? "")} — ${esc(c.detail)}</li>`).join("")}</ul>` : "<h2>Failures</h2><p>None.</p>"}
${missing.length > 0 ? `<h2>Missing cells</h2><table>${missing.map((c) => `<tr><td class="cell missing" data-cell="${esc(c.id)}">missing</td><td>${esc(c.detail)}</td></tr>`).join("")}</table>` : ""}
${[...sections].map(([key, cells]) => section(key, cells)).join("\n")}
</body></html>
`;
}

function section(key: string, cells: CellResult[]): string {
  const columns = unique(cells.map((c) => `${c.version}\u0000${c.template}`));
  const rows = unique(cells.map((c) => `${c.persona}\u0000${c.target}\u0000${c.probe ?? ""}`));
  const at = new Map(cells.map((c) => [`${c.persona}\u0000${c.target}\u0000${c.probe ?? ""}\u0001${c.version}\u0000${c.template}`, c]));
  const head = columns.map((col) => {
    const [version, template] = col.split("\u0000");
    return `<th>${esc(version)}<br><code>${esc(template)}</code></th>`;
  });
  const body = rows.map((row) => {
    const [persona, target, probe] = row.split("\u0000");
    const first = cells.find((c) => c.persona === persona);
    const tds = columns.map((col) => {
      const c = at.get(`${row}\u0001${col}`);
      return c ? cellTd(c) : "<td></td>";
    });
    return `<tr><th>${esc(persona)} <small>(${esc(first?.role ?? "")}, ${esc(first?.tenant ?? "no tenant")})</small></th><th>${esc(target)}${probe ? ` +${esc(probe)}` : ""}</th>${tds.join("")}</tr>`;
  });
  const fields = unique(
    cells.filter((c) => !c.probe).map((c) => `${c.persona}\u0000${(c.read_fields ?? []).join(", ")}\u0000${(c.write_fields ?? []).join(", ")}`),
  ).map((f) => {
    const [persona, read, write] = f.split("\u0000");
    return `<tr><td>${esc(persona)}</td><td>${esc(read || "—")}</td><td>${esc(write || "—")}</td></tr>`;
  });
  return `<h2 id="${esc(key.replace(/\s+/g, "-"))}">${esc(key)}</h2>
<table><tr><th>persona</th><th>target</th>${head.join("")}</tr>
${body.join("\n")}</table>
<table><tr><th>persona</th><th>fields a read returns (when allowed)</th><th>fields a write accepts</th></tr>${fields.join("")}</table>`;
}

function cellTd(c: CellResult): string {
  const cls = c.outcome === "n/a" ? "na" : c.outcome;
  const answer = c.status === null ? "" : ` → ${c.status}`;
  const mark = c.outcome === "pass" ? "✓" : c.outcome === "n/a" ? "" : "✗";
  const title = [
    c.id,
    c.object ? `object: ${c.object}` : "",
    c.request ? `request: ${c.request}` : "",
    `expected: ${c.expected}${c.expected_status ? ` (${c.expected_status})` : ""}`,
    c.status === null ? "" : `answer: ${c.status}${c.code ? ` ${c.code}` : ""}`,
    c.detail,
  ]
    .filter((x) => x !== "")
    .join("\n");
  const label = c.outcome === "n/a" ? "n/a" : `${c.expected.startsWith("allow") ? "allow" : c.expected.replace(/^deny (\d+).*/, "deny $1")}${answer}`;
  return `<td class="cell ${cls}" data-cell="${esc(c.id)}" title="${esc(title)}">${mark} ${esc(label)}${c.object ? `<br><small>${esc(c.object)}</small>` : ""}</td>`;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Rule coverage (./coverage.ts): the rules no cell reached are findings. */
function coverageSection(c: RuleCoverage): string {
  const list = c.unreached.map((r) => `<tr><td><code>${esc(r.rule)}</code></td><td><code>${esc(r.file)}:${r.row}</code></td></tr>`).join("\n");
  return `<h2>Policy rules exercised</h2>
<p id="coverage"><b>${c.reached}</b> of <b>${c.rules}</b> rule definitions of bundle <code>${esc(c.revision)}</code> produced a value for some cell
(${c.inputs} cells' recorded inputs evaluated on an instrumented compilation; ${c.cells_without_input} cells without one${c.errors > 0 ? `; ${c.errors} evaluations failed` : ""}).</p>
${c.unreached.length > 0 ? `<h3>Findings: rules no cell reaches (${c.unreached.length})</h3><table id="unreached"><tr><th>rule</th><th>where</th></tr>\n${list}</table>` : "<p>Every rule is reached by some cell.</p>"}`;
}
