/**
 * The local, authoritative decision log: events are queued in memory and
 * written to SQLite in batches, one transaction per batch, on a short timer
 * or as soon as a batch is full. `write` only queues, so a decision never
 * waits for the disk; `commitNow` writes everything queued at once, for a
 * caller that must know its decision is stored (durable() in the logs). A
 * failed batch stays queued and is retried on the next tick; the sink is
 * `failing` from the first failed write to the next successful one; a full
 * queue drops its oldest events and counts them. A row SQLite refuses for
 * what it holds (it would fail forever and block every later event) is
 * isolated, dropped, counted and reported (`sqlite_row_refused`); the rest
 * of its batch is stored. Request outcomes
 * (writeOutcome) share the queue, the batches and the counters with the
 * decision events: one transaction holds both kinds.
 */
import type Database from "better-sqlite3";
import { BoundedBuffer } from "./buffer";
import { DecisionLogError, messageOf } from "../core/errors";
import type { LogEvent } from "../core/mask";
import type { SinkStats } from "../core/types";
import type { ErrorReporter } from "./sink";
import { StoreFailure, WriteSchedule, type StoreSink } from "./store-sink";
import { openForAppend, rowOf, type DecisionRow, type OutcomeRow } from "../store/sqlite-store";

/**
 * Events held while the store cannot be written: a few MB of rows (an event
 * is ~1 KB), so a full disk keeps memory flat instead of growing until the
 * process is killed. A minute of a busy instance's decisions at ~150/s.
 */
export const DEFAULT_BUFFER_LIMIT = 10_000;

/** What an unset option means: the service's configuration starts from these too (config/settings.ts). */
export const SQLITE_SINK_DEFAULTS = { flushIntervalMs: 100, batchSize: 500, bufferLimit: DEFAULT_BUFFER_LIMIT };

export interface SqliteSinkOptions {
  file: string;
  /** Longest time an event waits in memory before its batch is written (default 100 ms). */
  flushIntervalMs?: number;
  /** Events per transaction; a full batch is written at once (default 500). */
  batchSize?: number;
  /**
   * Events held in memory while the store cannot be written (default
   * DEFAULT_BUFFER_LIMIT); beyond it the oldest are dropped and counted.
   */
  bufferLimit?: number;
  /** Largest size of the store file (store/sqlite-store.ts StoreLimits); absent: none. */
  maxBytes?: number;
  onError: ErrorReporter;
}

/**
 * Rows per INSERT statement. Each statement costs a fixed share (run, step,
 * reset, the keep-first trigger's program setup) on top of its rows: one
 * row per statement took ~16 us a row, fifty ~10 us (measured on an
 * 800-byte event). Same rows, same triggers and checks, same transaction.
 */
const ROWS_PER_STATEMENT = 50;
const COLUMNS = 9;

/**
 * INSERT of n rows, positional parameters (binding by name looks up each of
 * the nine names per row, ~10% of an insert). A duplicate decision_id keeps
 * the first event: DO NOTHING here, and the store's trigger for any writer.
 */
function insertSql(n: number): string {
  return `INSERT INTO decisions (decision_id, timestamp, path, actor_id, allowed, status, reason, revision, event)
       VALUES ${Array.from({ length: n }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}
       ON CONFLICT (decision_id) DO NOTHING`;
}

const insertOutcomeSql = `INSERT INTO outcomes (decision_id, timestamp, method, http_path, route_id, version, actor_id, status, problem, scope_found, test_run, aborted)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (decision_id) DO NOTHING`;

/** A queued row: a decision event's, or a request outcome's (which has no `event`). */
type QueuedRow = DecisionRow | OutcomeRow;

const isOutcome = (row: QueuedRow): row is OutcomeRow => !("event" in row);

