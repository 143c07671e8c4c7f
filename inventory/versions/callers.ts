/**
 * Who still calls the Deprecated and Zombie versions, from the counts the
 * API keeps in its database (db/version-callers.ts; the SQLite file, or the
 * PostgreSQL database every instance counts into: ../sources/store.ts),
 * summed over the removal window: one row per version, actor and client,
 * busiest first.
 *
 *   await readVersionCallers({ kind: "sqlite", file: "var/portcullis.db" }, "2026-10-28")
 *   // -> { callers: [{ version: "v1", actor: "u_alice", tenant: "t_acme", client: "mobile-app/3.2", requests: 41, lastSeen: "..." }], notes: [] }
 */
import { table } from "../report/table";
import { readCounts, type CountsStoreRef } from "../sources/store";

export interface VersionCaller {
  version: string;
  actor: string;
  tenant: string | null;
  client: string;
  requests: number;
  lastSeen: string;
}

export async function readVersionCallers(ref: CountsStoreRef, since: string): Promise<{ callers: VersionCaller[]; notes: string[] }> {
  const got = await readCounts(ref, "database", (store) => store.versionCallers.summary({ since }));
  if ("note" in got) return { callers: [], notes: [`${got.note}: callers of deprecated versions not measured`] };
  const sums = new Map<string, VersionCaller>();
  for (const r of got.value) {
    const key = JSON.stringify([r.version, r.actor_id, r.client]);
    const c = sums.get(key);
    if (c) {
      c.requests += r.count;
      if (r.last_seen > c.lastSeen) c.lastSeen = r.last_seen;
    } else sums.set(key, { version: r.version, actor: r.actor_id, tenant: r.tenant_id, client: r.client, requests: r.count, lastSeen: r.last_seen });
  }
  const callers = [...sums.values()].sort((a, b) => a.version.localeCompare(b.version) || b.requests - a.requests || a.actor.localeCompare(b.actor));
  return { callers, notes: [] };
}

export function callersTable(callers: VersionCaller[]): string {
  return table(
    ["VERSION", "ACTOR", "TENANT", "CLIENT", "REQUESTS", "LAST SEEN"],
    callers.map((c) => [c.version, c.actor, c.tenant ?? "-", c.client, String(c.requests), c.lastSeen]),
  );
}
