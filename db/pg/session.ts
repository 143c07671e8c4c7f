/**
 * How the PostgreSQL repositories reach the database: a Session runs
 * statements either on the pool (each call its own short transaction) or on
 * one client inside a caller's transaction.
 *
 * The tenant for row-level security is set with
 * `set_config('portcullis.tenant', $1, true)`, the function form of SET LOCAL:
 * it lasts until the end of the CURRENT transaction, so a connection given
 * back to the pool never carries a tenant into the next use. It is never set
 * per session (SET without LOCAL), and `scoped` is the only place setting it.
 */
import type pg from "pg";
import type { Availability } from "./unavailable";

export interface Session {
  /** One statement with `portcullis.tenant` set to tenantId for it (and, in a transaction, until the next scoped call). */
  scoped<R extends pg.QueryResultRow>(tenantId: string, sql: string, params: unknown[]): Promise<pg.QueryResult<R>>;
  /** One statement without a tenant: tables without RLS, or the SECURITY DEFINER lookups. */
  query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<R>>;
  /** fn's statements in one transaction (a savepoint when already in one). */
  atomic<T>(fn: (session: Session) => Promise<T>): Promise<T>;
}

const SET_TENANT = "SELECT set_config('portcullis.tenant', $1, true)";

/** A transaction on `client`; BEGIN and COMMIT/ROLLBACK are the caller's (see poolSession.atomic). */
function transactionSession(client: pg.PoolClient, isOpen: () => boolean): Session {
  let savepoints = 0;
  const check = () => {
    if (!isOpen()) throw new Error("transaction already ended: use the store, not a kept tx");
  };
  const session: Session = {
    async scoped(tenantId, sql, params) {
      check();
      await client.query(SET_TENANT, [tenantId]);
      return client.query(sql, params);
    },
    async query(sql, params) {
      check();
      return client.query(sql, params);
    },
    async atomic(fn) {
      check();
      // The name is generated here, never taken from a caller.
      const name = `sp_${++savepoints}`;
      await client.query(`SAVEPOINT ${name}`);
      try {
        const result = await fn(session);
        await client.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (err) {
        await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      }
    },
  };
  return session;
}

/** Runs fn in a transaction on a client of the pool; a client whose rollback failed is destroyed, not reused. */
async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out client whose connection dies (server stopped, pg_terminate_backend) emits `error`:
  // unheard, node would end the process. The statement under way rejects with it anyway.
  const lost = (err: Error): void => void (broken ??= err);
  client.on("error", lost);
  try {
    await client.query("BEGIN");
    try {
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    }
  } finally {
    // A broken client keeps the listener: it is discarded, and may still report its socket's end.
    if (!broken) client.removeListener("error", lost);
    client.release(broken);
  }
}

/**
 * Statements on the pool. With `availability`, every top-level call reports
 * to it: a failure for want of the database rejects as DatabaseUnavailableError
 * (unavailable.ts), a success says the database answers again.
 */
export function poolSession(pool: pg.Pool, availability?: Availability): Session {
  const watched = async <T>(run: () => Promise<T>): Promise<T> => {
    if (!availability) return run();
    try {
      const result = await run();
      availability.succeeded();
      return result;
    } catch (err) {
      throw availability.classify(err);
    }
  };
  return {
    scoped: (tenantId, sql, params) =>
      watched(() =>
        inTransaction(pool, async (client) => {
          await client.query(SET_TENANT, [tenantId]);
          return client.query(sql, params);
        }),
      ),
    query: (sql, params) => watched(() => pool.query(sql, params)),
    atomic: (fn) =>
      watched(() =>
        inTransaction(pool, async (client) => {
          let open = true;
          try {
            return await fn(transactionSession(client, () => open));
          } finally {
            open = false;
          }
        }),
      ),
  };
}
