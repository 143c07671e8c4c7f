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
import type { SecurityEventsRepository } from "./security-events";
import type { TrafficHit, TrafficRow } from "./traffic";
import type { TenantRow } from "./types";
import type { UsersRepository } from "./users";
import type { VersionCall, VersionCallerRow } from "./version-callers";

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
 * waits); flush() writes them in one transaction, summary() flushes first.
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

export interface DataStore extends Repositories {
  readonly backend: "sqlite" | "postgres";
  /** Schema version of the database (the latest this build knows: opening refuses any other). */
  readonly schemaVersion: number;
  traffic: AsyncTrafficRepository;
  versionCallers: AsyncVersionCallersRepository;
  /** Flushes the traffic counts, then closes the connection (SQLite) or ends the pool it created (PostgreSQL). */
  close(): Promise<void>;
}
