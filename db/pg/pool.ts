/**
 * The `pg` Pool the PostgreSQL repositories use, with the type parsing that
 * makes its rows identical to SQLite's:
 *   - int8 (bigint: ids, counts, amounts, SUM/COUNT) -> number, refusing any
 *     value past 2^53 rather than rounding it silently
 *   - timestamptz -> ISO-8601 UTC text with milliseconds ("2026-03-01T12:00:00.000Z")
 *   - date -> its text ("2026-03-01"), never a Date at local midnight
 * The parsers are the pool's own (the `types` option): other pg users in the
 * same process keep pg's defaults.
 */
import pg from "pg";

const { types } = pg;
const parseTimestamptz = types.getTypeParser(types.builtins.TIMESTAMPTZ);

function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} does not fit a JavaScript number`);
  return n;
}

const PARSERS: Record<number, (text: string) => unknown> = {
  [types.builtins.INT8]: parseInt8,
  [types.builtins.TIMESTAMPTZ]: (text) => (parseTimestamptz(text) as Date).toISOString(),
  [types.builtins.DATE]: (text) => text,
};

const portcullisTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    format === "binary" ? types.getTypeParser(oid, "binary") : (PARSERS[oid] ?? types.getTypeParser(oid, "text"))) as pg.CustomTypesConfig["getTypeParser"],
};

export interface PoolOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections kept at most (default 10: config database.poolMax). */
  max?: number;
  /** The longest wait to connect, or for a pooled connection to come free (default 5000 ms). */
  connectTimeoutMs?: number;
  /** The longest a statement runs on the server (statement_timeout; default 5000 ms). */
  statementTimeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;
/** A transaction left open this long by a client that stopped talking is ended by the server (its locks with it). */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
/** What the client waits for an answer beyond the server's own statement timeout: the server is gone without a word. */
const CLIENT_GRACE_MS = 1000;

/**
 * Every wait is bounded, so a lost server is a prompt error (db/pg/unavailable.ts),
 * never a request that hangs: connecting and acquiring (connectionTimeoutMillis),
 * a statement on the server (statement_timeout) and on the client (query_timeout:
 * a server that stopped answering without closing the socket), TCP keep-alive.
 */
export function createPool(options: PoolOptions): pg.Pool {
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    types: portcullisTypes,
    // Named in pg_stat_activity, so an operator can tell the service's connections apart.
    application_name: "portcullis",
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + CLIENT_GRACE_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  // An IDLE pooled connection that dies (server restart, pg_terminate_backend) is dropped by the pool, which then
  // emits `error`: unheard, node would end the process. The next use connects afresh (or fails as unavailable).
  pool.on("error", () => undefined);
  return pool;
}
