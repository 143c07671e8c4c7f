/**
 * Portcullis' data layer: one SQLite file, opened with WAL and foreign keys,
 * migrated on open, and reached only through repositories.
 *
 * Object-level authorization lives here: every *Scoped method filters
 * `WHERE id = ? AND tenant_id = ? [AND owner = ?]` from the scope the PDP
 * decision returned (see scope.ts), and a scope without tenant_id throws.
 * The raw connection is deliberately not exposed: a caller that could run
 * its own SQL could forget the scope.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { exportJobsRepository, type ExportJobsRepository } from "./exports";
import { invoicesRepository, type InvoicesRepository } from "./invoices";
import { currentVersion, LATEST_VERSION, migrate } from "./migrations";
import { securityEventsRepository, type HeldSecurityEvents, type SecurityEventsRepository } from "./security-events";
import { seed } from "./seed";
import { statementCache } from "./sql";
import { throwIfLost, type Bookkeeping } from "./write-behind";
import { trafficRepository, type TrafficRepository } from "./traffic";
import { versionCallersRepository, type VersionCallersRepository } from "./version-callers";
import type { TenantRow } from "./types";
import { usersRepository, type UsersRepository } from "./users";

export * from "./types";
export { toScope, checkScope } from "./scope";
export type { UserIdentity, UsersRepository } from "./users";
export type { InvoiceCursor, InvoiceStatusTotal, InvoicesRepository, TransitionResult } from "./invoices";
export type { ExportJobsRepository, Lease, NewExportJob } from "./exports";
export { MAX_LEASE_MS } from "./exports";
export type { HeldSecurityEvents, SecurityEventFilter, SecurityEventInput, SecurityEventsRepository } from "./security-events";
export { SEED_INVOICES, SEED_TENANTS, SEED_USERS } from "./seed";
export { LATEST_VERSION } from "./migrations";
export type { ActorClass, TrafficHit, TrafficRepository, TrafficRow } from "./traffic";
export type { VersionCall, VersionCallerRow, VersionCallersRepository } from "./version-callers";
export { BookkeepingLostError, type Bookkeeping, type WriteBehindStats } from "./write-behind";
export { DatabaseUnavailableError } from "./unavailable";
export type { DataStore, StoreHealth } from "./store";
export { DatabaseBusyError, isBusy, retryWhileBusy } from "./busy";

/** Where the database lives unless configured otherwise (relative to the working directory). */
export const DEFAULT_DB_FILE = "var/portcullis.db";

export interface OpenOptions {
  /** Insert the seed rows when this open creates the database (no effect on an existing one). */
  seed?: boolean;
  /**
   * How long a statement that meets another connection's lock sleeps, IN the
   * call, before failing with SQLITE_BUSY (default 5000: command-line tools
   * may wait). The service passes 0 and waits on timers instead (busy.ts):
   * a sleeping statement would stop every request. Opening and migrating
   * always wait up to 5 s.
   */
  busyTimeoutMs?: number;
  /** Open an existing, fully migrated file read-only (auditing tools): nothing is created or migrated. */
  readonly?: boolean;
}

export interface PortcullisDb {
  readonly file: string;
  /** Schema version after open (the latest this build knows). */
  readonly schemaVersion: number;
  /**
   * Writes the buffered bookkeeping (traffic counts, security events), waiting
   * up to 2 s for a lock held elsewhere, then closes. Throws BookkeepingLostError
   * (after closing) when some of it could not be written, now or earlier.
   */
  close(): void;
  /** What the write-behind buffers hold and what they could not write (GET /metrics). */
  bookkeeping(): Bookkeeping;
  /** Runs fn in one transaction (IMMEDIATE at top level; a savepoint when nested). fn must be synchronous. */
  transaction<T>(fn: () => T): T;
  /**
   * A transaction that may span awaits, for the async adapter (sqlite-store.ts)
   * only: BEGIN IMMEDIATE at top level, a savepoint inside an open transaction.
   * The caller keeps every other use of this connection out until it ends.
   */
  begin(): SqliteTransaction;
  tenants: { list(): TenantRow[] };
  users: UsersRepository;
  invoices: InvoicesRepository;
  /** Export jobs (POST /api/admin/export) and their results. */
  exportJobs: ExportJobsRepository;
  securityEvents: SecurityEventsRepository & HeldSecurityEvents;
  /** Request counts per route template and version, for the route inventory. */
  traffic: TrafficRepository;
  /** Who calls Deprecated and Zombie versions, per day, actor and client. */
  versionCallers: VersionCallersRepository;
}

