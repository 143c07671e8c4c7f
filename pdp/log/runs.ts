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
 * on the same file would see the first as interrupted.
 */
import type Database from "better-sqlite3";

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
    const starts = db.prepare("SELECT detail FROM log_runs WHERE kind = 'start' AND seq > (SELECT seq FROM log_runs WHERE run_id = ? AND kind = 'start') ORDER BY seq LIMIT 1");
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
