/**
 * What the recording thread (worker-log.ts) and the log's worker
 * (worker.ts) tell each other, and the shared-memory layout of the worker's
 * counters.
 */
import type { DecisionRecord } from "../../types";
import { RecordWriter, type RecordReader } from "./ring";
import type { LogCounts } from "./steps";
import type { SinkStats } from "../core/types";
import { STORE_SINKS } from "../sinks/store-sink";

export type ToWorker =
  /** A bundle the next events were decided by: load it once, under `key`. */
  | { type: "bundle"; key: string; bytes: Uint8Array }
  /** No later event needs this bundle unless it is sent again. */
  | { type: "release"; key: string }
  /** Events wait in the ring (ring.ts): sent only when the worker said it sleeps. */
  | { type: "wake" }
  /**
   * Events that did not go through the ring (one larger than it takes, or
   * the ring stayed full), encoded as EventRecords, to be taken after every
   * event in the ring: the recording thread writes nothing more there until
   * the worker has finished these.
   */
  | { type: "events"; records: Uint8Array[] }
  | { type: "flush"; id: number }
  /** Commit every event sent before this message to the store now, and say whether all of it is there (durable()). */
  | { type: "commit"; id: number }
  | { type: "close"; id: number };

export type FromWorker =
  | { type: "error"; code: string; message: string }
  | { type: "done"; id: number }
  /** Events 1..upTo (in the order sent) are all in the store (ok), or not all of them could be (why). */
  | { type: "committed"; id: number; upTo: number; ok: boolean; reason?: string };

const COUNTS = ["logged", "droppedByPolicy", "failSafe", "internalErrors", "outcomes"] as const;
const SINK_FIELDS = ["written", "pending", "dropped", "failures", "duplicates"] as const;
/**
 * Slot 0: events the worker has finished (logged, dropped or failed); then
 * COUNTS; then FAILING_SINCE; then the settled point (SETTLED: events, the
 * store's rows they made, and COUNTS as they were after them); then
 * SINK_FIELDS per sink.
 */
const FAILING_SINCE = 1 + COUNTS.length;
const SETTLED = FAILING_SINCE + 1;
const HEADER = SETTLED + 3 + COUNTS.length;

/**
 * How far the worker's work is settled: its first `seq` events are in the
 * store (or were dropped there, counted) and their room in the ring is
 * released; `storeRows` is how many rows they handed to the store's sink,
 * `counts` the counters right after them, `ring` the ring's position after
 * them (ring.ts RingReader.position: the ring's own TAIL may lag it, or
 * lead it, for an instant). What a restart replays starts after `seq`
 * (worker-log.ts).
 */
export interface Settled {
  seq: number;
  storeRows: number;
  counts: LogCounts;
  ring: number;
}

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

  /** `failingSince`: when the store's writes started failing (ms since the epoch), 0 while they succeed. */
  write(
    processed: number,
    counts: LogCounts,
    sinks: Array<SinkStats & { duplicates?: number }>,
    failingSince = 0,
    settled: Settled = { seq: 0, storeRows: 0, counts, ring: 0 },
  ): void {
    Atomics.store(this.slots, 0, BigInt(processed));
    Atomics.notify(this.slots, 0);
    COUNTS.forEach((name, i) => Atomics.store(this.slots, 1 + i, BigInt(counts[name])));
    Atomics.store(this.slots, FAILING_SINCE, BigInt(failingSince));
    Atomics.store(this.slots, SETTLED, BigInt(settled.seq));
    Atomics.store(this.slots, SETTLED + 1, BigInt(settled.storeRows));
    Atomics.store(this.slots, SETTLED + 2, BigInt(settled.ring));
    COUNTS.forEach((name, i) => Atomics.store(this.slots, SETTLED + 3 + i, BigInt(settled.counts[name])));
    sinks.forEach((s, n) => SINK_FIELDS.forEach((f, i) => Atomics.store(this.slots, HEADER + n * SINK_FIELDS.length + i, BigInt(s[f] ?? 0))));
  }

  processed(): number {
    return Number(Atomics.load(this.slots, 0));
  }

  /** When the store's writes started failing (ms since the epoch), 0 while they succeed. */
  failingSince(): number {
    return Number(Atomics.load(this.slots, FAILING_SINCE));
  }

  counts(): LogCounts {
    return this.countsAt(1);
  }

  settled(): Settled {
    return {
      seq: Number(Atomics.load(this.slots, SETTLED)),
      storeRows: Number(Atomics.load(this.slots, SETTLED + 1)),
      ring: Number(Atomics.load(this.slots, SETTLED + 2)),
      counts: this.countsAt(SETTLED + 3),
    };
  }

  private countsAt(slot: number): LogCounts {
    return Object.fromEntries(COUNTS.map((name, i) => [name, Number(Atomics.load(this.slots, slot + i))])) as unknown as LogCounts;
  }

  /** Sink `n`'s stats; `duplicates` only for the store's sink, the only one that counts them. */
  sink(n: number, name: string): SinkStats & { duplicates?: number } {
    if (n >= this.sinkCount) throw new RangeError(`no sink ${n}`);
    const at = (i: number): number => Number(Atomics.load(this.slots, HEADER + n * SINK_FIELDS.length + i));
    const stats: SinkStats & { duplicates?: number } = { written: at(0), pending: at(1), dropped: at(2), failures: at(3) };
    if (STORE_SINKS.includes(name)) stats.duplicates = at(4);
    return stats;
  }
}

