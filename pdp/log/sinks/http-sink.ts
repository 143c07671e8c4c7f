/**
 * Ships events to a remote receiver in OPA's decision-log upload format:
 * POST <url><resource> (default /logs), Content-Type application/json,
 * Content-Encoding gzip, body a gzip JSON array of events, each body within
 * upload_size_limit_bytes. A 2xx reply acknowledges the chunk; any other
 * reply or a network failure puts it back in front of the queue and the next
 * attempt waits an exponential, jittered, bounded backoff.
 *
 * Events wait in a bounded buffer (oldest dropped first when full) and every
 * event is accounted for: written, pending or dropped. Uploads run one at a
 * time, so the receiver sees chunks in order.
 */
import * as http from "node:http";
import * as https from "node:https";
import { BoundedBuffer } from "./buffer";
import { ChunkEncoder } from "./chunk";
import { DecisionLogError, messageOf } from "../core/errors";
import type { LogEvent } from "../core/mask";
import type { SinkStats } from "../core/types";
import type { ErrorReporter, Sink } from "./sink";

export interface HttpSinkOptions {
  /** Service base URL, e.g. https://logs.example.com. */
  url: string;
  /** Path appended to url (OPA's `resource`), default /logs. */
  resource?: string;
  /** Extra request headers (e.g. Authorization); never logged. */
  headers?: Record<string, string>;
  /** OPA's upload_size_limit_bytes: largest compressed body (default 32768). */
  uploadSizeLimitBytes?: number;
  /** OPA's buffer_size_limit_events (default 10000). */
  bufferSizeLimitEvents?: number;
  /** `periodic` (OPA's default: upload after a random delay in [minDelayMs, maxDelayMs]) or `immediate`. */
  trigger?: "periodic" | "immediate";
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Backoff after failures: min * 2^(failures-1), capped at max, then jittered to 50-100 %. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Failed attempts flush() makes before it gives up (events stay pending). Default 5. */
  flushMaxAttempts?: number;
  /** Per-request timeout (default 10000 ms). */
  timeoutMs?: number;
  onError: ErrorReporter;
}

export class HttpSink implements Sink {
  readonly name = "http";
  private readonly queue: BoundedBuffer<string>;
  private readonly encoder: ChunkEncoder;
  private readonly endpoint: URL;
  private timer: NodeJS.Timeout | undefined;
  /** Serializes uploads: the timer and flush() both go through it. */
  private lock: Promise<unknown> = Promise.resolve();
  private consecutiveFailures = 0;
  private written = 0;
  private failures = 0;
  private closed = false;

  constructor(private readonly options: HttpSinkOptions) {
    this.endpoint = new URL(joinResource(options.url, options.resource ?? "/logs"));
    this.queue = new BoundedBuffer(options.bufferSizeLimitEvents ?? 10_000);
    this.encoder = new ChunkEncoder(options.uploadSizeLimitBytes ?? 32_768);
  }

  write(event: LogEvent, json?: string): void {
    if (this.closed) {
      this.queue.countDropped();
      return;
    }
    this.queue.push(json ?? JSON.stringify(event));
    if (!this.timer) this.schedule(this.options.trigger === "immediate" ? 0 : this.periodicDelay());
  }

  /** Uploads until the queue is empty, retrying with backoff up to flushMaxAttempts failures. */
  async flush(): Promise<void> {
    this.cancelTimer();
    let failed = 0;
    while (this.queue.size > 0) {
      if (await this.exclusive(() => this.uploadOne())) continue;
      if (++failed >= (this.options.flushMaxAttempts ?? 5)) break;
      await sleep(this.backoffDelay());
    }
    if (this.queue.size > 0 && !this.closed) this.schedule(this.backoffDelay());
  }

  /** Flushes, then counts whatever could not be delivered as dropped (and reports it). */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.cancelTimer();
    const lost = this.queue.discardAll();
    if (lost > 0) this.options.onError(new DecisionLogError("http_upload_failed", `${lost} events undelivered at close (counted as dropped)`));
  }

  stats(): SinkStats {
    return { written: this.written, pending: this.queue.size, dropped: this.queue.dropped, failures: this.failures };
  }

  /** Background uploads: drain the queue, or back off after a failure. */
  private async drain(): Promise<void> {
    while (this.queue.size > 0 && !this.closed) {
      if (!(await this.exclusive(() => this.uploadOne()))) {
        this.schedule(this.backoffDelay());
        return;
      }
    }
  }

  /** Sends the next chunk; true when it was acknowledged (or there was nothing sendable). */
  private async uploadOne(): Promise<boolean> {
    if (this.queue.size === 0) return true;
    const next = this.encoder.next(this.queue.peek(this.queue.size));
    if (next.kind === "oversize") {
      this.queue.take(1);
      if (next.replacement !== undefined) {
        this.queue.requeue([next.replacement]);
      } else {
        this.queue.countDropped();
        this.options.onError(
          new DecisionLogError("event_too_large", `an event exceeds the upload limit of ${this.encoder.limitBytes} bytes (counted as dropped)`),
        );
      }
      return true;
    }
    const batch = this.queue.take(next.count);
    try {
      const status = await this.post(next.body);
      if (status < 200 || status > 299) throw new Error(`receiver answered ${status}`);
      this.written += batch.length;
      this.consecutiveFailures = 0;
      return true;
    } catch (err) {
      this.failures++;
      this.consecutiveFailures++;
      this.queue.requeue(batch);
      this.options.onError(new DecisionLogError("http_upload_failed", `${this.where()}: ${messageOf(err)}; ${batch.length} events requeued`));
      return false;
    }
  }

  private post(body: Buffer): Promise<number> {
    const transport = this.endpoint.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(
        this.endpoint,
        {
          method: "POST",
          timeout: this.options.timeoutMs ?? 10_000,
          headers: {
            ...this.options.headers,
            "Content-Type": "application/json",
            "Content-Encoding": "gzip",
            "Content-Length": String(body.length),
          },
        },
        (res) => {
          res.resume(); // the reply body is not used; drain it so the socket is released
          res.on("end", () => resolve(res.statusCode ?? 0));
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error("request timed out")));
      req.on("error", reject);
      req.end(body);
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work, work);
    this.lock = run.catch(() => undefined);
    return run;
  }

  private schedule(delayMs: number): void {
    this.cancelTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, delayMs);
    // A pending upload must not keep a finished process alive; shutdown calls close().
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private periodicDelay(): number {
    const min = this.options.minDelayMs ?? 300_000;
    const max = Math.max(min, this.options.maxDelayMs ?? 600_000);
    return min + Math.random() * (max - min);
  }

  private backoffDelay(): number {
    const min = this.options.minBackoffMs ?? 100;
    const max = Math.max(min, this.options.maxBackoffMs ?? 60_000);
    const exponent = Math.min(Math.max(this.consecutiveFailures - 1, 0), 30);
    const delay = Math.min(max, min * 2 ** exponent);
    return delay * (0.5 + Math.random() * 0.5);
  }

  /** The endpoint for messages, without credentials or query (they may carry secrets). */
  private where(): string {
    return `${this.endpoint.protocol}//${this.endpoint.host}${this.endpoint.pathname}`;
  }
}

/** The upload endpoint's text: the service URL without trailing slashes, then the resource (both checked by createDecisionLog). */
export function joinResource(url: string, resource: string): string {
  return url.replace(/\/+$/, "") + resource;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
