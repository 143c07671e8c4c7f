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
 * held is running. Starts are serialised (a transaction advisory lock,
 * STARTS_LOCK), and an interrupted run is recorded once (a unique index),
 * so two instances starting together report each dead run once between
 * them (once per life of a run: see resumed below). The rows a run
 * committed are its own (`decisions.run_id`), however the instances'
 * writes interleave.
 *
 * A live run whose lease connection is lost (a database restart, a network
 * cut, a session an administrator ended, a server that stopped answering
 * the check every LEASE_CHECK_MS) retakes the lease at once on a new
 * connection, retrying with a bounded back-off for as long as the run lives
 * (retake()). The retake is fenced like a start: it holds STARTS_LOCK while
 * it takes the lease, so a start either decided before it (and its verdict
 * is read back) or sees the lease held. Only a start that came in the gap,
 * while no connection held the lease, can call the live run interrupted;
 * the run then finds that row when it retakes, reports it
 * (`log_run_lease_retaken`) and records a second `start` row for itself
 * (`resumed`, with when the lease was lost), so the trail says it lived on.
 * A run that is truly dead retakes nothing, and the next start reports it,
 * a resumed one too: a start looks at each run's last start row, and an
 * `interrupted` row names the start it ends (`start_seq`).
 *
 *   const run = await PgRun.begin(url, { runId, pid }, onError);   // run.interrupted: what it found
 *   await run.end({ written, lost: 0 });                            // clean stop; end() without counts: none
 */
export class PgRun {
  private leaseHeld = true;
  private ended = false;
  private retaking: Promise<void> | undefined;
  private readonly checkTimer: NodeJS.Timeout;
  private checking: Promise<void> | undefined;

  private constructor(
    private readonly url: string,
    private client: pg.Client,
    private readonly run: { runId: string; pid: number },
    readonly interrupted: InterruptedRun[],
    private readonly onError: (error: DecisionLogError) => void,
    private readonly timing: LeaseTiming,
  ) {
    this.watch(client);
    this.checkTimer = setInterval(() => {
      this.checking ??= this.check().finally(() => (this.checking = undefined));
    }, timing.checkMs).unref();
  }

