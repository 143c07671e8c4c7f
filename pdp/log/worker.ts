/**
 * The decision log's worker thread (started by worker-log.ts): drop and mask
 * policies, sinks (SQLite), counts. The recording thread sends each event
 * as its JSON text (the snapshot) with the key of the bundle that decided;
 * this thread loads each bundle once from the bytes the PDP loaded (its own
 * Wasm instance: policies are not shared between threads) and evaluates the
 * bundle's system/log policies exactly as the in-thread log does.
 *
 * Messages are handled one at a time in arrival order (a bundle load
 * finishes before the events that need it), so a flush or close sees every
 * event sent before it. Counters go to shared memory (see WorkerStats) after
 * every batch, every flush and every few milliseconds, so stats() on the
 * recording thread reads them without a round trip.
 */
import * as os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { Engine } from "../engine";
import type { PolicyEvaluator } from "../types";
import { DecisionLogError, messageOf } from "./errors";
import type { LogEvent, MaskOptions } from "./mask";
import { createSinks, EventProcessor, type SinkConfig } from "./pipeline";
import type { Sink } from "./sink";
import { WorkerStats, type ToWorker, type FromWorker } from "./worker-protocol";

export interface WorkerInit {
  config: SinkConfig;
  maskOptions: MaskOptions;
  stats: SharedArrayBuffer;
}

/** How often counters reach shared memory between batches (sinks write on their own timers). */
const PUBLISH_EVERY_MS = 20;
/**
 * The log is background work: on a busy machine the request thread should
 * win the CPU, not this one. Linux applies setpriority(0) to the calling
 * thread only; elsewhere it would nice the whole process, so it is skipped.
 * If this thread falls far behind, the recording thread waits for it
 * (worker-log.ts, MAX_IN_FLIGHT): nothing is dropped.
 */
const WORKER_NICE = 10;

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
  const stats = new WorkerStats(init.stats, sinks.length);
  const bundles = new Map<string, Promise<PolicyEvaluator>>();
  /** Loaded evaluators by key, so an event does not wait a microtask for an evaluator that is ready. */
  const ready = new Map<string, PolicyEvaluator>();
  let processed = 0;

  const publish = (): void => stats.write(processed, processor.counts, sinks.map((s) => s.stats()));
  const timer = setInterval(publish, PUBLISH_EVERY_MS);

  async function handle(message: ToWorker): Promise<void> {
    switch (message.type) {
      case "bundle":
        bundles.set(message.key, loadEvaluator(message.key, message.bytes));
        return;
      case "release":
        bundles.delete(message.key);
        ready.delete(message.key);
        return;
      case "events":
        for (let i = 0; i < message.items.length; i += 2) {
          const json = message.items[i] as string;
          const key = message.items[i + 1] as string | null;
          try {
            const evaluate = key === null ? null : (ready.get(key) ?? (await evaluatorFor(key)));
            processor.process(JSON.parse(json) as LogEvent, json, evaluate);
          } catch (err) {
            // process() handles its own failures; reaching here is a bug, so it is counted and reported.
            processor.counts.internalErrors++;
            onError(new DecisionLogError("event_build_error", messageOf(err)));
          }
          processed++;
        }
        publish();
        return;
      case "flush":
        await Promise.all(sinks.map((s) => s.flush()));
        publish();
        send({ type: "done", id: message.id });
        return;
      case "close":
        // The database (the record of last resort) closes last.
        for (const sink of [...sinks].reverse()) await sink.close();
        clearInterval(timer);
        publish();
        send({ type: "done", id: message.id });
        port.close();
        return;
    }
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
      });
  });
}

main();
