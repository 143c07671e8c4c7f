/**
 * The inventory's page (`portcullis inventory --html FILE`): one
 * self-contained HTML file for the security team and auditors. What needs
 * action comes first: headline numbers, the findings (unacknowledged ones
 * on top), the risk distribution (by level, and by class for the risky
 * records); then the route table, compact, with filters (text, method,
 * version, class, risk, documented) that run in the page and keep their
 * state in the address (`#risk=critical&class=shadow`), so a filtered view
 * can be shared and printed; then versions, parity and notes.
 *
 * Every value is HTML-escaped (report/html.ts): paths, details and reasons
 * come from configuration, schemas and probes, and a report must not
 * execute them. The filter script reads only the page's own attributes.
 *
 *   fs.writeFileSync("inventory.html", inventoryHtml(result));
 */
import { COLORS, esc, legend, page, table, tiles } from "../../report/html";
import { hbars } from "../../report/svg";
import type { InventoryRecord, InventoryResult, RiskLevel } from "../types";

/** Kept for callers that escape their own fragments. */
export const escapeHtml = esc;

const LEVELS: RiskLevel[] = ["critical", "high", "medium", "low"];
const FILTERS = ["method", "version", "class", "risk", "documented"] as const;

export function inventoryHtml(r: InventoryResult): string {
  const byLevel = LEVELS.map((level) => ({ level, count: r.records.filter((x) => x.risk.level === level).length }));
  const risky = r.records.filter((x) => x.risk.level === "critical" || x.risk.level === "high");
  const byClass = count(risky.map((x) => x.class));
  const findingsByKind = count(r.findings.map((f) => f.kind));
  const failingIds = new Set(r.failing.map((f) => f.id));
  const findings = [...r.findings].sort(
    (a, b) => Number(failingIds.has(b.id)) - Number(failingIds.has(a.id)) || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0),
  );
  const undocumented = r.records.filter((x) => !x.documented).length;

  const body = `
<h1>Portcullis route inventory</h1>
<p class="meta">Target <code>${esc(r.target)}</code>, generated ${esc(r.generatedAt)}. <code>portcullis inventory --check</code> ${r.failing.length > 0 ? "<b>fails</b>" : "passes"}.</p>
${tiles([
  { key: "failing", label: "unacknowledged findings", value: r.failing.length, tone: r.failing.length > 0 ? "bad" : "good" },
  { key: "findings", label: "findings", value: r.findings.length, tone: r.findings.length > 0 ? "warn" : undefined },
  { key: "critical", label: "critical-risk records", value: byLevel[0].count, tone: byLevel[0].count > 0 ? "bad" : undefined },
  { key: "high", label: "high-risk records", value: byLevel[1].count, tone: byLevel[1].count > 0 ? "warn" : undefined },
  { key: "undocumented", label: "undocumented records", value: undocumented },
  { key: "records", label: "records", value: r.records.length },
  { key: "versions", label: "versions", value: r.versions.length },
])}

<h2 id="findings">Findings</h2>
${
  findings.length === 0
    ? '<p class="empty">No findings.</p>'
    : `
<div class="grid"><figure><figcaption>Findings by kind</figcaption>${hbars(
        "findings-by-kind",
        findingsByKind.map(([kind, n]) => ({ label: kind, value: n })),
        COLORS.warn,
      )}</figure></div>
${table(
  ["status", "finding", "detail", "acknowledgement"],
  findings.map((f) => [
    failingIds.has(f.id) ? '<b class="fail">FAIL</b>' : f.acknowledged ? "accepted" : "-",
    `<code>${esc(f.id)}</code>`,
    esc(f.detail),
    f.acknowledged ? esc(`${f.acknowledged.owner} until ${f.acknowledged.expires}: ${f.acknowledged.reason}`) : "-",
  ]),
  { attrs: 'id="findings-table"' },
)}`
}

<h2 id="risk">Risk distribution</h2>
<div class="grid">
<figure><figcaption>Records by risk level</figcaption>
${hbars(
  "risk-levels",
  byLevel.map((l) => ({ label: l.level, value: l.count, color: COLORS.risk[l.level] })),
  COLORS.neutral,
)}
</figure>
<figure><figcaption>Critical and high-risk records by class</figcaption>
${hbars(
  "risky-by-class",
  byClass.map(([cls, n]) => ({ label: cls, value: n })),
  COLORS.risk.high,
)}
</figure>
</div>

<h2 id="routes">Routes</h2>
<form class="filters noprint" id="filters" onsubmit="return false">
<input type="search" name="q" placeholder="filter: path, owner, route id..." aria-label="text filter">
${FILTERS.map((f) => select(f, r.records)).join("\n")}
<button type="reset">clear</button>
</form>
<p><span id="shown" data-total="${r.records.length}">${r.records.length} of ${r.records.length}</span> records shown. Each record's risk reasons, sources and next test: click its endpoint.</p>
${legend(LEVELS.map((l) => ({ name: l, color: COLORS.risk[l] })))}
<table id="routes-table"><thead><tr><th>method</th><th>endpoint</th><th>version</th><th>class</th><th>doc.</th><th>owner</th><th>risk</th><th>auth (anonymous / member)</th><th>last seen</th></tr></thead><tbody>
${r.records.map(row).join("\n")}
</tbody></table>

<h2 id="versions">Versions</h2>
${table(
  ["version", "owner", "declared", "state", "sunset", "probe", "traffic", "parity", "ready to remove", "blocker"],
  r.versions.map((v) => [
    esc(v.name),
    esc(v.owner),
    esc(v.declared ?? "-"),
    esc(v.state),
    esc(v.sunset ?? "-"),
    esc(`${v.probe.path}: ${v.probe.status} ${v.probe.result}`),
    v.traffic.requests === null ? "unmeasured" : esc(`${v.traffic.requests} in ${v.traffic.window_days} days (last ${v.traffic.last_seen ?? "never"})`),
    esc(v.parity),
    v.readyToRemove ? "<b>yes</b>" : "no",
    esc(v.blocker),
  ]),
)}
<p>Ready to remove: ${esc(
    r.versions
      .filter((v) => v.readyToRemove)
      .map((v) => v.name)
      .join(", ") || "none",
  )}. The lifecycle on a timeline: <code>portcullis versions --html FILE</code>.</p>
<h2>Security parity between versions</h2>
${
  r.parity.length === 0
    ? "<p>No drift between reachable versions.</p>"
    : table(
        ["route", "persona", "aspect", "versions", "detail"],
        r.parity.map((d) => [esc(d.route), esc(d.persona), esc(d.aspect), esc(d.versions.join(" / ")), esc(d.detail)]),
      )
}
<h2>Notes</h2>
<ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join("")}</ul>`;
  return page({ title: "Portcullis route inventory", body, style: STYLE, script: FILTER_SCRIPT });
}

