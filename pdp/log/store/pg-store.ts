/**
 * The decision store on PostgreSQL (PORTCULLIS_DATABASE_URL): the tables of
 * db/pg/migrations.ts version 8 (`decisions`, `outcomes`, `log_runs`, the
 * columns of sqlite-store.ts plus `decisions.run_id`), shared by every instance.
 *
 *   const pool = openLogPool(url);          // the log's own small pool
 *   await checkLogStore(client);              // schema version, and a role that cannot rewrite the trail
 *   const n = await insertRows(pool, runId, decisions, outcomes);
 *
 * The service role is granted INSERT and SELECT only, and triggers refuse
 * UPDATE, DELETE and TRUNCATE for everyone; checkLogStore refuses to log
 * through a role that could still rewrite the trail (UPDATE, DELETE or
 * TRUNCATE granted, or the tables' owner, who could drop the triggers).
 */
import type pg from "pg";
import { pgSchemaVersion } from "../../../db/pg/migrate";
import { PG_LATEST_VERSION } from "../../../db/pg/migrations";
import { createPool } from "../../../db/pg/pool";
import { DecisionLogError } from "../core/errors";
import type { DecisionRow, OutcomeRow } from "./sqlite-store";

/**
 * The log's pool: its own connections, so a busy data store cannot starve
 * the audit trail (nor the reverse). Two: a batch being written and a
 * commit asked for meanwhile. Short timeouts: a database that does not
 * answer is a failing store (health, durable() rejecting) within seconds,
 * never a request that hangs.
 */
export function openLogPool(url: string): pg.Pool {
  const pool = createPool({ url, max: 2, connectTimeoutMs: 3000, statementTimeoutMs: 3000 });
  // An idle connection the server closed (a restart): the next write reconnects. Without a
  // listener, pg's 'error' event would end the process.
  pool.on("error", () => undefined);
  return pool;
}

/** Refuses a store at another schema version, or a role that could change what is written. */
export async function checkLogStore(client: pg.ClientBase): Promise<void> {
  const version = await pgSchemaVersion(client);
  if (version !== PG_LATEST_VERSION) {
    throw new DecisionLogError(
      "log_store_refused",
      `database schema version is ${version}, this build expects ${PG_LATEST_VERSION}: run \`portcullis db migrate\``,
    );
  }
  const { rows } = await client.query<{ rewrite: boolean }>(
    `SELECT bool_or(has_table_privilege(current_user, t, 'UPDATE') OR has_table_privilege(current_user, t, 'DELETE')
                    OR has_table_privilege(current_user, t, 'TRUNCATE') OR pg_has_role(current_user, c.relowner, 'MEMBER')) AS rewrite
       FROM unnest(ARRAY['public.decisions', 'public.outcomes', 'public.log_runs']) AS t
       JOIN pg_class c ON c.oid = t::regclass`,
  );
  if (rows[0].rewrite) {
    throw new DecisionLogError(
      "log_store_refused",
      "the decision log must not connect as a role that may UPDATE, DELETE or TRUNCATE it, or owns it: connect as portcullis_app (PORTCULLIS_DATABASE_URL)",
    );
  }
}

/** PostgreSQL text cannot hold U+0000 (JSON text escapes it; other columns are client text): it becomes U+FFFD. */
function text(value: string | null): string | null {
  return value !== null && value.includes("\0") ? value.replace(/\0/g, "\uFFFD") : value;
}

/**
 * Both kinds of row in ONE statement (one round trip, one transaction): an
 * INSERT per table from arrays, whatever the batch size. A decision id
 * already stored keeps its first row (DO NOTHING), as on SQLite.
 */
const INSERT_SQL = `
WITH d AS (
  INSERT INTO decisions (decision_id, timestamp, path, actor_id, allowed, status, reason, revision, event, run_id)
  SELECT u.*, $10 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::smallint[], $6::integer[], $7::text[], $8::text[], $9::json[]) AS u
  ON CONFLICT (decision_id) DO NOTHING RETURNING 1
), o AS (
  INSERT INTO outcomes (decision_id, timestamp, method, http_path, route_id, version, actor_id, status, problem, scope_found, test_run, aborted)
  SELECT * FROM unnest($11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::integer[], $19::text[], $20::smallint[], $21::text[], $22::smallint[])
  ON CONFLICT (decision_id) DO NOTHING RETURNING 1
)
SELECT (SELECT count(*) FROM d)::integer + (SELECT count(*) FROM o)::integer AS inserted`;

const DECISION_COLUMNS = ["decision_id", "timestamp", "path", "actor_id", "allowed", "status", "reason", "revision", "event"] as const;
const OUTCOME_COLUMNS = [
  "decision_id",
  "timestamp",
  "method",
  "http_path",
  "route_id",
  "version",
  "actor_id",
  "status",
  "problem",
  "scope_found",
  "test_run",
  "aborted",
] as const;

function columns<R, K extends keyof R>(rows: R[], names: readonly K[]): unknown[][] {
  return names.map((name) => rows.map((row) => (typeof row[name] === "string" ? text(row[name] as string) : row[name])));
}

/** Inserts the rows; returns how many were new (the others' decision ids were stored already). */
export async function insertRows(db: pg.Pool, runId: string, decisions: DecisionRow[], outcomes: OutcomeRow[]): Promise<number> {
  const params = [...columns(decisions, DECISION_COLUMNS), runId, ...columns(outcomes, OUTCOME_COLUMNS)];
  const { rows } = await db.query<{ inserted: number }>(INSERT_SQL, params);
  return rows[0].inserted;
}

/**
 * A row PostgreSQL refuses for what it holds (a data exception or a
 * constraint: SQLSTATE classes 22 and 23), as opposed to a store that cannot
 * be written now (connection, disk, locks), which the sink retries.
 */
export function isRowError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}
