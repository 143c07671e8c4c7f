/**
 * The database cannot be reached in time: the server is down or restarting,
 * the connection was cut, no pooled connection came free within the bound, a
 * statement outlived its timeout. Nothing the statement meant to change was
 * changed (a transaction on a lost connection is rolled back by the server).
 * The API answers 503 `database_unavailable` with Retry-After.
 *
 * Only the PostgreSQL store raises it (db/pg/unavailable.ts classifies the
 * driver's errors); a SQLite file is either there or a bug. `cause` keeps
 * the driver's error for the log, never for a client.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
  readonly code = "database_unavailable";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
