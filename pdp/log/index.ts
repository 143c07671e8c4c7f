/**
 * The decision log: one event per decision, in OPA's shape, masked and
 * dropped by the deciding bundle's own `system/log` policies, then handed to
 * the sinks (SQLite, console, remote HTTP; any combination).
 *
 *   const log = createDecisionLog({ db: DEFAULT_DECISIONS_DB, console: true });
 *   log.record(record);   // from the PDP, for every decision; never throws or waits
 *   await log.durable();  // every decision recorded so far is committed to the store (or this rejects)
 *   log.health();         // whether events can be persisted now, and how many were lost
 *   await log.close();    // graceful shutdown: flush everything, close the database
 *
 * stats() accounts for every record (recorded = logged + droppedByPolicy +
 * internalErrors + queued) and, per sink, for every event (written + pending
 * + dropped).
 *
 * Off the request path: record() only stamps the time and queues the
 * record. By default the processing (building events, mask and drop
 * policies, redaction, SQLite writes) runs in a worker thread
 * (pipelines/worker-log.ts), so neither its CPU time nor its garbage lands on the
 * thread that serves requests; a log with a remote sink, a console stream of
 * the caller's, or `worker: false` processes on the recording thread, a
 * batch per event-loop turn (pipelines/in-thread.ts). Both log the same events, built
 * from what the record held when it was recorded, and keep the same
 * contract: exactly once, flush()/close() drain everything, stats() accounts
 * for every record.
 *
 * The store keeps run markers (store/runs.ts): a log that opens it records its
 * start and finds the earlier runs that never stopped cleanly
 * (`interruptedRuns`); close() records a clean stop when nothing was lost.
 */
import { randomUUID } from "node:crypto";
import type { Writable } from "node:stream";
import { checkInteger, checkValue } from "../../config/check";
import { ConfigError } from "../../config/errors";
import { DecisionLogError, messageOf } from "./core/errors";
import { packageVersion } from "./core/event";
import { joinResource, type HttpSinkOptions } from "./sinks/http-sink";
import { MIN_UPLOAD_SIZE_LIMIT_BYTES } from "./sinks/chunk";
import { createLocalDecisionLog } from "./pipelines/in-thread";
import type { PgSinkOptions } from "./sinks/pg-sink";
import { beginRun, endRun, PgRun, type InterruptedRun } from "./store/runs";
import { DEFAULT_DROP_ENTRYPOINT, DEFAULT_MASK_ENTRYPOINT } from "./core/mask";
import type { SinkConfig } from "./pipelines/steps";
import type { ErrorReporter } from "./sinks/sink";
import type { LogCore } from "./core/types";
import type { SqliteSinkOptions } from "./sinks/sqlite-sink";
import { openForAppend } from "./store/sqlite-store";
import { storeStats } from "./sinks/store-sink";
import { createWorkerDecisionLog } from "./pipelines/worker-log";

export { DEFAULT_DECISIONS_DB } from "./store/sqlite-store";
export { CONSOLE_LOG_TYPE } from "./sinks/console-sink";
export { DecisionLogError } from "./core/errors";
export { DEFAULT_COMMIT_TIMEOUT_MS } from "./pipelines/durable";
export type { InterruptedRun } from "./store/runs";
export { DEFAULT_BUFFER_LIMIT } from "./sinks/sqlite-sink";
export type { LogEvent } from "./core/mask";
export type { DecisionLogHealth, DecisionLogStats, LogCore, SinkStats } from "./core/types";
export { storeStats } from "./sinks/store-sink";

export interface DecisionLogOptions {
  /** SQLite file (e.g. DEFAULT_DECISIONS_DB), or its options; absent: no SQLite sink. */
  db?: string | Omit<SqliteSinkOptions, "onError">;
  /**
   * The PostgreSQL store instead (shared by every instance; the url is the
   * service role's, PORTCULLIS_DATABASE_URL): opened by openDecisionLog only.
   */
  postgres?: Omit<PgSinkOptions, "onError" | "runId">;
  /** Structured console log: true for stdout, or a stream; absent/false: off. */
  console?: boolean | Writable;
  /** Remote receiver in OPA's upload format; absent: off. */
  remote?: Omit<HttpSinkOptions, "onError">;
  /** Extra labels on every event (id and version are always set and win). */
  labels?: Record<string, string>;
  /** Instance id (labels.id); a random UUID per log by default. */
  instanceId?: string;
  /** Name the deciding bundle is reported under in `bundles` (default "portcullis"). */
  bundleName?: string;
  maskEntrypoint?: string;
  dropEntrypoint?: string;
  /** How long durable() waits for the store before it rejects (default DEFAULT_COMMIT_TIMEOUT_MS). */
  commitTimeoutMs?: number;
  /** Failure reports (codes and messages, never event contents); default: one JSON line on stderr. */
  onError?: ErrorReporter;
  /**
   * Process events in a worker thread (default true). Ignored (in-thread)
   * with a remote sink, whose delivery state stats() reports live, or a
   * console stream, which cannot move to another thread.
   */
  worker?: boolean;
}

