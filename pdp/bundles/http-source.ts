/**
 * A bundle served over HTTP, polled with OPA's bundle protocol.
 *
 *   new HttpBundleSource({ url: "https://bundles.internal/portcullis.tar.gz",
 *     minDelayMs: 60_000, maxDelayMs: 120_000, headers: { authorization: "Bearer ..." } })
 *
 * Each poll is `GET url` with `If-None-Match: <last ETag>`: 200 delivers a
 * new bundle, 304 means unchanged, anything else (or a timeout, a reset, an
 * oversized body) is a `bundle_unavailable` failure and the active bundle
 * stays. The next poll waits a random delay between minDelayMs and
 * maxDelayMs (OPA's min/max_delay_seconds), so a fleet does not poll in
 * step. The ETag is remembered once its bundle has been activated or
 * refused: a refused bundle is not downloaded again until the server
 * changes it.
 *
 * Headers are sent, never logged; the description drops credentials and query.
 */
import { messageOf, PdpError } from "../errors";
import type { BundleSink, BundleSource } from "./source";

export interface HttpSourceOptions {
  url: string;
  /** Poll delay bounds (defaults 60 s and 120 s, OPA's). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Per request, headers and body included (default 10 s). */
  timeoutMs?: number;
  /** e.g. authorization for the bundle server. */
  headers?: Record<string, string>;
  /** Refuse larger bodies (default 64 MiB). */
  maxBytes?: number;
}

export class HttpBundleSource implements BundleSource {
  readonly description: string;
  private sink: BundleSink | null = null;
  private etag: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private readonly stopping = new AbortController();

  constructor(private readonly options: HttpSourceOptions) {
    this.description = describeUrl(options.url);
  }

  start(sink: BundleSink): void {
    this.sink = sink;
    this.scheduleNext();
  }

  /** One poll now; a poll already in flight is shared rather than doubled. */
  check(): Promise<void> {
    this.inFlight ??= this.poll().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  stop(): void {
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private scheduleNext(): void {
    if (this.stopping.signal.aborted) return;
    const min = this.options.minDelayMs ?? 60_000;
    const max = Math.max(min, this.options.maxDelayMs ?? 120_000);
    this.timer = setTimeout(
      () => {
        void this.check().finally(() => this.scheduleNext());
      },
      min + Math.random() * (max - min),
    );
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const sink = this.sink;
    if (!sink || this.stopping.signal.aborted) return;
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(timeoutMs)]);
    try {
      const headers: Record<string, string> = { accept: "application/gzip, application/octet-stream", ...this.options.headers };
      if (this.etag !== null) headers["if-none-match"] = this.etag;
      const res = await fetch(this.options.url, { headers, signal, redirect: "follow" });
      if (res.status === 304) {
        await res.body?.cancel();
        sink.unchanged();
        return;
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new Error(`HTTP ${res.status}`);
      }
      const bytes = await this.readBody(res);
      const etag = res.headers.get("etag");
      await sink.deliver(bytes);
      this.etag = etag;
    } catch (err) {
      if (this.stopping.signal.aborted) return; // closing: not a failure
      const why = signal.aborted ? `timed out after ${timeoutMs} ms` : messageOf(err);
      sink.failed(new PdpError("bundle_unavailable", `GET ${this.description}: ${why}`));
    }
  }

  private async readBody(res: Response): Promise<Uint8Array> {
    const limit = this.options.maxBytes ?? 64 * 1024 * 1024;
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > limit) {
      await res.body?.cancel();
      throw new Error(`bundle of ${declared} bytes exceeds the ${limit}-byte limit`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength > limit) throw new Error(`bundle of ${bytes.byteLength} bytes exceeds the ${limit}-byte limit`);
    return bytes;
  }
}

/** `https://user:pw@host/b.tar.gz?token=x` -> `https://host/b.tar.gz`: safe for status and logs. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "<invalid bundle URL>";
  }
}
