/**
 * The decision log's contract, shared by its two pipelines (the worker's,
 * pipelines/worker-log.ts, and the in-thread one, pipelines/in-thread.ts)
 * and by index.ts, which composes them: the pipelines implement LogCore,
 * index.ts adds the run markers; and the counters every sink keeps
 * (SinkStats). Types only, so neither pipeline needs index.ts (which
 * imports both).
 */
import type { DecisionLog, RequestOutcome } from "../../types";

export interface SinkStats {
  /** Events delivered (committed, printed, acknowledged by the receiver). */
  written: number;
  /** Events waiting to be delivered. */
  pending: number;
  /** Events given up on (buffer full, too large, still pending at close): counted, never silent. */
  dropped: number;
  /** Failed delivery attempts (each is retried). */
  failures: number;
}

export interface DecisionLogStats {
  /** record() and recordOutcome() calls: recorded = logged + droppedByPolicy + internalErrors + outcomes + queued. */
  recorded: number;
  /** Events handed to the sinks. */
  logged: number;
  /** Events the drop policy dropped. */
  droppedByPolicy: number;
  /** Events logged with their input erased because it could not be masked safely (mask/drop policy failure, input not JSON). */
  failSafe: number;
  /** Records lost to a bug in the log itself (reported; should stay 0). */
  internalErrors: number;
  /** Request outcomes handed to the sinks (the SQLite sink stores them; its counters count both kinds of row). */
  outcomes: number;
  /** Records not processed yet: waiting for the next batch, or on their way to (or in) the worker. */
  queued: number;
  sinks: Record<string, SinkStats>;
}

/** Whether the log can keep its record now (the SQLite store: other sinks deliver later or drop, counted). */
export interface DecisionLogHealth {
  /** False from the store's first failed write to its next successful one. */
  persisting: boolean;
  /** When writes started failing (RFC 3339), while they fail. */
  failingSince?: string;
  /** The store's last error (SQLite's message: never an event's contents), while writes fail. */
  error?: string;
  /**
   * The log's worker thread, once it has died at least once (absent before):
   * running again, being restarted, or given up on (records processed
   * in-thread); how many times it was restarted, and its last death.
   */
  worker?: { state: "running" | "restarting" | "in-thread"; restarts: number; lastFailure?: { at: string; reason: string } };
}

/** What the in-thread and worker logs implement; createDecisionLog adds the run markers. */
export interface LogCore extends DecisionLog {
  recordOutcome(outcome: RequestOutcome): void;
  /** Flushes every sink, then closes them (the database last). Records after close are counted as dropped by the sinks. */
  close(): Promise<void>;
  stats(): DecisionLogStats;
  /**
   * Resolves once every decision recorded before the call is committed to
   * the SQLite store (durable against the process dying: store/sqlite-store.ts);
   * rejects with `log_not_durable` when that cannot be confirmed (the store
   * fails, events were dropped, the worker was given up on after dying
   * again and again, DEFAULT_COMMIT_TIMEOUT_MS passed, the log is closed).
   * Without a SQLite sink it resolves at once.
   */
  durable(): Promise<void>;
  health(): DecisionLogHealth;
}
