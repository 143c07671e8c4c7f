/**
 * Reading the decision log, on SQLite (queryDecisions) or PostgreSQL
 * (queryDecisionsPg), with the same statements: the filters an auditor needs (actor,
 * refused only, since a time, HTTP path / route id / decision path, one
 * decision id, test runs), newest first. Each entry joins the policy's
 * decision event with the request's outcome (what the client got), by
 * decision id:
 *
 * - a decision and its outcome: the usual case;
 * - a decision without an outcome: the process stopped before the
 *   response finished (a crash), or the request was recorded by a build
 *   that did not record outcomes;
 * - an outcome without a decision: the drop policy dropped the event (an
 *   allowed anonymous health check), or it was lost.
 *
 * Decisions are read first through their indexes; outcomes without a
 * decision are then read only as far back as the oldest decision shown.
 */
import type Database from "better-sqlite3";
import type pg from "pg";
import { DecisionLogError } from "../core/errors";
import { timestampOf } from "../core/event";
import type { LogEvent } from "../core/mask";

export interface DecisionQuery {
  actor?: string;
  /**
   * Only refusals: the policy denied (or no policy was asked), or the
   * request's final status was an error (>= 400), e.g. a read the policy
   * allowed whose scoped query found no row (404).
   */
  denied?: boolean;
  /** Log timestamp text (see parseSince): only decisions at or after it. */
  since?: string;
  /**
   * An HTTP path (`/invoices/inv_1`, exact), a route id (`invoices.get`), or a
   * decision path, which also matches paths below it (`portcullis` matches
   * `portcullis/decision`).
   */
  path?: string;
  id?: string;
  /** Only requests of this verified test run. */
  testRun?: string;
  /** Leave out every request of a verified test run. */
  excludeTestRuns?: boolean;
  /** Most recent N (default 100). */
  limit?: number;
}

/** What the client got (the `outcomes` row). */
export interface OutcomeEntry {
  timestamp: string;
  method: string;
  http_path: string;
  route_id: string | null;
  version: string | null;
  actor_id: string;
  status: number;
  problem: string | null;
  scope_found: boolean | null;
  test_run: string | null;
  aborted: boolean;
}

export interface DecisionEntry {
  decision_id: string;
  /** The decision's time, or the outcome's when no decision was logged. */
  timestamp: string;
  /** Decision path (null for a refusal made before the policy was asked, or without a decision). */
  path: string | null;
  actor_id: string | null;
  /** The policy's answer (false too when no policy was asked); null when no decision was logged. */
  allowed: boolean | null;
  status: number | null;
  reason: string | null;
  revision: string | null;
  /** The logged event (OPA's shape); null when no decision was logged for this id. */
  event: LogEvent | null;
  /** What the client got; null when the request never finished (or predates outcomes). */
  outcome: OutcomeEntry | null;
}

export const DEFAULT_QUERY_LIMIT = 100;

const OUTCOME_COLUMNS = ["timestamp", "method", "http_path", "route_id", "version", "actor_id", "status", "problem", "scope_found", "test_run", "aborted"];

/** One condition, written for each side of the join: the decisions with their outcomes (d, o), and the outcomes alone (o). */
interface Condition {
  withDecision: string;
  outcomeOnly: string;
}

/**
 * The two statements of a query, in ONE text for both stores: named
 * parameters (`@id`), which SQLite binds as they are and PostgreSQL gets
 * numbered (positional). `alone(cutoff)` reads the outcomes without a
 * decision, as far back as the oldest decision the first one returned.
 */
interface QueryPlan {
  decided: string;
  alone(cutoff: boolean): string;
  params: Record<string, unknown>;
  limit: number;
}

function plan(query: DecisionQuery, outcomes: string): QueryPlan {
  const conditions: Condition[] = [];
  const params: Record<string, unknown> = {};
  const both = (sql: string, outcomeSql = sql): void => void conditions.push({ withDecision: sql, outcomeOnly: outcomeSql });
  if (query.id !== undefined) {
    both("d.decision_id = @id", "o.decision_id = @id");
    params.id = query.id;
  }
  if (query.actor !== undefined) {
    both("d.actor_id = @actor", "o.actor_id = @actor");
    params.actor = query.actor;
  }
  if (query.denied) both("(d.allowed = 0 OR o.status >= 400)", "o.status >= 400");
  if (query.since !== undefined) {
    both("d.timestamp >= @since", "o.timestamp >= @since");
    params.since = query.since;
  }
  if (query.path !== undefined) {
    const decisionPath = query.path
      .replace(/^data[./]/, "")
      .replace(/^\/+|\/+$/g, "")
      .replace(/\./g, "/");
    both("(d.path = @dpath OR d.path LIKE @below ESCAPE '\\' OR o.http_path = @path OR o.route_id = @path)", "(o.http_path = @path OR o.route_id = @path)");
    params.path = query.path;
    params.dpath = decisionPath;
    params.below = decisionPath.replace(/[\\%_]/g, (c) => "\\" + c) + "/%";
  }
  if (query.testRun !== undefined) {
    both("o.test_run = @run");
    params.run = query.testRun;
  }
  if (query.excludeTestRuns) both("(o.test_run IS NULL)");
  const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new DecisionLogError("decisions_bad_filter", `limit must be a positive integer, got ${limit}`);
  params.limit = limit;

  const outcomeColumns = OUTCOME_COLUMNS.map((c) => `o.${c} AS o_${c}`).join(", ");
  const where = (side: keyof Condition, extra: string[] = []) => {
    const all = [...conditions.map((c) => c[side]), ...extra];
    return all.length > 0 ? ` WHERE ${all.join(" AND ")}` : "";
  };
  return {
    decided:
      "SELECT d.decision_id, d.timestamp, d.path, d.actor_id, d.allowed, d.status, d.reason, d.revision, d.event, " +
      outcomeColumns +
      ` FROM decisions d LEFT JOIN ${outcomes} o ON o.decision_id = d.decision_id` +
      where("withDecision") +
      " ORDER BY d.timestamp DESC, d.seq DESC LIMIT @limit",
    alone: (cutoff) =>
      "SELECT o.decision_id, o.timestamp, NULL AS path, NULL AS actor_id, NULL AS allowed, NULL AS status, NULL AS reason, NULL AS revision, NULL AS event, " +
      outcomeColumns +
      ` FROM ${outcomes} o` +
      where("outcomeOnly", ["NOT EXISTS (SELECT 1 FROM decisions d WHERE d.decision_id = o.decision_id)", ...(cutoff ? ["o.timestamp >= @cutoff"] : [])]) +
      " ORDER BY o.timestamp DESC, o.seq DESC LIMIT @limit",
    params,
    limit,
  };
}

