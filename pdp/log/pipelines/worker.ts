/**
 * The decision log's worker thread (started by worker-log.ts): building
 * events, drop and mask policies, sinks (SQLite), counts. The recording
 * thread writes each event, as its parts or its snapshot
 * (worker-protocol.ts) with the key of the bundle that decided, into the
 * ring (ring.ts), and wakes this thread with a message when it sleeps. This
 * thread builds the event's JSON text from the parts exactly as the
 * recording thread would, loads each bundle once from the bytes the PDP
 * loaded (its own Wasm instance: policies are not shared between threads)
 * and evaluates the bundle's system/log policies exactly as the in-thread
 * log does.
 *
 * Messages are handled one at a time in arrival order, each after reading
 * the ring to its end, so a flush or close sees every event recorded
 * before it. An event whose bundle message has not arrived yet (the ring is
 * faster than messages) stops the reading until a message comes; a bundle
 * load finishes before the events that need it. Counters go to shared
 * memory (see WorkerStats) after every batch, every flush and every few
 * milliseconds, so stats() on the recording thread reads them without a
 * round trip.
 *
 * Events are kept for a restart until they are settled: the ring's room of
 * an event is released only once the store has committed (or dropped,
 * counted) every row of the events up to it, and the settled point goes to
 * shared memory with the counters (Settled). If this thread dies, the
 * recording thread replays what follows that point in a new worker
 * (worker-log.ts); the store keeps the first row of a decision id, so a row
 * committed just before the death is not stored twice. What is kept is
 * bounded (KEEP_AT_MOST): a store that cannot keep up (or is down) does
 * not make the ring fill with kept events; the events released unsettled
 * then are what a death loses (counted).
 */
import * as os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { Engine } from "../../engine";
import type { DecisionRecord, PolicyEvaluator } from "../../types";
import { DecisionLogError, messageOf } from "../core/errors";
import { formatTimestamp, type EventSource } from "../core/event";
import type { LogEvent, MaskOptions } from "../core/mask";
import { CommitGate, type CommitVerdict } from "./durable";
import { createSinks, EventProcessor, snapshotRecord, type SinkConfig } from "./steps";
import type { Sink } from "../sinks/sink";
import type { OutcomeRow } from "../store/sqlite-store";
import { storeOf } from "../sinks/store-sink";
import { RecordBuffer, RingReader } from "./ring";
import { EventRecords, WorkerStats, type Settled, type ShippedEvent, type ShippedRecord, type ToWorker, type FromWorker } from "./worker-protocol";

export interface WorkerInit {
  config: SinkConfig;
  source: EventSource;
  maskOptions: MaskOptions;
  stats: SharedArrayBuffer;
  /** The ring the events come through (allocateRing). */
  ring: SharedArrayBuffer;
}

/**
 * Stand-ins for the input, result and trail objects a shipped record no longer
 * has: the event refers to them and its snapshot splices in their texts
 * (snapshotOf), so they are never serialised themselves.
 */
const SHIPPED_INPUT = Object.freeze({}) as DecisionRecord["input"];
const SHIPPED_RESULT = Object.freeze({});
const SHIPPED_TRAIL = Object.freeze([]);

/** The record the parts came from, as far as the event needs it. */
function recordOf(parts: ShippedRecord): DecisionRecord {
  const record: DecisionRecord = {
    decisionId: parts.decisionId,
    path: parts.path,
    input: SHIPPED_INPUT,
    inputJson: parts.inputJson,
    inputBinary: parts.inputBinary,
    revision: parts.revision,
    context: { requestedBy: parts.requestedBy, reqId: parts.reqId },
    evalNs: parts.evalNs,
    evaluate: null,
  };
  if (parts.resultJson !== undefined) {
    record.result = SHIPPED_RESULT;
    record.resultJson = parts.resultJson;
  }
  if (parts.trailJson !== undefined) record.trail = { entries: SHIPPED_TRAIL, json: parts.trailJson };
  return record;
}

/** How often counters reach shared memory between batches (sinks write on their own timers). */
const PUBLISH_EVERY_MS = 20;
/** While reading a long run of events, counters reach shared memory every this many. */
const PUBLISH_EVERY_EVENTS = 256;
/**
 * A long run of events is read in slices of this many, the event loop
 * running between two: the sinks' writes (a full SQLite batch, PostgreSQL's
 * round trips, the console's lines) and timers happen while events keep
 * coming. Read in one go (a run lasts seconds under load), the run queued
 * every event in the store sink until its bound, which then dropped the
 * oldest; and the queued rows outlived the young generation, so the
 * worker's old generation filled with them (its heap's sawtooth).
 */
