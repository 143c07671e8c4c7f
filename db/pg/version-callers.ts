/**
 * Deprecated-version callers on PostgreSQL: the same in-memory sums as
 * db/version-callers.ts (callEntry, mergeCall), held and written once a second in one transaction,
 * with the same cap: one actor keeps at most MAX_CLIENTS distinct clients
 * per version and day, the rest count under "(other)". Several instances
 * flush into one table, so each key's check-then-upsert runs under a
 * transaction-scoped advisory lock on (day, version, actor): the cap holds
 * exactly, whatever the concurrency.
 */
import type { AsyncVersionCallersRepository } from "../store";
import {
  callEntry,
  FLUSH_INTERVAL_MS,
  MAX_CLIENTS,
  MAX_HELD_KEYS,
  MAX_PENDING_KEYS,
  mergeCall,
  OTHER_CLIENT,
  type PendingCall,
  type VersionCallerRow,
} from "../version-callers";
import { asyncWriteBehind, type WriteBehindStats } from "../write-behind";
import { sinceDayParams } from "./since";
import type { Session } from "./session";

export function pgVersionCallersRepository(
  session: Session,
  now: () => Date = () => new Date(),
): AsyncVersionCallersRepository & { stats(): WriteBehindStats } {
  const counts = asyncWriteBehind<PendingCall>({
    intervalMs: FLUSH_INTERVAL_MS,
    flushAtKeys: MAX_PENDING_KEYS,
    maxKeys: MAX_HELD_KEYS,
    weight: (entry) => entry.count,
    merge: mergeCall,
    write: (rows) =>
      session.atomic(async (tx) => {
        for (const row of rows) {
          const [day, version, actor, tenant, client] = row.params;
          await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [JSON.stringify([day, version, actor])]);
          const { rows: found } = await tx.query<{ known: boolean; n: number }>(
            `SELECT EXISTS (SELECT 1 FROM version_callers WHERE day = $1 AND version = $2 AND actor_id = $3 AND client = $4) AS known,
                    (SELECT count(*) FROM version_callers WHERE day = $1 AND version = $2 AND actor_id = $3) AS n`,
            [day, version, actor, client],
          );
          const kept = found[0].known || found[0].n < MAX_CLIENTS;
          await tx.query(
            `INSERT INTO version_callers (day, version, actor_id, tenant_id, client, count, last_seen)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (day, version, actor_id, client)
             DO UPDATE SET count = version_callers.count + excluded.count, last_seen = GREATEST(version_callers.last_seen, excluded.last_seen)`,
            [day, version, actor, tenant, kept ? client : OTHER_CLIENT, row.count, row.lastSeen],
          );
        }
      }),
  });

  return {
    count(call) {
      const [key, entry] = callEntry(call, now);
      counts.add(key, entry);
    },

    flush: counts.flush,
    stats: counts.stats,

    async summary(filter = {}) {
      // What is held is written first when it can be.
      await counts.flushQuietly();
      const params = sinceDayParams(filter);
      const { rows } = await session.query<VersionCallerRow>(
        `SELECT day, version, actor_id, tenant_id, client, count, last_seen FROM version_callers${params.length > 0 ? " WHERE day >= $1::date" : ""}
         ORDER BY version, actor_id, client, day`,
        params,
      );
      return rows;
    },
  };
}
