/**
 * Errors of the decision log, each with a stable machine-readable code so
 * operators and tests can tell them apart without parsing messages.
 */
export type DecisionLogErrorCode =
  /** The mask policy returned something that is not a set of rules. */
  | "mask_invalid_result"
  /** A mask rule is malformed (bad op, bad pointer, pointer outside /input, /result, /nd_builtin_cache). */
  | "mask_invalid_rule"
  /** Evaluating the mask policy threw. */
  | "mask_eval_error"
  /** Evaluating the drop policy threw or returned a non-boolean. */
  | "drop_eval_error"
  /** The event could not be built (e.g. an input that is not JSON). */
  | "event_build_error"
  /** Writes to SQLite started failing (reported once per failing period); the events stay queued, within the buffer's bound. */
  | "sqlite_write_failed"
  /** Writes to SQLite succeed again after failing (not an error: the end of one, with what it cost). */
  | "sqlite_write_recovered"
  /** Writes to PostgreSQL started failing (once per failing period); the events stay queued, within the buffer's bound. */
  | "postgres_write_failed"
  /** Writes to PostgreSQL succeed again after failing. */
  | "postgres_write_recovered"
  /** PostgreSQL refused one row for what it holds (a data or constraint error); it is dropped and counted, the rest of its batch is stored. */
  | "postgres_row_refused"
  /** SQLite refused one row for what it holds (e.g. an event nested past its JSON depth limit); dropped, counted, the rest of its batch stored. */
  | "sqlite_row_refused"
  /** The PostgreSQL store cannot be used for the log: another schema version, or a role that could rewrite the trail. */
  | "log_store_refused"
  /** The run markers (store/runs.ts) could not be written: a restart may misreport this run. */
  | "log_run_marker_failed"
  /** A PostgreSQL run lease that was lost is held again (not an error: the end of one; says whether a start called the run interrupted meanwhile). */
  | "log_run_lease_retaken"
  /** durable() could not confirm that a decision is stored (store failing, events dropped, worker failed, timeout, closed). */
  | "log_not_durable"
  /** A chunk upload failed (network error or non-2xx reply); it is requeued. */
  | "http_upload_failed"
  /** One event alone is larger than the upload size limit, even without nd_builtin_cache. */
  | "event_too_large"
  /** The log's worker thread died: it is restarted with what it had not settled (a bounded number of times in a row; then that is lost, counted as internal errors, and later records are processed in-thread). */
  | "log_worker_failed"
  /** A new worker thread took over from one that died, with the events that one had not settled (not an error: the end of one). */
  | "log_worker_restarted"
  /** The decisions database does not exist (CLI / query). */
  | "decisions_db_missing"
  /** A query filter is invalid (CLI / query). */
  | "decisions_bad_filter";

export class DecisionLogError extends Error {
  constructor(
    readonly code: DecisionLogErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "DecisionLogError";
  }
}

/** The message of anything thrown, without its stack (stacks can carry input values). */
export function messageOf(err: unknown): string {
  // By shape, not instanceof: an error made in another realm (a vm context, Jest's module registry) is still an error.
  const message = typeof err === "object" && err !== null ? (err as { message?: unknown }).message : undefined;
  return typeof message === "string" ? message : String(err);
}
