/**
 * The SQLite decision store: schema, and how to open it for appending (the
 * sink) or for reading (queries, the `decisions` command).
 *
 * One row per event: the full masked event as JSON plus indexed columns
 * copied out of it (decision id, time, path, actor, allowed, status, reason,
 * revision) so auditors can filter without parsing JSON. Beside it, one row
 * per request outcome (`outcomes`: what the client got, under the same
 * decision id), which the queries join to the decision. The table is
 * append-only: triggers refuse UPDATE and DELETE, and a repeated decision_id
 * keeps the first event (so INSERT OR REPLACE cannot overwrite one). (DROP TABLE and editing
 * the file by hand are outside what a trigger can stop: protect the file.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { DecisionLogError } from "../core/errors";
import type { RequestOutcome } from "../../types";
import type { LogEvent } from "../core/mask";

/** Where the decision log lives unless configured otherwise (relative to the working directory). */
export const DEFAULT_DECISIONS_DB = "var/decisions.db";

const SCHEMA = `
-- seq is the rowid: with DELETE refused, max(rowid) + 1 is already strictly
-- increasing, so AUTOINCREMENT (a sqlite_sequence write per row) buys nothing.
CREATE TABLE IF NOT EXISTS decisions (
  seq         INTEGER PRIMARY KEY,
  decision_id TEXT NOT NULL UNIQUE,
  timestamp   TEXT NOT NULL,
  path        TEXT,
  actor_id    TEXT,
  allowed     INTEGER NOT NULL CHECK (allowed IN (0, 1)),
  status      INTEGER,
  reason      TEXT,
  revision    TEXT,
  event       TEXT NOT NULL CHECK (json_valid(event))
);
CREATE INDEX IF NOT EXISTS decisions_by_time    ON decisions (timestamp);
CREATE INDEX IF NOT EXISTS decisions_by_actor   ON decisions (actor_id, timestamp);
CREATE INDEX IF NOT EXISTS decisions_by_path    ON decisions (path, timestamp);
-- Results: the denials, which is what auditors filter on (--denied). Allows are
-- the bulk of the log; an index over them would cost every insert and serve
-- no query a time range does not serve as well. (Stores made before this index
-- had decisions_by_allowed over every row: dropped below, the table is untouched.)
CREATE INDEX IF NOT EXISTS decisions_denied     ON decisions (timestamp) WHERE allowed = 0;
DROP INDEX IF EXISTS decisions_by_allowed;
-- A second event with a known decision_id is ignored (the first one wins), for every
-- connection: INSERT OR REPLACE would otherwise delete the original without
-- firing the DELETE trigger (SQLite skips it unless recursive_triggers is on).
-- It is the dearest part of an insert: with outcomes_keep_first, ~20% of the
-- store's CPU per event and outcome (an insert loop on this schema, batches
-- of 250, ran at 0.78x without both), nearly all of it SQLite running a row
-- trigger at all (one whose WHEN is always false cost 80% as much): no
-- cheaper form of it exists. Nor a trigger-free one: a conflict clause in
-- the table yields to the statement's OR REPLACE, and recursive_triggers is
-- per connection.
CREATE TRIGGER IF NOT EXISTS decisions_keep_first BEFORE INSERT ON decisions
WHEN EXISTS (SELECT 1 FROM decisions WHERE decision_id = NEW.decision_id)
BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER IF NOT EXISTS decisions_no_update BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'decision log is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS decisions_no_delete BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'decision log is append-only: DELETE refused'); END;

-- What each request's client got, keyed by the decision id the response
-- carried (RequestOutcome, recorded when the response finished). A decision
-- without an outcome is a request the process did not finish (a crash); an
-- outcome without a decision, one whose event the drop policy dropped or
-- the process lost. Append-only like decisions. (Added to stores made
-- before it by IF NOT EXISTS: the decisions table is untouched.)
CREATE TABLE IF NOT EXISTS outcomes (
  seq         INTEGER PRIMARY KEY,
  decision_id TEXT NOT NULL UNIQUE,
  timestamp   TEXT NOT NULL,
  method      TEXT NOT NULL,
  http_path   TEXT NOT NULL,
  route_id    TEXT,
  version     TEXT,
  actor_id    TEXT NOT NULL,
  status      INTEGER NOT NULL,
  problem     TEXT,
  scope_found INTEGER CHECK (scope_found IN (0, 1)),
  test_run    TEXT,
  aborted     INTEGER NOT NULL CHECK (aborted IN (0, 1))
);
CREATE INDEX IF NOT EXISTS outcomes_by_time  ON outcomes (timestamp);
CREATE INDEX IF NOT EXISTS outcomes_by_path  ON outcomes (http_path, timestamp);
CREATE INDEX IF NOT EXISTS outcomes_by_route ON outcomes (route_id, timestamp);
CREATE INDEX IF NOT EXISTS outcomes_by_run   ON outcomes (test_run, timestamp) WHERE test_run IS NOT NULL;
-- The requests that ended in an error: with decisions_denied, what --denied reads when refusals
-- are rare (query.ts), and its outcomes without a decision. Partial, like decisions_denied: the
-- bulk (successes) costs an insert only the comparison. (Added to older stores at their next
-- open for append, which reads outcomes once to build it.)
CREATE INDEX IF NOT EXISTS outcomes_failed   ON outcomes (timestamp) WHERE status >= 400;
CREATE TRIGGER IF NOT EXISTS outcomes_keep_first BEFORE INSERT ON outcomes
WHEN EXISTS (SELECT 1 FROM outcomes WHERE decision_id = NEW.decision_id)
BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER IF NOT EXISTS outcomes_no_update BEFORE UPDATE ON outcomes
BEGIN SELECT RAISE(ABORT, 'decision log is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS outcomes_no_delete BEFORE DELETE ON outcomes
BEGIN SELECT RAISE(ABORT, 'decision log is append-only: DELETE refused'); END;

-- One row per log start, clean stop, and interrupted run found at a start
-- (runs.ts): how a restart knows the previous run's log was cut short.
CREATE TABLE IF NOT EXISTS log_runs (
  seq     INTEGER PRIMARY KEY,
  run_id  TEXT NOT NULL,
  kind    TEXT NOT NULL CHECK (kind IN ('start', 'clean_stop', 'interrupted')),
  at      TEXT NOT NULL,
  detail  TEXT NOT NULL CHECK (json_valid(detail))
);
CREATE INDEX IF NOT EXISTS log_runs_by_run ON log_runs (run_id, kind);
CREATE TRIGGER IF NOT EXISTS log_runs_no_update BEFORE UPDATE ON log_runs
BEGIN SELECT RAISE(ABORT, 'decision log is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS log_runs_no_delete BEFORE DELETE ON log_runs
BEGIN SELECT RAISE(ABORT, 'decision log is append-only: DELETE refused'); END;
`;

