/**
 * Each version's traffic trend: requests per UTC day over the removal
 * window, counted as the lifecycle counts a version's traffic (lifecycle.ts:
 * the inventory's own probes, test runs and health checks excluded), from the
 * per-day counts the API keeps (db/traffic.ts). Every day of the window is
 * listed, quiet ones as 0, so a trend falling to nothing reads as such.
 *
 *   readVersionTrend("var/portcullis.db", "2026-10-28", "2026-11-27")
 *   // -> { days: ["2026-10-28", ...], versions: { v1: [0, 4, ...] }, notes: [] }
 */
import * as fs from "node:fs";
import { openDatabase } from "../../db";
import { isHealthCheck } from "./lifecycle";

export interface VersionTrend {
  /** Every UTC day from `since` to `until`, inclusive. */
  days: string[];
  /** Requests per day, aligned with `days`, per version seen in the window. */
  versions: Record<string, number[]>;
  notes: string[];
}

export function readVersionTrend(file: string, since: string, until: string): VersionTrend {
  const days: string[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${until}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  const empty = (note: string): VersionTrend => ({ days, versions: {}, notes: [note] });
  if (!fs.existsSync(file)) return empty(`no database at ${file}: traffic trend not measured`);
  let db;
  try {
    db = openDatabase(file, { readonly: true });
  } catch (err) {
    return empty(`database ${file} unreadable: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const index = new Map(days.map((d, i) => [d, i]));
    const versions: Record<string, number[]> = {};
    for (const r of db.traffic.summary({ since })) {
      const i = index.get(r.day);
      // Probes, test runs and health checks never keep a version "in use"; requests with no resolved version have no lifecycle.
      if (r.probe === 1 || isHealthCheck(r.template) || r.version === "" || i === undefined) continue;
      (versions[r.version] ??= days.map(() => 0))[i] += r.count;
    }
    return { days, versions, notes: [] };
  } finally {
    db.close();
  }
}
