/**
 * `portcullis decisions` on a log of several hundred requests, on both
 * stores: every filter, alone and combined, at every limit, answers what a
 * reading of the whole log says it should (newest first, the limit cutting
 * across decisions and outcomes alone), however the query splits its
 * reading (windows of one decision up to the whole log); --denied and
 * --path read through their indexes (decisions_denied, outcomes_failed;
 * decisions_by_path, outcomes_by_path, outcomes_by_route); and a store made
 * before outcomes_failed gets it at its next open (SQLite) or migration
 * (PostgreSQL), rows untouched.
 *
 * The log is written row by row (not through the sinks) to make what a live
 * log only makes by chance: timestamps shared by several decisions, rows
 * stored out of time order, outcomes stamped before their decision (a clock
 * stepped back), decisions without an outcome and outcomes without a
 * decision, denials rare in one stretch of time and common in another.
 */
import Database from "better-sqlite3";
import * as path from "node:path";
import pg from "pg";
import { PG_MIGRATIONS } from "../../../db/pg/migrations";
import { formatTimestamp } from "../../../pdp/log/core/event";
import {
  positional,
  queryDecisions,
  queryDecisionsPg,
  type DecisionEntry,
  type DecisionQuery,
  type QueryTuning,
  type Statement,
} from "../../../pdp/log/store/query";
import { openForAppend, openForRead, type DecisionRow, type OutcomeRow } from "../../../pdp/log/store/sqlite-store";
import { clonePgDatabase, type PgUrls } from "../../db/contract/backends";
import { ownerQuery } from "./backends";
import { tempDir } from "./fixtures";

// --- the log -------------------------------------------------------------------------------------

