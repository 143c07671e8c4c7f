/**
 * Reading the SQLite decision log: the filters an auditor needs (actor,
 * denied only, since a time, decision path, one decision id), served by the
 * indexed columns, newest first.
 */
import type Database from "better-sqlite3";
import { DecisionLogError } from "./errors";
import { timestampOf } from "./event";
import type { LogEvent } from "./mask";

export interface DecisionQuery {
  actor?: string;
  /** Only denials (allowed = 0). */
  denied?: boolean;
  /** Log timestamp text (see parseSince): only decisions at or after it. */
  since?: string;
  /** Decision path; also matches paths below it (`portcullis` matches `portcullis/decision`). */
  path?: string;
  id?: string;
  /** Most recent N (default 100). */
  limit?: number;
}

export interface DecisionEntry {
  decision_id: string;
  timestamp: string;
  path: string | null;
  actor_id: string | null;
  allowed: boolean;
  status: number | null;
  reason: string | null;
  revision: string | null;
  event: LogEvent;
}

export const DEFAULT_QUERY_LIMIT = 100;

export function queryDecisions(db: Database.Database, query: DecisionQuery): DecisionEntry[] {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (query.id !== undefined) {
    where.push("decision_id = @id");
    params.id = query.id;
  }
  if (query.actor !== undefined) {
    where.push("actor_id = @actor");
    params.actor = query.actor;
  }
  if (query.denied) where.push("allowed = 0");
  if (query.since !== undefined) {
    where.push("timestamp >= @since");
    params.since = query.since;
  }
  if (query.path !== undefined) {
    const path = query.path.replace(/^data[./]/, "").replace(/^\/+|\/+$/g, "").replace(/\./g, "/");
    where.push("(path = @path OR path LIKE @below ESCAPE '\\')");
    params.path = path;
    params.below = path.replace(/[\\%_]/g, (c) => "\\" + c) + "/%";
  }
  const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new DecisionLogError("decisions_bad_filter", `limit must be a positive integer, got ${limit}`);
  params.limit = limit;
  const sql =
    "SELECT decision_id, timestamp, path, actor_id, allowed, status, reason, revision, event FROM decisions" +
    (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
    " ORDER BY timestamp DESC, seq DESC LIMIT @limit";
  const rows = db.prepare(sql).all(params) as Array<Omit<DecisionEntry, "allowed" | "event"> & { allowed: number; event: string }>;
  return rows.map((row) => ({ ...row, allowed: row.allowed === 1, event: JSON.parse(row.event) as LogEvent }));
}

/**
 * `--since`: a duration back from now (`90s`, `15m`, `2h`, `7d`) or a date/time
 * (`2026-11-21`, `2026-11-21T14:00:00Z`); a date-time without a zone is UTC.
 */
export function parseSince(text: string, now: Date = new Date()): string {
  const duration = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (duration) {
    const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as "s" | "m" | "h" | "d"];
    return timestampOf(new Date(now.getTime() - Number(duration[1]) * unitMs));
  }
  const dateTime = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(text) && text.includes("T") ? `${text}Z` : text;
  const date = /^\d{4}-\d{2}-\d{2}/.test(dateTime) ? new Date(dateTime) : new Date(NaN);
  if (Number.isNaN(date.getTime())) {
    throw new DecisionLogError("decisions_bad_filter", `--since ${JSON.stringify(text)}: expected a duration (15m, 2h, 7d) or an RFC 3339 time`);
  }
  return timestampOf(date);
}
