/**
 * The lifecycle's page (`portcullis versions --html FILE`): every version on
 * one timeline (state colour, sunset marker, today), beside its traffic
 * trend over the removal window (requests per day), then the table the
 * decision is made from (state, sunset, days left, traffic, parity, ready
 * to remove, blocker, removal plan) and who still calls the deprecated
 * versions. Self-contained: inline SVG, no script, readable printed. The
 * numbers are those of `portcullis versions --json`.
 */
import { COLORS, esc, legend, page, table, tiles } from "../../report/html";
import type { VersionCaller } from "../versions/callers";
import type { VersionTrend } from "../versions/trend";
import type { ParityDefect, VersionLifecycle, VersionLifecycleState } from "../types";

/** What `portcullis versions --json` prints. */
export interface LifecycleReport {
  generatedAt: string;
  target: string;
  versions: VersionLifecycle[];
  parity: ParityDefect[];
  callers: VersionCaller[];
  trend: VersionTrend;
  notes: string[];
}

const STATE_COLORS: Record<VersionLifecycleState, string> = {
  Current: COLORS.allowed,
  Deprecated: COLORS.warn,
  Zombie: COLORS.denied,
  Unknown: "#6a1b9a",
  Retired: "#9e9e9e",
};
const DAY = 86_400_000;

export function lifecycleHtml(r: LifecycleReport): string {
  const now = Date.parse(r.generatedAt);
  const count = (state: VersionLifecycleState) => r.versions.filter((v) => v.state === state).length;
  const body = `
<h1>Portcullis API version lifecycle</h1>
<p class="meta">Target <code>${esc(r.target)}</code>, judged on ${esc(r.generatedAt.slice(0, 10))} (generated ${esc(r.generatedAt)}).
Traffic: requests per day over the last ${r.trend.days.length} days, the inventory's probes, test runs and health checks excluded.</p>
${tiles([
  { key: "versions", label: "versions", value: r.versions.length },
  { key: "current", label: "current", value: count("Current"), tone: "good" },
  { key: "deprecated", label: "deprecated", value: count("Deprecated"), tone: count("Deprecated") > 0 ? "warn" : undefined },
  { key: "zombie", label: "zombie", value: count("Zombie"), tone: count("Zombie") > 0 ? "bad" : undefined },
  { key: "unknown", label: "unknown", value: count("Unknown"), tone: count("Unknown") > 0 ? "bad" : undefined },
  { key: "ready", label: "ready to remove", value: r.versions.filter((v) => v.readyToRemove).length },
  { key: "parity", label: "parity defects", value: r.parity.length, tone: r.parity.length > 0 ? "bad" : undefined },
])}
<h2>Timeline</h2>
${legend([...Object.entries(STATE_COLORS).map(([name, color]) => ({ name, color })), { name: "today", color: COLORS.accent }])}
${timeline(r, now)}
<h2>Versions</h2>
${table(
  [
    "version",
    "owner",
    "state",
    "declared",
    "sunset",
    "days to sunset",
    "requests (window)",
    "last seen",
    "parity",
    "ready to remove",
    "blocker",
    "removal plan",
  ],
  r.versions.map((v) => [
    `<b>${esc(v.name)}</b>${v.client ? `<br><small>for ${esc(v.client)}</small>` : ""}`,
    esc(v.owner),
    `<span style="color:${STATE_COLORS[v.state]};font-weight:600">${esc(v.state)}</span>`,
    esc(v.declared ?? "-"),
    esc(v.sunset?.slice(0, 10) ?? "-"),
    v.sunset ? String(Math.ceil((Date.parse(v.sunset) - now) / DAY)) : "-",
    v.traffic.requests === null ? "unmeasured" : String(v.traffic.requests),
    esc(v.traffic.last_seen ?? "never"),
    esc(v.parity),
    v.readyToRemove ? "<b>yes</b>" : "no",
    esc(v.blocker),
    esc(v.removalPlan),
  ]),
  { numeric: [5, 6], attrs: 'id="versions-table"' },
)}
<h2>Who still calls deprecated versions</h2>
${
  r.callers.length === 0
    ? '<p class="empty">nobody measured in the window</p>'
    : table(
        ["version", "actor", "tenant", "client", "requests", "last seen"],
        r.callers.map((c) => [esc(c.version), esc(c.actor), esc(c.tenant ?? "-"), esc(c.client), String(c.requests), esc(c.lastSeen)]),
        { numeric: [4] },
      )
}
<h2>Security parity between versions</h2>
${
  r.parity.length === 0
    ? "<p>No drift between reachable versions.</p>"
    : table(
        ["route", "persona", "aspect", "versions", "detail"],
        r.parity.map((d) => [esc(d.route), esc(d.persona), esc(d.aspect), esc(d.versions.join(" / ")), esc(d.detail)]),
      )
}
${r.notes.length > 0 ? `<h2>Notes</h2><ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join("")}</ul>` : ""}`;
  return page({ title: "Portcullis API version lifecycle", body });
}

/**
 * One row per version: a bar in its state's colour up to its sunset (to the
 * right edge when it has none), the sunset marked and dated, a line for
 * today; on the right, the version's requests per day as small columns and
 * their sum (each on its own scale). The time axis spans 90 days back to at least 180 days ahead,
 * and further for a later sunset (up to two years; later ones are drawn at
 * the edge, their date still written).
 */
