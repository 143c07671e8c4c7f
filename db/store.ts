/**
 * The ASYNC repository contract: what the API will call once it can run on
 * PostgreSQL (issue 23). Two implementations keep it, and ONE contract suite
 * (test/db/contract/) runs against both:
 *
 *   - db/sqlite-store.ts  the embedded SQLite repositories (db/index.ts) behind this interface
 *   - db/pg/              PostgreSQL over a `pg` Pool, with row-level security as a second wall
 *
 * Every method is the synchronous repository's method of the same name, with
 * the same arguments, the same scoped-query semantics (scope -> `WHERE id = $1
 * AND tenant_id = $2 [AND owner = $3]`, a row out of scope is indistinguishable
 * from a missing one) and the same errors (ScopeError, DbInputError), only
 * returning a promise. Errors arrive as rejections, never as synchronous throws.
 *
 *   const store = await openPgStore({ url: process.env.PORTCULLIS_DATABASE_URL });
 *   const row = await store.invoices.getScoped("inv_alice_1", toScope(decision.scope));
 *   await store.transaction(async (tx) => {
 *     await tx.invoices.transitionScoped("inv_alice_2", scope, ["pending"], "approved");
 *     await tx.securityEvents.record(event);          // both or neither
 *   });
 *
 * Inside `transaction(fn)`, use only `tx`: the store itself is outside the
 * transaction (on SQLite it even waits for the transaction to end).
 */
import type { ExportJobsRepository } from "./exports";
import type { InvoicesRepository } from "./invoices";
import type { SecurityEventInput, SecurityEventsRepository } from "./security-events";
import type { TrafficHit, TrafficRow } from "./traffic";
import type { TenantRow } from "./types";
import type { UsersRepository } from "./users";
import type { VersionCall, VersionCallerRow } from "./version-callers";
import type { Bookkeeping } from "./write-behind";

/** The same methods as T, each returning a promise of what T's returns. */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

export type AsyncUsersRepository = Async<UsersRepository>;
export type AsyncInvoicesRepository = Async<InvoicesRepository>;
export type AsyncExportJobsRepository = Async<ExportJobsRepository>;
export type AsyncSecurityEventsRepository = Async<SecurityEventsRepository>;

/**
 * Traffic counts stay summed in memory (count() is on every request and never
 * waits); flush() writes them in one transaction (rejecting, and keeping
 * them, when it cannot), summary() writes them first when it can.
 */
export interface AsyncTrafficRepository {
  count(hit: TrafficHit): void;
  flush(): Promise<void>;
  summary(filter?: { since?: string }): Promise<TrafficRow[]>;
}

/** Deprecated-version callers: summed in memory like the traffic counts. */
export interface AsyncVersionCallersRepository {
  count(call: VersionCall): void;
  flush(): Promise<void>;
  summary(filter?: { since?: string }): Promise<VersionCallerRow[]>;
}

/** The repositories a transaction's body works with (and the store's own). */
export interface Repositories {
  tenants: { list(): Promise<TenantRow[]> };
  users: AsyncUsersRepository;
  invoices: AsyncInvoicesRepository;
  exportJobs: AsyncExportJobsRepository;
  securityEvents: AsyncSecurityEventsRepository;
  /**
   * Runs fn in one transaction: every write through `tx` commits together or
   * not at all (fn's rejection rolls back). Nested, a savepoint: an inner
   * failure rolls back only the inner part.
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
}

/**
 * Security events as the store (not a transaction) keeps them: recordLater()
 * is what the API calls on a request's way out. It checks the event and holds
 * it in memory; a timer writes what is held, off every request's path, and
 * keeps it while the database refuses (locked, unreachable), up to a bound
 * past which events are dropped and counted. query() writes what is held
 * first when it can.
 */
export interface StoreSecurityEvents extends AsyncSecurityEventsRepository {
  /** Checks the event (throws DbInputError on a bad one) and holds it for a write a moment later. Never waits. */
  recordLater(event: SecurityEventInput): void;
  /** Writes what is held now; rejects, keeping it, when it cannot. */
  flush(): Promise<void>;
}

/** Whether the database answers (PostgreSQL: reachable, a connection to be had in time). */
export type StoreHealth = { available: true } | { available: false; since: string; error: string };

export interface DataStore extends Repositories {
  readonly backend: "sqlite" | "postgres";
  /** Schema version of the database (the latest this build knows: opening refuses any other). */
  readonly schemaVersion: number;
  securityEvents: StoreSecurityEvents;
  traffic: AsyncTrafficRepository;
  versionCallers: AsyncVersionCallersRepository;
  /** What the write-behind buffers hold and what they could not write. */
  bookkeeping(): Bookkeeping;
  /**
   * Unavailable from the first statement that failed for want of the database
   * (DatabaseUnavailableError) until one succeeds again (PostgreSQL probes it
   * meanwhile); SQLite, a local file, is always available.
   */
  health(): StoreHealth;
  /**
   * Writes the held bookkeeping (waiting a bounded time), then closes the
   * connection (SQLite) or ends the pool it created (PostgreSQL). Rejects with
   * BookkeepingLostError, after closing, when some of it could not be written,
   * now or earlier (a full buffer).
   */
  close(): Promise<void>;
}
