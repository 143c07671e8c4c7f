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
 * dropped/masked here and sent masked. If the worker dies, a new one takes
 * over with every event the dead one had not settled (RESTART_DELAYS_MS
 * below says how, and when it is given up on).
 */
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import type { BundleRef, DecisionRecord, RequestOutcome } from "../../types";
import { DecisionLogError, messageOf } from "../core/errors";
import { formatTimestamp, type EventSource } from "../core/event";
import { CommitWaiters, DEFAULT_COMMIT_TIMEOUT_MS, notDurable } from "./durable";
import type { DecisionLogHealth, DecisionLogStats, LogCore, SinkStats } from "../core/types";
import { createLocalDecisionLog, RecordQueue, type QueuedRecord } from "./in-thread";
import { maskAndDrop, type MaskOptions } from "../core/mask";
import { sinkNames, snapshotRecord, zeroCounts, type SinkConfig } from "./steps";
import type { ErrorReporter } from "../sinks/sink";
import { openForAppend, outcomeRowOf } from "../store/sqlite-store";
import { STORE_SINKS } from "../sinks/store-sink";
import type { WorkerInit } from "./worker";
import { allocateRing, RecordBuffer, RingReader, RingWriter } from "./ring";
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
 * A worker that dies (a crash, the OOM killer's kin, exit) is restarted:
 * after RESTART_DELAYS_MS[k] for the k-th death in a row (a worker that ran
 * STABLE_MS resets the count; at once while close() waits for it), with every event it had not settled
 * replayed to the new one in the order recorded (what the ring kept and the
 * messages kept here: worker.ts), so nothing is lost, and the store keeps
 * the first row of each decision id, so nothing is stored twice. A
 * durable() waiting meanwhile is answered by the new worker's commit
 * (unless the dead one had dropped events since its last confirmed
 * commit: then "not durable", as it would have said). After
 * RESTART_DELAYS_MS.length deaths in a row the worker is given up on: what
 * it had not settled is counted lost, and later records are processed
 * in-thread.
 */
const RESTART_DELAYS_MS = [100, 200, 400, 800, 1600];
const STABLE_MS = 60_000;

/** One worker thread and what it shares with this thread. */
interface Generation {
  worker: Worker;
  ringBuffer: SharedArrayBuffer;
  ring: RingWriter;
  shared: WorkerStats;
  /** Events sent before this worker started: its n-th event is event `base + n` of the log. */
  base: number;
  startedAt: number;
}

/**
 * `ringBytes` and `onWorker` are for tests: a small ring to fill, and each
 * worker thread as it starts, to make it fail as a crash would (terminate()).
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

  const mine = zeroCounts(); // outcomes decided on this thread (snapshot failures, foreign evaluators, after close)
  const queue = new RecordQueue(drain);
  const loaded = new Set<string>(); // bundle keys the current worker holds, oldest first
  /** Bytes of the bundles a replay may need: the loaded ones, and released ones until the events before their release are settled. */
  const bundleBytes = new Map<string, { bytes: Uint8Array; releasedAt?: number }>();
  const waiting = new Map<number, { type: "flush" | "close"; resolve: () => void }>();
  let recorded = 0;
  let sent = 0; // events written to the ring or posted: event n of the log is the n-th sent
  let lost = 0; // events a worker given up on had not settled
  /** What dead workers settled: their counts and their sinks' (the store's rows they held unsettled as dropped). */
  const past = { counts: zeroCounts(), sinks: names.map(() => ({ written: 0, pending: 0, dropped: 0, failures: 0, duplicates: 0 })) };
  /** Events the last dead worker settled (replays start after them). */
  let settledAtDeath = 0;
  let lateDrops = 0; // records after close
  let lateOutcomes = 0; // outcomes after close (only the store's sink takes outcomes)
  let nextId = 0;
  let unannounced = 0; // events written to the ring since the worker was last woken
  let wakeTimer: NodeJS.Timeout | undefined;
  let overflow: Uint8Array[] = []; // events for the next `events` message
  /** Posted `events` messages not yet settled (events from+1..from+records.length), kept for a replay. */
  let kept: Array<{ from: number; records: Uint8Array[] }> = [];
  // Events sent by message, counted up to here: until the worker has finished them, later events go by
  // message too, so the worker takes every event in the order it was recorded.
  let messagesUntil = 0;
  let state: "running" | "restarting" | "failed" | "closed" = "running";
  let deathsInARow = 0;
  let restarts = 0;
  let lastDeath: { at: string; reason: string } | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let fallback: LogCore | undefined; // in-thread processing after the worker was given up on
  const commits = new CommitWaiters(() => post({ type: "commit", id: nextId++ }), config.commitTimeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS);
  /** The store's dropped count when the last commit was confirmed: a death with more dropped since fails the waiting durable() calls. */
  let droppedAtLastOk = 0;
  let lastStoreError: string | undefined; // the store's last write failure, for health()
  const storeIndex = names.findIndex((name) => STORE_SINKS.includes(name));

  let gen: Generation = start(0);

  function start(base: number): Generation {
    const statsBuffer = WorkerStats.allocate(names.length);
    const ringBuffer = allocateRing(ringBytes);
    const init: WorkerInit = { config, source, maskOptions, stats: statsBuffer, ring: ringBuffer };
    const worker = new Worker(workerEntry(), { workerData: init, execArgv: workerExecArgv() });
    // Like the sinks' timers: the log must not keep a finished process alive; shutdown calls close().
    worker.unref();
    const started: Generation = {
      worker,
      ringBuffer,
      ring: new RingWriter(ringBuffer),
      shared: new WorkerStats(statsBuffer, names.length),
      base,
      startedAt: Date.now(),
    };
    let failure: string | undefined;
    worker.on("message", (message: FromWorker) => {
      if (started !== gen) return;
      if (message.type === "error") {
        if (message.code === "sqlite_write_failed" || message.code === "postgres_write_failed") lastStoreError = message.message;
        onError(new DecisionLogError(message.code as DecisionLogError["code"], message.message));
      } else if (message.type === "committed") {
        if (message.ok && storeIndex >= 0) droppedAtLastOk = started.shared.sink(storeIndex, names[storeIndex]).dropped;
        commits.answered(base + message.upTo, message.ok ? { ok: true } : { ok: false, reason: message.reason ?? "not committed" });
      } else settle(message.id);
    });
    // The thread is gone only at `exit` (an uncaught error comes first): what it settled is final then.
    worker.on("error", (err) => void (failure ??= messageOf(err)));
    worker.on("exit", (code) => {
      if (started !== gen) return;
      // Its exit is expected once it has answered close(); before that, running or closing, it died.
      if (state === "running" || (state === "closed" && closeWaiting())) died(started, failure ?? `exited with code ${code}`);
    });
    onWorker?.(worker);
    return started;
  }

  /** The worker died: keep what it settled, gather what it did not, and restart it (or give up on it). */
  function died(dead: Generation, reason: string): void {
    const settled = dead.shared.settled();
    const from = dead.base + settled.seq;
    for (const k of Object.keys(past.counts) as Array<keyof typeof past.counts>) past.counts[k] += settled.counts[k];
    let droppedSinceOk = false;
    names.forEach((name, n) => {
      const s = dead.shared.sink(n, name);
      const p = past.sinks[n];
      p.written += s.written;
      p.failures += s.failures;
      p.duplicates += s.duplicates ?? 0;
      if (n === storeIndex) {
        // Rows of settled events still in its queue (released past the bound, KEEP_AT_MOST) are lost with it.
        const heldSettled = Math.max(0, settled.storeRows - (s.written + (s.duplicates ?? 0) + s.dropped));
        p.dropped += s.dropped + heldSettled;
        droppedSinceOk = s.dropped + heldSettled > droppedAtLastOk;
      } else p.dropped += s.dropped + s.pending;
    });
    droppedAtLastOk = 0;
    const replay = unsettled(dead, from, settled.ring);
    // The new worker's first event is the replay's first (equal to `from` unless events were missing, counted lost).
    settledAtDeath = sent - overflow.length - replay.length;
    kept = replay.length > 0 ? [{ from: settledAtDeath, records: replay }] : [];
    for (const [key, b] of bundleBytes) if (b.releasedAt !== undefined && b.releasedAt <= settledAtDeath) bundleBytes.delete(key);
    if (droppedSinceOk) commits.failAll(`decision log worker ${reason}, after events were dropped that may include the caller's`);
    lastDeath = { at: new Date().toISOString(), reason };
    deathsInARow = Date.now() - dead.startedAt >= STABLE_MS ? 1 : deathsInARow + 1;
    if (deathsInARow > RESTART_DELAYS_MS.length) return giveUp(reason);
    const closing = state === "closed"; // close() waits for the new worker: no delay
    const delay = closing ? 0 : RESTART_DELAYS_MS[deathsInARow - 1];
    state = "restarting";
    onError(
      new DecisionLogError(
        "log_worker_failed",
        `decision log worker ${reason}; restarting it in ${delay} ms (${deathsInARow} of ${RESTART_DELAYS_MS.length} in a row), ` +
          `replaying the ${replay.length} events it had not settled`,
      ),
    );
    if (closing) {
      restart(); // the close request is posted to the new worker with the replay
      state = "closed";
      return;
    }
    restartTimer = setTimeout(restart, delay);
    restartTimer.unref();
  }

  /** A close() the worker has not answered yet. */
  function closeWaiting(): boolean {
    for (const { type } of waiting.values()) if (type === "close") return true;
    return false;
  }

  /** The events after `from` in the order sent: from the dead worker's ring (kept past its settled point) and the kept messages. */
  function unsettled(dead: Generation, from: number, ringAt: number): Uint8Array[] {
    const reader = new RingReader(dead.ringBuffer, true, ringAt);
    const posted = sent - overflow.length; // the overflow is not posted yet: it follows the replay as it is
    const out: Uint8Array[] = [];
    let m = 0;
    for (let seq = from + 1; seq <= posted; seq++) {
      while (m < kept.length && kept[m].from + kept[m].records.length < seq) m++;
      const message = kept[m];
      const record = message && message.from < seq ? message.records[seq - message.from - 1] : reader.take();
      if (record) {
        out.push(record);
        continue;
      }
      // Every event sent is in one or the other until settled: a gap is a bug, counted and reported, never
      // thrown (this runs in the worker's exit handler).
      const missing = posted - seq + 1;
      lost += missing;
      onError(new DecisionLogError("log_worker_failed", `${missing} events of the dead worker could not be found to replay (counted as internal errors)`));
      break;
    }
    return out;
  }

  function restart(): void {
    restartTimer = undefined;
    if (state !== "restarting") return;
    gen = start(settledAtDeath);
    state = "running";
    restarts++;
    loaded.clear();
    for (const [key, b] of bundleBytes) {
      post({ type: "bundle", key, bytes: b.bytes });
      if (b.releasedAt === undefined) loaded.add(key);
    }
    const replayed = kept[0]?.records.length ?? 0;
    if (replayed > 0) post({ type: "events", records: kept[0].records });
    for (const [key, b] of bundleBytes) if (b.releasedAt !== undefined) post({ type: "release", key }); // needed by the replay only
    messagesUntil = settledAtDeath + replayed;
    postOverflow();
    for (const [id, { type }] of waiting) post({ type, id });
    commits.retry();
    onError(new DecisionLogError("log_worker_restarted", `decision log worker restarted (restart ${restarts}); ${replayed} events replayed to it`));
  }

  /** Too many deaths in a row: what the last worker had not settled is lost (counted), later records go in-thread. */
  function giveUp(reason: string): void {
    state = "failed";
    lost += sent - settledAtDeath;
    overflow = [];
    kept = [];
    onError(
      new DecisionLogError(
        "log_worker_failed",
        `decision log worker ${reason}, its ${deathsInARow}th death in a row: not restarted again; ${sent - settledAtDeath} events it had not settled ` +
          `are lost (counted as internal errors); later ones are processed in-thread`,
      ),
    );
    fallback = createLocalDecisionLog(config, source, maskOptions, onError);
    for (const { record, outcome } of queue.take()) {
      if (outcome) fallback.recordOutcome(outcome);
      else fallback.record(record); // which copies the binary input into its own queue
    }
    queue.done();
    for (const id of [...waiting.keys()]) settle(id);
    commits.failAll(`decision log worker ${reason}`);
  }

  function settle(id: number): void {
    const entry = waiting.get(id);
    waiting.delete(id);
    entry?.resolve();
  }

  function post(message: ToWorker): void {
    if (state === "running" || state === "closed") gen.worker.postMessage(message);
  }

  /** Events of the current worker and before it that are settled. */
  function settledNow(): number {
    return state === "running" || state === "closed" ? gen.base + gen.shared.settled().seq : settledAtDeath;
  }

  /** Events finished by the current worker and those before it. */
  function processedNow(): number {
    return state === "running" || state === "closed" ? gen.base + gen.shared.processed() : settledAtDeath;
  }

  /** The worker's key for the record's bundle, sending the bytes the first time. */
  function keyOf(bundle: BundleRef): string {
    if (loaded.has(bundle.key)) return bundle.key;
    if (loaded.size >= MAX_BUNDLES) {
      postOverflow(); // events for the bundle about to be released go first (the ring's are read before any message)
      const oldest = loaded.values().next().value as string;
      loaded.delete(oldest);
      const b = bundleBytes.get(oldest);
      if (b) b.releasedAt = sent;
      post({ type: "release", key: oldest });
    }
    loaded.add(bundle.key);
    bundleBytes.set(bundle.key, { bytes: bundle.bytes });
    post({ type: "bundle", key: bundle.key, bytes: bundle.bytes });
    return bundle.key;
  }

  function drain(): void {
    // Nothing is queued once failed: giveUp() hands the queue to the fallback; close() drains first.
    const batch = queue.take();
    try {
      if (batch.length === 0 || state === "failed" || state === "closed") return;
      write(batch);
    } finally {
      queue.done(); // every record is in the ring or encoded for a message: the binary inputs' copies are free
    }
    postOverflow();
    forgetSettled();
    if (unannounced >= WAKE_AT_EVENTS) wake();
    else if (unannounced > 0) wakeTimer ??= setTimeout(wake, WAKE_EVERY_MS).unref();
  }

  /** Kept messages and released bundles the worker has settled are not needed for a replay any more. */
  function forgetSettled(): void {
    if (kept.length === 0 && bundleBytes.size === loaded.size) return; // nothing kept beyond what the worker holds
    const settled = settledNow();
    while (kept.length > 0 && kept[0].from + kept[0].records.length <= settled) kept.shift();
    for (const [key, b] of bundleBytes) if (b.releasedAt !== undefined && b.releasedAt <= settled) bundleBytes.delete(key);
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

  /**
   * Into the ring, or into the next `events` message when it does not fit,
   * the ring stays full, messages are ahead of it, or the worker is being
   * restarted (the message waits for the new one).
   */
  function send(event: EncodedEvent): void {
    sent++;
    if (overflow.length === 0 && state === "running" && processedNow() >= messagesUntil && writeToRing(event)) {
      unannounced++;
      return;
    }
    overflow.push(RecordBuffer.encode(event.bound, event.fill));
  }

  function writeToRing(event: EncodedEvent): boolean {
    const ring = gen.ring;
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
    kept.push({ from: sent - overflow.length, records: overflow });
    post({ type: "events", records: overflow });
    overflow = [];
    messagesUntil = sent;
  }

  function wake(): void {
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeTimer = undefined;
    unannounced = 0;
    if (state === "running" && gen.ring.claimWake()) post({ type: "wake" });
  }

  function request(type: "flush" | "close"): Promise<void> {
    if (state === "failed" || state === "closed") return Promise.resolve();
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, { type, resolve });
      post({ type, id }); // while restarting: posted to the new worker when it starts
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
      const worker =
        restarts > 0 || lastDeath
          ? {
              worker: {
                state: state === "failed" ? ("in-thread" as const) : state === "restarting" ? ("restarting" as const) : ("running" as const),
                restarts,
                lastFailure: lastDeath,
              },
            }
          : {};
      if (theirs && !theirs.persisting) return { ...theirs, ...worker };
      const since = state === "running" || state === "closed" ? gen.shared.failingSince() : 0;
      if (since === 0) return { persisting: true, ...worker };
      return { persisting: false, failingSince: new Date(since).toISOString(), error: lastStoreError ?? "the decision store cannot be written", ...worker };
    },
    async close(): Promise<void> {
      if (state === "restarting") {
        // Closing now: start the new worker at once, so what the dead one left is written before the close.
        clearTimeout(restartTimer);
        restart();
      }
      drain();
      if (wakeTimer) clearTimeout(wakeTimer);
      const closed = request("close");
      // From here on records count as after close (the worker takes no more), and its exit is expected.
      if (state === "running") state = "closed";
      await closed;
      await fallback?.close();
    },
    stats(): DecisionLogStats {
      const live = state === "running" || state === "closed";
      const theirs = live ? gen.shared.counts() : zeroCounts();
      const local = fallback?.stats();
      const sum = (k: keyof typeof mine): number => mine[k] + past.counts[k] + theirs[k] + (local?.[k] ?? 0);
      const sinks = Object.fromEntries(
        names.map((name, n) => {
          const reported = live ? gen.shared.sink(n, name) : { written: 0, pending: 0, dropped: 0, failures: 0, duplicates: 0 };
          const p = past.sinks[n];
          const s: SinkStats & { duplicates?: number } = {
            written: reported.written + p.written,
            pending: reported.pending,
            dropped: reported.dropped + p.dropped,
            failures: reported.failures + p.failures,
          };
          if (reported.duplicates !== undefined) s.duplicates = reported.duplicates + p.duplicates;
          const f = local?.sinks[name];
          const merged = f
            ? { ...s, written: s.written + f.written, pending: s.pending + f.pending, dropped: s.dropped + f.dropped, failures: s.failures + f.failures }
            : s;
          return [name, { ...merged, dropped: merged.dropped + lateDrops + (STORE_SINKS.includes(name) ? lateOutcomes : 0) }];
        }),
      );
      const inFlight = state === "failed" ? 0 : sent - processedNow();
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