export interface ManagedDecisionLog extends LogCore {
  /** Earlier runs on the same store that ended without a clean stop, found when this log opened it (and recorded there). */
  readonly interruptedRuns: readonly InterruptedRun[];
  /** Events the log could not keep: dropped by the store's sink (full buffer, pending at close) and internal errors. */
  lost(): number;
}

/** What both openers share: checked options, the error reporter, the events' source. */
function prepare(options: DecisionLogOptions) {
  checkOptions(options);
  const onError = safely(options.onError ?? reportToStderr);
  const source = {
    instanceId: options.instanceId ?? randomUUID(),
    version: packageVersion(),
    labels: options.labels ?? {},
    bundleName: options.bundleName ?? "portcullis",
  };
  return { onError, source };
}

/** The in-thread or worker pipeline (index.ts's header says which). */
function createCore(options: DecisionLogOptions, config: SinkConfig, setup: ReturnType<typeof prepare>): LogCore {
  const maskOptions = {
    maskEntrypoint: options.maskEntrypoint ?? DEFAULT_MASK_ENTRYPOINT,
    dropEntrypoint: options.dropEntrypoint ?? DEFAULT_DROP_ENTRYPOINT,
  };
  const inWorker = options.worker !== false && !options.remote && (options.console === undefined || typeof options.console === "boolean");
  return inWorker
    ? createWorkerDecisionLog(config, setup.source, maskOptions, setup.onError)
    : createLocalDecisionLog(config, setup.source, maskOptions, setup.onError);
}

/** The core with its run markers: `endRun(clean)` records the end (a clean stop only when nothing was lost). */
function managed(
  core: LogCore,
  interruptedRuns: InterruptedRun[],
  endRun: (clean: { written: number; lost: 0 } | undefined) => Promise<void> | void,
): ManagedDecisionLog {
  const lost = (): number => core.stats().internalErrors + (storeStats(core.stats().sinks)?.dropped ?? 0);
  return {
    record: (r) => core.record(r),
    copiesBinaryInput: true, // both pipelines' RecordQueue copies it in record()
    recordOutcome: (o) => core.recordOutcome(o),
    flush: () => core.flush(),
    durable: () => core.durable(),
    health: () => core.health(),
    stats: () => core.stats(),
    interruptedRuns,
    lost,
    async close(): Promise<void> {
      await core.close();
      // A run that lost events did not stop cleanly.
      await endRun(lost() > 0 ? undefined : { written: storeStats(core.stats().sinks)?.written ?? 0, lost: 0 });
    },
  };
}

/**
 * The log on a SQLite store (or none). Throws ConfigError (config/) when
 * the options are invalid: before any thread or file is started. A
 * PostgreSQL store needs openDecisionLog.
 */
export function createDecisionLog(options: DecisionLogOptions = {}): ManagedDecisionLog {
  if (options.postgres !== undefined)
    throw new ConfigError(
      "CONFIG_CONFLICT",
      "postgres",
      "a PostgreSQL decision store is opened with openDecisionLog (its run markers need the database first)",
    );
  const setup = prepare(options);
  const config: SinkConfig = { db: options.db, console: options.console, remote: options.remote, commitTimeoutMs: options.commitTimeoutMs };
  const store = options.db === undefined ? undefined : typeof options.db === "string" ? { file: options.db } : options.db;
  const durableStore = store && store.file !== ":memory:" ? store : undefined;
  const interruptedRuns = durableStore ? startRun(durableStore, setup.source.instanceId, setup.onError) : [];
  const core = createCore(options, config, setup);
  return managed(core, interruptedRuns, (clean) => {
    if (!durableStore || !clean) return;
    try {
      const db = openForAppend(durableStore.file, { maxBytes: durableStore.maxBytes });
      try {
        endRun(db, setup.source.instanceId, clean);
      } finally {
        db.close();
      }
    } catch (err) {
      setup.onError(new DecisionLogError("log_run_marker_failed", `clean stop not recorded: ${messageOf(err)}`));
    }
  });
}

/**
 * The log on whichever store the options name: SQLite (as createDecisionLog)
 * or PostgreSQL (`postgres`), whose store is checked (schema version, a role
 * that cannot rewrite the trail: DecisionLogError `log_store_refused`) and
 * whose run is begun (store/runs.ts PgRun) before any event is taken. Rejects
 * when the database cannot be reached: an instance does not start without
 * its audit trail.
 */
