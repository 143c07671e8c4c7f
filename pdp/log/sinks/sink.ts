/**
 * What every decision-log sink offers (SQLite, console, remote HTTP): a
 * non-blocking write, a flush that drains, and counters that account for
 * every event handed to it (written + pending + dropped: SinkStats, in
 * core/types.ts beside the log's own counters).
 */
import type { DecisionLogError } from "../core/errors";
import type { LogEvent } from "../core/mask";
import type { SinkStats } from "../core/types";
import type { OutcomeRow } from "../store/sqlite-store";

export interface Sink {
  readonly name: string;
  /**
   * Queues the event; never throws, never waits for I/O. `json` is the
   * event's JSON text when the caller has it (the log always does). The
   * event may share objects with the PDP: a sink serialises or extracts
   * what it keeps here, never later.
   */
  write(event: LogEvent, json?: string): void;
  /**
   * Queues a request's outcome (the SQLite store keeps them beside the
   * decisions); sinks without it carry OPA's events only. Never throws.
   */
  writeOutcome?(row: OutcomeRow): void;
  /** Delivers everything queued (bounded retries for remote sinks). */
  flush(): Promise<void>;
  /** Flushes, then releases the sink; events still pending are counted as dropped. */
  close(): Promise<void>;
  stats(): SinkStats;
}

/** Where sinks report failures: codes and messages only, never event contents. */
export type ErrorReporter = (error: DecisionLogError) => void;
