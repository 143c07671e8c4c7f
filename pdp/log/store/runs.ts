/**
 * Run markers in the decision store (table `log_runs`): a `start` row when
 * a log opens the store, a `clean_stop` row when it closed with every
 * event written, and, found at a start, an `interrupted` row for each
 * earlier run that has neither: its process died (SIGKILL, crash, OOM) or
 * its shutdown could not write everything (a full disk). What is known of
 * such a run is what it committed: its decisions are the rows between its
 * start and the next run's (`seq` range), so the row says how many there
 * are and the last one's time and id; anything it decided after that,
 * unconfirmed when it died, is gone (state-changing requests waited for
 * their decision's commit, so only reads can be among them: see README).
 *
 *   const found = beginRun(db, { runId, pid });   // [] after a clean stop
 *   endRun(db, runId, { written, lost });         // only when lost === 0
 *
 * One process per store file, like the data store: a second live process
 * on the same file would see the first as interrupted. On PostgreSQL,
 * shared by several instances, each run holds a lease instead (PgRun).
 */
import { createHash } from "node:crypto";
import * as os from "node:os";
import type Database from "better-sqlite3";
import pg from "pg";
import { DecisionLogError, messageOf } from "../core/errors";
import { checkLogStore } from "./pg-store";

export interface InterruptedRun {
  runId: string;
  pid: number | null;
  startedAt: string;
  /** Decisions the run committed (rows from its start to the next start). */
  committed: number;
  lastCommittedAt: string | null;
  lastDecisionId: string | null;
}

interface RunRow {
  run_id: string;
  at: string;
  detail: string;
}

/** Records this run's start; returns the earlier runs that ended without a clean stop (and records each as interrupted). */
export function beginRun(db: Database.Database, run: { runId: string; pid: number }): InterruptedRun[] {
  return db.transaction((): InterruptedRun[] => {
    const now = new Date().toISOString();
    const nextSeq = (db.prepare("SELECT coalesce(max(seq), 0) + 1 AS n FROM decisions").get() as { n: number }).n;
    const open = db
      .prepare(
        `SELECT s.run_id, s.at, s.detail FROM log_runs s
          WHERE s.kind = 'start'
            AND NOT EXISTS (SELECT 1 FROM log_runs e WHERE e.run_id = s.run_id AND e.kind IN ('clean_stop', 'interrupted'))
          ORDER BY s.seq`,
      )
      .all() as RunRow[];
    const starts = db.prepare(
      "SELECT detail FROM log_runs WHERE kind = 'start' AND seq > (SELECT seq FROM log_runs WHERE run_id = ? AND kind = 'start') ORDER BY seq LIMIT 1",
    );
    const rows = db.prepare("SELECT count(*) AS n, max(seq) AS last FROM decisions WHERE seq >= ? AND seq < ?");
    const last = db.prepare("SELECT timestamp, decision_id FROM decisions WHERE seq = ?");
    const insert = db.prepare("INSERT INTO log_runs (run_id, kind, at, detail) VALUES (?, ?, ?, ?)");
    const found: InterruptedRun[] = [];
    for (const start of open) {
      const detail = JSON.parse(start.detail) as { pid?: number; first_seq?: number };
      const next = starts.get(start.run_id) as { detail: string } | undefined;
      const until = next ? ((JSON.parse(next.detail) as { first_seq?: number }).first_seq ?? nextSeq) : nextSeq;
      const committed = rows.get(detail.first_seq ?? nextSeq, until) as { n: number; last: number | null };
      const lastRow = committed.last === null ? undefined : (last.get(committed.last) as { timestamp: string; decision_id: string });
      const interrupted: InterruptedRun = {
        runId: start.run_id,
        pid: detail.pid ?? null,
        startedAt: start.at,
        committed: committed.n,
        lastCommittedAt: lastRow?.timestamp ?? null,
        lastDecisionId: lastRow?.decision_id ?? null,
      };
      insert.run(start.run_id, "interrupted", now, JSON.stringify({ found_by: run.runId, ...snake(interrupted) }));
      found.push(interrupted);
    }
    insert.run(run.runId, "start", now, JSON.stringify({ pid: run.pid, first_seq: nextSeq }));
    return found;
  })();
}

/** Records a clean stop: the run closed its log with every event accounted for and none lost. */
export function endRun(db: Database.Database, runId: string, counts: { written: number; lost: number }): void {
  db.prepare("INSERT INTO log_runs (run_id, kind, at, detail) VALUES (?, 'clean_stop', ?, ?)").run(runId, new Date().toISOString(), JSON.stringify(counts));
}

function snake(run: InterruptedRun): Record<string, unknown> {
  return { pid: run.pid, started_at: run.startedAt, committed: run.committed, last_committed_at: run.lastCommittedAt, last_decision_id: run.lastDecisionId };
}

