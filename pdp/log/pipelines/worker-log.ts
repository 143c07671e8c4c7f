/**
 * The decision log with its processing in a worker thread: the recording
 * thread (the API's) only stamps the time and queues each record, then, on
 * the next turn of the event loop, writes the queued records into a ring in
 * shared memory (ring.ts) that the worker reads. A record the engine
 * evaluated travels as its parts: the ids and times, the engine's own JSON
 * text of the result and the bytes of the input it read (binary input
 * encoding, copied in record(); or the input's JSON text), taken at
 * evaluation, so nothing later can change them; the worker makes the
 * input's text and builds the event from them. Other records (an
 * error, an evaluator without texts) travel as their snapshot, the event's
 * JSON text built here while the objects it refers to are current. Building
 * events, drop and mask policies, redaction and the SQLite writes run in the
 * worker (worker.ts), off the request path and off this heap.
 *
 * Same contract as the in-thread log (in-thread.ts): every record is
 * accounted for exactly once; flush() resolves when everything recorded
 * before it is in the sinks; close() flushes and closes them. stats() is
 * synchronous: the worker's counters are in shared memory, exact after
 * flush()/close() and at most a few milliseconds behind otherwise.
 *
 * Records whose evaluator is not a loaded bundle (no `bundle` ref) are
 * dropped/masked here and sent masked. If the worker dies, what it had not
 * confirmed is reported and counted (events it had not processed as
 * internal errors, events its sinks still held as dropped by them), and
 * later records are processed in-thread, so nothing more is lost.
 */
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import type { BundleRef, DecisionRecord, RequestOutcome } from "../../types";
import { DecisionLogError, messageOf } from "../core/errors";
import { formatTimestamp, type EventSource } from "../core/event";
import { CommitWaiters, DEFAULT_COMMIT_TIMEOUT_MS, notDurable } from "./durable";
import type { DecisionLogHealth, DecisionLogStats, LogCore } from "../core/types";
import { createLocalDecisionLog, RecordQueue, type QueuedRecord } from "./in-thread";
import { maskAndDrop, type MaskOptions } from "../core/mask";
import { sinkNames, snapshotRecord, zeroCounts, type SinkConfig } from "./steps";
import type { ErrorReporter } from "../sinks/sink";
import { openForAppend, outcomeRowOf } from "../store/sqlite-store";
import { STORE_SINKS } from "../sinks/store-sink";
import type { WorkerInit } from "./worker";
import { allocateRing, RecordBuffer, RingWriter } from "./ring";
import { EventRecords, WorkerStats, type EncodedEvent, type FromWorker, type ToWorker } from "./worker-protocol";

/** Bundles the worker keeps loaded (hot reloads are rare; older ones are released and re-sent if needed). */
const MAX_BUNDLES = 4;
/**
 * The ring between this thread and the worker: ~5000 events of a typical
 * size, a quarter of a second of the worker's work. A full ring makes this
 * thread wait for the worker (up to MAX_WAIT_MS), as the in-thread log
 * would make it work, instead of growing memory or dropping events. An
 * event larger than the ring takes, or one the ring still refuses after
 * that wait, goes by message, and so do the events after it until the
 * worker has taken it (a worker that stopped costs one wait per batch).
 */
export const RING_BYTES = 4 * 1024 * 1024;
const MAX_WAIT_MS = 1000;
/**
 * An idle worker is woken (a message) once WAKE_AT_EVENTS events wait in the
 * ring, or WAKE_EVERY_MS after the first of them: waking it for each request
 * or two cost more CPU than the events' processing. A worker that is
 * reading takes new events as they come, unwoken. The SQLite sink batches
 * for 100 ms anyway; flush() and close() reach the worker at once.
 */
const WAKE_EVERY_MS = 10;
const WAKE_AT_EVENTS = 256;

/**
 * `ringBytes` and `onWorker` are for tests: a small ring to fill, and the
 * worker thread itself, to make it fail as a crash would (terminate()).
 */
