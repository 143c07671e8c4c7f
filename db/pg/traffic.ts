/**
 * Traffic counts on PostgreSQL: the same in-memory sums as db/traffic.ts
 * (addHit), written by one upsert transaction per second or per 500 keys,
 * so counts from every instance add up in one table (`count = count + $n`
 * is atomic per row under concurrent upserts).
 */
import { DbInputError } from "../types";
import { addHit, FLUSH_INTERVAL_MS, MAX_PENDING_KEYS, type PendingCount, type TrafficRow } from "../traffic";
import type { AsyncTrafficRepository } from "../store";
import type { Session } from "./session";

export function pgTrafficRepository(session: Session, now: () => Date = () => new Date()): AsyncTrafficRepository {
  const pending = new Map<string, PendingCount>();
  let timer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const rows = [...pending.values()];
    pending.clear();
    await session.atomic(async (tx) => {
      for (const row of rows) {
        await tx.query(
          `INSERT INTO traffic_counts (day, method, template, version, status, actor_class, probe, count, last_seen)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (day, method, template, version, status, actor_class, probe)
           DO UPDATE SET count = traffic_counts.count + excluded.count, last_seen = GREATEST(traffic_counts.last_seen, excluded.last_seen)`,
          [...row.params, row.count, row.lastSeen],
        );
      }
    });
  }

  function flushQuietly(): void {
    // Best-effort measurement: an unreachable database loses these counts, never a request.
    flush().catch(() => undefined);
  }

  return {
    count(hit) {
      addHit(pending, hit, now);
      if (pending.size >= MAX_PENDING_KEYS) flushQuietly();
      else if (!timer) timer = setTimeout(flushQuietly, FLUSH_INTERVAL_MS).unref();
    },

    flush,

    async summary(filter = {}) {
      await flush();
      const params: string[] = [];
      if (filter.since !== undefined) {
        if (typeof filter.since !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(filter.since)) throw new DbInputError("invalid_input", "since must be a day, YYYY-MM-DD");
        params.push(filter.since);
      }
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
