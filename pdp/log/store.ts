/**
 * The SQLite decision store: schema, and how to open it for appending (the
 * sink) or for reading (queries, the `decisions` command).
 *
 * One row per event: the full masked event as JSON plus indexed columns
 * copied out of it (decision id, time, path, actor, allowed, status, reason,
 * revision) so auditors can filter without parsing JSON. The table is
 * append-only: triggers refuse UPDATE and DELETE, and a repeated decision_id
 * keeps the first event (so INSERT OR REPLACE cannot overwrite one). (DROP TABLE and editing
 * the file by hand are outside what a trigger can stop: protect the file.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { DecisionLogError } from "./errors";
import type { LogEvent } from "./mask";

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
CREATE TRIGGER IF NOT EXISTS decisions_keep_first BEFORE INSERT ON decisions
WHEN EXISTS (SELECT 1 FROM decisions WHERE decision_id = NEW.decision_id)
BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER IF NOT EXISTS decisions_no_update BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'decision log is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS decisions_no_delete BEFORE DELETE ON decisions
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

/** Opens (creating if needed) the store for appending: WAL, schema, triggers. */
export function openForAppend(file: string): Database.Database {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  db.pragma("synchronous = NORMAL");
  // Belt and braces with decisions_keep_first: REPLACE's implicit delete fires the DELETE trigger.
  db.pragma("recursive_triggers = ON");
  db.exec(SCHEMA);
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