export function createWorkerDecisionLog(
  config: SinkConfig,
  source: EventSource,
  maskOptions: MaskOptions,
  onError: ErrorReporter,
  ringBytes = RING_BYTES,
  onWorker?: (worker: Worker) => void,
): LogCore {
  // Open the store here first, so a bad path or a broken file fails createDecisionLog as it does in-thread.
  if (config.db !== undefined) openForAppend(typeof config.db === "string" ? config.db : config.db.file).close();
  const names = sinkNames(config);
  const buffer = WorkerStats.allocate(names.length);
  const shared = new WorkerStats(buffer, names.length);
  const ringBuffer = allocateRing(ringBytes);
  const ring = new RingWriter(ringBuffer);
  const init: WorkerInit = { config, source, maskOptions, stats: buffer, ring: ringBuffer };
  const worker = new Worker(workerEntry(), { workerData: init, execArgv: workerExecArgv() });
  // Like the sinks' timers: the log must not keep a finished process alive; shutdown calls close().
  worker.unref();

  const mine = zeroCounts(); // outcomes decided on this thread (snapshot failures, foreign evaluators, after close)
  const queue = new RecordQueue(drain);
  const loaded = new Set<string>(); // bundle keys the worker holds, oldest first (keys only: old bundles' bytes can go)
  const waiting = new Map<number, () => void>();
  let recorded = 0;
  let sent = 0; // events written to the ring or posted
  let lost = 0; // events the worker had not finished when it failed
  let abandoned = names.map(() => 0); // per sink: events the failed worker's sink still held, counted as dropped
  let lateDrops = 0; // records after close
  let lateOutcomes = 0; // outcomes after close (only the store's sink takes outcomes)
  let nextId = 0;
  let unannounced = 0; // events written to the ring since the worker was last woken
  let wakeTimer: NodeJS.Timeout | undefined;
  let overflow: Uint8Array[] = []; // events for the next `events` message
  // Events sent by message, counted up to here: until the worker has finished them, later events go by
  // message too, so the worker takes every event in the order it was recorded.
  let messagesUntil = 0;
  let state: "running" | "failed" | "closed" = "running";
  let fallback: LogCore | undefined; // in-thread processing after a worker failure
  const commits = new CommitWaiters(() => post({ type: "commit", id: nextId++ }), config.commitTimeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS);
  let lastStoreError: string | undefined; // the store's last write failure, for health()

  worker.on("message", (message: FromWorker) => {
    if (message.type === "error") {
      if (message.code === "sqlite_write_failed" || message.code === "postgres_write_failed") lastStoreError = message.message;
      onError(new DecisionLogError(message.code as DecisionLogError["code"], message.message));
    } else if (message.type === "committed") {
      commits.answered(message.upTo, message.ok ? { ok: true } : { ok: false, reason: message.reason ?? "not committed" });
    } else settle(message.id);
  });
  worker.on("error", (err) => fail(messageOf(err)));
  worker.on("exit", (code) => {
    if (state === "running") fail(`exited with code ${code}`);
  });
  onWorker?.(worker);

  function fail(reason: string): void {
    if (state !== "running") return;
    state = "failed";
    // What the worker last reported is all that is known: events it had not processed, and events its
    // sinks held, are not confirmed written (a crash between a commit and its report leaves the store
    // holding a few more than `written` says).
    lost = sent - shared.processed();
    abandoned = names.map((name, n) => shared.sink(n, name).pending);
    overflow = [];
    const held = names.map((name, n) => `${name} ${abandoned[n]}`).join(", ");
    onError(
      new DecisionLogError(
        "log_worker_failed",
        `decision log worker ${reason}; not confirmed written: ${lost} events it had not processed (counted as internal errors)` +
          (names.length > 0 ? ` and the events its sinks held (counted as dropped: ${held})` : "") +
          "; later ones are processed in-thread",
      ),
    );
    fallback = createLocalDecisionLog(config, source, maskOptions, onError);
    for (const { record, outcome } of queue.take()) {
      if (outcome) fallback.recordOutcome(outcome);
      else fallback.record(record); // which copies the binary input into its own queue
    }
    queue.done();
    for (const id of [...waiting.keys()]) settle(id);
    // Whether the worker committed them before it died is not known for sure: not durable.
    commits.failAll(`decision log worker ${reason}`);
  }

  function settle(id: number): void {
    const resolve = waiting.get(id);
    waiting.delete(id);
    resolve?.();
  }

  function post(message: ToWorker): void {
    worker.postMessage(message);
  }

  /** The worker's key for the record's bundle, sending the bytes the first time. */
  function keyOf(bundle: BundleRef): string {
    if (loaded.has(bundle.key)) return bundle.key;
    if (loaded.size >= MAX_BUNDLES) {
      postOverflow(); // events for the bundle about to be released go first (the ring's are read before any message)
      const oldest = loaded.values().next().value as string;
      loaded.delete(oldest);
      post({ type: "release", key: oldest });
    }
    loaded.add(bundle.key);
    post({ type: "bundle", key: bundle.key, bytes: bundle.bytes });
    return bundle.key;
  }

  function drain(): void {
    // Nothing is queued unless running: fail() hands the queue to the fallback, close() drains first.
    const batch = queue.take();
    try {
      if (batch.length === 0 || state !== "running") return;
      write(batch);
    } finally {
      queue.done(); // every record is in the ring or encoded for a message: the binary inputs' copies are free
    }
    postOverflow();
    if (unannounced >= WAKE_AT_EVENTS) wake();
    else if (unannounced > 0) wakeTimer ??= setTimeout(wake, WAKE_EVERY_MS).unref();
  }

  /** Each record of a batch into the ring (or the next message) as its parts or its snapshot. */
  function write(batch: QueuedRecord[]): void {
    for (const { record, outcome, ns } of batch) {
      try {
        if (outcome) {
          send(EventRecords.outcome(JSON.stringify(outcomeRowOf(outcome, formatTimestamp(ns)))));
        } else if (record.bundle && record.evaluate && EventRecords.shippable(record)) {
          send(EventRecords.parts(record, ns, keyOf(record.bundle)));
        } else {
          snapshotHere(record, ns);
        }
      } catch (err) {
        // The steps above handle their own failures; reaching here is a bug, so it is counted and reported.
        mine.internalErrors++;
        onError(new DecisionLogError("event_build_error", messageOf(err)));
      }
    }
  }

  /** A record that travels as its snapshot, built on this thread. */
  function snapshotHere(record: DecisionRecord, ns: bigint): void {
    const { event, json, error } = snapshotRecord(record, source, formatTimestamp(ns));
    if (error) {
      mine.failSafe++;
      onError(error);
      send(EventRecords.snapshot(json, null));
    } else if (!record.evaluate) {
      send(EventRecords.snapshot(json, null));
    } else if (record.bundle) {
      send(EventRecords.snapshot(json, keyOf(record.bundle)));
    } else {
      // An evaluator the worker cannot load: drop and mask here; the worker still redacts (idempotent).
      const outcome = maskAndDrop(event, json, record.evaluate, maskOptions);
      if (outcome.dropped) {
        mine.droppedByPolicy++;
        return;
      }
      if (outcome.error) {
        mine.failSafe++;
        onError(outcome.error);
      }
      send(EventRecords.snapshot(outcome.json, null));
    }
  }

  /** Into the ring, or into the next `events` message when it does not fit, the ring stays full, or messages are ahead of it. */
  function send(event: EncodedEvent): void {
    sent++;
    if (overflow.length === 0 && shared.processed() >= messagesUntil && writeToRing(event)) {
      unannounced++;
      return;
    }
    overflow.push(RecordBuffer.encode(event.bound, event.fill));
  }

  function writeToRing(event: EncodedEvent): boolean {
    if (ring.write(event.bound, event.fill)) return true;
    if (event.bound > ring.maxRecord) return false;
    // Full: the worker is behind. Wake it if it sleeps between wake-ups, and wait for room.
    wake();
    const deadline = Date.now() + MAX_WAIT_MS;
    for (let left = MAX_WAIT_MS; left > 0; left = deadline - Date.now()) {
      ring.waitForRoom(Math.min(left, 50), event.bound);
      if (ring.write(event.bound, event.fill)) return true;
    }
    return false;
  }

  function postOverflow(): void {
    if (overflow.length === 0 || state !== "running") return;
    post({ type: "events", records: overflow });
    overflow = [];
    messagesUntil = sent;
  }

  function wake(): void {
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeTimer = undefined;
    unannounced = 0;
    if (state === "running" && ring.claimWake()) post({ type: "wake" });
  }

  function request(type: "flush" | "close"): Promise<void> {
    if (state !== "running") return Promise.resolve();
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      post({ type, id });
    });
  }

  return {
    record(r: DecisionRecord): void {
      recorded++;
      if (state === "failed") return fallback!.record(r);
      if (state === "closed") {
        // As in-thread: a record after close is counted as logged and as dropped by every sink.
        mine.logged++;
        lateDrops++;
        return;
      }
      queue.push(r);
    },
    recordOutcome(o: RequestOutcome): void {
      recorded++;
      if (state === "failed") return fallback!.recordOutcome(o);
      if (state === "closed") {
        // As a decision after close: counted, and dropped by the sinks.
        mine.outcomes++;
        lateOutcomes++;
        return;
      }
      queue.pushOutcome(o);
    },
    async flush(): Promise<void> {
      drain();
      await request("flush");
      await fallback?.flush();
    },
    durable(): Promise<void> {
      if (state === "failed") return fallback!.durable();
      if (state === "closed") return Promise.reject(notDurable("the decision log is closed"));
      drain(); // this thread's queue into the ring, so the worker's commit covers it
      return commits.wait(sent);
    },
    health(): DecisionLogHealth {
      const theirs = fallback?.health();
      if (theirs && !theirs.persisting) return theirs;
      const since = shared.failingSince();
      if (state === "failed" || since === 0) return { persisting: true };
      return { persisting: false, failingSince: new Date(since).toISOString(), error: lastStoreError ?? "the decision store cannot be written" };
    },
    async close(): Promise<void> {
      drain();
      if (wakeTimer) clearTimeout(wakeTimer);
      const closed = request("close");
      // From here on records count as after close (the worker takes no more), and its exit is expected.
      if (state === "running") state = "closed";
      await closed;
      await fallback?.close();
    },
    stats(): DecisionLogStats {
      const theirs = shared.counts();
      const local = fallback?.stats();
      const sum = (k: keyof typeof mine): number => mine[k] + theirs[k] + (local?.[k] ?? 0);
      const sinks = Object.fromEntries(
        names.map((name, n) => {
          const reported = shared.sink(n, name);
          const s = { ...reported, pending: reported.pending - abandoned[n], dropped: reported.dropped + abandoned[n] };
          const f = local?.sinks[name];
          const merged = f
            ? { ...s, written: s.written + f.written, pending: s.pending + f.pending, dropped: s.dropped + f.dropped, failures: s.failures + f.failures }
            : s;
          return [name, { ...merged, dropped: merged.dropped + lateDrops + (STORE_SINKS.includes(name) ? lateOutcomes : 0) }];
        }),
      );
      const inFlight = state === "failed" ? 0 : sent - shared.processed();
      return {
        recorded,
        logged: sum("logged"),
        outcomes: sum("outcomes"),
        droppedByPolicy: sum("droppedByPolicy"),
        failSafe: sum("failSafe"),
        internalErrors: sum("internalErrors") + lost,
        queued: queue.length + inFlight + (local?.queued ?? 0),
        sinks,
      };
    },
  };
}

const fromSources = __filename.endsWith(".ts");

/** The compiled worker next to this module; from TypeScript sources (tests), a bootstrap that compiles on load. */
function workerEntry(): string {
  return fromSources ? path.join(__dirname, "worker-dev.js") : path.join(__dirname, "worker.js");
}

/**
 * From sources, the worker resolves @portcullis/rego-wasm to the package's
 * sources too (its `portcullis-source` export condition, as Jest and
 * tsconfig do): its dist/ may be stale, or not built. Built, the default
 * (the process's own options).
 */
function workerExecArgv(): string[] | undefined {
  return fromSources ? [...process.execArgv, "--conditions=portcullis-source"] : undefined;
}
