/**
 * The decision log's per-event steps, shared by the in-thread log
 * (in-thread.ts) and the worker (worker.ts):
 *
 *   snapshotRecord  record -> event + its JSON text (the snapshot; on the
 *                   thread that recorded, while the PDP's objects are current)
 *   EventProcessor  drop, mask (core/mask.ts), then every sink, with the counts;
 *                   request outcomes straight to the sinks that store them
 *   createSinks     the sinks a configuration asks for
 *
 * Every function here reports failures through `onError` and counts them;
 * none throws for a bad record.
 */
import { newDecisionId } from "../../decision-id";
import type { Writable } from "node:stream";
import type { DecisionRecord, PolicyEvaluator } from "../../types";
import { ConsoleSink } from "../sinks/console-sink";
import { DecisionLogError, messageOf } from "../core/errors";
import { buildEvent, snapshotOf, type EventSource } from "../core/event";
import { HttpSink, type HttpSinkOptions } from "../sinks/http-sink";
import { maskAndDrop, type LogEvent, type MaskOptions } from "../core/mask";
import { PgSink, type PgSinkOptions } from "../sinks/pg-sink";
import type { ErrorReporter, Sink } from "../sinks/sink";
import type { OutcomeRow } from "../store/sqlite-store";
import { SqliteSink, type SqliteSinkOptions } from "../sinks/sqlite-sink";

/** Where each record went; recorded = logged + droppedByPolicy + internalErrors (+ queued). */
export interface LogCounts {
  logged: number;
  droppedByPolicy: number;
  failSafe: number;
  internalErrors: number;
  /** Request outcomes handed to the sinks (recordOutcome). */
  outcomes: number;
}

export const zeroCounts = (): LogCounts => ({ logged: 0, droppedByPolicy: 0, failSafe: 0, internalErrors: 0, outcomes: 0 });

export interface SinkConfig {
  db?: string | Omit<SqliteSinkOptions, "onError">;
  /** The PostgreSQL store instead of `db` (never both: a log has one store). */
  postgres?: Omit<PgSinkOptions, "onError">;
  console?: boolean | Writable;
  remote?: Omit<HttpSinkOptions, "onError">;
  /** How long durable() waits for the store before it answers "not durable" (durable.ts). */
  commitTimeoutMs?: number;
}

/** The configured sinks, in order store (SQLite or PostgreSQL), console, remote (the remote validates its settings first, so a bad URL never leaves a database handle open). */
export function createSinks(config: SinkConfig, onError: ErrorReporter): Sink[] {
  const remote = config.remote ? new HttpSink({ ...config.remote, onError }) : undefined;
  const sqlite = config.db === undefined ? undefined : new SqliteSink(typeof config.db === "string" ? { file: config.db, onError } : { ...config.db, onError });
  const postgres = config.postgres === undefined ? undefined : new PgSink({ ...config.postgres, onError });
  const consoleSink = config.console ? new ConsoleSink(config.console === true ? process.stdout : config.console) : undefined;
  return [sqlite, postgres, consoleSink, remote].filter((s) => s !== undefined);
}

/** The names createSinks gives the sinks of a configuration, in the same order. */
export function sinkNames(config: SinkConfig): string[] {
  return [config.db !== undefined && "sqlite", config.postgres !== undefined && "postgres", config.console && "console", config.remote && "http"].filter(
    (n): n is string => typeof n === "string",
  );
}

/**
 * The event for a record and its JSON text. An input JSON cannot carry (a
 * cycle, a BigInt) is not lost: the decision is logged without input and
 * result, flagged `failSafe`, and the error says why.
 */
export function snapshotRecord(record: DecisionRecord, source: EventSource, timestamp: string): { event: LogEvent; json: string; error?: DecisionLogError } {
  const event: LogEvent = buildEvent(record, source, timestamp);
  if (typeof event.decision_id !== "string" || event.decision_id === "") event.decision_id = newDecisionId();
  try {
    return { event, json: snapshotOf(event, record) };
  } catch (err) {
    const error = new DecisionLogError("event_build_error", `decision ${String(record?.decisionId)}: ${messageOf(err)}`);
    const bare: LogEvent = buildEvent({ ...record, input: undefined as never, result: undefined }, source, timestamp);
    bare.decision_id = event.decision_id;
    bare.erased = ["/input", "/result"];
    bare.custom = { log_error: { code: "event_build_error", message: messageOf(err).slice(0, 200) } };
    return { event: bare, json: snapshotOf(bare), error };
  }
}

/** Drop, mask, then hand the event to every sink; counts every outcome. */
export class EventProcessor {
  constructor(
    private readonly sinks: Sink[],
    private readonly options: MaskOptions,
    private readonly onError: ErrorReporter,
    readonly counts: LogCounts = zeroCounts(),
  ) {}

  /**
   * An event as snapshotRecord built it: when building failed, the event (input
   * erased) is counted fail-safe, reported, and logged without policies.
   */
  processBuilt(built: { event: LogEvent; json: string; error?: DecisionLogError }, evaluate: PolicyEvaluator | null): void {
    if (built.error) {
      this.counts.failSafe++;
      this.onError(built.error);
    }
    this.process(built.event, built.json, built.error ? null : evaluate);
  }

  /** A request's outcome: to every sink that stores outcomes (no policy applies: it holds no input). */
  processOutcome(row: OutcomeRow): void {
    this.counts.outcomes++;
    for (const sink of this.sinks) {
      try {
        sink.writeOutcome?.(row);
      } catch (err) {
        this.counts.internalErrors++;
        this.onError(new DecisionLogError("event_build_error", `${sink.name} sink (outcome): ${messageOf(err)}`));
      }
    }
  }

  /** `evaluate` null: no policy (no bundle, or the event was masked already); redaction still runs. */
  process(event: LogEvent, json: string, evaluate: PolicyEvaluator | null): void {
    const outcome = maskAndDrop(event, json, evaluate, this.options);
    if (outcome.dropped) {
      this.counts.droppedByPolicy++;
      return;
    }
    if (outcome.error) {
      this.counts.failSafe++;
      this.onError(outcome.error);
    }
    this.counts.logged++;
    for (const sink of this.sinks) {
      try {
        sink.write(outcome.event, outcome.json);
      } catch (err) {
        // Sinks do not throw; if one does, the others still get the event.
        this.counts.internalErrors++;
        this.onError(new DecisionLogError("event_build_error", `${sink.name} sink: ${messageOf(err)}`));
      }
    }
  }
}