/**
 * A run on the PostgreSQL store, which several instances share: a `start`
 * row without an end is not enough to call a run interrupted, since its
 * instance may be running elsewhere. Each run holds a lease while it runs:
 * a session advisory lock, keyed by its run id, on a connection of its own
 * (the one that wrote its markers). PostgreSQL releases it when that
 * session ends, so when the process dies (its socket closes) the lease goes
 * with it. A start takes every earlier run without an end whose lease is
 * free (pg_try_advisory_lock succeeds) as interrupted; one whose lease is
 * held is running. Starts are serialised (a transaction advisory lock), and
 * an interrupted run is recorded once (a unique index), so two instances
 * starting together report each dead run once between them. The rows a run
 * committed are its own (`decisions.run_id`), however the instances'
 * writes interleave.
 *
 * A run whose lease connection drops while the process lives (a network
 * cut, a database restart) reports it (`log_run_marker_failed`); another
 * instance starting after that would call it interrupted.
 *
 *   const run = await PgRun.begin(url, { runId, pid }, onError);   // run.interrupted: what it found
 *   await run.end({ written, lost: 0 });                            // clean stop; end() without counts: none
 */
export class PgRun {
  private constructor(
    private readonly client: pg.Client,
    private readonly runId: string,
    readonly interrupted: InterruptedRun[],
    private readonly onError: (error: DecisionLogError) => void,
  ) {}

  /** Checks the store (checkLogStore), takes the run's lease, records its start and finds the interrupted runs. */
  static async begin(url: string, run: { runId: string; pid: number }, onError: (error: DecisionLogError) => void): Promise<PgRun> {
    const client = new pg.Client({
      connectionString: url,
      application_name: "portcullis decision log run",
      connectionTimeoutMillis: 10_000,
      // Both ends probe the idle lease connection: this one notices a vanished server (and reports the
      // lease lost); the server notices a vanished machine within about a minute (tcp_keepalives_*,
      // below), not the OS's two hours, and frees the lease so the next start reports the run.
      keepAlive: true,
    });
    client.on("error", (err) => {
      onError(
        new DecisionLogError("log_run_marker_failed", `run lease lost (another instance starting now would report this run as interrupted): ${messageOf(err)}`),
      );
    });
    await client.connect();
    try {
      await client.query("SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3");
      await checkLogStore(client);
      const lease = leaseKey(run.runId);
      await client.query("SELECT pg_advisory_lock($1)", [lease]);
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [STARTS_LOCK]);
      const open = await client.query<{ run_id: string; at: string; detail: { pid?: number; lease?: string } }>(
        `SELECT s.run_id, s.at, s.detail FROM log_runs s
          WHERE s.kind = 'start' AND s.run_id <> $1
            AND NOT EXISTS (SELECT 1 FROM log_runs e WHERE e.run_id = s.run_id AND e.kind IN ('clean_stop', 'interrupted'))
          ORDER BY s.seq`,
        [run.runId],
      );
      const now = new Date().toISOString();
      const found: InterruptedRun[] = [];
      for (const start of open.rows) {
        const key = start.detail.lease ?? leaseKey(start.run_id);
        const { rows } = await client.query<{ free: boolean }>("SELECT pg_try_advisory_lock($1) AS free", [key]);
        if (!rows[0].free) continue; // its instance is running
        await client.query("SELECT pg_advisory_unlock($1)", [key]);
        const counted = await client.query<{ n: number }>("SELECT count(*)::integer AS n FROM decisions WHERE run_id = $1", [start.run_id]);
        const last = await client.query<{ timestamp: string; decision_id: string }>(
          "SELECT timestamp, decision_id FROM decisions WHERE run_id = $1 ORDER BY seq DESC LIMIT 1",
          [start.run_id],
        );
        const interrupted: InterruptedRun = {
          runId: start.run_id,
          pid: start.detail.pid ?? null,
          startedAt: start.at,
          committed: counted.rows[0].n,
          lastCommittedAt: last.rows[0]?.timestamp ?? null,
          lastDecisionId: last.rows[0]?.decision_id ?? null,
        };
        const recorded = await client.query(
          `INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'interrupted', $2, $3::json)
           ON CONFLICT (run_id) WHERE kind = 'interrupted' DO NOTHING`,
          [start.run_id, now, JSON.stringify({ found_by: run.runId, ...snake(interrupted) })],
        );
        if (recorded.rowCount === 1) found.push(interrupted);
      }
      await client.query("INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'start', $2, $3::json)", [
        run.runId,
        now,
        JSON.stringify({ pid: run.pid, host: os.hostname(), lease }),
      ]);
      await client.query("COMMIT");
      return new PgRun(client, run.runId, found, onError);
    } catch (err) {
      client.removeAllListeners("error").on("error", () => undefined);
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  /** Records a clean stop when given the counts (only when nothing was lost), then releases the lease. */
  async end(counts?: { written: number; lost: number }): Promise<void> {
    this.client.removeAllListeners("error").on("error", () => undefined); // the lease ends here on purpose
    try {
      if (counts) {
        await this.client.query("INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'clean_stop', $2, $3::json)", [
          this.runId,
          new Date().toISOString(),
          JSON.stringify(counts),
        ]);
      }
    } catch (err) {
      this.onError(new DecisionLogError("log_run_marker_failed", `clean stop not recorded: ${messageOf(err)}`));
    } finally {
      await this.client.end().catch(() => undefined);
    }
  }
}

/** The lease's advisory lock key: 64 bits of the run id's SHA-256 (run ids are random UUIDs). */
function leaseKey(runId: string): string {
  return BigInt.asIntN(64, BigInt("0x" + createHash("sha256").update(runId).digest("hex").slice(0, 16))).toString();
}

/** Serialises log starts on one database (an arbitrary constant: "pdplog" in ASCII). */
const STARTS_LOCK = String(0x70646c6f67);
