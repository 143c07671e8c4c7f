/**
 * `decisions --id ID --explain --html FILE`: one decision's recorded trail
 * as a page (cli/explain-trail.ts builds the Explanation the text shows
 * too). The answer first, then the chain read top-down: the body that
 * decided, then each body it depended on, with its source line, the input
 * values it read and the rules it read that did not hold. Every body carries
 * `data-rule` and `data-at`, so a test reads what the browser rendered.
 */
import type { Explanation, ExplainedBody } from "../cli/explain-trail";
import { COLORS, esc, page } from "./html";

const STYLE = `
.answer{display:inline-block;border-radius:4px;padding:.2em .7em;color:#fff;font-weight:600}
.answer.allow{background:${COLORS.allowed}}.answer.deny{background:${COLORS.denied}}
ol.trail{list-style:none;padding:0;margin:1em 0}
ol.trail>li{border:1px solid #cfd8dc;border-left:6px solid ${COLORS.neutral};border-radius:6px;padding:.6em 1em;margin:0 0 1.6em;position:relative;break-inside:avoid;page-break-inside:avoid}
ol.trail>li.deciding{border-left-color:${COLORS.accent}}
ol.trail>li+li::before{content:"\\2191  read by a body above";position:absolute;top:-1.45em;left:1.2em;color:#52606d;font-size:12px}
.rule{font-weight:600;font-family:ui-monospace,monospace}.at{color:#52606d;margin-left:.6em}
.kind{margin-left:.6em;font-size:12px;border:1px solid #cfd8dc;border-radius:3px;padding:0 .4em}
pre.src{background:#f5f7f8;border:1px solid #e4e7eb;padding:.3em .6em;margin:.4em 0;overflow-x:auto;font-size:12px}
pre.src b{color:#52606d;font-weight:400;margin-right:.8em}
ul.failed{margin:.3em 0;padding-left:1.2em;color:${COLORS.denied}}
.masked{color:${COLORS.warn};font-size:12px}`;

export function explanationPage(e: Explanation): string {
  const tone = e.answer.startsWith("allow") ? "allow" : "deny";
  const meta = [e.timestamp, e.revision && `bundle revision ${e.revision}`, e.path].filter(Boolean).map((x) => esc(String(x)));
  const body = [
    `<h1>Decision <code>${esc(e.decisionId)}</code></h1>`,
    `<p class="meta">${meta.join(" · ")}</p>`,
    `<p>Recorded answer: <span class="answer ${tone}" data-answer>${esc(e.answer)}</span>${e.answered === undefined ? "" : ` · the client got: <code>${esc(e.answered)}</code>`}</p>`,
  ];
  if (e.noTrail !== undefined) body.push(`<p class="note" data-no-trail>${esc(e.noTrail)}</p>`);
  else {
    body.push(
      `<h2>Why: the recorded trail</h2>`,
      `<p class="meta">The rule body that decided first, then the bodies it depended on: the ones that succeeded in this evaluation and that a body above reads. ${esc(e.sources.charAt(0).toUpperCase() + e.sources.slice(1))}.</p>`,
      `<ol class="trail">${e.trail.map(item).join("\n")}</ol>`,
    );
  }
  return page({ title: `Decision ${e.decisionId}`, body: body.join("\n"), style: STYLE });
}

function item(b: ExplainedBody): string {
  const row = b.at.slice(b.at.lastIndexOf(":") + 1);
  const kind = b.kind === "else" ? "else branch" : b.kind === "default" ? "default" : "";
  const parts = [
    `<div><span class="rule">data.${esc(b.rule)}</span><span class="at">${esc(b.at)}</span>${kind ? `<span class="kind">${kind}</span>` : ""}${b.deciding ? ' <span class="kind">decided</span>' : ""}</div>`,
  ];
  if (b.source !== undefined) parts.push(`<pre class="src"><b>${esc(row)}</b>${esc(b.source)}</pre>`);
  if (b.reads.length > 0) {
    const rows = b.reads.map(
      (r) =>
        `<tr data-read="${esc(r.path)}"><td><code>${esc(r.path)}</code></td><td><code>${esc(r.value)}</code>${r.masked ? ' <span class="masked">masked in the log</span>' : ""}</td></tr>`,
    );
    parts.push(`<table><thead><tr><th>input read</th><th>value logged</th></tr></thead><tbody>${rows.join("")}</tbody></table>`);
  }
  if (b.failed.length > 0)
    parts.push(`<ul class="failed">${b.failed.map((f) => `<li data-failed="${esc(f)}">no body of data.${esc(f)} succeeded</li>`).join("")}</ul>`);
  return `<li${b.deciding ? ' class="deciding"' : ""} data-rule="${esc(b.rule)}" data-at="${esc(b.at)}">${parts.join("")}</li>`;
}
