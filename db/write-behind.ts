/**
 * A write-behind buffer for per-request bookkeeping (traffic counts,
 * security events): requests only add to memory; a timer writes what is
 * buffered in one transaction, off every request's path.
 *
 *   const buffer = writeBehind<Hit>({ intervalMs: 1000, maxKeys: 10_000, write: (hits) => insertAll(hits), weight: (h) => h.n });
 *   buffer.add(key, hit, (held, hit) => (held.n += hit.n));   // merge into a held entry with the same key
 *
 * A write that fails (another connection holds the lock, the disk is full,
 * the database is closed or unreachable) keeps the entries and tries again
 * on the next tick: the database being busy never loses bookkeeping. Only a full
 * buffer does, and then every entry it refuses is counted (`dropped`), so
 * nothing is lost silently: GET /metrics shows the counts and closing the
 * database reports them.
 *
 * `writeBehind` is for SQLite (a synchronous write); `asyncWriteBehind`
 * (below) keeps the same rules for PostgreSQL, whose writes are promises.
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

/** Per-request bookkeeping a data store holds in memory until it can be written (GET /metrics). */
export interface Bookkeeping {
  traffic: WriteBehindStats;
  securityEvents: WriteBehindStats;
  versionCallers: WriteBehindStats;
}

/** Bookkeeping that could not be written before the database closed (or was dropped earlier when a buffer was full). */
export class BookkeepingLostError extends Error {
  constructor(readonly lost: { trafficHits: number; securityEvents: number; versionCalls: number }) {
    super(
      `bookkeeping lost: ${lost.trafficHits} traffic count(s), ${lost.securityEvents} security event(s) and ${lost.versionCalls} version call(s) could not be written`,
    );
  }
}

/** At close: throws BookkeepingLostError when something is still held or was dropped. */
export function throwIfLost({ traffic: t, securityEvents: e, versionCallers: v }: Bookkeeping): void {
  const lost = { trafficHits: t.pending + t.dropped, securityEvents: e.pending + e.dropped, versionCalls: v.pending + v.dropped };
  if (lost.trafficHits > 0 || lost.securityEvents > 0 || lost.versionCalls > 0) throw new BookkeepingLostError(lost);
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

export interface AsyncWriteBehindOptions<V> extends Omit<WriteBehindOptions<V>, "write"> {
  /** Writes every entry given in one transaction; a rejection keeps them all. */
  write(entries: V[]): Promise<void>;
  /** Folds an entry into a held one with the same key (counts); without it keys are unique (events). */
  merge?(held: V, entry: V): void;
}

export interface AsyncWriteBehind<V> {
  /** Holds `entry` under `key` (merged into a held entry with the same key); false when dropped. Never waits. */
  add(key: string, entry: V): boolean;
  /** Writes what is held now (after a write already under way); rejects, keeping the entries, when it fails. */
  flush(): Promise<void>;
  /** flush() that records a failure instead of rejecting; true when nothing is left pending. */
  flushQuietly(): Promise<boolean>;
  stats(): WriteBehindStats;
}

/**
 * The same buffer for a store whose writes are asynchronous (PostgreSQL):
 * one write at a time; entries added while it runs wait for the next one;
 * a write that fails puts its entries back (merged with those added since),
 * so an unreachable database holds bookkeeping instead of losing it, up to
 * the same bound, with the same counts.
 */
export function asyncWriteBehind<V>(options: AsyncWriteBehindOptions<V>): AsyncWriteBehind<V> {
  const weight = options.weight ?? (() => 1);
  let held = new Map<string, V>();
  let pending = 0;
  let dropped = 0;
  let failedWrites = 0;
  let lastError: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Immediate | undefined;
  let writing: Promise<void> | undefined;

  const schedule = (): void => {
    if (!timer) timer = setTimeout(() => void flushQuietly(), options.intervalMs).unref();
  };

  const putBack = (batch: Map<string, V>): void => {
    // Already counted as pending: put back whatever the bound says (nothing accepted is dropped later).
    for (const [key, entry] of batch) {
      const later = held.get(key);
      if (later !== undefined && options.merge) options.merge(entry, later);
      held.set(key, entry);
    }
  };

  async function writeHeld(): Promise<void> {
    if (held.size === 0) return;
    const batch = held;
    held = new Map();
    const entries = [...batch.values()];
    try {
      await options.write(entries);
    } catch (err) {
      failedWrites++;
      lastError = err instanceof Error ? err.message : String(err);
      putBack(batch);
      schedule();
      throw err;
    }
    for (const entry of entries) pending -= weight(entry);
    if (held.size === 0) lastError = null;
  }

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    if (soon) clearImmediate(soon);
    timer = undefined;
    soon = undefined;
    // One write at a time: wait for the one under way (its failure is its own), then write what is left.
    while (writing) await writing.catch(() => undefined);
    const write = writeHeld();
    writing = write;
    try {
      await write;
    } finally {
      if (writing === write) writing = undefined;
    }
  }

  async function flushQuietly(): Promise<boolean> {
    try {
      await flush();
    } catch {
      // Counted in the stats; the entries stay held for the next attempt.
    }
    return held.size === 0 && writing === undefined;
  }

  return {
    add(key, entry) {
      const existing = options.merge ? held.get(key) : undefined;
      if (existing !== undefined && options.merge) options.merge(existing, entry);
      else if (held.size >= options.maxKeys) {
        dropped += weight(entry);
        return false;
      } else held.set(key, entry);
      pending += weight(entry);
      if (options.flushAtKeys !== undefined && held.size >= options.flushAtKeys && !soon && lastError === null) {
        soon = setImmediate(() => void flushQuietly()).unref();
      } else schedule();
      return true;
    },
    flush,
    flushQuietly,
    stats: () => ({ pending, dropped, failedWrites, lastError }),
  };
}