/**
 * SQLite's errors for what a row holds (an event JSON nested past SQLite's
 * depth limit fails `CHECK (json_valid(event))`, a text past the length
 * limit is too big): the same row fails every retry. Anything else (a full
 * disk, the store's size limit, a lock, I/O) is the store's state, and the
 * batch is retried whole.
 */
const ROW_ERRORS = new Set(["SQLITE_CONSTRAINT_CHECK", "SQLITE_CONSTRAINT_NOTNULL", "SQLITE_CONSTRAINT_DATATYPE", "SQLITE_TOOBIG", "SQLITE_MISMATCH"]);

function isRowError(err: unknown): boolean {
  return typeof err === "object" && err !== null && ROW_ERRORS.has((err as { code?: unknown }).code as string);
}

/** The row's values at values[at..at + COLUMNS), in insertSql's column order. */
function bindRow(values: unknown[], at: number, r: DecisionRow): unknown[] {
  values[at] = r.decision_id;
  values[at + 1] = r.timestamp;
  values[at + 2] = r.path;
  values[at + 3] = r.actor_id;
  values[at + 4] = r.allowed;
  values[at + 5] = r.status;
  values[at + 6] = r.reason;
  values[at + 7] = r.revision;
  values[at + 8] = r.event;
  return values;
}

export class SqliteSink implements StoreSink {
  readonly name = "sqlite";
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  /** ROWS_PER_STATEMENT rows in one INSERT. */
  private readonly insertMany: Database.Statement;
  private readonly insertOutcome: Database.Statement;
  /** Rows, extracted at write time (the event may share objects with the PDP). */
  private readonly queue: BoundedBuffer<QueuedRow>;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  /** One transaction per batch (built once); returns the rows inserted. */
  private readonly writeBatch: (rows: QueuedRow[]) => number;
  /** When the queue is written next (the batch timer, or at once for a full batch). */
  private readonly writes = new WriteSchedule(() => this.writeQueued());
  private written = 0;
  private failures = 0;
  /** Events whose decision_id was already in the log (kept once, the first one wins). */
  private duplicates = 0;
  private closed = false;
  /** Since when writes fail, reported once per failing period. */
  private readonly failing: StoreFailure;
  private readonly onError: ErrorReporter;

