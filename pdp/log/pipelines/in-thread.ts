/**
 * The decision log processed on the thread that records: record() only
 * stamps the time and queues the record; building, masking (the mask and
 * drop policies are evaluations of their own) and writing happen in a batch
 * on the next turn of the event loop. A full queue is drained on the spot
 * instead of dropping anything, and flush()/close() drain it first. The PDP
 * hands over the input it decided on and never changes it afterwards, so
 * deferring changes no event.
 *
 * Used when the log cannot run in a worker (worker-log.ts): a remote sink
 * or a console stream of the caller's, or `worker: false`.
 */
import type { DecisionRecord, RequestOutcome } from "../../types";
import { DecisionLogError, messageOf } from "../core/errors";
import { formatTimestamp, nowNs, type EventSource } from "../core/event";
import { CommitGate, notDurable } from "./durable";
import type { DecisionLogHealth, DecisionLogStats, LogCore } from "../core/types";
import type { MaskOptions } from "../core/mask";
import { createSinks, EventProcessor, snapshotRecord, type SinkConfig } from "./steps";
import type { ErrorReporter } from "../sinks/sink";
import { outcomeRowOf } from "../store/sqlite-store";
import { storeOf } from "../sinks/store-sink";

/** Records queued before the batch runs on the spot (bounds memory under a burst; nothing is dropped). */
const MAX_QUEUED = 1000;

/**
 * A decision record or a request outcome, and the time it was handed in
 * (formatting costs more than reading the clock: done in the batch).
 */
export type QueuedRecord = { record: DecisionRecord; outcome?: undefined; ns: bigint } | { record?: undefined; outcome: RequestOutcome; ns: bigint };

/**
 * Where a queue keeps its copies of the records' binary inputs
 * (DecisionRecord.inputBinary: a view on the policy's memory, which the
 * next evaluation overwrites): one buffer, reused once every record copied
 * into it is processed. An ArrayBuffer per decision, even a pooled Buffer
 * or a slice of a fresh slab, measured as slow as the JSON text the bytes
 * replace (allocation, and page faults on new memory); a copy here is a
 * memcpy and a view. What does not fit gets an ArrayBuffer of its own.
 */
class InputArena {
  /** A turn's worth of the largest decision inputs (the API's largest body writes ~30 KB; 50 requests a turn under load). */
  static readonly BYTES = 2 * 1024 * 1024;
  private bytes: Uint8Array | null = null; // allocated at the first binary input: a log fed only texts never needs it
  private used = 0;

  copy(input: Uint8Array): Uint8Array {
    const length = input.byteLength;
    this.bytes ??= new Uint8Array(InputArena.BYTES);
    if (this.used + length > InputArena.BYTES) return input.slice();
    const copy = this.bytes.subarray(this.used, this.used + length);
    copy.set(input);
    this.used += (length + 7) & ~7;
    return copy;
  }

  /** Every copy handed out is dead: the room is reused. */
  reset(): void {
    this.used = 0;
  }
}

/**
 * The records waiting for the next batch, shared by both logs: `drain`
 * runs on the next turn of the event loop, or at once when MAX_QUEUED wait.
 * `drain` takes the records with take() and says when it has finished
 * them with done(): a record's binary input is the queue's copy
 * (InputArena), valid until then.
 */
export class RecordQueue {
  private entries: QueuedRecord[] = [];
  private scheduled = false;
  private readonly inputs = new InputArena();
  /** Batches taken and not yet done (more than one only if a drain recorded and drained again). */
  private inProcess = 0;

  constructor(private readonly drain: () => void) {}

  /** Copies the record's binary input now (DecisionRecord.inputBinary is valid only during record()). */
  push(record: DecisionRecord): void {
    if (record.inputBinary !== undefined) record.inputBinary = this.inputs.copy(record.inputBinary);
    this.add({ record, ns: nowNs() });
  }

  pushOutcome(outcome: RequestOutcome): void {
    this.add({ outcome, ns: nowNs() });
  }

  private add(entry: QueuedRecord): void {
    this.entries.push(entry);
    if (this.entries.length >= MAX_QUEUED) this.drain();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  /** Everything queued, oldest first; the queue is empty after. Call done() when finished with them. */
  take(): QueuedRecord[] {
    this.scheduled = false;
    this.inProcess++;
    const taken = this.entries;
    this.entries = [];
    return taken;
  }

  /** The records take() handed out are finished with (their binary inputs' copies may be overwritten). */
  done(): void {
    this.inProcess--;
    if (this.inProcess === 0 && this.entries.length === 0) this.inputs.reset();
  }

  get length(): number {
    return this.entries.length;
  }
}

export function createLocalDecisionLog(config: SinkConfig, source: EventSource, maskOptions: MaskOptions, onError: ErrorReporter): LogCore {
  const sinks = createSinks(config, onError);
  const gate = new CommitGate(sinks);
  const store = storeOf(sinks);
  let closed = false;
  const processor = new EventProcessor(sinks, maskOptions, onError);
  const counts = processor.counts;
  let recorded = 0;
  const queue = new RecordQueue(drain);

  function drain(): void {
    for (const { record, outcome, ns } of queue.take()) {
      try {
        if (outcome) processor.processOutcome(outcomeRowOf(outcome, formatTimestamp(ns)));
        // A failed snapshot is logged without its input: nothing is left for the policies to mask.
        else processor.processBuilt(snapshotRecord(record, source, formatTimestamp(ns)), record.evaluate ?? null);
      } catch (err) {
        // The steps handle their own failures; reaching here is a bug, so it is counted and reported.
        counts.internalErrors++;
        onError(new DecisionLogError("event_build_error", messageOf(err)));
      }
    }
    queue.done();
  }

  return {
    record(r: DecisionRecord): void {
      recorded++;
      queue.push(r);
    },
    recordOutcome(o: RequestOutcome): void {
      recorded++;
      queue.pushOutcome(o);
    },
    async flush(): Promise<void> {
      drain();
      await Promise.all(sinks.map((s) => s.flush()));
    },
    /** Here the commit runs on this thread: synchronously for SQLite (the caller's turn waits for it), over the network for PostgreSQL. */
    async durable(): Promise<void> {
      if (closed) throw notDurable("the decision log is closed");
      drain();
      const verdict = await gate.commit();
      if (!verdict.ok) throw notDurable(verdict.reason);
    },
    health(): DecisionLogHealth {
      const failure = store?.failure();
      return failure ? { persisting: false, failingSince: new Date(failure.since).toISOString(), error: failure.message } : { persisting: true };
    },
    async close(): Promise<void> {
      closed = true;
      drain();
      // The remote and console sinks first, so the database (the record of last resort) closes last.
      for (const sink of [...sinks].reverse()) await sink.close();
    },
    stats(): DecisionLogStats {
      return { recorded, ...counts, queued: queue.length, sinks: Object.fromEntries(sinks.map((s) => [s.name, s.stats()])) };
    },
  };
}