/** A small deterministic generator (mulberry32), so a failure names a log that can be made again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const T0 = 1_772_323_200_000_000_000n; // 2026-03-01T00:00:00Z, in ns
const at = (tick: number, ns = 0): string => formatTimestamp(T0 + BigInt(tick) * 1_000_000n + BigInt(ns));
const DECISION_PATHS = [
  "portcullis/decision",
  "portcullis/decision",
  "portcullis/decision",
  "portcullis/other",
  "Portcullis/decision",
  "portcullisx/y",
  "portcullis%/z",
];

interface Log {
  decisions: DecisionRow[];
  outcomes: OutcomeRow[];
}

function makeLog(): Log {
  const next = random(24);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const decisions: DecisionRow[] = [];
  const outcomes: OutcomeRow[] = [];
  for (let i = 0; i < 420; i++) {
    const tick = Math.floor(i * 0.7); // several decisions per tick: equal timestamps
    const timestamp = at(tick);
    const id = `0190${String(i).padStart(4, "0")}-0000-7000-8000-${String(i).padStart(12, "0")}`;
    const refusal = next() < 0.03;
    // Denials: rare in the newest stretch, common in an older one.
    const allowed = refusal || (i >= 120 && i < 200 && next() < 0.4) || i === 7 || i === 333 ? 0 : 1;
    const actor = `u_${Math.floor(next() * 9)}`;
    decisions.push({
      decision_id: id,
      timestamp,
      path: refusal ? null : pick(DECISION_PATHS),
      actor_id: actor,
      allowed,
      status: allowed ? 200 : 403,
      reason: allowed ? "allowed" : "role_required",
      revision: "rev-1",
      event: JSON.stringify({ decision_id: id, timestamp, n: i }),
    });
    if (next() < 0.12) continue; // the request never finished
    const rare = next() < 0.04;
    outcomes.push({
      decision_id: id,
      // Mostly after the decision; now and then before it (the wall clock stepped back), or at the same tick.
      timestamp: at(tick, next() < 0.1 ? -5000 : next() < 0.1 ? 0 : 700_000),
      method: "GET",
      http_path: rare ? "/rare" : `/invoices/inv_${i % 7}`,
      route_id: rare ? "rare.get" : next() < 0.1 ? null : "invoices.get",
      version: "v2",
      actor_id: actor,
      status: allowed ? (next() < 0.03 ? 404 : next() < 0.02 ? 500 : 200) : refusal ? 401 : 403,
      problem: null,
      scope_found: null,
      test_run: next() < 0.03 ? "run-1" : null,
      aborted: 0,
    });
  }
  for (let k = 0; k < 30; k++) {
    // Outcomes without a decision: dropped (health checks) or lost.
    const tick = Math.floor(next() * 294);
    outcomes.push({
      decision_id: `0190ffff-0000-7000-8000-${String(k).padStart(12, "0")}`,
      timestamp: at(tick, 300_000),
      method: "GET",
      http_path: next() < 0.5 ? "/health" : "/rare",
      route_id: next() < 0.5 ? "health.get" : "rare.get",
      version: null,
      actor_id: `u_${Math.floor(next() * 9)}`,
      status: next() < 0.3 ? 500 : 200,
      problem: null,
      scope_found: null,
      test_run: next() < 0.1 ? "run-1" : null,
      aborted: 0,
    });
  }
  // Stored out of time order here and there (instances committing their batches in turn, late outcomes).
  const shuffled = <T>(rows: T[]): T[] => {
    const copy = [...rows];
    for (let i = 0; i < copy.length - 1; i++) if (next() < 0.15) [copy[i], copy[i + 1]] = [copy[i + 1], copy[i]];
    return copy;
  };
  return { decisions: shuffled(decisions), outcomes: shuffled(outcomes) };
}

// --- what the answer must be, read off the whole log ---------------------------------------------

function expected(log: Log, q: DecisionQuery): string[] {
  const limit = q.limit ?? 100;
  const outcomeOf = new Map(log.outcomes.filter((o, i) => log.outcomes.findIndex((p) => p.decision_id === o.decision_id) === i).map((o) => [o.decision_id, o]));
  const decided = new Set(log.decisions.map((d) => d.decision_id));
  const dpath = q.path
    ?.replace(/^data[./]/, "")
    .replace(/^\/+|\/+$/g, "")
    .replace(/\./g, "/");
  const matches = (d: DecisionRow | undefined, o: OutcomeRow | undefined): boolean =>
    (q.id === undefined || (d ?? o)!.decision_id === q.id) &&
    (q.actor === undefined || (d ? d.actor_id : o!.actor_id) === q.actor) &&
    (!q.denied || d?.allowed === 0 || (o !== undefined && o.status >= 400)) &&
    (q.since === undefined || (d ?? o)!.timestamp >= q.since) &&
    (q.path === undefined ||
      (d !== undefined && d.path !== null && (d.path === dpath || d.path.startsWith(`${dpath}/`))) ||
      o?.http_path === q.path ||
      o?.route_id === q.path) &&
    (q.testRun === undefined || o?.test_run === q.testRun) &&
    (!q.excludeTestRuns || o === undefined || o.test_run === null);
  const seqOf = new Map(log.decisions.map((d, i) => [d.decision_id, i]));
  const outcomeSeq = new Map(log.outcomes.map((o, i) => [o, i]));
  const newest =
    <T extends { timestamp: string }>(seq: (row: T) => number) =>
    (a: T, b: T) =>
      a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : seq(b) - seq(a);
  const withDecision = log.decisions
    .filter((d) => matches(d, outcomeOf.get(d.decision_id)))
    .sort(newest((d) => seqOf.get(d.decision_id)!))
    .slice(0, limit);
  const cutoff = withDecision.length === limit ? withDecision[limit - 1].timestamp : undefined;
  const alone = [...outcomeOf.values()]
    .filter((o) => !decided.has(o.decision_id) && matches(undefined, o) && (cutoff === undefined || o.timestamp >= cutoff))
    .sort(newest((o) => outcomeSeq.get(o)!))
    .slice(0, limit);
  // Merged by time, decisions before outcomes alone at equal times (a stable sort), cut to the limit.
  return [...withDecision, ...alone]
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
    .slice(0, limit)
    .map((row) => row.decision_id);
}

// --- the two stores ------------------------------------------------------------------------------

interface Store {
  query(q: DecisionQuery, tuning?: QueryTuning): Promise<DecisionEntry[]>;
  /** The plan of a statement the query ran, as text. */
  explain(statement: Statement): Promise<string>;
  close(): Promise<void>;
}

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

