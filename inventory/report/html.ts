/**
 * The auditor's report: one self-contained HTML file (inline CSS, no
 * scripts, no external resources), so it can be attached to an audit as is.
 * Every value is HTML-escaped: paths, details and reasons come from
 * configuration, schemas and probes, and a report must not execute them.
 *
 *   fs.writeFileSync("inventory.html", inventoryHtml(result));
 */
import type { InventoryResult } from "../types";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

function rows(header: string[], body: string[][]): string {
  const th = header.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const tr = body.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

const e = escapeHtml;

export function inventoryHtml(r: InventoryResult): string {
  const failing = r.failing.length;
  const records = rows(
    ["Method", "Endpoint", "Version", "Class", "Documented", "Owner", "Risk", "Auth (anonymous / member)", "Sources", "Last seen", "Next test"],
    r.records.map((x) => [
      e(x.method), `<code>${e(x.endpoint)}</code>`, e(x.version), e(x.class) + (x.flags.length > 1 ? `<br><small>${e(x.flags.join(", "))}</small>` : ""),
      x.documented ? "yes" : "<b>no</b>", e(x.owner),
      `<span class="risk ${e(x.risk.level)}">${e(x.risk.level)} (${x.risk.score})</span><br><small>${e(x.risk.reasons.join("; "))}</small>`,
      e(x.auth.summary), e(x.sources.join(", ")), e(x.lastSeen), e(x.nextTest),
    ]),
  );
  const versions = rows(
    ["Version", "Owner", "Declared", "State", "Sunset", "Probe", "Traffic", "Parity", "Ready to remove", "Blocker", "Removal plan"],
    r.versions.map((v) => [
      e(v.name), e(v.owner), e(v.declared ?? "-"), e(v.state), e(v.sunset ?? "-"), e(`${v.probe.path}: ${v.probe.status} ${v.probe.result}`),
      v.traffic.requests === null ? "unmeasured" : e(`${v.traffic.requests} in ${v.traffic.window_days} days (last ${v.traffic.last_seen ?? "never"})`),
      e(v.parity), v.readyToRemove ? "<b>yes</b>" : "no", e(v.blocker), e(v.removalPlan),
    ]),
  );
  const parity = r.parity.length === 0
    ? "<p>No drift between reachable versions.</p>"
    : rows(["Route", "Persona", "Aspect", "Versions", "Detail"], r.parity.map((d) => [e(d.route), e(d.persona), e(d.aspect), e(d.versions.join(" / ")), e(d.detail)]));
  const findings = rows(
    ["Status", "Finding", "Detail", "Acknowledgement"],
    r.findings.map((f) => [
      f.acknowledged ? "accepted" : '<b class="fail">FAIL</b>', `<code>${e(f.id)}</code>`, e(f.detail),
      f.acknowledged ? e(`${f.acknowledged.owner} until ${f.acknowledged.expires}: ${f.acknowledged.reason}`) : "-",
    ]),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Portcullis route inventory</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0;width:100%}th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f0f0f0}code{font-size:13px}small{color:#555}.fail{color:#b00}
.risk.low{color:#070}.risk.medium{color:#a60}.risk.high{color:#c30}.risk.critical{color:#fff;background:#b00;padding:0 3px}
</style></head><body>
<h1>Portcullis route inventory</h1>
<p>Target: <code>${e(r.target)}</code>. Generated ${e(r.generatedAt)}. ${r.records.length} records, ${r.versions.length} versions,
${r.findings.length} findings, <b>${failing} unacknowledged</b> (<code>--check</code> ${failing > 0 ? "fails" : "passes"}).</p>
<h2>Routes</h2>
${records}
<h2>Versions</h2>
${versions}
<p>Ready to remove: ${e(r.versions.filter((v) => v.readyToRemove).map((v) => v.name).join(", ") || "none")}.</p>
<h2>Security parity between versions</h2>
${parity}
<h2>Findings</h2>
${findings}
<h2>Notes</h2>
<ul>${r.notes.map((n) => `<li>${e(n)}</li>`).join("")}</ul>
</body></html>
`;
}
