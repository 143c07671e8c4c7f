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
  /** Connections kept at most (default 10). */
  max?: number;
  /**
   * Longest wait for a connection, and for a query's answer measured by the
   * client (so a server that stopped answering is noticed too); default 10 s.
   */
  timeoutMs?: number;
}

export function createPool(options: PoolOptions): pg.Pool {
  return new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    types: portcullisTypes,
    // Named in pg_stat_activity, so an operator can tell the service's connections apart.
    application_name: "portcullis",
    // A statement stuck behind a lock fails after 10 s instead of holding a request forever.
    statement_timeout: options.timeoutMs ?? 10_000,
    connectionTimeoutMillis: options.timeoutMs ?? 10_000,
    // Client-side: a connection whose server vanished (no RST) would otherwise wait for TCP to give up.
    query_timeout: options.timeoutMs === undefined ? undefined : options.timeoutMs + 1000,
  });
}
