/**
 * What the two decision stores' sinks (SQLite: sqlite-sink.ts, PostgreSQL:
 * pg-sink.ts) share beyond the Sink contract: committing what they hold
 * when asked (durable()), saying since when and why writes fail (health),
 * and counting duplicates. A log has at most one store.
 *
 * StoreFailure keeps the failing period of a store: reported once when
 * writes start failing, once when they recover (with how many events were
 * dropped meanwhile), never at every retry (ten a second on a full disk).
 */
import { DecisionLogError, messageOf, type DecisionLogErrorCode } from "../core/errors";
import type { SinkStats } from "../core/types";
import type { ErrorReporter, Sink } from "./sink";

/** The store sinks' names (stats().sinks[name]); the other sinks (console, http) are not stores. */
export const STORE_SINKS: readonly string[] = ["sqlite", "postgres"];

export interface StoreSink extends Sink {
  /**
   * Writes everything queued now; true when all of it is in the store
   * (durable against the process dying), false when a write failed.
   */
  commitNow(): boolean | Promise<boolean>;
  /** Whether the last write failed: since when and why (the store's message, never an event's contents). */
  failure(): { since: number; message: string } | undefined;
  stats(): SinkStats & { duplicates: number };
}

export function storeOf(sinks: readonly Sink[]): StoreSink | undefined {
  return sinks.find((s): s is StoreSink => STORE_SINKS.includes(s.name));
}

/** The store's entry in a log's stats, whichever store it is. */
export function storeStats(sinks: Record<string, SinkStats>): SinkStats | undefined {
  for (const name of STORE_SINKS) if (sinks[name]) return sinks[name];
  return undefined;
}

export class StoreFailure {
  private failing: { since: number; message: string } | undefined;
  /** Dropped events when writes started failing: what a recovery reports as lost meanwhile. */
  private droppedWhenFailing = 0;

  constructor(
    private readonly codes: { failed: DecisionLogErrorCode; recovered: DecisionLogErrorCode },
    private readonly onError: ErrorReporter,
  ) {}

  get current(): { since: number; message: string } | undefined {
    return this.failing;
  }

  /** A write failed; `queued` and `limit` describe what is kept for the retry. */
  failed(err: unknown, dropped: number, queued: number, limit: number): void {
    if (!this.failing) {
      this.droppedWhenFailing = dropped;
      this.onError(
        new DecisionLogError(this.codes.failed, `${queued} events kept for retry (at most ${limit}, then the oldest are dropped): ${messageOf(err)}`),
      );
    }
    this.failing = { since: this.failing?.since ?? Date.now(), message: messageOf(err) };
  }

  /** A write succeeded. */
  succeeded(dropped: number): void {
    if (!this.failing) return;
    const { since } = this.failing;
    this.failing = undefined;
    this.onError(
      new DecisionLogError(
        this.codes.recovered,
        `writes succeed again after ${Date.now() - since} ms; ${dropped - this.droppedWhenFailing} events dropped meanwhile`,
      ),
    );
  }
}

/**
 * When a store sink writes its queue next: after the batch window (a
 * timer), or, for a full batch, as soon as the event loop runs
 * (setImmediate, queued before the log worker's next slice of the ring:
 * pipelines/worker.ts readRing), so a full batch is written before more
 * events pile up behind it. A pending timer does not delay a full batch;
 * a new event does not postpone a pending write.
 */
export class WriteSchedule {
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  constructor(private readonly write: () => void) {}

  /** `delayMs` 0: a full batch, at once; otherwise after `delayMs` unless a write is already scheduled. */
  schedule(delayMs: number): void {
    if (this.immediate) return;
    if (delayMs > 0) {
      if (this.timer) return;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.write();
      }, delayMs);
      // The log must not keep a finished process alive; shutdown calls close(), which flushes.
      this.timer.unref();
      return;
    }
    this.cancel();
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.write();
    });
    this.immediate.unref();
  }

  cancel(): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }
}
