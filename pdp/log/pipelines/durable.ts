/**
 * durable(): "is every decision recorded so far in the store?", for the
 * callers that must not act before (a state-changing request: its decision
 * is on the record before the write runs, so a SIGKILL can never leave a
 * changed row without its decision).
 *
 * Where the sinks are (the worker, or the recording thread for the
 * in-thread log), CommitGate commits what the store's sink (SQLite or
 * PostgreSQL: sinks/store-sink.ts) holds at once,
 * and answers ok only when all of it is in the store and no event was
 * dropped since the last ok (a dropped event may be the one asked about:
 * without per-event bookkeeping the answer errs on the side of "not
 * durable"). Commits asked for while one runs share the next one (group
 * commit), so a burst of writes costs a transaction, not one each.
 *
 * On the recording thread, CommitWaiters holds the callers of the worker
 * log's durable(): each waits for a sequence number (events sent to the
 * worker, in order), and is answered by the worker's `committed` reply
 * covering it, by a timeout, or by the worker's failure. A worker that
 * dies and is restarted (worker-log.ts) replays every event it had not
 * settled: the waiters then wait for the new worker's commit (retry()).
 */
import { DecisionLogError } from "../core/errors";
import type { Sink } from "../sinks/sink";
import { storeOf, type StoreSink } from "../sinks/store-sink";

export type CommitVerdict = { ok: true } | { ok: false; reason: string };

/** How long durable() waits before it answers "not durable" (the store or the worker is stuck). */
export const DEFAULT_COMMIT_TIMEOUT_MS = 5000;

export class CommitGate {
  private readonly store: StoreSink | undefined;
  private droppedAtLastOk = 0;

  constructor(sinks: readonly Sink[]) {
    this.store = storeOf(sinks);
  }

  /** Commits everything the store's sink holds now. Without a store there is nothing to wait for. */
  async commit(): Promise<CommitVerdict> {
    if (!this.store) return { ok: true };
    const empty = await this.store.commitNow();
    const dropped = this.store.stats().dropped;
    const lost = dropped - this.droppedAtLastOk;
    if (!empty) return { ok: false, reason: `the decision store cannot be written: ${this.store.failure()?.message ?? "writes pending"}` };
    this.droppedAtLastOk = dropped;
    if (lost > 0) return { ok: false, reason: `${lost} events were dropped before they could be stored` };
    return { ok: true };
  }
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: DecisionLogError) => void;
  timer: NodeJS.Timeout;
}

export const notDurable = (why: string): DecisionLogError => new DecisionLogError("log_not_durable", why);

/** Callers of durable() on the recording thread, and the commit requests they need (one in flight at a time). */
export class CommitWaiters {
  private waiters: Waiter[] = [];
  /** Every event up to this sequence number is known to be in the store. */
  private confirmed = 0;
  private inFlight = false;

  constructor(
    private readonly requestCommit: () => void,
    private readonly timeoutMs: number,
  ) {}

  /** Resolves once events 1..seq are confirmed in the store; rejects (log_not_durable) when they cannot be. */
  wait(seq: number): Promise<void> {
    if (seq <= this.confirmed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        seq,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(notDurable(`the decision store did not confirm within ${this.timeoutMs} ms`));
        }, this.timeoutMs),
      };
      waiter.timer.unref();
      this.waiters.push(waiter);
      this.ask();
    });
  }

  /** The worker's answer to a commit request: events 1..upTo are in the store (ok) or not all could be. */
  answered(upTo: number, verdict: CommitVerdict): void {
    this.inFlight = false;
    if (verdict.ok) this.confirmed = Math.max(this.confirmed, upTo);
    const covered = this.waiters.filter((w) => w.seq <= upTo);
    this.waiters = this.waiters.filter((w) => w.seq > upTo);
    for (const w of covered) {
      clearTimeout(w.timer);
      if (verdict.ok) w.resolve();
      else w.reject(notDurable(verdict.reason));
    }
    // Callers that came after the request went out: the next commit is theirs (and anyone's who joins meanwhile).
    if (this.waiters.length > 0) this.ask();
  }

  /** Answers every waiter "not durable" (the worker failed; what it committed last is not known for sure). */
  failAll(reason: string): void {
    this.inFlight = false;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(notDurable(reason));
    }
    this.waiters = [];
  }

  /** The commit asked for will not be answered (its worker died and another took over): ask the new one for the waiters. */
  retry(): void {
    this.inFlight = false;
    if (this.waiters.length > 0) this.ask();
  }

  private ask(): void {
    if (this.inFlight) return;
    this.inFlight = true;
    this.requestCommit();
  }
}
