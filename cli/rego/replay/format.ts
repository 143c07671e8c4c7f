/**
 * The replay report for people: a few terminal lines (format) and one
 * self-contained HTML page (html), both drawn from the JSON report alone.
 */
import { COLORS, esc, page, table, tiles } from "../../../report/html";
import { printable } from "../../events";
import type { Answer, FlipGroup, ReplayReport } from "./replay";

export function format(r: ReplayReport): string {
  const n = r.not_replayable;
  const lines = [
    `candidate ${r.candidate.revision || "(no revision)"} (${r.candidate.source}): ${r.read} logged decision${r.read === 1 ? "" : "s"} read${r.since ? ` since ${r.since}` : ""}${r.truncated ? ` (the newest ${r.limit}: --limit N for more)` : ""}`,
    `replayed ${r.replayed}: ${r.unchanged} unchanged, ${r.flips} flipped`,
    `not replayable: ${n.refused_before_policy} refused before the policy, ${n.not_logged} not logged, ${n.startup_checks} start-up probes, ${n.input_erased} with the input erased`,
  ];
  if (r.masked.replayed > 0)
    lines.push(`MASKED: ${r.masked.replayed} replayed on a masked input or result (${r.masked.flips} of them flipped): their answers are not trustworthy`);
  for (const g of r.groups) {
    lines.push(
      "",
      printable(
        `${g.kind.toUpperCase()} x${g.count}  route ${g.route}  roles ${g.roles}  reason ${g.reason.before} -> ${g.reason.after}${g.changes.length > 1 ? `  (also ${g.changes.slice(1).join(", ")})` : ""}${g.masked > 0 ? `  [${g.masked} masked]` : ""}`,
      ),
    );
    for (const e of g.examples) {
      lines.push(
        printable(
          `  ${e.decision_id}  ${e.timestamp}  ${e.actor}  ${answer(e.before)} -> ${answer(e.after)}${e.masked.length > 0 ? `  MASKED ${e.masked.join(" ")}` : ""}`,
        ),
      );
    }
  }
  if (r.fail_on.kinds.length > 0)
    lines.push(
      "",
      `--fail-on ${r.fail_on.kinds.join(",")}: ${r.fail_on.matched} matching flip${r.fail_on.matched === 1 ? "" : "s"}: ${r.fail_on.failed ? "FAIL" : "pass"}`,
    );
  return lines.join("\n");
}

function answer(a: Answer): string {
  return `${a.allow ? "allow" : "deny"} ${a.status} ${a.reason}`;
}

export function html(r: ReplayReport): string {
  const n = r.not_replayable;
  const open = r.by_kind["deny-to-allow"];
  const body = [
    `<h1>Policy replay: ${esc(r.candidate.revision || "(no revision)")}</h1>`,
    `<p class="meta">${esc(r.candidate.source)} against ${r.read} logged decisions${r.since ? ` since ${esc(r.since)}` : ""}${r.truncated ? ` (the newest ${r.limit} only)` : ""}</p>`,
    tiles([
      { key: "replayed", label: "replayed", value: r.replayed },
      { key: "unchanged", label: "unchanged", value: r.unchanged, tone: "good" },
      { key: "flips", label: "flipped", value: r.flips, tone: r.flips > 0 ? "warn" : "good" },
      { key: "deny-to-allow", label: "deny → allow", value: open, tone: open > 0 ? "bad" : "good" },
      { key: "allow-to-deny", label: "allow → deny", value: r.by_kind["allow-to-deny"], tone: r.by_kind["allow-to-deny"] > 0 ? "warn" : "good" },
      { key: "masked", label: "masked (not trustworthy)", value: r.masked.replayed, tone: r.masked.replayed > 0 ? "warn" : undefined },
    ]),
    r.fail_on.kinds.length > 0
      ? `<p data-fail-on="${r.fail_on.failed ? "fail" : "pass"}"><b style="color:${r.fail_on.failed ? COLORS.denied : COLORS.allowed}">--fail-on ${esc(r.fail_on.kinds.join(","))}: ${r.fail_on.matched} matching: ${r.fail_on.failed ? "FAIL" : "pass"}</b></p>`
      : "",
    `<h2>Flips by route, role and reason</h2>`,
    r.groups.length === 0
      ? `<p>No flip: the candidate answers every replayed decision as recorded.</p>`
      : table(["change", "route", "roles", "reason before → after", "count", "masked"], r.groups.map(groupRow), { numeric: [4, 5], attrs: 'id="groups"' }),
    ...r.groups.map(examples),
    `<h2>Not replayed</h2>`,
    table(
      ["why", "count"],
      [
        ["refused before the policy (no policy input)", String(n.refused_before_policy)],
        ["outcome without a logged decision (dropped or lost)", String(n.not_logged)],
        ["the service's start-up policy probes", String(n.startup_checks)],
        ["input erased whole (mask fail-safe)", String(n.input_erased)],
      ],
      { numeric: [1] },
    ),
  ].join("\n");
  return page({ title: `Portcullis replay: ${r.candidate.revision}`, body });
}

function groupRow(g: FlipGroup): string[] {
  const color = g.kind === "deny-to-allow" ? COLORS.denied : g.kind === "allow-to-deny" ? COLORS.warn : COLORS.neutral;
  return [
    `<b style="color:${color}">${esc(g.changes.join(", "))}</b>`,
    esc(g.route),
    esc(g.roles),
    `${esc(g.reason.before)} → ${esc(g.reason.after)}`,
    String(g.count),
    String(g.masked),
  ];
}

function examples(g: FlipGroup): string {
  const rows = g.examples.map((e) => [
    esc(e.decision_id),
    esc(e.timestamp),
    esc(e.actor),
    esc(answer(e.before)),
    esc(answer(e.after)),
    e.masked.length > 0 ? `<b>masked</b> ${esc(e.masked.join(" "))}` : "",
  ]);
  return `<h3>${esc(g.changes.join(", "))}: ${esc(g.route)}, ${esc(g.roles)} (${g.count})</h3>\n${table(["decision id", "time", "actor", "recorded", "candidate", "input"], rows)}`;
}