const SLICE_EVENTS = 64;
/**
 * The log is background work: on a busy machine the request thread should
 * win the CPU, not this one. Linux applies setpriority(0) to the calling
 * thread only; elsewhere it would nice the whole process, so it is skipped.
 * If this thread falls far behind, the recording thread waits for it
 * (worker-log.ts: a full ring): nothing is dropped.
 */
const WORKER_NICE = 10;
/** The most of the ring kept for a restart (a fraction of it): the rest stays free for new events. */
const KEEP_AT_MOST = 0.5;

function main(): void {
  if (process.platform === "linux") {
    try {
      os.setPriority(WORKER_NICE);
    } catch {
      // Not permitted: run at normal priority.
    }
  }
  if (!parentPort) throw new Error("pdp/log/worker runs as a worker thread");
  const port = parentPort;
  const init = workerData as WorkerInit;
  const send = (message: FromWorker): void => port.postMessage(message);
  const onError = (error: DecisionLogError): void => send({ type: "error", code: error.code, message: error.message });
  const sinks: Sink[] = createSinks(init.config, onError);
  const processor = new EventProcessor(sinks, init.maskOptions, onError);
  const gate = new CommitGate(sinks);
  const store = storeOf(sinks);
  const stats = new WorkerStats(init.stats, sinks.length);
  const ring = new RingReader(init.ring, true);
  const bundles = new Map<string, Promise<PolicyEvaluator>>();
  /** Loaded evaluators by key, so an event does not wait a microtask for an evaluator that is ready. */
  const ready = new Map<string, PolicyEvaluator>();
  let processed = 0;
  let committing: Promise<CommitVerdict> = Promise.resolve({ ok: true });
  const keepAtMost = Math.floor((init.ring.byteLength - 64) * KEEP_AT_MOST);
  /** Points not settled yet, oldest first; `settled` is the last one that is. */
  const marks: Settled[] = [];
  let settled: Settled = { seq: 0, storeRows: 0, counts: { ...processor.counts }, ring: ring.position };

  /** Rows the store's sink was ever handed (each is written, a duplicate, pending or dropped). */
  const storeRows = (): number => {
    const s = store?.stats();
    return s ? s.written + s.duplicates + s.pending + s.dropped : 0;
  };

  function mark(): void {
    if (processed === (marks.at(-1) ?? settled).seq) return;
    marks.push({ seq: processed, storeRows: storeRows(), counts: { ...processor.counts }, ring: ring.position });
  }

  /** Moves the settled point past every mark whose rows are all out of the store's queue; past the bound, past older ones too. */
  function settle(): boolean {
    const s = store?.stats();
    const done = s ? s.written + s.duplicates + s.dropped : Infinity;
    let moved = false;
    while (marks.length > 0 && (marks[0].storeRows <= done || (ring.position - settled.ring) >>> 0 > keepAtMost)) {
      settled = marks.shift()!;
      moved = true;
    }
    return moved;
  }

  const publish = (): void => {
    const moved = settle();
    stats.write(
      processed,
      processor.counts,
      sinks.map((s) => s.stats()),
      store?.failure()?.since ?? 0,
      settled,
    );
    // After the settled point is in shared memory: what is released is never needed again.
    if (moved) ring.release(settled.ring);
  };
  const timer = setInterval(publish, PUBLISH_EVERY_MS);

  async function handle(message: ToWorker): Promise<void> {
    switch (message.type) {
      case "bundle":
        bundles.set(message.key, loadEvaluator(message.key, message.bytes));
        await readRing("until-unknown-bundle"); // events that waited for this bundle
        return;
      case "release":
        await readRing("until-unknown-bundle"); // the events before the release may still need it
        bundles.delete(message.key);
        ready.delete(message.key);
        return;
      case "wake":
        await readRing("until-unknown-bundle");
        return;
      case "events":
        await readRing("all");
        for (const record of message.records) await processEvent(EventRecords.read(RecordBuffer.reader(record)));
        mark();
        publish();
        return;
      case "flush":
        await readRing("all");
        await Promise.all(sinks.map((s) => s.flush()));
        publish();
        send({ type: "done", id: message.id });
        return;
      case "commit": {
        await readRing("all");
        // Not awaited here: a PostgreSQL commit is a round trip, and the ring must keep being read
        // meanwhile (the recording thread waits when it is full). One commit is asked at a time.
        const upTo = processed;
        committing = gate.commit().then(
          (verdict) => verdict,
          (err: unknown) => ({ ok: false as const, reason: messageOf(err) }),
        );
        void committing.then((verdict) => {
          publish();
          send({ type: "committed", id: message.id, upTo, ...verdict });
        });
        return;
      }
      case "close":
        await readRing("all");
        await committing; // its answer goes out before the port closes
        // The database (the record of last resort) closes last.
        for (const sink of [...sinks].reverse()) await sink.close();
        clearInterval(timer);
        publish();
        send({ type: "done", id: message.id });
        port.close();
        return;
    }
  }

  /**
   * Reads and processes the ring's events until it is empty. An event whose
   * bundle is unknown here stops the reading when its bundle message may
   * still come ("until-unknown-bundle": after a wake-up, a bundle or a
   * release); before a flush, a close or an events message ("all") every
   * bundle message sent before them has arrived, so such an event is a bug
   * and fails safe like any event of an unknown bundle.
   */
  async function readRing(mode: "all" | "until-unknown-bundle"): Promise<void> {
    let unpublished = 0;
    let inSlice = 0;
    for (;;) {
      const reader = ring.peek();
      if (reader === null) {
        if (ring.sleepIfEmpty()) break;
        continue;
      }
      const event = EventRecords.read(reader);
      if (mode === "until-unknown-bundle" && event.key !== null && !bundles.has(event.key)) break;
      ring.consume();
      await processEvent(event);
      if (++unpublished >= PUBLISH_EVERY_EVENTS) {
        mark();
        publish();
        unpublished = 0;
      }
      // After the sinks' own immediate writes (queued before this one, so they run first).
      if (++inSlice >= SLICE_EVENTS) {
        inSlice = 0;
        mark();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    mark();
    publish();
  }

  async function processEvent({ json, parts, outcome, key }: ShippedEvent): Promise<void> {
    try {
      if (outcome !== undefined) {
        processor.processOutcome(JSON.parse(outcome) as OutcomeRow);
      } else if (json !== undefined) {
        const evaluate = key === null ? null : (ready.get(key) ?? (await evaluatorFor(key)));
        processor.process(JSON.parse(json) as LogEvent, json, evaluate);
      } else {
        const evaluate = ready.get(key) ?? (await evaluatorFor(key));
        // The built event refers to stand-ins for input and result: the sinks get it parsed from its text.
        const built = snapshotRecord(recordOf(parts), init.source, formatTimestamp(parts.ns));
        processor.processBuilt({ ...built, event: JSON.parse(built.json) as LogEvent }, evaluate);
      }
    } catch (err) {
      // Each step handles its own failures; reaching here is a bug, so it is counted and reported.
      processor.counts.internalErrors++;
      onError(new DecisionLogError("event_build_error", messageOf(err)));
    }
    processed++;
  }

  /** A bundle that does not load here (it loaded in the PDP, so this is unexpected) fails safe: its events are logged with input erased. */
  function loadEvaluator(key: string, bytes: Uint8Array): Promise<PolicyEvaluator> {
    return Engine.load(bytes, "decision log worker").then(
      (engine) => {
        if (bundles.has(key)) ready.set(key, engine.evaluator);
        return engine.evaluator;
      },
      (err: unknown) => () => {
        throw new Error(`bundle ${key} does not load in the decision log worker: ${messageOf(err)}`);
      },
    );
  }

  function evaluatorFor(key: string): Promise<PolicyEvaluator> {
    const evaluator = bundles.get(key);
    if (evaluator) return evaluator;
    // The recording thread sends a bundle before its first event: a miss is a bug, and fails safe.
    return Promise.resolve(() => {
      throw new Error(`bundle ${key} is unknown to the decision log worker`);
    });
  }

  let work = Promise.resolve();
  port.on("message", (message: ToWorker) => {
    work = work
      .then(() => handle(message))
      .catch((err: unknown) => {
        onError(new DecisionLogError("log_worker_failed", messageOf(err)));
        // A flush or close that failed still answers: the recording thread must not wait forever.
        if (message.type === "flush" || message.type === "close") send({ type: "done", id: message.id });
        if (message.type === "commit") send({ type: "committed", id: message.id, upTo: processed, ok: false, reason: messageOf(err) });
      });
  });
}

main();
