/**
 * The embedded SQLite repositories (db/index.ts) behind the async contract
 * (store.ts), so the API can be written once against DataStore.
 *
 *   const store = sqliteStore(openDatabase(DEFAULT_DB_FILE, { seed: true }));
 *
 * SQLite here is ONE synchronous connection. A transaction that spans awaits
 * would otherwise let another request's statements run inside it (and commit
 * or roll back with it), so every top-level call passes one gate: calls run
 * in order, and while a transaction is open nothing but its own `tx` reaches
 * the connection. A call needs no more: each is a single synchronous step.
 */
import type { PortcullisDb } from "./index";
import type { Async, DataStore, Repositories } from "./store";

/**
 * Runs tasks one after another, each after the previous one settled. A
 * task given while none is pending runs at once, in the caller's turn: that
 * is the order it would have had in the queue (everything given before it
 * has settled), without a promise chain and two microtask turns per
 * statement, which every request's reads paid. A task that returns a
 * promise (a transaction) holds the gate until it settles, queued or not.
 */
class Gate {
  private tail: Promise<unknown> = Promise.resolve();
  /** Tasks given and not settled yet. */
  private pending = 0;
  private readonly settled = (): void => {
    this.pending--;
  };

  run<T>(task: () => T | Promise<T>): Promise<T> {
    let result: Promise<T>;
    if (this.pending === 0) {
      let value: T | Promise<T>;
      try {
        value = task();
      } catch (err) {
        return Promise.reject(err);
      }
      if (!isThenable(value)) return Promise.resolve(value);
      result = Promise.resolve(value);
    } else {
      result = this.tail.then(task);
    }
    this.pending++;
    this.tail = result.then(this.settled, this.settled);
    return result;
  }
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return value !== null && typeof value === "object" && typeof (value as { then?: unknown }).then === "function";
}

/** Each method of `repo` as an async method, called through `call` (the gate, or a transaction's liveness check). */
function asyncRepository<T extends object>(repo: T, call: <R>(fn: () => R) => Promise<R>): Async<T> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(repo) as Array<keyof T & string>) {
    const method = repo[key];
    if (typeof method === "function") out[key] = (...args: unknown[]) => call(() => (method as (...a: unknown[]) => unknown).apply(repo, args));
  }
  return out as Async<T>;
}

function repositories(db: PortcullisDb, call: <R>(fn: () => R) => Promise<R>, transaction: Repositories["transaction"]): Repositories {
  return {
    tenants: asyncRepository(db.tenants, call),
    users: asyncRepository(db.users, call),
    invoices: asyncRepository(db.invoices, call),
    exportJobs: asyncRepository(db.exportJobs, call),
    securityEvents: asyncRepository(db.securityEvents, call),
    transaction,
  };
}

/** A transaction's body, and the bodies nested in it, run with repositories that call SQLite directly (the gate is held by the outermost). */
async function runTransaction<T>(db: PortcullisDb, fn: (tx: Repositories) => Promise<T>): Promise<T> {
  const handle = db.begin();
  let open = true;
  // A `tx` kept past its transaction must not write outside it.
  const checkOpen = (): void => {
    if (!open) throw new Error("transaction already ended: use the store, not a kept tx");
  };
  const call = async <R>(f: () => R): Promise<R> => {
    checkOpen();
    return f();
  };
  const tx = repositories(db, call, async (inner) => {
    checkOpen();
    return runTransaction(db, inner);
  });
  try {
    const result = await fn(tx);
    handle.commit();
    return result;
  } catch (err) {
    handle.rollback();
    throw err;
  } finally {
    open = false;
  }
}

export function sqliteStore(db: PortcullisDb): DataStore {
  const gate = new Gate();
  const call = <R>(fn: () => R): Promise<R> => gate.run(fn);
  const base = repositories(db, call, (fn) => gate.run(() => runTransaction(db, fn)));
  return {
    ...base,
    backend: "sqlite",
    schemaVersion: db.schemaVersion,
    securityEvents: {
      ...base.securityEvents,
      // Held in memory, never through the gate: the buffer's timer writes it in a transaction of its own,
      // and never inside one the gate holds open (db/index.ts).
      recordLater: (event) => db.securityEvents.recordLater(event),
      flush: () => call(() => db.securityEvents.flush()),
    },
    traffic: {
      count: (hit) => db.traffic.count(hit),
      flush: () => call(() => db.traffic.flush()),
      summary: (filter) => call(() => db.traffic.summary(filter)),
    },
    versionCallers: {
      count: (c) => db.versionCallers.count(c),
      flush: () => call(() => db.versionCallers.flush()),
      summary: (filter) => call(() => db.versionCallers.summary(filter)),
    },
    bookkeeping: () => db.bookkeeping(),
    // A local file: there or a bug, never "unreachable".
    health: () => ({ available: true }),
    close: () => call(() => db.close()),
  };
}