/** The row written for an event: its indexed columns and its JSON. */
export interface DecisionRow {
  decision_id: string;
  timestamp: string;
  path: string | null;
  actor_id: string | null;
  allowed: 0 | 1;
  status: number | null;
  reason: string | null;
  revision: string | null;
  event: string;
}

/** The row written for a request's outcome (RequestOutcome with the time it was recorded). */
export interface OutcomeRow {
  decision_id: string;
  timestamp: string;
  method: string;
  http_path: string;
  route_id: string | null;
  version: string | null;
  actor_id: string;
  status: number;
  problem: string | null;
  scope_found: 0 | 1 | null;
  test_run: string | null;
  aborted: 0 | 1;
}

/** Longest path kept: a path is client text, and one request must not bloat the log. */
const MAX_PATH_CHARS = 1024;

/** The outcome's row; `timestamp` is the log's text of when it was recorded. */
export function outcomeRowOf(outcome: RequestOutcome, timestamp: string): OutcomeRow {
  const path = String(outcome.path);
  return {
    decision_id: String(outcome.decisionId),
    timestamp,
    method: String(outcome.method).slice(0, 16),
    http_path: path.length <= MAX_PATH_CHARS ? path : path.slice(0, MAX_PATH_CHARS - 1) + "…",
    route_id: outcome.routeId ?? null,
    version: outcome.version ?? null,
    actor_id: String(outcome.actorId),
    status: Number(outcome.status),
    problem: outcome.problem ?? null,
    scope_found: outcome.scopeFound === null || outcome.scopeFound === undefined ? null : outcome.scopeFound ? 1 : 0,
    test_run: outcome.testRun ?? null,
    aborted: outcome.aborted ? 1 : 0,
  };
}

