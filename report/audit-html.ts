/**
 * The auditor's page (`portcullis audit --html FILE`): one self-contained
 * HTML file, no script, readable printed. Headline numbers first, then
 * decisions over time (allowed vs denied), the most denied routes and
 * actors, the denial reasons, security events by kind, and the
 * BOLA/enumeration timeline with the newest such events. Every number comes
 * from the AuditSummary that `--json` prints, and every value is escaped:
 * actor ids, paths and event details can be an attacker's text.
 */
import type { AuditSummary } from "./audit";
import { COLORS, esc, legend, page, table, tiles } from "./html";
import { columns, hbars } from "./svg";

const BOLA_SERIES = [
  { key: "cross_tenant_id", name: "cross-tenant id", color: COLORS.denied },
  { key: "cross_owner_id", name: "cross-owner id (BOLA)", color: COLORS.warn },
  { key: "enumeration", name: "enumeration", color: "#6a1b9a" },
  { key: "no_row_in_scope", name: "allowed, no row in scope (404)", color: COLORS.neutral },
] as const;

export function auditHtml(s: AuditSummary): string {
  const d = s.decisions;
  const rate = d.total === 0 ? "0%" : `${((100 * d.denied) / d.total).toFixed(1)}%`;
  const bolaTotal = s.bola.timeline.reduce((sum, b) => sum + b.cross_tenant_id + b.cross_owner_id + b.enumeration, 0);
  const scope =
    typeof s.test_runs === "object"
      ? `only the requests of test run <code>${esc(s.test_runs.only)}</code>`
      : s.test_runs === "include"
        ? "all requests, verified test runs included"
        : `real traffic only: ${d.test_run_requests_left_out} request(s) of verified test runs (matrix, inventory probes) left out`;
  const startup = d.startup_checks_left_out > 0 ? ` ${d.startup_checks_left_out} decisions of the service's start-up policy probe (no request) left out.` : "";
  const notes = [
    d.truncated ? `Only the newest ${d.limit} decisions of the window were read (--limit): older ones are not counted.` : "",
    s.events.truncated ? `The security events store returned its maximum (${s.events.total}): older events of the window are not counted.` : "",
  ].filter((n) => n !== "");
  const body = `
<h1>Portcullis audit report</h1>
<p class="meta">Window: ${esc(s.window.since ?? "from the oldest record")} to ${esc(s.window.until)} (UTC, ${esc(s.window.bucket)}ly buckets).
${s.sources ? `Decision log <code>${esc(s.sources.decisions)}</code>, security events <code>${esc(s.sources.events)}</code>.` : ""}
Scope: ${scope}.${startup} Policy revisions seen: ${d.revisions.length > 0 ? d.revisions.map((r) => `<code>${esc(r)}</code>`).join(", ") : "none"}.</p>
${notes.map((n) => `<p class="note">${esc(n)}</p>`).join("")}
${tiles([
  { key: "total", label: "requests decided", value: d.total },
  { key: "allowed", label: "allowed", value: d.allowed, tone: "good" },
  { key: "denied", label: `denied (${rate})`, value: d.denied, tone: "bad" },
  { key: "actors_denied", label: "actors denied", value: d.distinct_actors_denied },
  { key: "events", label: "security events", value: s.events.total, tone: s.events.total > 0 ? "warn" : undefined },
  { key: "bola", label: "BOLA / enumeration events", value: bolaTotal, tone: bolaTotal > 0 ? "bad" : undefined },
])}
<p><small>Denied: the policy refused or was not asked (bad token, unknown version, rate limit), or the client got an error status, e.g. a read the
policy allowed whose scoped query found no row: <code>portcullis decisions --denied</code> lists the same requests.</small></p>

<h2>Decisions over time</h2>
<figure id="over-time"><figcaption>Allowed vs denied per ${esc(s.window.bucket)}</figcaption>
${legend([
  { name: "allowed", color: COLORS.allowed },
  { name: "denied", color: COLORS.denied },
])}
${columns(
  "decisions-over-time",
  s.over_time.map((b) => ({ label: b.start, short: short(b.start), values: [b.allowed, b.denied] })),
  [
    { name: "allowed", color: COLORS.allowed },
    { name: "denied", color: COLORS.denied },
  ],
)}
</figure>

<div class="grid">
<figure id="top-routes"><figcaption>Most denied routes</figcaption>
${hbars(
  "denied-routes",
  s.denied_by_route.map((r) => ({
    label: r.route,
    value: r.count,
    title: `${r.route}: ${Object.entries(r.reasons)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  })),
  COLORS.denied,
)}
</figure>
<figure id="top-actors"><figcaption>Most denied actors</figcaption>
${hbars(
  "denied-actors",
  s.denied_by_actor.map((a) => ({ label: a.actor, value: a.count })),
  COLORS.denied,
)}
</figure>
<figure id="reasons"><figcaption>Why requests were denied</figcaption>
${hbars(
  "denial-reasons",
  s.denial_reasons.map((r) => ({ label: r.reason, value: r.count })),
  COLORS.neutral,
)}
</figure>
<figure id="events"><figcaption>Security events by kind</figcaption>
${hbars(
  "events-by-kind",
  s.events.by_kind.map((k) => ({ label: k.kind, value: k.count })),
  COLORS.warn,
)}
</figure>
</div>

<h2>BOLA and enumeration timeline</h2>
<p><small>Object-level probing: ids of another tenant or another owner asked for, bursts of unknown ids (enumeration), and reads the policy allowed
whose scoped query found no row.</small></p>
<figure id="bola">
${legend(BOLA_SERIES.map((b) => ({ name: b.name, color: b.color })))}
${columns(
  "bola-timeline",
  s.bola.timeline.map((b) => ({ label: b.start, short: short(b.start), values: BOLA_SERIES.map((k) => b[k.key]) })),
  BOLA_SERIES.map((b) => ({ name: b.key, color: b.color })),
  { height: 180 },
)}
</figure>
<h3>Newest BOLA and enumeration events</h3>
${
  s.bola.recent.length === 0
    ? '<p class="empty">none in the window</p>'
    : table(
        ["time (UTC)", "kind", "actor", "tenant", "route", "decision id", "detail"],
        s.bola.recent.map((e) => [
          esc(e.at),
          esc(e.kind),
          esc(e.actor),
          esc(e.tenant ?? "-"),
          esc(e.route),
          `<code>${esc(e.decision_id ?? "-")}</code>`,
          `<code>${esc(JSON.stringify(e.detail))}</code>`,
        ]),
        { attrs: 'id="bola-events"' },
      )
}

<h2>Most denied routes, with reasons</h2>
${
  s.denied_by_route.length === 0
    ? '<p class="empty">no denials</p>'
    : table(
        ["route", "denied", "reasons"],
        s.denied_by_route.map((r) => [
          esc(r.route),
          String(r.count),
          esc(
            Object.entries(r.reasons)
              .sort((a, b) => b[1] - a[1])
              .map(([k, v]) => `${k} (${v})`)
              .join(", "),
          ),
        ]),
        { numeric: [1] },
      )
}
<p class="meta">Generated ${esc(s.generated_at)} by <code>portcullis audit</code>; the same numbers: <code>portcullis audit --json</code>.</p>`;
  return page({ title: "Portcullis audit report", body });
}

/** An axis label: `11-27 16h` for an hour bucket, `2026-11-27` for a day. */
function short(start: string): string {
  return start.length > 10 ? `${start.slice(5, 10)} ${start.slice(11, 13)}h` : start;
}