function row(x: InventoryRecord): string {
  const data = { method: x.method, version: x.version, class: x.class, risk: x.risk.level, documented: x.documented ? "yes" : "no" };
  const text = [x.method, x.endpoint, x.version, x.class, x.owner, x.routeId ?? "", ...x.flags, ...x.sources].join(" ").toLowerCase();
  return (
    `<tr ${Object.entries(data)
      .map(([k, v]) => `data-${k}="${esc(v)}"`)
      .join(" ")} data-text="${esc(text)}">` +
    `<td>${esc(x.method)}</td>` +
    `<td><details><summary><code>${esc(x.endpoint)}</code></summary><small>route ${esc(x.routeId ?? "(none)")}; sources ${esc(x.sources.join(", "))}; ` +
    `${esc(x.traffic)} requests counted; next test: ${esc(x.nextTest)}<br>risk: ${esc(x.risk.reasons.join("; "))}</small></details></td>` +
    `<td>${esc(x.version)}</td><td>${esc(x.class)}${x.flags.length > 1 ? `<br><small>${esc(x.flags.filter((f) => f !== x.class).join(", "))}</small>` : ""}</td>` +
    `<td>${x.documented ? "yes" : "<b>no</b>"}</td><td>${esc(x.owner)}</td>` +
    `<td><span class="risk ${esc(x.risk.level)}" title="${esc(x.risk.reasons.join("; "))}">${esc(x.risk.level)} ${x.risk.score}</span></td>` +
    `<td>${esc(x.auth.summary)}</td><td><small>${esc(x.lastSeen)}</small></td></tr>`
  );
}

function select(name: (typeof FILTERS)[number], records: InventoryRecord[]): string {
  const values = [...new Set(records.map((x) => (name === "risk" ? x.risk.level : name === "documented" ? (x.documented ? "yes" : "no") : x[name])))];
  const ordered = name === "risk" ? LEVELS.filter((l) => values.includes(l)) : values.sort();
  return `<select name="${name}" aria-label="${name}"><option value="">${name}: all</option>${ordered.map((v) => `<option>${esc(v)}</option>`).join("")}</select>`;
}

function count(xs: string[]): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

const STYLE = `
.fail{color:${COLORS.denied}}
.risk{padding:0 4px;border-radius:3px;color:#fff;white-space:nowrap}
${LEVELS.map((l) => `.risk.${l}{background:${COLORS.risk[l]}}`).join("")}
.risk.medium{color:#000}
.filters{display:flex;flex-wrap:wrap;gap:.5em;margin:.5em 0;position:sticky;top:0;background:#fff;padding:.4em 0}
.filters input{flex:1 1 16em;padding:3px 6px}
#routes-table td:nth-child(2){max-width:30em}#routes-table code{white-space:nowrap}
details summary{cursor:pointer}
tr[hidden]{display:none}`;

/**
 * The route table's filters: every control narrows the rows by a data-*
 * attribute; the state lives in the address (#risk=high&q=invoices), read
 * on load and written on change, so a filtered view is a link.
 */
const FILTER_SCRIPT = `
(function () {
  var form = document.getElementById("filters");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#routes-table tbody tr"));
  var shown = document.getElementById("shown");
  function apply() {
    var q = form.elements.q.value.trim().toLowerCase();
    var wanted = {};
    ${JSON.stringify(FILTERS)}.forEach(function (name) { wanted[name] = form.elements[name].value; });
    var n = 0;
    rows.forEach(function (tr) {
      var ok = (q === "" || tr.getAttribute("data-text").indexOf(q) >= 0) && Object.keys(wanted).every(function (name) {
        return wanted[name] === "" || tr.getAttribute("data-" + name) === wanted[name];
      });
      tr.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n + " of " + rows.length;
    shown.setAttribute("data-shown", String(n));
  }
  function fromHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    Array.prototype.forEach.call(form.elements, function (el) { if (el.name) el.value = params.get(el.name) || ""; });
    apply();
  }
  function toHash() {
    var params = new URLSearchParams();
    Array.prototype.forEach.call(form.elements, function (el) { if (el.name && el.value) params.set(el.name, el.value); });
    history.replaceState(null, "", params.toString() ? "#" + params.toString() : location.pathname);
    apply();
  }
  form.addEventListener("input", toHash);
  form.addEventListener("change", toHash);
  form.addEventListener("reset", function () { setTimeout(toHash, 0); });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();`;