/**
 * Page size of a new store. A page goes to the WAL as one frame (two write(2)
 * calls) and back to the file at a checkpoint (two more), and an event is
 * ~1-2 KB: with SQLite's default 4 KiB, the syscalls were most of a batch's
 * cost. 8 KiB halves them; 16 KiB saved no more on batches and made a
 * one-event commit (durable()) dearer, as every commit rewrites the last page
 * of the table and of each index. Measured in the commit that set it.
 */
export const STORE_PAGE_SIZE = 8192;

/**
 * How long a write waits for another connection's lock on the store before
 * it fails (and is retried by the sink): short, because the connection that
 * waits is the log's, and while it waits nothing reaches the store. Only a
 * second writer (a shell, another process on the same file) ever holds one.
 */
const BUSY_TIMEOUT_MS = 250;

export interface StoreLimits {
  /**
   * Largest size of the store file in bytes (PRAGMA max_page_count): beyond
   * it inserts fail as they would on a full disk. Keeps the log from filling
   * a volume it shares, and is how tests fill it. Absent: no limit.
   */
  maxBytes?: number;
}

/** Opens (creating if needed) the store for appending: WAL, schema, triggers. */
export function openForAppend(file: string, limits: StoreLimits = {}): Database.Database {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  // Before anything writes the header: only a new store takes it (an existing one keeps its own).
  db.pragma(`page_size = ${STORE_PAGE_SIZE}`);
  db.pragma("journal_mode = WAL");
  // Durable against the PROCESS dying (SIGKILL, crash): in WAL mode a commit has written its frames
  // to the WAL file (write(2), in the OS page cache) before it returns, and the next open replays
  // them. NORMAL skips the fsync at each commit, so an OS crash or power loss can lose the last
  // commits; FULL would cover that at an fsync per transaction (out of scope here: see README).
  db.pragma("synchronous = NORMAL");
  // Belt and braces with decisions_keep_first: REPLACE's implicit delete fires the DELETE trigger.
  db.pragma("recursive_triggers = ON");
  // A multi-row INSERT keeps a statement journal (the rows before a failing one must roll back);
  // on disk (the default) it spilled to a temporary file, a write(2) per page. It holds only the
  // pages one statement touches, a few dozen KB.
  db.pragma("temp_store = MEMORY");
  db.exec(SCHEMA);
  if (limits.maxBytes !== undefined) {
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    // Never below the current size: SQLite would keep the larger one anyway.
    db.pragma(`max_page_count = ${Math.max(1, Math.floor(limits.maxBytes / pageSize))}`);
  }
  return db;
}

/** Opens an existing store read-only (queries never create or change the log). */
export function openForRead(file: string): Database.Database {
  if (!fs.existsSync(file)) throw new DecisionLogError("decisions_db_missing", `no decision log at ${file}`);
  return new Database(file, { readonly: true, fileMustExist: true });
}

/**
 * The indexed columns of an event, read from the MASKED event: a masked
 * actor id stays masked. `json` is the event's JSON text when the caller has
 * it already (it must be JSON.stringify(event)).
 */
export function rowOf(event: LogEvent, json?: string): DecisionRow {
  const input = asObject(event.input);
  const actor = asObject(input?.actor);
  const result = asObject(event.result);
  let revision: string | null = null;
  for (const name in event.bundles) revision = revision === null ? event.bundles[name].revision : `${revision},${event.bundles[name].revision}`;
  // A refusal made before any policy ran (event.custom.refusal): denied, with the API's status and problem.
  const refusal = asObject(asObject(event.custom)?.refusal);
  if (refusal) {
    return {
      decision_id: event.decision_id,
      timestamp: event.timestamp,
      path: event.path ?? null,
      actor_id: typeof actor?.id === "string" ? actor.id : null,
      allowed: 0,
      status: typeof refusal.status === "number" ? refusal.status : null,
      reason: typeof refusal.problem === "string" ? refusal.problem : null,
      revision,
      event: json ?? JSON.stringify(event),
    };
  }
  return {
    decision_id: event.decision_id,
    timestamp: event.timestamp,
    path: event.path ?? null,
    actor_id: typeof actor?.id === "string" ? actor.id : null,
    // Deny unless the policy's result says allow. When the PDP denied on its own
    // (event.error) the raw result, if any, was not what the API acted on.
    allowed: result?.allow === true && !event.error ? 1 : 0,
    status: !event.error && typeof result?.status === "number" ? result.status : null,
    reason: event.error ? event.error.code : typeof result?.reason === "string" ? result.reason : null,
    revision,
    event: json ?? JSON.stringify(event),
  };
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
