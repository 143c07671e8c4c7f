/**
 * Traffic counts on PostgreSQL: the same in-memory sums as db/traffic.ts
 * (addHit), written by one upsert transaction per second or per 500 keys,
 * so counts from every instance add up in one table (`count = count + $n`
 * is atomic per row under concurrent upserts).
 */
import { addHit, FLUSH_INTERVAL_MS, MAX_PENDING_KEYS, type PendingCount, type TrafficRow } from "../traffic";
import type { AsyncTrafficRepository } from "../store";
import { pendingCounts, sinceDayParams } from "./pending-counts";
import type { Session } from "./session";

export function pgTrafficRepository(session: Session, now: () => Date = () => new Date()): AsyncTrafficRepository {
  const counts = pendingCounts<PendingCount>({
    intervalMs: FLUSH_INTERVAL_MS,
    flushAtKeys: MAX_PENDING_KEYS,
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
      addHit(counts.pending, hit, now);
      counts.added();
    },

    flush: counts.flush,

    async summary(filter = {}) {
      await counts.flush();
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
