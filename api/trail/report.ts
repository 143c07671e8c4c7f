/**
 * What the service says about its decision log at the two ends of a run:
 * at start, each earlier run the log found interrupted (a warning line per
 * run); at shutdown, what the log kept and lost, and the exit code that
 * tells whether the trail is whole.
 */
import { storeStats, type ManagedDecisionLog } from "../../pdp/log";
import type { ApiLogger } from "../deps";

/** The exit code of a shutdown that lost decision events: the audit trail has a gap. */
export const EXIT_EVENTS_LOST = 3;

export function reportInterruptedRuns(log: Pick<ManagedDecisionLog, "interruptedRuns">, logger: ApiLogger): void {
  for (const run of log.interruptedRuns) {
    logger({
      level: "warn",
      event: "decision_log.previous_run_interrupted",
      detail:
        "a previous run ended without a clean shutdown: decisions it made after its last commit are not on record (reads only: writes waited for their commit)",
      run_id: run.runId,
      pid: run.pid,
      started_at: run.startedAt,
      committed: run.committed,
      last_committed_at: run.lastCommittedAt,
      last_decision_id: run.lastDecisionId,
    });
  }
}

/** One line after the log closed; returns 0, or EXIT_EVENTS_LOST when any event was lost. */
export function reportLogClosed(log: Pick<ManagedDecisionLog, "stats" | "lost">, logger: ApiLogger): number {
  const stats = log.stats();
  const lost = log.lost();
  logger({
    level: lost > 0 ? "error" : "info",
    event: "decision_log.closed",
    recorded: stats.recorded,
    written: storeStats(stats.sinks)?.written ?? 0,
    dropped_by_policy: stats.droppedByPolicy,
    lost,
  });
  return lost > 0 ? EXIT_EVENTS_LOST : 0;
}
