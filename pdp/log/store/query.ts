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
 * Decisions are read first through their indexes (by windows of time, or
 * through the index of a rare filter: matchingDecisions); outcomes without
 * a decision are then read only as far back as the oldest decision shown.
 */
import type Database from "better-sqlite3";
import pg from "pg";
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
 * A set of rows one index reads, as `FROM <table> <alias> WHERE <where>`:
 * with the other sets of its filter, it holds every decision that filter
 * can match (the outcomes' sets through their decision ids). Sets over
 * decisions are bounded by `@before`.
 */
interface IndexedSet {
  table: "decisions" | "outcomes";
  where: string;
}

/**
 * The statements of a query, in ONE text for both stores: named
 * parameters (`@id`), which SQLite binds as they are and PostgreSQL gets
 * numbered (positional).
 */
interface QueryPlan {
  /** The matching decisions with their outcomes, newest first, at most `@limit`; within `@from` (inclusive) and `@before` (exclusive) when asked. */
  decided(bounds: { from: boolean; before: boolean }): string;
  /**
   * For each filter an index serves, the sets its matches lie in (a match
   * of the whole query is in every filter's union). Empty: no filter is
   * selective enough to read through an index, the decisions are read by time.
   */
  indexed: IndexedSet[][];
  /** The matching decisions before `@before`, read through one filter's sets: newest first, at most `@limit`. */
  gathered(sets: IndexedSet[]): string;
  /** How many rows the sets hold (an upper bound of their decisions), counting at most `@cap`. */
  counted(sets: IndexedSet[]): string;
  /** The outcomes without a decision, as far back as `@cutoff` when asked (the oldest decision the first statement returned). */
  alone(cutoff: boolean): string;
  params: Record<string, unknown>;
  limit: number;
}

function plan(query: DecisionQuery, outcomes: string): QueryPlan {
  const conditions: Condition[] = [];
  const indexed: IndexedSet[][] = [];
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
  if (query.denied) {
    both("(d.allowed = 0 OR o.status >= 400)", "o.status >= 400");
    // The OR spans the join, so no index serves the condition as written; these two do (decisions_denied, outcomes_failed).
    indexed.push([
      { table: "decisions", where: "d.allowed = 0 AND d.timestamp < @before" },
      { table: "outcomes", where: "o.status >= 400" },
    ]);
  }
  if (query.since !== undefined) {
    both("d.timestamp >= @since", "o.timestamp >= @since");
    params.since = query.since;
  }
  if (query.path !== undefined) {
    const decisionPath = query.path
      .replace(/^data[./]/, "")
      .replace(/^\/+|\/+$/g, "")
      .replace(/\./g, "/");
    // The paths below `a/b` are those from `a/b/` up to, not including, `a/b0` ('0' follows '/' in byte order, the
    // columns' collation on both stores): an index range, and case-sensitive as Rego's paths are (SQLite's LIKE is not).
    const decisionPathMatch = "(d.path = @dpath OR (d.path >= @below AND d.path < @beyond))";
    both(`(${decisionPathMatch.slice(1, -1)} OR o.http_path = @path OR o.route_id = @path)`, "(o.http_path = @path OR o.route_id = @path)");
    indexed.push([
      { table: "decisions", where: `${decisionPathMatch} AND d.timestamp < @before` },
      { table: "outcomes", where: "o.http_path = @path" },
      { table: "outcomes", where: "o.route_id = @path" },
    ]);
    params.path = query.path;
    params.dpath = decisionPath;
    params.below = `${decisionPath}/`;
    params.beyond = `${decisionPath}0`;
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
  const decisionColumns = "d.decision_id, d.timestamp, d.path, d.actor_id, d.allowed, d.status, d.reason, d.revision, d.event, " + outcomeColumns;
  const newestFirst = " ORDER BY d.timestamp DESC, d.seq DESC LIMIT @limit";
  const selectFrom = (set: IndexedSet, what: (alias: string) => string) => {
    const alias = set.table === "decisions" ? "d" : "o";
    return `SELECT ${what(alias)} FROM ${set.table === "decisions" ? "decisions" : outcomes} ${alias} WHERE ${set.where}`;
  };
  return {
    decided: ({ from, before }) =>
      `SELECT ${decisionColumns} FROM decisions d LEFT JOIN ${outcomes} o ON o.decision_id = d.decision_id` +
      where("withDecision", [...(from ? ["d.timestamp >= @from"] : []), ...(before ? ["d.timestamp < @before"] : [])]) +
      newestFirst,
    // With an id, one decision at most: its unique index serves whatever else the query asks.
    indexed: query.id === undefined ? indexed : [],
    // CROSS JOIN: SQLite then reads the sets first and each decision by its id (it keeps that join order); PostgreSQL plans it
    // freely. DISTINCT over UNION ALL, not UNION: SQLite merges a UNION in id order, which it read from the whole id index.
    gathered: (sets) =>
      `SELECT ${decisionColumns} FROM (SELECT DISTINCT decision_id FROM (${sets.map((set) => selectFrom(set, (a) => `${a}.decision_id AS decision_id`)).join(" UNION ALL ")}) u) s` +
      ` CROSS JOIN decisions d LEFT JOIN ${outcomes} o ON o.decision_id = d.decision_id` +
      where("withDecision", ["d.decision_id = s.decision_id", "d.timestamp < @before"]) +
      newestFirst,
    counted: (sets) => `SELECT count(*) AS n FROM (${sets.map((set) => selectFrom(set, () => "1 AS one")).join(" UNION ALL ")} LIMIT @cap) c`,
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

/** Decisions the first read by time covers, at least (twice the limit when larger). */
export const FIRST_WINDOW = 1024;
/** Each further window is this many times the one before. */
const WINDOW_GROWTH = 4;

/** A statement to run and its named parameters (more than it uses: each store binds the ones its text names). */
export interface Statement {
  sql: string;
  params: Record<string, unknown>;
}

export interface QueryTuning {
  /** Decisions the first window covers (FIRST_WINDOW): tests make it small, to cross windows on a small log. */
  firstWindow?: number;
  /** Sees every statement run, in order (a plan check EXPLAINs them). */
  trace?: (statement: Statement) => void;
}

type Rows = Array<Record<string, unknown>>;

/**
 * A query, as the statements it runs: yields each, is sent its rows. The
 * same steps on both stores (SQLite runs them synchronously, PostgreSQL
 * awaits them), in one snapshot (the caller's transaction).
 */
function* steps(query: DecisionQuery, outcomes: string, tuning: QueryTuning): Generator<Statement, DecisionEntry[], Rows> {
  const p = plan(query, outcomes);
  const decided = yield* matchingDecisions(p, tuning.firstWindow ?? FIRST_WINDOW);
  const cutoff = decided.length === p.limit ? decided[decided.length - 1].timestamp : undefined;
  const lone = (yield { sql: p.alone(cutoff !== undefined), params: { ...p.params, cutoff } }) as Row[];
  return merge(decided, lone, p.limit);
}

/**
 * The decisions of the answer. Without a filter an index serves, one
 * statement reads them by time (through a time or actor range, or until
 * `@limit` match). With one (--denied, --path), a match may be rare, and
 * reading by time until the limit would walk the whole log: so the walk
 * goes by windows (the newest FIRST_WINDOW decisions, then each window
 * WINDOW_GROWTH times the last), and before each next window the filter's
 * indexed sets are counted, at most as far as that window holds: when they
 * hold fewer rows, the rest of the answer is read through them instead
 * (their rows joined to their decisions, sorted by time). The cost is then
 * within a few times the cheaper of the two, whatever the filter's
 * density: a common match ends in the first window, a rare one is read
 * through its index. Windows split on time, so the answer is exactly the
 * one statement's: every decision of a window is newer than every one
 * after it (a window ends with all of its last timestamp's decisions).
 */
function* matchingDecisions(p: QueryPlan, firstWindow: number): Generator<Statement, Row[], Rows> {
  const run = (sql: string, bound: Record<string, unknown> = {}): Statement => ({ sql, params: { ...p.params, ...bound } });
  if (p.indexed.length === 0) return (yield run(p.decided({ from: false, before: false }))) as Row[];
  const found: Row[] = [];
  let before: string | undefined; // every decision at or after it was in a window read
  for (let window = Math.max(firstWindow, 2 * p.limit); ; window *= WINDOW_GROWTH) {
    const olderThan = before === undefined ? "" : " WHERE timestamp < @before";
    const [edge] = yield run(`SELECT timestamp FROM decisions${olderThan} ORDER BY timestamp DESC LIMIT 1 OFFSET @skip`, { before, skip: window - 1 });
    const from = edge?.timestamp as string | undefined;
    const read = (yield run(p.decided({ from: from !== undefined, before: before !== undefined }), { before, from, limit: p.limit - found.length })) as Row[];
    found.push(...read);
    // Done: the limit is reached, or no decision is older than this window (or than --since).
    if (found.length === p.limit || from === undefined || (p.params.since !== undefined && from <= (p.params.since as string))) return found;
    before = from;
    const nextWindow = window * WINDOW_GROWTH;
    let cheapest: { sets: IndexedSet[]; rows: number } | undefined;
    for (const sets of p.indexed) {
      const cap = cheapest?.rows ?? nextWindow;
      const [count] = yield run(p.counted(sets), { before, cap });
      const rows = Number(count.n);
      if (rows < cap) cheapest = { sets, rows };
    }
    if (cheapest !== undefined) {
      found.push(...((yield run(p.gathered(cheapest.sets), { before, limit: p.limit - found.length })) as Row[]));
      return found;
    }
  }
}

/** Both lists merged, newest first, cut to the limit. */
function merge(decided: Row[], alone: Row[], limit: number): DecisionEntry[] {
  const rows =
    alone.length === 0 ? decided : [...decided, ...alone].sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0)).slice(0, limit);
  return rows.map(entryOf);
}

/** On the SQLite store (sqlite-store.ts openForRead). */
export function queryDecisions(db: Database.Database, query: DecisionQuery, tuning: QueryTuning = {}): DecisionEntry[] {
  // A store written before outcomes existed, opened read-only: an empty stand-in with the same columns.
  const outcomes = hasOutcomes(db) ? "outcomes" : `(SELECT NULL AS seq, NULL AS decision_id, ${OUTCOME_COLUMNS.map((c) => `NULL AS ${c}`).join(", ")} LIMIT 0)`;
  // One read transaction: every statement sees the same snapshot, whatever the log appends meanwhile.
  return db.transaction(() => {
    const query_ = steps(query, outcomes, tuning);
    for (let step = query_.next(); ;) {
      if (step.done) return step.value;
      tuning.trace?.(step.value);
      step = query_.next(db.prepare(step.value.sql).all(named(step.value)) as Rows);
    }
  })();
}

/**
 * On the PostgreSQL store (pg-store.ts): the same statements, the same
 * entries, in one REPEATABLE READ transaction (one snapshot). A client
 * given must not be in a transaction; a pool lends one of its own.
 */
export async function queryDecisionsPg(db: pg.Pool | pg.ClientBase, query: DecisionQuery, tuning: QueryTuning = {}): Promise<DecisionEntry[]> {
  const client = db instanceof pg.Pool ? await db.connect() : db;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    try {
      const query_ = steps(query, "outcomes", tuning);
      for (let step = query_.next(); ;) {
        if (step.done) {
          await client.query("COMMIT");
          return step.value;
        }
        tuning.trace?.(step.value);
        step = query_.next((await client.query(positional(step.value.sql, step.value.params))).rows as Rows);
      }
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  } finally {
    if (client !== db) (client as pg.PoolClient).release();
  }
}

/** The named parameters the text uses (better-sqlite3 refuses values a statement does not name). */
function named({ sql, params }: Statement): Record<string, unknown> {
  const used: Record<string, unknown> = {};
  for (const [, name] of sql.matchAll(/@(\w+)/g)) {
    if (params[name] === undefined) throw new Error(`query parameter @${name} has no value`);
    used[name] = params[name];
  }
  return used;
}

/** `@name` parameters as PostgreSQL's `$n`, numbered in order of first use; values that the text does not use are left out. */
export function positional(text: string, named: Record<string, unknown>): { text: string; values: unknown[] } {
  const order: string[] = [];
  const numbered = text.replace(/@(\w+)/g, (_, name: string) => {
    if (named[name] === undefined) throw new Error(`query parameter @${name} has no value`);
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