  /** Checks the store (checkLogStore), takes the run's lease, records its start and finds the interrupted runs. */
  static async begin(
    url: string,
    run: { runId: string; pid: number },
    onError: (error: DecisionLogError) => void,
    timing: Partial<LeaseTiming> = {},
  ): Promise<PgRun> {
    const client = await leaseConnection(url);
    try {
      await checkLogStore(client);
      const lease = leaseKey(run.runId);
      await client.query("SELECT pg_advisory_lock($1)", [lease]);
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [STARTS_LOCK]);
      // Each run's last start with nothing after it: a run recorded interrupted in a lease gap that
      // resumed (a second start row) is unended again, and is reported again if it then dies.
      const open = await client.query<{ run_id: string; seq: string; at: string; detail: { pid?: number; lease?: string } }>(
        `SELECT s.run_id, s.seq, s.at, s.detail FROM log_runs s
          WHERE s.kind = 'start' AND s.run_id <> $1
            AND NOT EXISTS (SELECT 1 FROM log_runs e WHERE e.run_id = s.run_id AND e.seq > s.seq)
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
        // start_seq: the life it ends (the start row), recorded once (PostgreSQL migration 12's index).
        const recorded = await client.query(
          `INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'interrupted', $2, $3::json)
           ON CONFLICT (run_id, (detail ->> 'start_seq')) WHERE kind = 'interrupted' DO NOTHING`,
          [start.run_id, now, JSON.stringify({ found_by: run.runId, start_seq: Number(start.seq), ...snake(interrupted) })],
        );
        if (recorded.rowCount === 1) found.push(interrupted);
      }
      await client.query("INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'start', $2, $3::json)", [
        run.runId,
        now,
        JSON.stringify({ pid: run.pid, host: os.hostname(), lease }),
      ]);
      await client.query("COMMIT");
      return new PgRun(url, client, run, found, onError, { ...DEFAULT_LEASE_TIMING, ...timing });
    } catch (err) {
      await discard(client);
      throw err;
    }
  }

  /** Records a clean stop when given the counts (only when nothing was lost), then releases the lease. */
  async end(counts?: { written: number; lost: number }): Promise<void> {
    this.ended = true; // no retake from here on: the lease ends on purpose
    clearInterval(this.checkTimer);
    await this.checking; // one query at a time on the lease connection
    await this.retaking;
    const client = this.client;
    client.removeAllListeners("error").on("error", () => undefined);
    try {
      if (counts) {
        // A lease that could not be retaken leaves no connection: the marker goes through a new one.
        const writer = this.leaseHeld ? client : await leaseConnection(this.url);
        try {
          await writer.query("INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'clean_stop', $2, $3::json)", [
            this.run.runId,
            new Date().toISOString(),
            JSON.stringify(counts),
          ]);
        } finally {
          if (writer !== client) await discard(writer);
        }
      }
    } catch (err) {
      this.onError(new DecisionLogError("log_run_marker_failed", `clean stop not recorded: ${messageOf(err)}`));
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Notices the lease connection failing or closing while the run lives. */
  private watch(client: pg.Client): void {
    client.removeAllListeners("error");
    client.on("error", (err) => this.lost(client, messageOf(err)));
    client.on("end", () => this.lost(client, "its connection closed"));
  }

  /**
   * Every LEASE_CHECK_MS, asks the server whether this session still holds
   * the lease, within a timeout: a server that vanished, or a session the
   * server ended without this end hearing of it, would otherwise go
   * unnoticed for as long as the OS keeps a dead socket (hours).
   */
  private async check(): Promise<void> {
    if (this.ended || !this.leaseHeld) return;
    const client = this.client;
    try {
      const { hi, lo } = lockParts(leaseKey(this.run.runId));
      const { rows } = await client.query<{ held: boolean }>({
        text: `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
                 AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1) AS held`,
        values: [hi, lo],
        query_timeout: this.timing.checkTimeoutMs,
      } as pg.QueryConfig);
      if (!rows[0].held) this.lost(client, "the session no longer holds it");
    } catch (err) {
      this.lost(client, `its check failed: ${messageOf(err)}`);
    }
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.ended || client !== this.client || !this.leaseHeld) return;
    this.leaseHeld = false;
    const lostAt = new Date().toISOString();
    this.onError(
      new DecisionLogError(
        "log_run_marker_failed",
        `run lease lost (${reason}); retaking it: until then, another instance starting would report this run as interrupted`,
      ),
    );
    client.removeAllListeners("error").on("error", () => undefined);
    client.removeAllListeners("end");
    void client.end().catch(() => undefined);
    this.retaking = this.retakeUntilHeld(lostAt).finally(() => {
      this.retaking = undefined;
    });
  }

  /** Retakes the lease with a bounded back-off, for as long as the run lives. */
  private async retakeUntilHeld(lostAt: string): Promise<void> {
    let delay = this.timing.retryMinMs;
    let failures = 0;
    while (!this.ended) {
      try {
        await this.retake(lostAt);
        return;
      } catch (err) {
        // Reported once, then every tenth attempt: an outage must not flood the server log.
        if (failures++ % 10 === 0) {
          this.onError(new DecisionLogError("log_run_marker_failed", `run lease not retaken yet (attempt ${failures}): ${messageOf(err)}`));
        }
      }
      await new Promise<void>((resolve) => setTimeout(resolve, delay).unref());
      delay = Math.min(delay * 2, this.timing.retryMaxMs);
    }
  }

  /**
   * One attempt: a new connection takes the lease under STARTS_LOCK (no
   * start is deciding about this run meanwhile), and reads whether a start
   * in the gap recorded this run interrupted; if so, records that it
   * resumed (once per such row).
   */
  private async retake(lostAt: string): Promise<void> {
    const client = await leaseConnection(this.url);
    try {
      const lease = leaseKey(this.run.runId);
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [STARTS_LOCK]);
      if (!(await tryLease(client, lease))) {
        // Held: by this run's old session, which the server has not yet seen go (a starter only probes
        // a lease under STARTS_LOCK, held here). End that session; the next attempt takes the lease.
        const { hi, lo } = lockParts(lease);
        await client.query(
          `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
              AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1`,
          [hi, lo],
        );
        throw new Error("the lease is still held by this run's previous session, which was ended");
      }
      const verdict = await client.query<{ detail: { found_by?: string; at?: string } }>(
        `SELECT i.detail FROM log_runs i WHERE i.run_id = $1 AND i.kind = 'interrupted'
            AND NOT EXISTS (SELECT 1 FROM log_runs s WHERE s.run_id = $1 AND s.kind = 'start' AND s.seq > i.seq)`,
        [this.run.runId],
      );
      const now = new Date().toISOString();
      const foundBy = verdict.rows[0]?.detail.found_by ?? null;
      if (verdict.rows.length > 0) {
        await client.query("INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'start', $2, $3::json)", [
          this.run.runId,
          now,
          JSON.stringify({ pid: this.run.pid, host: os.hostname(), lease, resumed: true, lease_lost_at: lostAt, reported_interrupted_by: foundBy }),
        ]);
      }
      await client.query("COMMIT");
      // Even when end() came meanwhile: it waits for this attempt, then writes through this connection.
      this.client = client;
      this.leaseHeld = true;
      this.watch(client);
      this.onError(
        new DecisionLogError(
          "log_run_lease_retaken",
          foundBy === null
            ? `run lease retaken (lost at ${lostAt}); no start took this run for interrupted meanwhile`
            : `run lease retaken (lost at ${lostAt}), but the start of run ${foundBy} recorded this live run as interrupted meanwhile; a 'start' row marked resumed now says it lived on`,
        ),
      );
    } catch (err) {
      await discard(client);
      throw err;
    }
  }
}

/** How the lease is checked and retaken (PgRun.begin's `timing`, for tests; the defaults otherwise). */
export interface LeaseTiming {
  /** How often the lease connection is asked whether it still holds the lease. */
  checkMs: number;
  /** How long that question may take before the lease is taken for lost. */
  checkTimeoutMs: number;
  /** The retake's back-off: first delay, doubled per failed attempt up to the max. */
  retryMinMs: number;
  retryMaxMs: number;
}

const DEFAULT_LEASE_TIMING: LeaseTiming = { checkMs: 10_000, checkTimeoutMs: 5_000, retryMinMs: 100, retryMaxMs: 5_000 };

/** A connection of the run's own for its lease and markers. */
async function leaseConnection(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: "portcullis decision log run",
    connectionTimeoutMillis: 10_000,
    // Both ends probe the idle lease connection: this one notices a vanished server (and retakes the
    // lease); the server notices a vanished machine within about a minute (tcp_keepalives_*, below),
    // not the OS's two hours, and frees the lease so the next start reports the run.
    keepAlive: true,
  });
  // Until PgRun watches it (watch() replaces this): a failure meanwhile surfaces as a query's rejection.
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3");
    return client;
  } catch (err) {
    await discard(client);
    throw err;
  }
}

async function discard(client: pg.Client): Promise<void> {
  client.removeAllListeners("error").on("error", () => undefined);
  client.removeAllListeners("end");
  await client.end().catch(() => undefined);
}

async function tryLease(client: pg.Client, lease: string): Promise<boolean> {
  const { rows } = await client.query<{ held: boolean }>("SELECT pg_try_advisory_lock($1) AS held", [lease]);
  return rows[0].held;
}

/** A bigint advisory key as pg_locks shows it: the high 32 bits in classid, the low ones in objid (unsigned). */
function lockParts(key: string): { hi: string; lo: string } {
  const unsigned = BigInt.asUintN(64, BigInt(key));
  return { hi: (unsigned >> 32n).toString(), lo: (unsigned & 0xffffffffn).toString() };
}

/** The lease's advisory lock key: 64 bits of the run id's SHA-256 (run ids are random UUIDs). */
function leaseKey(runId: string): string {
  return BigInt.asIntN(64, BigInt("0x" + createHash("sha256").update(runId).digest("hex").slice(0, 16))).toString();
}

/** Serialises log starts on one database (an arbitrary constant: "pdplog" in ASCII). */
const STARTS_LOCK = String(0x70646c6f67);
