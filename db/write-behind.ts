/**
 * A write-behind buffer for per-request bookkeeping (traffic counts,
 * security events): requests only add to memory; a timer writes what is
 * buffered in one transaction, off every request's path.
 *
 *   const buffer = writeBehind<Hit>({ intervalMs: 1000, maxKeys: 10_000, write: (hits) => insertAll(hits), weight: (h) => h.n });
 *   buffer.add(key, hit, (held, hit) => (held.n += hit.n));   // merge into a held entry with the same key
 *
 * A write that fails (another connection holds the lock, the disk is full,
 * the database is closed) keeps the entries and tries again on the next
 * tick: the database being busy never loses bookkeeping. Only a full
 * buffer does, and then every entry it refuses is counted (`dropped`), so
 * nothing is lost silently: GET /metrics shows the counts and closing the
 * database reports them.
 */
export interface WriteBehindStats {
  /** Entries (traffic: requests) held in memory, not yet written. */
  pending: number;
  /** Entries refused because the buffer was full: lost, and counted. */
  dropped: number;
  /** Writes that failed (the entries were kept for the next one). */
  failedWrites: number;
  /** Why the last write failed, until a write succeeds. */
  lastError: string | null;
}

export interface WriteBehindOptions<V> {
  /** Writes every held entry in one transaction; a throw keeps them all. */
  write(entries: V[]): void;
  /** How many requests an entry stands for (default 1). */
  weight?(entry: V): number;
  /** The most distinct keys held; new keys beyond it are dropped and counted. */
  maxKeys: number;
  /** Written this long after the first entry arrives, and retried at this pace while writes fail. */
  intervalMs: number;
  /** Written at once (on the next turn of the event loop) when this many keys are held. */
  flushAtKeys?: number;
}

export interface WriteBehind<V> {
  /** Holds `entry` under `key`, merged into a held entry with the same key when `merge` is given. False when dropped. */
  add(key: string, entry: V, merge?: (held: V, entry: V) => void): boolean;
  /** Writes what is held now; throws (keeping the entries) when the write fails. */
  flush(): void;
  /** flush() that records a failure instead of throwing; true when nothing is left pending. */
  flushQuietly(): boolean;
  stats(): WriteBehindStats;
}

export function writeBehind<V>(options: WriteBehindOptions<V>): WriteBehind<V> {
  const weight = options.weight ?? (() => 1);
  const held = new Map<string, V>();
  let pending = 0;
  let dropped = 0;
  let failedWrites = 0;
  let lastError: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Immediate | undefined;

  const schedule = (): void => {
    if (!timer) timer = setTimeout(flushQuietly, options.intervalMs).unref();
  };

  function flush(): void {
    if (timer) clearTimeout(timer);
    if (soon) clearImmediate(soon);
    timer = undefined;
    soon = undefined;
    if (held.size === 0) return;
    try {
      options.write([...held.values()]);
    } catch (err) {
      failedWrites++;
      lastError = err instanceof Error ? err.message : String(err);
      schedule();
      throw err;
    }
    held.clear();
    pending = 0;
    lastError = null;
  }

  function flushQuietly(): boolean {
    try {
      flush();
    } catch {
      // Counted in the stats; the entries stay held for the next attempt.
    }
    return held.size === 0;
  }

  return {
    add(key, entry, merge) {
      const existing = merge ? held.get(key) : undefined;
      if (existing !== undefined && merge) merge(existing, entry);
      else if (held.size >= options.maxKeys) {
        dropped += weight(entry);
        return false;
      } else held.set(key, entry);
      pending += weight(entry);
      if (options.flushAtKeys !== undefined && held.size >= options.flushAtKeys && !soon && lastError === null) {
        // Off the caller's stack: the caller is a request's bookkeeping.
        soon = setImmediate(flushQuietly).unref();
      } else schedule();
      return true;
    },
    flush,
    flushQuietly,
    stats: () => ({ pending, dropped, failedWrites, lastError }),
  };
}