async function sqliteStore(log: Log): Promise<Store & { file: string }> {
  const file = path.join(tempDir(), "decisions.db");
  const writer = openForAppend(file);
  const insert = (table: string, columns: readonly string[]) =>
    writer.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`);
  const decision = insert("decisions", DECISION_COLUMNS);
  const outcome = insert("outcomes", OUTCOME_COLUMNS);
  writer.transaction(() => {
    for (const d of log.decisions) decision.run(d);
    for (const o of log.outcomes) outcome.run(o);
  })();
  writer.close();
  const db = openForRead(file);
  return {
    file,
    query: async (q, tuning) => queryDecisions(db, q, tuning),
    explain: async ({ sql, params }) => {
      const used = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name, params[name]]));
      return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(used) as Array<{ detail: string }>).map((r) => r.detail).join("\n");
    },
    close: async () => void db.close(),
  };
}

async function postgresStore(log: Log): Promise<Store & { urls: PgUrls }> {
  const db = await clonePgDatabase();
  const client = new pg.Client({ connectionString: db.urls.app });
  await client.connect();
  // As the service role, which may INSERT into the log (and nothing else); one statement per table.
  const insert = async (table: string, columns: readonly string[], rows: Array<Record<string, unknown>>, extra: Record<string, string> = {}) => {
    const names = [...columns, ...Object.keys(extra)];
    const values = rows.flatMap((row) => [...columns.map((c) => row[c]), ...Object.values(extra)]);
    const tuples = rows.map((_, r) => `(${names.map((_, c) => `$${r * names.length + c + 1}`).join(", ")})`);
    await client.query(`INSERT INTO ${table} (${names.join(", ")}) VALUES ${tuples.join(", ")}`, values);
  };
  await insert("decisions", DECISION_COLUMNS, log.decisions as unknown as Array<Record<string, unknown>>, { run_id: "run-test" });
  await insert("outcomes", OUTCOME_COLUMNS, log.outcomes as unknown as Array<Record<string, unknown>>);
  return {
    urls: db.urls,
    query: (q, tuning) => queryDecisionsPg(client, q, tuning),
    explain: async ({ sql, params }) => {
      const { text, values } = positional(sql, params);
      // A few hundred rows: PostgreSQL would read the tables whole, which says nothing about whether an index serves.
      await client.query("SET enable_seqscan = off");
      const plan = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, values);
      await client.query("RESET enable_seqscan");
      return plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
    },
    async close() {
      await client.end();
      await db.drop();
    },
  };
}

const STORES = [
  { name: "sqlite", open: sqliteStore },
  { name: "postgres", open: postgresStore },
];

// --- the queries ---------------------------------------------------------------------------------

const LOG = makeLog();
const MIDDLE = at(150);
const FILTERS: DecisionQuery[] = [
  {},
  { denied: true },
  { denied: true, since: MIDDLE },
  { denied: true, actor: "u_3" },
  { denied: true, path: "/rare" },
  { denied: true, excludeTestRuns: true },
  { denied: true, testRun: "run-1" },
  { path: "portcullis" },
  { path: "portcullis/decision" },
  { path: "data.portcullis.other" },
  { path: "Portcullis" }, // a decision path's case counts, as in Rego
  { path: "portcullis%" }, // LIKE's characters are plain characters
  { path: "/rare" },
  { path: "rare.get" },
  { path: "rare.get", since: MIDDLE },
  { path: "invoices.get" },
  { path: "/invoices/inv_3" },
  { path: "/health" },
  { actor: "u_3" },
  { testRun: "run-1" },
  { excludeTestRuns: true },
  { id: LOG.decisions[17].decision_id },
  { since: MIDDLE },
];
const LIMITS = [1, 2, 7, 25, 1000];
/** From one decision per window (the most statements) to windows larger than the log (one statement). */
const WINDOWS = [1, 3, 16, undefined];

describe.each(STORES)("decisions on $name", ({ open }) => {
  let store: Store;
  beforeAll(async () => void (store = await open(LOG)));
  afterAll(() => store.close());

  test("every filter, at every limit, answers what the whole log says, however the reading is split", async () => {
    for (const filter of FILTERS) {
      for (const limit of LIMITS) {
        const q = { ...filter, limit };
        const want = expected(LOG, q);
        const whole = await store.query(q);
        expect({ q, ids: whole.map((e) => e.decision_id) }).toEqual({ q, ids: want });
        for (const firstWindow of WINDOWS)
          expect({ q, firstWindow, entries: await store.query(q, { firstWindow }) }).toEqual({ q, firstWindow, entries: whole });
      }
    }
    // The answers are not all empty or all alike: the log makes each filter choose.
    expect(new Set(FILTERS.map((f) => expected(LOG, { ...f, limit: 25 }).length)).size).toBeGreaterThan(5);
  });

  test("--denied and --path read through their indexes when matches are rare", async () => {
    const indexesRead = async (q: DecisionQuery): Promise<string> => {
      const statements: Statement[] = [];
      await store.query(q, { firstWindow: 4, trace: (s) => statements.push(s) });
      // One at a time: on PostgreSQL each EXPLAIN sets and resets a planner switch on the one connection.
      const plans: string[] = [];
      for (const s of statements) plans.push(await store.explain(s));
      return plans.join("\n");
    };
    const denied = await indexesRead({ denied: true, limit: 2 });
    for (const index of ["decisions_denied", "outcomes_failed"]) expect(denied).toContain(index);
    const byPath = await indexesRead({ path: "rare.get", limit: 2 });
    for (const index of ["decisions_by_path", "outcomes_by_path", "outcomes_by_route"]) expect(byPath).toContain(index);
  });
});

test("SQLite: a store made before outcomes_failed gets it at its next open for append, rows untouched", async () => {
  const made = await sqliteStore(LOG);
  await made.close();
  const old = new Database(made.file);
  old.exec("DROP INDEX outcomes_failed");
  old.close();
  openForAppend(made.file).close();
  const db = openForRead(made.file);
  try {
    const { sql } = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'outcomes_failed'").get() as { sql: string };
    expect(sql).toMatch(/ON outcomes \(timestamp\) WHERE status >= 400$/);
    expect(db.prepare("SELECT (SELECT count(*) FROM decisions) AS d, (SELECT count(*) FROM outcomes) AS o").get()).toEqual({
      d: LOG.decisions.length,
      o: LOG.outcomes.length,
    });
    expect(queryDecisions(db, { denied: true, limit: 1000 }).map((e) => e.decision_id)).toEqual(expected(LOG, { denied: true, limit: 1000 }));
  } finally {
    db.close();
  }
});

test("PostgreSQL: migration 11 gives a database with a log outcomes_failed, rows untouched, and runs again harmlessly", async () => {
  const store = await postgresStore(LOG);
  try {
    const owner = store.urls.owner;
    const v11 = PG_MIGRATIONS.find((m) => m.version === 11)!;
    expect(v11.name).toBe("decision log: failed outcomes index");
    // The database as version 10 left it, with a log; then what `db migrate` runs for 11, twice.
    await ownerQuery(owner, "DROP INDEX outcomes_failed");
    for (let run = 0; run < 2; run++) await ownerQuery(owner, v11.sql);
    expect(await ownerQuery(owner, "SELECT indexdef FROM pg_indexes WHERE indexname = 'outcomes_failed'")).toEqual([
      { indexdef: 'CREATE INDEX outcomes_failed ON public.outcomes USING btree ("timestamp") WHERE (status >= 400)' },
    ]);
    expect(await ownerQuery(owner, "SELECT (SELECT count(*)::int FROM decisions) AS d, (SELECT count(*)::int FROM outcomes) AS o")).toEqual([
      { d: LOG.decisions.length, o: LOG.outcomes.length },
    ]);
    expect((await store.query({ denied: true, limit: 1000 })).map((e) => e.decision_id)).toEqual(expected(LOG, { denied: true, limit: 1000 }));
  } finally {
    await store.close();
  }
});
