/**
 * Who still calls a deprecated version: request counts per UTC day,
 * version, actor and client, kept only for versions that are Deprecated or
 * Zombie (the API's count-traffic step decides), so the removal of a
 * version rests on data about its callers, not just its volume. Read by
 * `portcullis versions`.
 *
 *   db.versionCallers.count({ version: "v1", actorId: "u_alice", tenantId: "t_acme", client: "mobile-app/3.2" });
 *   db.versionCallers.summary({ since: "2026-08-23" });   // one row per day, version, actor, client
 *
 * `client` is the caller's User-Agent product (`mobile-app/3.2`), cut to
 * printable ASCII and 60 characters: client-chosen text, so it is a hint
 * for the owners to contact, never an identity (that is `actor_id`, from
 * the verified token). So that no caller can grow the table by inventing
 * clients, one actor keeps at most MAX_CLIENTS distinct clients per version
 * and day; the rest are counted under "(other)".
 *
 * Counts are summed in memory and written once a second, in one
 * transaction, on a timer (write-behind.ts, as traffic.ts does): this runs
 * on every request to a deprecated version, and while another connection
 * holds the lock the counts stay in memory, not lost.
 */
import type { Prepare } from "./sql";
import { writeBehind, type WriteBehindStats } from "./write-behind";

export interface VersionCall {
  version: string;
  actorId: string;
  tenantId: string | null;
  client: string;
  at?: Date;
}

export interface VersionCallerRow {
  day: string;
  version: string;
  actor_id: string;
  tenant_id: string | null;
  client: string;
  count: number;
  last_seen: string;
}

export interface VersionCallersRepository {
  count(call: VersionCall): void;
  /** Writes the counts held in memory (one transaction); throws, keeping them, when it cannot. */
  flush(): void;
  /** flush() that keeps a failure in stats() instead of throwing; true when nothing is left held. */
  flushQuietly(): boolean;
  /** Calls counted in memory and not yet written, and those lost to a full buffer. */
  stats(): WriteBehindStats;
  /** One row per day, version, actor and client since `since` (YYYY-MM-DD, inclusive). */
  summary(filter?: { since?: string }): VersionCallerRow[];
}

export const MAX_CLIENTS = 20;
export const OTHER_CLIENT = "(other)";
export const FLUSH_INTERVAL_MS = 1000;
export const MAX_PENDING_KEYS = 500;
/** The most distinct keys held while writes fail (a lock held elsewhere); beyond it calls are dropped and counted. */
export const MAX_HELD_KEYS = 20_000;

/** The User-Agent's first product token, printable ASCII only, at most 60 characters; "(none)" without one. */
export function clientOf(userAgent: string | undefined): string {
  const product = (userAgent ?? "").trim().split(/\s+/)[0] ?? "";
  const clean = product.replace(/[^\x21-\x7e]/g, "").slice(0, 60);
  return clean === "" ? "(none)" : clean;
}

/** Calls summed in memory for one key: (day, version, actor, tenant, client). */
export interface PendingCall {
  params: [string, string, string, string | null, string];
  count: number;
  lastSeen: string;
}

/** One call: its key and its count (shared by the SQLite and PostgreSQL repositories). */
export function callEntry(call: VersionCall, now: () => Date): [string, PendingCall] {
  const lastSeen = (call.at ?? now()).toISOString();
  const params: PendingCall["params"] = [lastSeen.slice(0, 10), call.version.slice(0, 40), call.actorId.slice(0, 200), call.tenantId, call.client.slice(0, 60)];
  return [JSON.stringify(params), { params, count: 1, lastSeen }];
}

/** Adds a count to the one held for the same key. */
export function mergeCall(held: PendingCall, entry: PendingCall): void {
  held.count += entry.count;
  if (entry.lastSeen > held.lastSeen) held.lastSeen = entry.lastSeen;
}

export function versionCallersRepository(prepare: Prepare, transaction: <T>(fn: () => T) => T, now: () => Date = () => new Date()): VersionCallersRepository {
  const buffer = writeBehind<PendingCall>({
    intervalMs: FLUSH_INTERVAL_MS,
    flushAtKeys: MAX_PENDING_KEYS,
    maxKeys: MAX_HELD_KEYS,
    weight: (entry) => entry.count,
    write(rows) {
      // A client beyond the actor's MAX_CLIENTS for the day is folded into "(other)".
      const known = prepare("SELECT 1 FROM version_callers WHERE day = ? AND version = ? AND actor_id = ? AND client = ?");
      const clients = prepare("SELECT count(*) AS n FROM version_callers WHERE day = ? AND version = ? AND actor_id = ?");
      const upsert = prepare(
        `INSERT INTO version_callers (day, version, actor_id, tenant_id, client, count, last_seen)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (day, version, actor_id, client)
         DO UPDATE SET count = count + excluded.count, last_seen = max(last_seen, excluded.last_seen)`,
      );
      transaction(() => {
        for (const row of rows) {
          const [day, version, actor, tenant, client] = row.params;
          const kept = known.get(day, version, actor, client) !== undefined || (clients.get(day, version, actor) as { n: number }).n < MAX_CLIENTS;
          upsert.run(day, version, actor, tenant, kept ? client : OTHER_CLIENT, row.count, row.lastSeen);
        }
      });
    },
  });

  return {
    count(call) {
      const [key, entry] = callEntry(call, now);
      buffer.add(key, entry, mergeCall);
    },
    flush: buffer.flush,
    flushQuietly: buffer.flushQuietly,
    stats: buffer.stats,
    summary(filter = {}) {
      // What is held is written first when it can be; a lock held elsewhere does not stop the read.
      buffer.flushQuietly();
      return prepare(
        `SELECT day, version, actor_id, tenant_id, client, count, last_seen FROM version_callers
         WHERE day >= ? ORDER BY version, actor_id, client, day`,
      ).all(filter.since ?? "0000-00-00") as VersionCallerRow[];
    },
  };
}