/** The first byte of each event record: how the rest of it reads. */
const SNAPSHOT = 0;
const PARTS = 1;
const OUTCOME = 2;
/** The texts of a PARTS record, in the order below. */
const PARTS_TEXTS = 8;

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
  /** The input's JSON text, or (when the engine evaluated on the binary path) its binary input bytes: the worker makes the text. */
  inputJson: string | undefined;
  inputBinary: Uint8Array | undefined;
  resultJson: string | undefined;
  /** The decision trail's JSON text (pdp/trail.ts), when the record has one. */
  trailJson: string | undefined;
}

/** An event as the worker reads it: a snapshot's JSON text, or a record's parts, with its bundle key; or a request outcome's row (JSON). */
export type ShippedEvent =
  | { json: string; parts?: undefined; outcome?: undefined; key: string | null }
  | { json?: undefined; parts: ShippedRecord; outcome?: undefined; key: string }
  | { json?: undefined; parts?: undefined; outcome: string; key: null };

/**
 * How an event is written as a record (RecordWriter, ring.ts). Most records
 * go as their PARTS (ids, times and the engine's own JSON texts of input and
 * result: nothing to build on the recording thread, which serves requests);
 * the worker assembles the event from them exactly as the recording thread
 * would. A record whose texts are missing (an evaluator other than the
 * engine) or that carries an error goes as its SNAPSHOT, built on the
 * recording thread while the objects it refers to are current.
 *
 *   SNAPSHOT  texts: json, bundle key | null
 *   PARTS     ns, evalNs, reqId (NaN: none), then texts: decisionId, path,
 *             revision, requestedBy | null, inputJson | null, resultJson | null,
 *             bundle key, trail JSON | null; then the binary input's bytes
 *             | null (exactly one of inputJson and these)
 *   OUTCOME   texts: a request outcome's row as JSON (store/sqlite-store.ts OutcomeRow)
 */
export const EventRecords = {
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
      (typeof record.inputJson === "string" || record.inputBinary instanceof Uint8Array) &&
      record.input !== undefined &&
      (record.result === undefined || typeof record.resultJson === "string") &&
      (record.trail === undefined || typeof record.trail.json === "string") &&
      (context.requestedBy === undefined || typeof context.requestedBy === "string") &&
      (context.reqId === undefined || (typeof context.reqId === "number" && !Number.isNaN(context.reqId)))
    );
  },

  /** A snapshot record, and the most bytes it takes. */
  snapshot(json: string, key: string | null): EncodedEvent {
    const texts = [json, key];
    return {
      bound: 1 + RecordWriter.textsBound(texts),
      fill(w) {
        w.u8(SNAPSHOT);
        w.texts(texts);
      },
    };
  },

  /** A request outcome's row, as JSON. */
  outcome(json: string): EncodedEvent {
    const texts = [json];
    return {
      bound: 1 + RecordWriter.textsBound(texts),
      fill(w) {
        w.u8(OUTCOME);
        w.texts(texts);
      },
    };
  },

  /** A parts record (`record` must be shippable()), and the most bytes it takes. */
  parts(record: DecisionRecord, ns: bigint, key: string): EncodedEvent {
    const context = record.context ?? {};
    const requestedBy = context.requestedBy ?? null;
    const resultJson = record.result === undefined ? null : record.resultJson!;
    const inputJson = record.inputJson ?? null;
    const inputBinary = inputJson === null ? record.inputBinary! : null;
    const texts = [record.decisionId, record.path, record.revision, requestedBy, inputJson, resultJson, key, record.trail?.json ?? null];
    return {
      bound: 1 + 3 * 8 + RecordWriter.textsBound(texts) + RecordWriter.bytesBound(inputBinary),
      fill(w) {
        w.u8(PARTS);
        w.u64(ns);
        w.f64(record.evalNs);
        w.f64(context.reqId ?? NaN);
        w.texts(texts);
        w.bytesOrNull(inputBinary);
      },
    };
  },

  read(r: RecordReader): ShippedEvent {
    const kind = r.u8();
    if (kind === SNAPSHOT) {
      const [json, key] = r.texts(2);
      return { json: json!, key };
    }
    if (kind === OUTCOME) return { outcome: r.texts(1)[0]!, key: null };
    const ns = r.u64();
    const evalNs = r.f64();
    const reqId = r.f64();
    const [decisionId, path, revision, requestedBy, inputJson, resultJson, key, trailJson] = r.texts(PARTS_TEXTS);
    const inputBinary = r.bytesOrNull();
    const parts: ShippedRecord = {
      ns,
      evalNs,
      reqId: Number.isNaN(reqId) ? undefined : reqId,
      decisionId: decisionId!,
      path: path!,
      revision: revision!,
      requestedBy: requestedBy ?? undefined,
      inputJson: inputJson ?? undefined,
      inputBinary: inputBinary ?? undefined,
      resultJson: resultJson ?? undefined,
      trailJson: trailJson ?? undefined,
    };
    return { parts, key: key! };
  },
};

/** An event ready to be written: at most `bound` bytes, written by `fill`. */
export interface EncodedEvent {
  bound: number;
  fill(w: RecordWriter): void;
}
