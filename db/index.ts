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
import { securityEventsRepository, type SecurityEventsRepository } from "./security-events";
import { seed } from "./seed";
import { statementCache } from "./sql";
import { trafficRepository, type TrafficRepository } from "./traffic";
import { versionCallersRepository, type VersionCallersRepository } from "./version-callers";
import type { TenantRow } from "./types";
import { usersRepository, type UsersRepository } from "./users";

export * from "./types";
export { toScope, checkScope } from "./scope";
export type { UserIdentity, UsersRepository } from "./users";
export type { InvoiceCursor, InvoiceStatusTotal, InvoicesRepository, TransitionResult } from "./invoices";
export type { ExportJobsRepository, NewExportJob } from "./exports";
export type { SecurityEventFilter, SecurityEventInput, SecurityEventsRepository } from "./security-events";
export { SEED_INVOICES, SEED_TENANTS, SEED_USERS } from "./seed";
export { LATEST_VERSION } from "./migrations";
export type { ActorClass, TrafficHit, TrafficRepository, TrafficRow } from "./traffic";
export type { VersionCall, VersionCallerRow, VersionCallersRepository } from "./version-callers";

/** Where the database lives unless configured otherwise (relative to the working directory). */
export const DEFAULT_DB_FILE = "var/portcullis.db";

export interface OpenOptions {
  /** Insert the seed rows when this open creates the database (no effect on an existing one). */
  seed?: boolean;
  /** Open an existing, fully migrated file read-only (auditing tools): nothing is created or migrated. */
  readonly?: boolean;
}

export interface PortcullisDb {
  readonly file: string;
  /** Schema version after open (the latest this build knows). */
  readonly schemaVersion: number;
  close(): void;
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
  securityEvents: SecurityEventsRepository;
  /** Request counts per route template and version, for the route inventory. */
  traffic: TrafficRepository;
  /** Who calls Deprecated and Zombie versions, per day, actor and client. */
  versionCallers: VersionCallersRepository;
}

export interface SqliteTransaction {
  commit(): void;
  rollback(): void;
}

export function openDatabase(file: string, options: OpenOptions = {}): PortcullisDb {
  const db = options.readonly ? openExisting(file) : openWritable(file, options.seed === true);
  const prepare = statementCache(db);
  const transaction = <T>(fn: () => T): T => db.transaction(fn).immediate();
  const traffic = trafficRepository(prepare, transaction);
  const versionCallers = versionCallersRepository(prepare, transaction);
  return {
    file,
    schemaVersion: LATEST_VERSION,
    close: () => {
      if (db.open && !db.readonly) {
        // counts summed in memory are not lost at shutdown
        traffic.flush();
        versionCallers.flush();
      }
      db.close();
    },
    transaction,
    begin: () => beginTransaction(db),
    tenants: {
      list: () => prepare("SELECT id, name FROM tenants ORDER BY id").all() as TenantRow[],
    },
    users: usersRepository(prepare),
    invoices: invoicesRepository(db, prepare),
    exportJobs: exportJobsRepository(prepare),
    securityEvents: securityEventsRepository(prepare),
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
    if (version !== LATEST_VERSION) throw new Error(`database ${file} is at schema version ${version}, this build expects ${LATEST_VERSION}: open it writable once to migrate`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