/** The decisions shown, and the cutoff for the outcomes alone (none unless the decisions filled the limit). */
function cutoffOf(decided: Row[], limit: number): string | undefined {
  return decided.length === limit ? decided[decided.length - 1].timestamp : undefined;
}

/** Both lists merged, newest first, cut to the limit. */
function merge(decided: Row[], alone: Row[], limit: number): DecisionEntry[] {
  const rows =
    alone.length === 0 ? decided : [...decided, ...alone].sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0)).slice(0, limit);
  return rows.map(entryOf);
}

/** On the SQLite store (sqlite-store.ts openForRead). */
export function queryDecisions(db: Database.Database, query: DecisionQuery): DecisionEntry[] {
  // A store written before outcomes existed, opened read-only: an empty stand-in with the same columns.
  const outcomes = hasOutcomes(db) ? "outcomes" : `(SELECT NULL AS seq, NULL AS decision_id, ${OUTCOME_COLUMNS.map((c) => `NULL AS ${c}`).join(", ")} LIMIT 0)`;
  const { decided: decidedSql, alone, params, limit } = plan(query, outcomes);
  const decided = db.prepare(decidedSql).all(params) as Row[];
  const cutoff = cutoffOf(decided, limit);
  const lone = db.prepare(alone(cutoff !== undefined)).all(cutoff !== undefined ? { ...params, cutoff } : params) as Row[];
  return merge(decided, lone, limit);
}

/** On the PostgreSQL store (pg-store.ts): the same statements, the same entries. */
export async function queryDecisionsPg(db: pg.Pool | pg.ClientBase, query: DecisionQuery): Promise<DecisionEntry[]> {
  const { decided: decidedSql, alone, params, limit } = plan(query, "outcomes");
  const decided = (await db.query<Row>(positional(decidedSql, params))).rows;
  const cutoff = cutoffOf(decided, limit);
  const lone = (await db.query<Row>(positional(alone(cutoff !== undefined), cutoff !== undefined ? { ...params, cutoff } : params))).rows;
  return merge(decided, lone, limit);
}

/** `@name` parameters as PostgreSQL's `$n`, numbered in order of first use; values that the text does not use are left out. */
function positional(text: string, named: Record<string, unknown>): { text: string; values: unknown[] } {
  const order: string[] = [];
  const numbered = text.replace(/@(\w+)/g, (_, name: string) => {
    if (!(name in named)) throw new Error(`query parameter @${name} has no value`);
    let n = order.indexOf(name);
    if (n < 0) n = order.push(name) - 1;
    return `$${n + 1}`;
  });
  return { text: numbered, values: order.map((name) => named[name]) };
}

function hasOutcomes(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outcomes'").get() !== undefined;
}

type Row = {
  decision_id: string;
  timestamp: string;
  path: string | null;
  actor_id: string | null;
  allowed: number | null;
  status: number | null;
  reason: string | null;
  revision: string | null;
  event: string | LogEvent | null;
} & Record<`o_${string}`, unknown>;

function entryOf(row: Row): DecisionEntry {
  const outcome: OutcomeEntry | null =
    row.o_timestamp === null || row.o_timestamp === undefined
      ? null
      : {
          timestamp: row.o_timestamp as string,
          method: row.o_method as string,
          http_path: row.o_http_path as string,
          route_id: row.o_route_id as string | null,
          version: row.o_version as string | null,
          actor_id: row.o_actor_id as string,
          status: row.o_status as number,
          problem: row.o_problem as string | null,
          scope_found: row.o_scope_found === null ? null : row.o_scope_found === 1,
          test_run: row.o_test_run as string | null,
          aborted: row.o_aborted === 1,
        };
  return {
    decision_id: row.decision_id,
    timestamp: row.timestamp,
    path: row.path,
    actor_id: row.actor_id ?? outcome?.actor_id ?? null,
    allowed: row.allowed === null ? null : row.allowed === 1,
    status: row.status,
    reason: row.reason,
    revision: row.revision,
    // SQLite holds the JSON text; PostgreSQL's driver parses its json columns already.
    event: row.event === null ? null : typeof row.event === "string" ? (JSON.parse(row.event) as LogEvent) : row.event,
    outcome,
  };
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
