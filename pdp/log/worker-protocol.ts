/**
 * What the recording thread (worker-log.ts) and the log's worker
 * (worker.ts) tell each other, and the shared-memory layout of the worker's
 * counters.
 */
import type { DecisionRecord } from "../types";
import type { LogCounts } from "./pipeline";
import type { SinkStats } from "./sink";

export type ToWorker =
  /** A bundle the next events were decided by: load it once, under `key`. */
  | { type: "bundle"; key: string; bytes: Uint8Array }
  /** No later event needs this bundle unless it is sent again. */
  | { type: "release"; key: string }
  /** `count` events, encoded one after another in `items` by EventItems (a flat array of primitives clones cheaply). */
  | { type: "events"; items: EventItem[]; count: number }
  | { type: "flush"; id: number }
  | { type: "close"; id: number };

export type FromWorker = { type: "error"; code: string; message: string } | { type: "done"; id: number };

const COUNTS = ["logged", "droppedByPolicy", "failSafe", "internalErrors"] as const;
const SINK_FIELDS = ["written", "pending", "dropped", "failures", "duplicates"] as const;
/** Slot 0: events the worker has finished (logged, dropped or failed); then COUNTS; then SINK_FIELDS per sink. */
const HEADER = 1 + COUNTS.length;

/**
 * The worker's counters in a SharedArrayBuffer: the worker writes, the
 * recording thread reads synchronously. 64-bit slots with Atomics, so no
 * read is torn and no counter wraps in a long-running server.
 */
export class WorkerStats {
  private readonly slots: BigInt64Array;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly sinkCount: number,
  ) {
    this.slots = new BigInt64Array(buffer);
  }

  static allocate(sinkCount: number): SharedArrayBuffer {
    return new SharedArrayBuffer(8 * (HEADER + SINK_FIELDS.length * sinkCount));
  }

  write(processed: number, counts: LogCounts, sinks: Array<SinkStats & { duplicates?: number }>): void {
    Atomics.store(this.slots, 0, BigInt(processed));
    Atomics.notify(this.slots, 0);
    COUNTS.forEach((name, i) => Atomics.store(this.slots, 1 + i, BigInt(counts[name])));
    sinks.forEach((s, n) => SINK_FIELDS.forEach((f, i) => Atomics.store(this.slots, HEADER + n * SINK_FIELDS.length + i, BigInt(s[f] ?? 0))));
  }

  processed(): number {
    return Number(Atomics.load(this.slots, 0));
  }

  /** Blocks until `processed` changes or `ms` pass (the recording thread's backpressure); false on timeout. */
  waitForProgress(ms: number): boolean {
    return Atomics.wait(this.slots, 0, Atomics.load(this.slots, 0), ms) !== "timed-out";
  }

  counts(): LogCounts {
    return Object.fromEntries(COUNTS.map((name, i) => [name, Number(Atomics.load(this.slots, 1 + i))])) as unknown as LogCounts;
  }

  /** Sink `n`'s stats; `duplicates` only for the SQLite sink, which is the only one that counts them. */
  sink(n: number, name: string): SinkStats & { duplicates?: number } {
    if (n >= this.sinkCount) throw new RangeError(`no sink ${n}`);
    const at = (i: number): number => Number(Atomics.load(this.slots, HEADER + n * SINK_FIELDS.length + i));
    const stats: SinkStats & { duplicates?: number } = { written: at(0), pending: at(1), dropped: at(2), failures: at(3) };
    if (name === "sqlite") stats.duplicates = at(4);
    return stats;
  }
}

/** One slot of an events message: strings, numbers, the time as a bigint, or null for "absent". */
export type EventItem = string | number | bigint | null;

/** The first slot of each encoded event: how the rest of it reads. */
const SNAPSHOT = 0;
const PARTS = 1;

/**
 * A decision as the worker rebuilds it: the record's fields that go into the
 * event, with input and result as their JSON texts only.
 */
export interface ShippedRecord {
  decisionId: string;
  ns: bigint;
  path: string;
  revision: string;
  requestedBy: string | undefined;
  reqId: number | undefined;
  evalNs: number;
  inputJson: string;
  resultJson: string | undefined;
}

/**
 * How events travel in an `events` message. Most records go as their PARTS
 * (ids, times and the engine's own JSON texts of input and result: nothing
 * to build on the recording thread, which serves requests); the worker
 * assembles the event from them exactly as the recording thread would. A
 * record whose texts are missing (an evaluator other than the engine) or
 * that carries an error goes as its SNAPSHOT, built on the recording thread
 * while the objects it refers to are current.
 *
 *   [SNAPSHOT, json, bundle key | null]
 *   [PARTS, decisionId, ns, path, revision, requestedBy, reqId, evalNs, inputJson, resultJson, bundle key]
 */
export const EventItems = {
  /** Whether `record` can travel as parts: texts for what it has, nothing the worker could not rebuild faithfully. */
  shippable(record: DecisionRecord): boolean {
    const context = record.context ?? {};
    return (
      record.error === undefined &&
      typeof record.decisionId === "string" &&
      record.decisionId !== "" &&
      typeof record.path === "string" &&
      typeof record.revision === "string" &&
      typeof record.evalNs === "number" &&
      typeof record.inputJson === "string" &&
      record.input !== undefined &&
      (record.result === undefined || typeof record.resultJson === "string") &&
      (context.requestedBy === undefined || typeof context.requestedBy === "string") &&
      (context.reqId === undefined || typeof context.reqId === "number")
    );
  },

  pushSnapshot(items: EventItem[], json: string, key: string | null): void {
    items.push(SNAPSHOT, json, key);
  },

  /** `record` must be shippable(). */
  pushParts(items: EventItem[], record: DecisionRecord, ns: bigint, key: string): void {
    const context = record.context ?? {};
    const resultJson = record.result === undefined ? null : record.resultJson!;
    items.push(PARTS, record.decisionId, ns, record.path, record.revision, context.requestedBy ?? null, context.reqId ?? null, record.evalNs, record.inputJson!, resultJson, key);
  },

  /** The events of `items`, in order: a snapshot's JSON text, or a record's parts; each with its bundle key. */
  *decode(items: EventItem[]): Generator<{ json: string; parts?: undefined; key: string | null } | { json?: undefined; parts: ShippedRecord; key: string }> {
    let i = 0;
    while (i < items.length) {
      if (items[i] === SNAPSHOT) {
        yield { json: items[i + 1] as string, key: items[i + 2] as string | null };
        i += 3;
        continue;
      }
      const at = (n: number): EventItem => items[i + n];
      const parts: ShippedRecord = {
        decisionId: at(1) as string,
        ns: at(2) as bigint,
        path: at(3) as string,
        revision: at(4) as string,
        requestedBy: (at(5) as string | null) ?? undefined,
        reqId: (at(6) as number | null) ?? undefined,
        evalNs: at(7) as number,
        inputJson: at(8) as string,
        resultJson: (at(9) as string | null) ?? undefined,
      };
      yield { parts, key: at(10) as string };
      i += 11;
    }
  },
};