export async function openDecisionLog(options: DecisionLogOptions = {}): Promise<ManagedDecisionLog> {
  if (options.postgres === undefined) return createDecisionLog(options);
  const setup = prepare(options);
  const runId = setup.source.instanceId;
  const run = await PgRun.begin(options.postgres.url, { runId, pid: process.pid }, setup.onError);
  let core: LogCore;
  try {
    const config: SinkConfig = {
      postgres: { ...options.postgres, runId },
      console: options.console,
      remote: options.remote,
      commitTimeoutMs: options.commitTimeoutMs,
    };
    core = createCore(options, config, setup);
  } catch (err) {
    await run.end();
    throw err;
  }
  return managed(core, run.interrupted, (clean) => run.end(clean));
}

/** Records this run's start in the store; a store that cannot take it is reported, not fatal (its writes fail too, and say so). */
function startRun(store: { file: string; maxBytes?: number }, runId: string, onError: ErrorReporter): InterruptedRun[] {
  const db = openForAppend(store.file, { maxBytes: store.maxBytes });
  try {
    return beginRun(db, { runId, pid: process.pid });
  } catch (err) {
    onError(new DecisionLogError("log_run_marker_failed", `run start not recorded: ${messageOf(err)}`));
    return [];
  } finally {
    db.close();
  }
}

/**
 * Every option, by the configuration's rules (config/check.ts, ConfigError
 * naming the option), before any thread or file starts: a value a sink
 * would refuse must not first reach the worker, which cannot refuse it to
 * the caller (a size cap of 0 left close() waiting forever there).
 */
function checkOptions(options: DecisionLogOptions): void {
  if (options.db !== undefined && options.postgres !== undefined)
    throw new ConfigError("CONFIG_CONFLICT", "postgres", "a decision log has one store: db (SQLite) or postgres, not both");
  if (typeof options.db === "string") checkValue({ type: "string" }, options.db, "db");
  else if (options.db !== undefined) {
    checkValue({ type: "string" }, options.db.file, "db.file");
    checkBatching(options.db, "db");
    if (options.db.maxBytes !== undefined) checkInteger(options.db.maxBytes, "db.maxBytes", { min: 1 });
  }
  if (options.postgres !== undefined) checkBatching(options.postgres, "postgres");
  if (options.commitTimeoutMs !== undefined) checkInteger(options.commitTimeoutMs, "commitTimeoutMs", { min: 1 });
  if (options.remote !== undefined) checkRemote(options.remote);
}

/** Batching that could never drain is refused: a batch of 0 events never empties the queue, so flush() and close() would wait forever. */
function checkBatching(store: { batchSize?: number; flushIntervalMs?: number; bufferLimit?: number }, name: "db" | "postgres"): void {
  for (const key of ["batchSize", "flushIntervalMs", "bufferLimit"] as const) {
    if (store[key] !== undefined) checkInteger(store[key], `${name}.${key}`, { min: 1 });
  }
}

/** The remote sink's settings (OPA's names); its URL may carry credentials, so no refusal repeats it. */
function checkRemote(remote: NonNullable<DecisionLogOptions["remote"]>): void {
  const http = { type: "service-url", schemes: ["http:", "https:"] } as const;
  checkValue(http, remote.url, "remote.url");
  if (remote.resource !== undefined)
    checkValue(http, joinResource(remote.url, checkValue({ type: "string" }, remote.resource, "remote.resource") as string), "remote.resource");
  if (remote.trigger !== undefined) checkValue({ type: "choice", values: ["periodic", "immediate"] }, remote.trigger, "remote.trigger");
  const minimums = {
    uploadSizeLimitBytes: MIN_UPLOAD_SIZE_LIMIT_BYTES,
    bufferSizeLimitEvents: 1,
    flushMaxAttempts: 1,
    timeoutMs: 1,
    minDelayMs: 0,
    maxDelayMs: 0,
    minBackoffMs: 0,
    maxBackoffMs: 0,
  } as const;
  for (const [key, min] of Object.entries(minimums) as Array<[keyof typeof minimums, number]>) {
    if (remote[key] !== undefined) checkInteger(remote[key], `remote.${key}`, { min });
  }
}

/** A reporter that cannot throw into record(). */
function safely(report: ErrorReporter): ErrorReporter {
  return (error) => {
    try {
      report(error);
    } catch {
      // Nothing more to do: the counters in stats() still show the failure.
    }
  };
}

function reportToStderr(error: DecisionLogError): void {
  process.stderr.write(JSON.stringify({ level: "error", msg: "decision log", code: error.code, error: error.message }) + "\n");
}