  constructor(options: SqliteSinkOptions) {
    // The options were checked by createDecisionLog (index.ts checkOptions), before any thread started.
    this.db = openForAppend(options.file, { maxBytes: options.maxBytes });
    this.onError = options.onError;
    this.failing = new StoreFailure({ failed: "sqlite_write_failed", recovered: "sqlite_write_recovered" }, options.onError);
    this.insert = this.db.prepare(insertSql(1));
    this.insertMany = this.db.prepare(insertSql(ROWS_PER_STATEMENT));
    this.queue = new BoundedBuffer(options.bufferLimit ?? SQLITE_SINK_DEFAULTS.bufferLimit);
    this.intervalMs = options.flushIntervalMs ?? SQLITE_SINK_DEFAULTS.flushIntervalMs;
    this.batchSize = options.batchSize ?? SQLITE_SINK_DEFAULTS.batchSize;
    const values: unknown[] = new Array(ROWS_PER_STATEMENT * COLUMNS);
    this.insertOutcome = this.db.prepare(insertOutcomeSql);
    this.writeBatch = this.db.transaction((queued: QueuedRow[]) => {
      let n = 0;
      let rows = queued as DecisionRow[];
      if (queued.some(isOutcome)) {
        rows = [];
        for (const row of queued) {
          if (!isOutcome(row)) rows.push(row);
          else {
            const r = row;
            n += this.insertOutcome.run(
              r.decision_id,
              r.timestamp,
              r.method,
              r.http_path,
              r.route_id,
              r.version,
              r.actor_id,
              r.status,
              r.problem,
              r.scope_found,
              r.test_run,
              r.aborted,
            ).changes;
          }
        }
      }
      let i = 0;
      for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
        for (let k = 0; k < ROWS_PER_STATEMENT; k++) bindRow(values, k * COLUMNS, rows[i + k]);
        n += this.insertMany.run(values).changes;
      }
      const one: unknown[] = new Array(COLUMNS);
      for (; i < rows.length; i++) n += this.insert.run(bindRow(one, 0, rows[i])).changes;
      return n;
    });
  }

  write(event: LogEvent, json?: string): void {
    if (this.closed) {
      this.queue.countDropped();
      return;
    }
    this.queue.push(rowOf(event, json));
    this.writes.schedule(this.queue.size >= this.batchSize ? 0 : this.intervalMs);
  }

  writeOutcome(row: OutcomeRow): void {
    if (this.closed) {
      this.queue.countDropped();
      return;
    }
    this.queue.push(row);
    this.writes.schedule(this.queue.size >= this.batchSize ? 0 : this.intervalMs);
  }

  async flush(): Promise<void> {
    this.commitNow();
  }

  /**
   * Writes everything queued now; true when the queue is empty after (all
   * of it is in the store, durable against the process dying: store/sqlite-store.ts).
   */
  commitNow(): boolean {
    this.writes.cancel();
    this.writeQueued();
    return this.queue.size === 0;
  }

  /** Whether the last write failed: since when and why (SQLite's message, never an event's contents). */
  failure(): { since: number; message: string } | undefined {
    return this.failing.current;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.queue.discardAll();
    this.db.close();
  }

  stats(): SinkStats & { duplicates: number } {
    return { written: this.written, pending: this.queue.size, dropped: this.queue.dropped, failures: this.failures, duplicates: this.duplicates };
  }

  /** Writes the queue out batch by batch; stops at the first failing batch (it is retried later). */
  private writeQueued(): void {
    while (this.queue.size > 0) {
      const batch = this.queue.take(this.batchSize);
      try {
        const { inserted, refused } = this.writeRows(batch);
        this.written += inserted;
        this.duplicates += batch.length - inserted - refused.length;
        // Counted once the batch is committed: a batch that fails after all is retried whole.
        for (const { row, err } of refused) {
          this.queue.countDropped();
          this.onError(new DecisionLogError("sqlite_row_refused", `decision ${row.decision_id} refused by the store and dropped: ${messageOf(err)}`));
        }
        this.failing.succeeded(this.queue.dropped);
      } catch (err) {
        this.failures++;
        this.queue.requeue(batch);
        this.failing.failed(err, this.queue.dropped, this.queue.size, this.queue.limit);
        if (!this.closed) this.writes.schedule(this.intervalMs);
        return;
      }
    }
  }

  /**
   * The batch in one transaction. When SQLite refuses a row for what it
   * holds (isRowError), the batch is written again with that row isolated by
   * halves, each half a savepoint of one transaction (better-sqlite3 nests
   * transaction functions so), and left out: it would fail every retry and
   * hold back every later event.
   */
  private writeRows(batch: QueuedRow[]): { inserted: number; refused: Array<{ row: QueuedRow; err: unknown }> } {
    try {
      return { inserted: this.writeBatch(batch), refused: [] };
    } catch (err) {
      if (!isRowError(err)) throw err;
      return this.writeIsolating(batch);
    }
  }

  private writeIsolating(batch: QueuedRow[]): { inserted: number; refused: Array<{ row: QueuedRow; err: unknown }> } {
    const refused: Array<{ row: QueuedRow; err: unknown }> = [];
    const isolate = (rows: QueuedRow[]): number => {
      try {
        return this.writeBatch(rows);
      } catch (err) {
        if (!isRowError(err)) throw err;
        if (rows.length === 1) {
          refused.push({ row: rows[0], err });
          return 0;
        }
        const half = rows.length >> 1;
        return isolate(rows.slice(0, half)) + isolate(rows.slice(half));
      }
    };
    const inserted = this.db.transaction(isolate)(batch);
    return { inserted, refused };
  }
}
