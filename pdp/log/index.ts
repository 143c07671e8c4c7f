/**
 * The decision log: one event per decision, in OPA's shape, masked and
 * dropped by the deciding bundle's own `system/log` policies, then handed to
 * the sinks (SQLite, console, remote HTTP; any combination).
 *
 *   const log = createDecisionLog({ db: DEFAULT_DECISIONS_DB, console: true });
 *   log.record(record);   // from the PDP, for every decision; never throws or waits
 *   await log.close();    // graceful shutdown: flush everything, close the database
 *
 * stats() accounts for every record (recorded = logged + droppedByPolicy +
 * internalErrors + queued) and, per sink, for every event (written + pending
 * + dropped).
 *
 * Off the request path: record() only stamps the time and queues the record;
 * building, masking (the mask and drop policies are evaluations of their
 * own) and writing happen in a batch on the next turn of the event loop. A
 * full queue is drained on the spot instead of dropping anything, and
 * flush()/close() drain it first. The PDP hands over the input it decided
 * on and never changes it afterwards, so deferring changes no event.
 */
import { randomUUID } from "node:crypto";
import type { Writable } from "node:stream";
import type { DecisionLog, DecisionRecord } from "../types";
import { ConsoleSink } from "./console-sink";
import { DecisionLogError, messageOf } from "./errors";
import { buildEvent, formatTimestamp, nowNs, packageVersion } from "./event";
import { HttpSink, type HttpSinkOptions } from "./http-sink";
import { DEFAULT_DROP_ENTRYPOINT, DEFAULT_MASK_ENTRYPOINT, maskAndDrop, type LogEvent } from "./mask";
import type { ErrorReporter, Sink, SinkStats } from "./sink";
import { SqliteSink, type SqliteSinkOptions } from "./sqlite-sink";

export { DEFAULT_DECISIONS_DB } from "./store";
export { CONSOLE_LOG_TYPE } from "./console-sink";
export { DecisionLogError } from "./errors";
export type { LogEvent } from "./mask";
export type { SinkStats } from "./sink";

export interface DecisionLogOptions {
  /** SQLite file (e.g. DEFAULT_DECISIONS_DB), or its options; absent: no SQLite sink. */
  db?: string | Omit<SqliteSinkOptions, "onError">;
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
  /** Failure reports (codes and messages, never event contents); default: one JSON line on stderr. */
  onError?: ErrorReporter;
}

export interface DecisionLogStats {
  /** record() calls. */
  recorded: number;
  /** Events handed to the sinks. */
  logged: number;
  /** Events the drop policy dropped. */
  droppedByPolicy: number;
  /** Events logged with their input erased because it could not be masked safely (mask/drop policy failure, input not JSON). */
  failSafe: number;
  /** Records lost to a bug in the log itself (reported; should stay 0). */
  internalErrors: number;
  /** Records waiting for the next batch. */
  queued: number;
  sinks: Record<string, SinkStats>;
}

export interface ManagedDecisionLog extends DecisionLog {
  /** Flushes every sink, then closes them (the database last). Records after close are counted as dropped by the sinks. */
  close(): Promise<void>;
  stats(): DecisionLogStats;
}

/** Records queued before the batch runs on the spot (bounds memory under a burst; nothing is dropped). */
const MAX_QUEUED = 1000;

export function createDecisionLog(options: DecisionLogOptions = {}): ManagedDecisionLog {
  const onError = safely(options.onError ?? reportToStderr);
  // The remote sink validates its settings first, so a bad URL never leaves a database handle open.
  const remote = options.remote ? new HttpSink({ ...options.remote, onError }) : undefined;
  const sqlite = options.db === undefined ? undefined : new SqliteSink(typeof options.db === "string" ? { file: options.db, onError } : { ...options.db, onError });
  const consoleSink = options.console ? new ConsoleSink(options.console === true ? process.stdout : options.console) : undefined;
  const sinks: Sink[] = [sqlite, consoleSink, remote].filter((s) => s !== undefined);

  const source = {
    instanceId: options.instanceId ?? randomUUID(),
    version: packageVersion(),
    labels: options.labels ?? {},
    bundleName: options.bundleName ?? "portcullis",
  };
  const maskOptions = {
    maskEntrypoint: options.maskEntrypoint ?? DEFAULT_MASK_ENTRYPOINT,
    dropEntrypoint: options.dropEntrypoint ?? DEFAULT_DROP_ENTRYPOINT,
  };
  const counts = { recorded: 0, logged: 0, droppedByPolicy: 0, failSafe: 0, internalErrors: 0 };

  const queue: Array<{ record: DecisionRecord; timestamp: string }> = [];
  let drainScheduled = false;

  function drain(): void {
    drainScheduled = false;
    for (const { record, timestamp } of queue.splice(0)) {
      try {
        processRecord(record, timestamp);
      } catch (err) {
        // processRecord() handles its own failures; reaching here is a bug, so it is counted and reported.
        counts.internalErrors++;
        onError(new DecisionLogError("event_build_error", messageOf(err)));
      }
    }
  }

  function processRecord(given: DecisionRecord, timestamp: string): void {
    let record = given;
    let event: LogEvent;
    try {
      event = buildEvent(record, source, timestamp);
    } catch (err) {
      // An input JSON cannot carry (a cycle, a BigInt): log the decision without it rather than lose it.
      counts.failSafe++;
      onError(new DecisionLogError("event_build_error", `decision ${String(record?.decisionId)}: ${messageOf(err)}`));
      event = buildEvent({ ...record, input: undefined as never, result: undefined }, source, timestamp);
      event.erased = ["/input", "/result"];
      event.custom = { log_error: { code: "event_build_error", message: messageOf(err).slice(0, 200) } };
      if (record.evaluate) record = { ...record, evaluate: null }; // nothing left for the policies to mask
    }
    if (typeof event.decision_id !== "string" || event.decision_id === "") event.decision_id = randomUUID();
    const outcome = maskAndDrop(event, record.evaluate ?? null, maskOptions);
    if (outcome.dropped) {
      counts.droppedByPolicy++;
      return;
    }
    if (outcome.error) {
      counts.failSafe++;
      onError(outcome.error);
    }
    counts.logged++;
    for (const sink of sinks) {
      try {
        sink.write(outcome.event);
      } catch (err) {
        // Sinks do not throw; if one does, the others still get the event.
        counts.internalErrors++;
        onError(new DecisionLogError("event_build_error", `${sink.name} sink: ${messageOf(err)}`));
      }
    }
  }

  return {
    record(r: DecisionRecord): void {
      counts.recorded++;
      queue.push({ record: r, timestamp: formatTimestamp(nowNs()) });
      if (queue.length >= MAX_QUEUED) drain();
      else if (!drainScheduled) {
        drainScheduled = true;
        setImmediate(drain);
      }
    },
    async flush(): Promise<void> {
      drain();
      await Promise.all(sinks.map((s) => s.flush()));
    },
    async close(): Promise<void> {
      drain();
      // The remote and console sinks first, so the database (the record of last resort) closes last.
      for (const sink of [...sinks].reverse()) await sink.close();
    },
    stats(): DecisionLogStats {
      return { ...counts, queued: queue.length, sinks: Object.fromEntries(sinks.map((s) => [s.name, s.stats()])) };
    },
  };
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
