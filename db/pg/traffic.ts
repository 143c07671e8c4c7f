/**
 * Traffic counts on PostgreSQL: the same in-memory sums as db/traffic.ts
 * (hitEntry, mergeCount), written by one upsert transaction per second or
 * per 500 keys, so counts from every instance add up in one table (`count =
 * count + $n` is atomic per row under concurrent upserts). Held while the
 * database cannot be reached, dropped and counted past the bound
 * (db/write-behind.ts asyncWriteBehind).
 */
import { FLUSH_INTERVAL_MS, hitEntry, MAX_HELD_KEYS, MAX_PENDING_KEYS, mergeCount, type PendingCount, type TrafficRow } from "../traffic";
import type { AsyncTrafficRepository } from "../store";
import { asyncWriteBehind, type WriteBehindStats } from "../write-behind";
import { sinceDayParams } from "./since";
import type { Session } from "./session";

export function pgTrafficRepository(session: Session, now: () => Date = () => new Date()): AsyncTrafficRepository & { stats(): WriteBehindStats } {
  const counts = asyncWriteBehind<PendingCount>({
    intervalMs: FLUSH_INTERVAL_MS,
    flushAtKeys: MAX_PENDING_KEYS,
    maxKeys: MAX_HELD_KEYS,
    weight: (entry) => entry.count,
    merge: mergeCount,
    write: (rows) =>
      session.atomic(async (tx) => {
        for (const row of rows) {
          await tx.query(
            `INSERT INTO traffic_counts (day, method, template, version, status, actor_class, probe, count, last_seen)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (day, method, template, version, status, actor_class, probe)
             DO UPDATE SET count = traffic_counts.count + excluded.count, last_seen = GREATEST(traffic_counts.last_seen, excluded.last_seen)`,
            [...row.params, row.count, row.lastSeen],
          );
        }
      }),
  });

  return {
    count(hit) {
      const [key, entry] = hitEntry(hit, now);
      counts.add(key, entry);
    },

    flush: counts.flush,
    stats: counts.stats,

    async summary(filter = {}) {
      // What is held is written first when it can be.
      await counts.flushQuietly();
      const params = sinceDayParams(filter);
      const { rows } = await session.query<TrafficRow>(
        `SELECT day, method, template, version, status, actor_class, probe, count, last_seen
         FROM traffic_counts${params.length > 0 ? " WHERE day >= $1::date" : ""}
         ORDER BY template, method, version, status, day`,
        params,
      );
      return rows;
    },
  };
}