function timeline(r: LifecycleReport, now: number): string {
  const sunsets = r.versions.map((v) => (v.sunset ? Date.parse(v.sunset) : NaN)).filter((t) => !Number.isNaN(t));
  const start = Math.min(now - 90 * DAY, ...sunsets.map((t) => t - 30 * DAY));
  const end = Math.min(now + 730 * DAY, Math.max(now + 180 * DAY, ...sunsets.map((t) => t + 45 * DAY)));
  const labelW = 150,
    axisW = 620,
    trendX = labelW + axisW + 30,
    trendW = 150,
    rowH = 30,
    top = 26;
  const width = trendX + trendW + 70;
  const height = top + r.versions.length * rowH + 10;
  const x = (t: number) => labelW + (axisW * (Math.min(Math.max(t, start), end) - start)) / (end - start);
  // Month gridlines; labels only as often as they fit (January written as its year).
  const months: string[] = [];
  const monthPx = (axisW * 30 * DAY) / (end - start);
  const every = monthPx >= 26 ? 1 : monthPx >= 13 ? 2 : 3;
  for (let d = new Date(start); d.getTime() <= end; d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))) {
    const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    if (first < start) continue;
    const month = d.getUTCMonth();
    const label = month === 0 ? String(d.getUTCFullYear()) : month % every === 0 ? String(month + 1).padStart(2, "0") : "";
    months.push(
      `<line x1="${x(first)}" x2="${x(first)}" y1="${top - 6}" y2="${height - 6}" stroke="${COLORS.grid}"/>${label ? `<text x="${x(first)}" y="${top - 10}" text-anchor="middle"${month === 0 ? ' font-weight="600"' : ""}>${label}</text>` : ""}`,
    );
  }
  const days = r.trend.days.length;
  const rows = r.versions.map((v, i) => {
    const y = top + i * rowH;
    const sunset = v.sunset ? Date.parse(v.sunset) : null;
    const barEnd = sunset === null ? end : sunset;
    const color = STATE_COLORS[v.state];
    const past = sunset !== null && sunset <= now;
    const marker =
      sunset === null
        ? ""
        : `<path d="M${x(sunset)} ${y + 4} l6 8 l-6 8 l-6 -8 z" fill="#263238"/>` +
          `<text x="${x(sunset) + (x(sunset) > labelW + axisW - 110 ? -10 : 10)}" y="${y + 16}" text-anchor="${x(sunset) > labelW + axisW - 110 ? "end" : "start"}">sunset ${esc(v.sunset!.slice(0, 10))}${sunset > end ? " →" : ""}</text>`;
    const perDay = r.trend.versions[v.name] ?? null;
    const total = perDay === null ? null : perDay.reduce((a, b) => a + b, 0);
    const colW = trendW / Math.max(1, days);
    // Each version on its own scale: the shape of its trend matters, the sum beside it gives the size.
    const maxDay = Math.max(1, ...(perDay ?? []));
    const spark =
      perDay === null
        ? `<text x="${trendX}" y="${y + 16}" class="muted">${v.traffic.requests === null ? "unmeasured" : "no requests"}</text>`
        : `<g class="trend" data-days="${perDay.join(",")}">${perDay.map((n, d) => (n === 0 ? "" : `<rect x="${(trendX + d * colW).toFixed(1)}" y="${(y + 22 - (18 * n) / maxDay).toFixed(1)}" width="${Math.max(1, colW - 1).toFixed(1)}" height="${((18 * n) / maxDay).toFixed(1)}" fill="${color}"><title>${esc(`${r.trend.days[d]}: ${n}`)}</title></rect>`)).join("")}` +
          `<line x1="${trendX}" x2="${trendX + trendW}" y1="${y + 22}" y2="${y + 22}" stroke="#90a4ae"/></g>`;
    return (
      `<g data-version="${esc(v.name)}" data-state="${esc(v.state)}" data-sunset="${esc(v.sunset?.slice(0, 10) ?? "")}" data-requests="${total ?? ""}">` +
      `<text x="${labelW - 8}" y="${y + 16}" text-anchor="end"><tspan font-weight="600">${esc(v.name)}</tspan> ${esc(v.state)}</text>` +
      `<rect x="${x(start)}" y="${y + 6}" width="${Math.max(0, x(barEnd) - x(start)).toFixed(1)}" height="${rowH - 14}" fill="${color}" opacity="${past ? 0.45 : 0.85}"/>` +
      (sunset !== null && barEnd < end ? `<rect x="${x(barEnd)}" y="${y + 12}" width="${(x(end) - x(barEnd)).toFixed(1)}" height="4" fill="#e0e0e0"/>` : "") +
      marker +
      spark +
      `<text x="${trendX + trendW + 6}" y="${y + 16}">${total === null ? "" : total}</text></g>`
    );
  });
  const today = `<line x1="${x(now)}" x2="${x(now)}" y1="${top - 6}" y2="${height - 4}" stroke="${COLORS.accent}" stroke-width="2"/><text x="${x(now)}" y="${height + 8}" text-anchor="middle" fill="${COLORS.accent}">today</text>`;
  const head = `<text x="${trendX}" y="${top - 10}">requests per day (${days} days)</text>`;
  return (
    `<svg id="timeline" viewBox="0 0 ${width} ${height + 12}" width="${width}" height="${height + 12}" role="img" aria-label="version timeline" xmlns="http://www.w3.org/2000/svg">` +
    `<style>.muted{fill:#78909c}</style>${months.join("")}${rows.join("")}${today}${head}</svg>`
  );
}
