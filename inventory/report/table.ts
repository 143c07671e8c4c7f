/**
 * Plain-text reports for the terminal: the inventory (records, versions,
 * parity defects, findings) and the version lifecycle table.
 *
 *   process.stdout.write(inventoryTable(result));
 *   process.stdout.write(versionsTable(result.versions));
 */
import type { InventoryResult, VersionLifecycle } from "../types";

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n";
}

const short = (o: { status: number; verdict: string }) => (o.status === 0 ? "-" : `${o.status} ${o.verdict}`);

export function versionsTable(versions: VersionLifecycle[]): string {
  return table(
    ["VERSION", "OWNER", "DECLARED", "STATE", "SUNSET", "PROBE", "TRAFFIC", "PARITY", "READY", "BLOCKER / REMOVAL PLAN"],
    versions.map((v) => [
      v.name,
      v.owner,
      v.declared ?? "-",
      v.state,
      v.sunset?.slice(0, 10) ?? "-",
      `${v.probe.result} ${v.probe.status}`,
      v.traffic.requests === null ? "unmeasured" : `${v.traffic.requests}/${v.traffic.window_days}d`,
      v.parity,
      v.readyToRemove ? "yes" : "no",
      `${v.blocker} | plan: ${v.removalPlan}`,
    ]),
  );
}

export function inventoryTable(r: InventoryResult): string {
  const out: string[] = [];
  out.push(`Route inventory of ${r.target} at ${r.generatedAt}\n`);
  out.push(
    table(
      ["METHOD", "ENDPOINT", "VERSION", "CLASS", "DOC", "OWNER", "RISK", "ANON", "MEMBER", "SOURCES", "LAST SEEN"],
      r.records.map((x) => [
        x.method,
        x.endpoint,
        x.version,
        x.class,
        x.documented ? "yes" : "no",
        x.owner,
        `${x.risk.level}(${x.risk.score})`,
        short(x.auth.anonymous),
        short(x.auth.member),
        x.sources.join(","),
        x.lastSeen,
      ]),
    ),
  );
  out.push("\nVersions\n" + versionsTable(r.versions));
  const ready = r.versions.filter((v) => v.readyToRemove).map((v) => v.name);
  out.push(`Ready to remove: ${ready.length > 0 ? ready.join(", ") : "none"}\n`);
  out.push(`\nParity defects: ${r.parity.length}\n`);
  for (const d of r.parity) out.push(`  ${d.route} as ${d.persona}: ${d.aspect} differs between ${d.versions.join(" and ")}: ${d.detail}\n`);
  out.push(`\nFindings: ${r.findings.length} (${r.failing.length} unacknowledged)\n`);
  for (const f of r.findings) {
    const status = f.acknowledged ? `ack ${f.acknowledged.owner} until ${f.acknowledged.expires}` : "FAIL";
    out.push(`  [${status}] ${f.id}: ${f.detail}\n`);
  }
  if (r.notes.length > 0) out.push(`\nNotes:\n${r.notes.map((n) => `  - ${n}`).join("\n")}\n`);
  return out.join("");
}