export interface SqliteTransaction {
  commit(): void;
  rollback(): void;
}

/** The longest close() sleeps on another connection's lock to write what is buffered (shutdown: no request waits). */
const CLOSE_BUSY_TIMEOUT_MS = 2000;

export function openDatabase(file: string, options: OpenOptions = {}): PortcullisDb {
  const db = options.readonly ? openExisting(file) : openWritable(file, options.seed === true);
  // After opening and migrating, which may wait for another process.
  if (options.busyTimeoutMs !== undefined) db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  const prepare = statementCache(db);
  const transaction = <T>(fn: () => T): T => db.transaction(fn).immediate();
  // Bookkeeping is written on timers: never into a transaction the async adapter holds open across awaits
  // (its rollback would take the counts with it); the write-behind buffer tries again on its next tick.
  const ownTransaction = <T>(fn: () => T): T => {
    if (db.inTransaction) throw new Error("the connection is inside another transaction");
    return transaction(fn);
  };
  const traffic = trafficRepository(prepare, ownTransaction);
  const versionCallers = versionCallersRepository(prepare, ownTransaction);
  const securityEvents = securityEventsRepository(prepare, ownTransaction, { readonly: db.readonly });
  const bookkeeping = (): Bookkeeping => ({ traffic: traffic.stats(), securityEvents: securityEvents.stats(), versionCallers: versionCallers.stats() });
  return {
    file,
    schemaVersion: LATEST_VERSION,
    close: () => {
      if (!db.open) return;
      if (!db.readonly) {
        db.pragma(`busy_timeout = ${CLOSE_BUSY_TIMEOUT_MS}`);
        // What is still buffered goes now; a failure leaves it counted in the stats.
        traffic.flushQuietly();
        securityEvents.flushQuietly();
        versionCallers.flushQuietly();
      }
      const held = bookkeeping();
      db.close();
      throwIfLost(held);
    },
    bookkeeping,
    transaction,
    begin: () => beginTransaction(db),
    tenants: {
      list: () => prepare("SELECT id, name FROM tenants ORDER BY id").all() as TenantRow[],
    },
    users: usersRepository(prepare),
    invoices: invoicesRepository(db, prepare),
    exportJobs: exportJobsRepository(prepare),
    securityEvents,
    traffic,
    versionCallers,
  };
}

let savepoints = 0;

function beginTransaction(db: Database.Database): SqliteTransaction {
  if (!db.inTransaction) {
    db.exec("BEGIN IMMEDIATE");
    return { commit: () => db.exec("COMMIT"), rollback: () => db.exec("ROLLBACK") };
  }
  // The name is generated here, never taken from a caller.
  const name = `async_sp_${++savepoints}`;
  db.exec(`SAVEPOINT ${name}`);
  return { commit: () => db.exec(`RELEASE ${name}`), rollback: () => db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`) };
}

function openWritable(file: string, withSeed: boolean): Database.Database {
  if (file !== ":memory:") {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    // The file holds private columns (notes, credits): owner-only from its first byte.
    // SQLite gives the -wal and -shm files the main file's permissions.
    fs.closeSync(fs.openSync(file, "a", 0o600));
  }
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
    db.pragma("synchronous = NORMAL");
    // Per connection and off by default in SQLite: without it the schema's REFERENCES are decoration.
    db.pragma("foreign_keys = ON");
    // Another process migrating or writing: wait for it rather than fail at once.
    db.pragma("busy_timeout = 5000");
    // Without it, INSERT OR REPLACE deletes a row without firing the append-only DELETE trigger.
    db.pragma("recursive_triggers = ON");
    migrate(db, withSeed ? () => seed(db) : undefined);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function openExisting(file: string): Database.Database {
  if (file === ":memory:" || !fs.existsSync(file)) throw new Error(`no database at ${file}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    const version = currentVersion(db);
    if (version !== LATEST_VERSION)
      throw new Error(`database ${file} is at schema version ${version}, this build expects ${LATEST_VERSION}: open it writable once to migrate`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
