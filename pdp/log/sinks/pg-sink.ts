/**
 * The decision log's PostgreSQL store, as a sink: the SQLite sink's
 * contract (sqlite-sink.ts) on a database every instance shares.
 *
 * `write` and `writeOutcome` only queue (bounded: the oldest are dropped
 * and counted past `bufferLimit`); batches are written on a short timer or
 * as soon as one is full, one statement each (store/pg-store.ts: both kinds of
 * row, one round trip, one transaction), ONE batch in flight at a time, so
 * rows reach the store in the order they were queued. `commitNow` (durable())
 * writes everything queued at once and answers whether all of it is stored;
 * callers that ask while a batch is in flight share the next one (group
 * commit). A batch that fails is put back in front and retried every
 * `flushIntervalMs`; the sink is failing (health) from the first failure to
 * the next success. A row PostgreSQL refuses for what it holds (a data or
 * constraint error: it would fail forever and block every later event) is
 * isolated by halving the batch, dropped, counted and reported
 * (`postgres_row_refused`); the rest of its batch is stored.
 *
 * A COMMIT on PostgreSQL returns once the WAL is flushed (synchronous_commit
 * on, the default): unlike SQLite's NORMAL, a committed decision survives
 * the database machine losing power too, as far as its storage keeps fsync's
 * promise.
 */
import type pg from "pg";
import { BoundedBuffer } from "./buffer";
import { DecisionLogError, messageOf } from "../core/errors";
import type { LogEvent } from "../core/mask";
import { insertRows, isRowError, openLogPool } from "../store/pg-store";
import type { SinkStats } from "../core/types";
import type { ErrorReporter } from "./sink";
import { SQLITE_SINK_DEFAULTS } from "./sqlite-sink";
import { rowOf, type DecisionRow, type OutcomeRow } from "../store/sqlite-store";
import { StoreFailure, WriteSchedule, type StoreSink } from "./store-sink";

export interface PgSinkOptions {
  /** postgres://... of the service role (PORTCULLIS_DATABASE_URL). */
  url: string;
  /** The run (instance) writing: decisions.run_id, how a restart counts an interrupted run's rows. */
  runId: string;
  /** As the SQLite sink's: longest wait of an event before its batch is written (default 100 ms). */
  flushIntervalMs?: number;
  /** Rows per batch (default 500). */
  batchSize?: number;
  /** Events held in memory while the store cannot be written (default 10000); then the oldest are dropped and counted. */
  bufferLimit?: number;
  onError: ErrorReporter;
}

type QueuedRow = DecisionRow | OutcomeRow;
const isOutcome = (row: QueuedRow): row is OutcomeRow => !("event" in row);

export class PgSink implements StoreSink {
  readonly name = "postgres";
  private readonly pool: pg.Pool;
  private readonly queue: BoundedBuffer<QueuedRow>;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly failing: StoreFailure;
  /** When the queue is written next (the batch timer, or at once for a full batch). */
  private readonly writes = new WriteSchedule(() => void this.pump());
  /** The pass writing the queue out, while one runs (true: it emptied the queue; false: a write failed). */
  private running: Promise<boolean> | undefined;
  /** Rows of the batch being written. */
  private inFlight = 0;
  /** Rows ever queued: rows settle (stored, found stored already, refused or dropped) in this order. */
  private enqueued = 0;
  private written = 0;
  private failures = 0;
  private duplicates = 0;
  private closed = false;

  constructor(private readonly options: PgSinkOptions) {
    this.pool = openLogPool(options.url);
    this.queue = new BoundedBuffer(options.bufferLimit ?? SQLITE_SINK_DEFAULTS.bufferLimit);
    this.intervalMs = options.flushIntervalMs ?? SQLITE_SINK_DEFAULTS.flushIntervalMs;
    this.batchSize = options.batchSize ?? SQLITE_SINK_DEFAULTS.batchSize;
    this.failing = new StoreFailure({ failed: "postgres_write_failed", recovered: "postgres_write_recovered" }, options.onError);
  }

  write(event: LogEvent, json?: string): void {
    this.enqueue(rowOf(event, json));
  }

  writeOutcome(row: OutcomeRow): void {
    this.enqueue(row);
  }

  private enqueue(row: QueuedRow): void {
    if (this.closed) {
      this.queue.countDropped();
      return;
    }
    this.enqueued++;
    this.queue.push(row);
    this.writes.schedule(this.queue.size >= this.batchSize ? 0 : this.intervalMs);
  }

  /** One pass through the queue (a failing store is retried by the timer, not waited for here). */
  async flush(): Promise<void> {
    await this.commitNow();
  }

  /**
   * Resolves true once every row queued before the call has left the queue
   * (stored, or dropped: pipelines/durable.ts counts drops), false when a write failed
   * first. Joins the pass in flight, if any: it takes what is queued after
   * its batch too.
   */
  async commitNow(): Promise<boolean> {
    const target = this.enqueued;
    this.writes.cancel();
    while (this.enqueued - this.queue.size - this.inFlight < target) {
      if (!(await this.pump())) return false;
    }
    return true;
  }

  failure(): { since: number; message: string } | undefined {
    return this.failing.current;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.writes.cancel();
    this.queue.discardAll();
    await this.pool.end().catch(() => undefined);
  }

  stats(): SinkStats & { duplicates: number } {
    return {
      written: this.written,
      pending: this.queue.size + this.inFlight,
      dropped: this.queue.dropped,
      failures: this.failures,
      duplicates: this.duplicates,
    };
  }

  private pump(): Promise<boolean> {
    return (this.running ??= this.writeQueued().finally(() => {
      this.running = undefined;
    }));
  }

  /** Writes the queue out batch after batch; stops at the first failing batch (put back in front, retried by the timer). */
  private async writeQueued(): Promise<boolean> {
    while (this.queue.size > 0) {
      const batch = this.queue.take(this.batchSize);
      this.inFlight = batch.length;
      try {
        const { inserted, refused } = await this.writeBatch(batch);
        this.inFlight = 0;
        this.written += inserted;
        this.duplicates += batch.length - inserted - refused;
        this.failing.succeeded(this.queue.dropped);
      } catch (err) {
        this.inFlight = 0;
        this.failures++;
        this.queue.requeue(batch);
        this.failing.failed(err, this.queue.dropped, this.queue.size, this.queue.limit);
        if (!this.closed) this.writes.schedule(this.intervalMs);
        return false;
      }
    }
    return true;
  }

  /** Inserts the rows; a row the database refuses for its contents is isolated (by halves), dropped and counted. */
  private async writeBatch(rows: QueuedRow[]): Promise<{ inserted: number; refused: number }> {
    const decisions: DecisionRow[] = [];
    const outcomes: OutcomeRow[] = [];
    for (const row of rows) {
      if (isOutcome(row)) outcomes.push(row);
      else decisions.push(row);
    }
    try {
      return { inserted: await insertRows(this.pool, this.options.runId, decisions, outcomes), refused: 0 };
    } catch (err) {
      if (!isRowError(err)) throw err;
      if (rows.length === 1) {
        this.queue.countDropped();
        this.options.onError(
          new DecisionLogError("postgres_row_refused", `decision ${rows[0].decision_id} refused by the store and dropped: ${messageOf(err)}`),
        );
        return { inserted: 0, refused: 1 };
      }
      const half = rows.length >> 1;
      const first = await this.writeBatch(rows.slice(0, half));
      const second = await this.writeBatch(rows.slice(half));
      return { inserted: first.inserted + second.inserted, refused: first.refused + second.refused };
    }
  }
}
