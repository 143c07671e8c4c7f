/**
 * Lock contention without blocking the event loop.
 *
 * better-sqlite3 is synchronous: with a busy timeout, a statement that meets
 * another connection's write lock sleeps INSIDE the call, on the one thread
 * that answers every request. So the service opens its connection with
 * `busy_timeout = 0` (a locked write fails at once with SQLITE_BUSY, having
 * written nothing) and waits here instead, between attempts, on timers:
 *
 *   const row = await retryWhileBusy(() => store.users.setStatusScoped(...), { boundMs: 1000 });
 *
 * Readers are not affected in WAL mode (they read the last committed
 * snapshot while a writer holds the lock); only writes wait, and only for
 * the bound the caller gives. Each attempt is one statement or one
 * transaction, so an attempt refused with SQLITE_BUSY changed nothing and
 * is safe to run again.
 */
import { setTimeout as sleep } from "node:timers/promises";

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, _RECOVERY, _TIMEOUT), and SQLITE_LOCKED. */
export function isBusy(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Thrown by retryWhileBusy once the bound has passed; `cause` is the last SQLITE_BUSY. */
export class DatabaseBusyError extends Error {
  readonly code = "database_busy";
  constructor(
    readonly waitedMs: number,
    options?: { cause?: unknown },
  ) {
    super(`the database stayed locked by another connection for ${waitedMs} ms`, options);
  }
}

export interface RetryOptions {
  /** Give up (DatabaseBusyError) once this long has passed since the first attempt. */
  boundMs: number;
  /** Stop retrying early (shutdown): the last SQLITE_BUSY is rethrown as DatabaseBusyError. */
  stopping?: () => boolean;
}

/** Pauses between attempts: short first (a lock is usually held for a few ms), then at most 100 ms. */
const PAUSES_MS = [2, 5, 10, 20, 50, 100];

export async function retryWhileBusy<T>(attempt: () => T | Promise<T>, options: RetryOptions): Promise<T> {
  const started = Date.now();
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusy(err)) throw err;
      const waited = Date.now() - started;
      if (waited >= options.boundMs || options.stopping?.()) throw new DatabaseBusyError(waited, { cause: err });
      await sleep(Math.min(PAUSES_MS[Math.min(i, PAUSES_MS.length - 1)], options.boundMs - waited));
    }
  }
}
