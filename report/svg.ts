/**
 * Charts as plain inline SVG, drawn on the server: no script, no library,
 * the same on screen and on paper. Every mark carries its number twice: as
 * text a reader sees (or a `<title>` tooltip where space is short) and as
 * `data-value`, so a test reads the values a browser rendered.
 *
 *   columns("decisions", buckets, [{ name: "allowed", color }, { name: "denied", color }])
 *   hbars("top-routes", [{ label: "invoices.get", value: 12 }], "#c62828")
 */
import { COLORS, esc } from "./html";

export interface Series {
  name: string;
  color: string;
}

/** Stacked columns over time: one column per bucket, one segment per series. */
export function columns(
  id: string,
  buckets: Array<{ label: string; short?: string; values: number[] }>,
  series: Series[],
  options: { height?: number } = {},
): string {
  const height = options.height ?? 220;
  const left = 44,
    bottom = 62,
    top = 12;
  const width = Math.max(560, left + 12 + buckets.length * 14);
  const slot = (width - left - 12) / Math.max(1, buckets.length);
  // A column no wider than 36 px, centred in its slot: one busy hour is a column, not a wall.
  const columnWidth = Math.max(1, Math.min(36, slot * 0.7));
  const max = niceMax(Math.max(0, ...buckets.map((b) => b.values.reduce((a, v) => a + v, 0))));
  const y = (v: number) => top + (height - top - bottom) * (1 - v / max);
  // Gridlines on whole numbers only: a quarter of 2 is not a count.
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .filter((f) => Number.isInteger(max * f))
    .map((f) => {
      const v = max * f;
      return `<line x1="${left}" x2="${width - 8}" y1="${y(v)}" y2="${y(v)}" stroke="${COLORS.grid}"/><text x="${left - 4}" y="${y(v) + 4}" text-anchor="end">${v}</text>`;
    });
  const labelEvery = Math.max(1, Math.ceil(buckets.length / 12));
  const bars = buckets.map((b, i) => {
    let base = 0;
    const w = columnWidth;
    const x = left + i * slot + (slot - w) / 2;
    const segments = b.values.map((v, s) => {
      const rect = `<rect x="${x.toFixed(1)}" y="${y(base + v).toFixed(1)}" width="${w.toFixed(1)}" height="${(y(base) - y(base + v)).toFixed(1)}" fill="${series[s].color}" data-series="${esc(series[s].name)}" data-value="${v}"><title>${esc(`${b.label}: ${v} ${series[s].name}`)}</title></rect>`;
      base += v;
      return v > 0 ? rect : `<g data-series="${esc(series[s].name)}" data-value="0"></g>`;
    });
    const label =
      i % labelEvery === 0
        ? `<text x="${(x + w / 2).toFixed(1)}" y="${height - bottom + 14}" text-anchor="end" transform="rotate(-30 ${(x + w / 2).toFixed(1)} ${height - bottom + 14})">${esc(b.short ?? b.label)}</text>`
        : "";
    return `<g data-bucket="${esc(b.label)}">${segments.join("")}${label}</g>`;
  });
  return `<svg id="${esc(id)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(id)}" xmlns="http://www.w3.org/2000/svg">${grid.join("")}<line x1="${left}" x2="${left}" y1="${top}" y2="${height - bottom}" stroke="#90a4ae"/>${bars.join("")}</svg>`;
}

/** Horizontal bars, largest first as given, each labelled with its value. */
export function hbars(id: string, rows: Array<{ label: string; value: number; title?: string; color?: string }>, color: string): string {
  if (rows.length === 0) return `<p class="empty" id="${esc(id)}">none</p>`;
  // ~7 px per character at 11 px: wide enough that no label runs off the left edge.
  const chars = Math.min(38, Math.max(...rows.map((r) => r.label.length)));
  const labelWidth = 14 + chars * 7.2;
  const width = 560,
    row = 22;
  const height = rows.length * row + 6;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const span = width - labelWidth - 60;
  const bars = rows.map((r, i) => {
    const w = Math.max(1, (span * r.value) / max);
    const y = 3 + i * row;
    return (
      `<g data-label="${esc(r.label)}" data-value="${r.value}"><title>${esc(r.title ?? `${r.label}: ${r.value}`)}</title>` +
      `<text x="${labelWidth - 6}" y="${y + 14}" text-anchor="end">${esc(clip(r.label, chars))}</text>` +
      `<rect x="${labelWidth}" y="${y + 2}" width="${w.toFixed(1)}" height="${row - 6}" fill="${r.color ?? color}"/>` +
      `<text x="${(labelWidth + w + 5).toFixed(1)}" y="${y + 14}">${r.value}</text></g>`
    );
  });
  return `<svg id="${esc(id)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(id)}" xmlns="http://www.w3.org/2000/svg">${bars.join("")}</svg>`;
}

/** A round upper bound for an axis: 1, 2, 5 x 10^n (at least 1). */
export function niceMax(v: number): number {
  if (v <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, Math.max(1, n - 1)) + "…";
}
