/**
 * What the recording thread (worker-log.ts) and the log's worker
 * (worker.ts) tell each other, and the shared-memory layout of the worker's
 * counters.
 */
import type { LogCounts } from "./pipeline";
import type { SinkStats } from "./sink";

export type ToWorker =
  /** A bundle the next events were decided by: load it once, under `key`. */
  | { type: "bundle"; key: string; bytes: Uint8Array }
  /** No later event needs this bundle unless it is sent again. */
  | { type: "release"; key: string }
  /** Flat pairs [event JSON, bundle key or null (no policy to evaluate), ...]: one array of strings clones cheaply. */
  | { type: "events"; items: Array<string | null> }
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
