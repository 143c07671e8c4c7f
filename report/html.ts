/**
 * The frame every report page shares: one self-contained HTML document (no
 * external stylesheet, font, image or script source), the same type and
 * colours on screen and on paper, and escaping for every value, because
 * report text comes from logs and probes an attacker can write into.
 *
 *   const html = page({ title: "Portcullis audit", body: `<h1>...</h1>` });
 */

export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

/** The colours the charts and the pages agree on (readable in black-and-white print: every bar also carries its number). */
export const COLORS = {
  allowed: "#2e7d32",
  denied: "#c62828",
  warn: "#ef6c00",
  neutral: "#546e7a",
  accent: "#1565c0",
  grid: "#cfd8dc",
  risk: { low: "#2e7d32", medium: "#f9a825", high: "#ef6c00", critical: "#b71c1c" } as Record<string, string>,
};

const STYLE = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:1.5em 2em;max-width:1200px;color:#1f2933}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #cfd8dc;padding-bottom:.2em}
h3{font-size:1em;margin:1em 0 .3em}
p.meta{color:#52606d;margin:.2em 0 1em}
.tiles{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}
.tile{border:1px solid #cfd8dc;border-radius:6px;padding:.6em 1em;min-width:9em}
.tile b{display:block;font-size:1.7em;line-height:1.2}
.tile.bad b{color:${COLORS.denied}}.tile.good b{color:${COLORS.allowed}}.tile.warn b{color:${COLORS.warn}}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:1.2em}
figure{margin:0;break-inside:avoid;page-break-inside:avoid}figcaption{font-weight:600;margin-bottom:.3em}
svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}
svg text{fill:#1f2933}
.legend span{display:inline-block;margin-right:1em}.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-1px;border:1px solid #0003}
table{border-collapse:collapse;width:100%;margin:.5em 0 1em}
th,td{border:1px solid #cfd8dc;padding:3px 6px;text-align:left;vertical-align:top;font-size:13px}
th{background:#eceff1}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
code{font-size:12px}td code{overflow-wrap:anywhere}small{color:#52606d}
.empty{color:#52606d;font-style:italic}
.note{background:#fff8e1;border-left:4px solid ${COLORS.warn};padding:.4em .8em;margin:.6em 0}
@media print{
  body{padding:0;max-width:none;font-size:11px}
  .noprint{display:none!important}
  h2{break-after:avoid;page-break-after:avoid}
  table,figure,.tiles{break-inside:avoid;page-break-inside:avoid}
  *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}`;

/** A whole document. `script` is inline code (the inventory's filters); everything else is static. */
export function page(options: { title: string; body: string; style?: string; script?: string }): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(options.title)}</title>
<style>${STYLE}${options.style ?? ""}</style></head>
<body>
${options.body}
${options.script ? `<script>${options.script.replace(/<\/script/gi, "<\\/script")}</script>` : ""}
</body></html>
`;
}

/** Headline numbers: `data-tile` names each, so a test reads what is shown. */
export function tiles(items: Array<{ key: string; label: string; value: number | string; tone?: "good" | "bad" | "warn" }>): string {
  return `<div class="tiles">${items
    .map((t) => `<div class="tile${t.tone ? ` ${t.tone}` : ""}" data-tile="${esc(t.key)}"><b>${esc(t.value)}</b>${esc(t.label)}</div>`)
    .join("")}</div>`;
}

/** A plain table; cells are HTML already escaped by the caller (so they may hold markup). */
export function table(header: string[], rows: string[][], options: { numeric?: number[]; attrs?: string } = {}): string {
  const num = new Set(options.numeric ?? []);
  const th = header.map((h, i) => `<th${num.has(i) ? ' class="n"' : ""}>${esc(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${num.has(i) ? ' class="n"' : ""}>${c}</td>`).join("")}</tr>`).join("\n");
  return `<table${options.attrs ? ` ${options.attrs}` : ""}><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export function legend(series: Array<{ name: string; color: string }>): string {
  return `<div class="legend">${series.map((s) => `<span><i style="background:${s.color}"></i>${esc(s.name)}</span>`).join("")}</div>`;
}
