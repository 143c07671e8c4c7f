/**
 * PostgreSQL behind the async repository contract (db/store.ts).
 *
 *   const store = await openPgStore({ url: process.env.PORTCULLIS_DATABASE_URL });
 *   await store.invoices.getScoped("inv_alice_1", scope);
 *   await store.close();
 *
 * Opening checks, before any request could be served, that the database is
 * at this build's schema version (migrate with `portcullis db migrate`) and
 * that the role connected is one row-level security holds: not a superuser,
 * not BYPASSRLS, not the tables' owner nor a member of the owner. Each
 * refusal is a PgStoreError with a stable code.
 */
import type pg from "pg";
import type { DataStore, Repositories } from "../store";
import type { TenantRow } from "../types";
import { pgExportJobsRepository } from "./exports";
import { pgInvoicesRepository } from "./invoices";
import { pgSchemaVersion } from "./migrate";
import { PG_LATEST_VERSION } from "./migrations";
import { createPool, type PoolOptions } from "./pool";
import { pgSecurityEventsRepository, pgStoreSecurityEvents } from "./security-events";
import { poolSession, type Session } from "./session";
import { pgTrafficRepository } from "./traffic";
import { pgUsersRepository } from "./users";
import { pgVersionCallersRepository } from "./version-callers";
import { trackAvailability } from "./unavailable";
import { throwIfLost } from "../write-behind";

export { createPool, type PoolOptions } from "./pool";
export { isUnavailable } from "./unavailable";
export { migratePg, MigrationError } from "./migrate";
export { PG_LATEST_VERSION } from "./migrations";

export class PgStoreError extends Error {
  override readonly name = "PgStoreError";
  constructor(
    readonly code: "schema_version_mismatch" | "role_bypasses_rls",
    message: string,
  ) {
    super(message);
  }
}

export interface PgStoreOptions {
  /** postgres://... of the SERVICE role (PORTCULLIS_DATABASE_URL); or give `pool`. */
  url?: string;
  /** An existing pool (created with createPool, for its type parsing); it stays the caller's to end. */
  pool?: pg.Pool;
  /** For a pool created here (`url`): its size and bounds (pool.ts). */
  poolOptions?: Omit<PoolOptions, "url">;
}

/** The longest close() waits for held bookkeeping to be written before it gives up and reports the loss. */
const CLOSE_FLUSH_BOUND_MS = 2000;

function repositories(session: Session): Repositories {
  return {
    tenants: {
      list: async () => (await session.query<TenantRow>("SELECT id, name FROM tenants ORDER BY id", [])).rows,
    },
    users: pgUsersRepository(session),
    invoices: pgInvoicesRepository(session),
    exportJobs: pgExportJobsRepository(session),
    securityEvents: pgSecurityEventsRepository(session),
    transaction: (fn) => session.atomic((tx) => fn(repositories(tx))),
  };
}

/** Refuses a role that row-level security would not hold. */
async function checkServiceRole(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ role: string; superuser: boolean; bypassrls: boolean; owns: boolean }>(
    `SELECT r.rolname AS role, r.rolsuper AS superuser, r.rolbypassrls AS bypassrls,
            EXISTS (SELECT 1 FROM pg_class c
                    WHERE c.oid IN ('public.users'::regclass, 'public.invoices'::regclass, 'public.export_jobs'::regclass)
                      AND pg_has_role(current_user, c.relowner, 'MEMBER')) AS owns
     FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const me = rows[0];
  if (me.superuser || me.bypassrls || me.owns) {
    const why = me.superuser ? "a superuser" : me.bypassrls ? "BYPASSRLS" : "the owner of the tenant tables (or a member of it)";
    throw new PgStoreError(
      "role_bypasses_rls",
      `the service must not connect as ${why}: connect as portcullis_app (PORTCULLIS_DATABASE_URL), so row-level security applies`,
    );
  }
}

export async function openPgStore(options: PgStoreOptions): Promise<DataStore> {
  if (options.pool === undefined && options.url === undefined) throw new Error("openPgStore needs a url or a pool");
  const ownPool = options.pool === undefined;
  const pool = options.pool ?? createPool({ ...options.poolOptions, url: options.url as string });
  try {
    const client = await pool.connect();
    let version: number;
    try {
      version = await pgSchemaVersion(client);
    } finally {
      client.release();
    }
    if (version !== PG_LATEST_VERSION) {
      throw new PgStoreError(
        "schema_version_mismatch",
        `database schema version is ${version}, this build expects ${PG_LATEST_VERSION}: run \`portcullis db migrate\``,
      );
    }
    await checkServiceRole(pool);
  } catch (err) {
    if (ownPool) await pool.end();
    throw err;
  }
  const availability = trackAvailability(() => pool.query("SELECT 1"));
  const session = poolSession(pool, availability);
  const traffic = pgTrafficRepository(session);
  const versionCallers = pgVersionCallersRepository(session);
  const securityEvents = pgStoreSecurityEvents(session);
  const bookkeeping = () => ({ traffic: traffic.stats(), securityEvents: securityEvents.stats(), versionCallers: versionCallers.stats() });
  let closed: Promise<void> | undefined;
  return {
    ...repositories(session),
    backend: "postgres",
    schemaVersion: PG_LATEST_VERSION,
    securityEvents,
    traffic,
    versionCallers,
    bookkeeping,
    health: availability.health,
    close: () =>
      (closed ??= (async () => {
        try {
          // What is held is written now if the database lets it within the bound; what is not is reported.
          await withinBound(Promise.all([traffic.flush(), versionCallers.flush(), securityEvents.flush()]), CLOSE_FLUSH_BOUND_MS);
        } catch {
          // Still held: counted below.
        } finally {
          availability.stop();
          if (ownPool) await pool.end();
        }
        throwIfLost(bookkeeping());
      })()),
  };
}

/** Resolves or rejects with `work`, or rejects once `ms` have passed (the work goes on, unheard). */
function withinBound<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}
