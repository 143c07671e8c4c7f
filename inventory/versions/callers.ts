/**
 * Who still calls the Deprecated and Zombie versions, from the counts the
 * API keeps in its database (db/version-callers.ts), summed over the
 * removal window: one row per version, actor and client, busiest first.
 *
 *   readVersionCallers("var/portcullis.db", "2026-10-28")
 *   // -> { callers: [{ version: "v1", actor: "u_alice", tenant: "t_acme", client: "mobile-app/3.2", requests: 41, lastSeen: "..." }], notes: [] }
 */
import * as fs from "node:fs";
import { openDatabase } from "../../db";
import { table } from "../report/table";

export interface VersionCaller {
  version: string;
  actor: string;
  tenant: string | null;
  client: string;
  requests: number;
  lastSeen: string;
}

export function readVersionCallers(file: string, since: string): { callers: VersionCaller[]; notes: string[] } {
  if (!fs.existsSync(file)) return { callers: [], notes: [`no database at ${file}: callers of deprecated versions not measured`] };
  let db;
  try {
    db = openDatabase(file, { readonly: true });
  } catch (err) {
    return { callers: [], notes: [`database ${file} unreadable: ${err instanceof Error ? err.message : String(err)}`] };
  }
  try {
    const sums = new Map<string, VersionCaller>();
    for (const r of db.versionCallers.summary({ since })) {
      const key = JSON.stringify([r.version, r.actor_id, r.client]);
      const c = sums.get(key);
      if (c) {
        c.requests += r.count;
        if (r.last_seen > c.lastSeen) c.lastSeen = r.last_seen;
      } else sums.set(key, { version: r.version, actor: r.actor_id, tenant: r.tenant_id, client: r.client, requests: r.count, lastSeen: r.last_seen });
    }
    const callers = [...sums.values()].sort((a, b) => a.version.localeCompare(b.version) || b.requests - a.requests || a.actor.localeCompare(b.actor));
    return { callers, notes: [] };
  } finally {
    db.close();
  }
}

export function callersTable(callers: VersionCaller[]): string {
  return table(
    ["VERSION", "ACTOR", "TENANT", "CLIENT", "REQUESTS", "LAST SEEN"],
    callers.map((c) => [c.version, c.actor, c.tenant ?? "-", c.client, String(c.requests), c.lastSeen]),
  );
}
