/**
 * The write-behind both PostgreSQL count repositories share (traffic
 * counts, deprecated-version callers): sums kept in memory by the caller's
 * `add`, written by `write` in one go once `flushAtKeys` keys wait or
 * `intervalMs` after the first. Best-effort measurement: an unreachable
 * database loses these counts, never a request.
 *
 *   const counts = pendingCounts<PendingCount>({ intervalMs, flushAtKeys, write: (rows) => upsert(rows) });
 *   addHit(counts.pending, hit, now); counts.added();
 *   await counts.flush();
 */
import { DbInputError } from "../types";

export interface PendingCounts<T> {
  /** The sums not yet written, keyed as the caller's add function keys them. */
  pending: Map<string, T>;
  /** Call after adding to `pending`: schedules (or starts) the write. */
  added(): void;
  /** Writes what is pending now; rejects when the write failed (those sums are gone). */
  flush(): Promise<void>;
}

export function pendingCounts<T>(options: { intervalMs: number; flushAtKeys: number; write: (rows: T[]) => Promise<void> }): PendingCounts<T> {
  const pending = new Map<string, T>();
  let timer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const rows = [...pending.values()];
    pending.clear();
    await options.write(rows);
  }

  const flushQuietly = (): void => {
    flush().catch(() => undefined);
  };

  return {
    pending,
    added() {
      if (pending.size >= options.flushAtKeys) flushQuietly();
      else if (!timer) timer = setTimeout(flushQuietly, options.intervalMs).unref();
    },
    flush,
  };
}

/** The parameters of a summary's optional `since` day filter (`$1`), refused unless YYYY-MM-DD. */
export function sinceDayParams(filter: { since?: unknown }): string[] {
  if (filter.since === undefined) return [];
  if (typeof filter.since !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(filter.since)) throw new DbInputError("invalid_input", "since must be a day, YYYY-MM-DD");
  return [filter.since];
}
