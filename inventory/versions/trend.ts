/**
 * Each version's traffic trend: requests per UTC day over the removal
 * window, counted as the lifecycle counts a version's traffic (lifecycle.ts:
 * the inventory's own probes, test runs and health checks excluded), from the
 * per-day counts the API keeps (db/traffic.ts; in the SQLite file or the
 * PostgreSQL database: ../sources/store.ts). Every day of the window is
 * listed, quiet ones as 0, so a trend falling to nothing reads as such.
 *
 *   await readVersionTrend({ kind: "sqlite", file: "var/portcullis.db" }, "2026-10-28", "2026-11-27")
 *   // -> { days: ["2026-10-28", ...], versions: { v1: [0, 4, ...] }, notes: [] }
 */
import { readCounts, type CountsStoreRef } from "../sources/store";
import { isHealthCheck } from "./lifecycle";

export interface VersionTrend {
  /** Every UTC day from `since` to `until`, inclusive. */
  days: string[];
  /** Requests per day, aligned with `days`, per version seen in the window. */
  versions: Record<string, number[]>;
  notes: string[];
}

export async function readVersionTrend(ref: CountsStoreRef, since: string, until: string): Promise<VersionTrend> {
  const days: string[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${until}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  const got = await readCounts(ref, "database", (store) => store.traffic.summary({ since }));
  if ("note" in got) return { days, versions: {}, notes: [`${got.note}: traffic trend not measured`] };
  const index = new Map(days.map((d, i) => [d, i]));
  const versions: Record<string, number[]> = {};
  for (const r of got.value) {
    const i = index.get(r.day);
    // Probes, test runs and health checks never keep a version "in use"; requests with no resolved version have no lifecycle.
    if (r.probe === 1 || isHealthCheck(r.template) || r.version === "" || i === undefined) continue;
    (versions[r.version] ??= days.map(() => 0))[i] += r.count;
  }
  return { days, versions, notes: [] };
}
