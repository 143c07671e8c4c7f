/**
 * Where bundles come from: a file (file-source.ts) or an HTTP bundle server
 * (http-source.ts). A source fetches bytes and hands them to its sink; the
 * PDP validates and activates them. A source never throws out of its
 * timers or watchers: every problem goes to `sink.failed`.
 */
import type { PdpError } from "../errors";

export interface BundleSink {
  /** New bundle bytes; resolves once the PDP has activated or refused them. */
  deliver(bytes: Uint8Array): Promise<void>;
  /** The source could not be read (code `bundle_unavailable`). */
  failed(error: PdpError): void;
  /** The source was read and still holds the bundle last delivered (HTTP 304): it is reachable again. */
  unchanged(): void;
}

export interface BundleSource {
  /** For status and logs: a path, or a URL without credentials or query. */
  readonly description: string;
  /** Starts watching / polling. */
  start(sink: BundleSink): void;
  /** Checks for a new bundle now; resolves when it has been delivered (or found unchanged). Never rejects. */
  check(): Promise<void>;
  /** Stops timers and watchers and aborts a fetch in flight. */
  stop(): void;
}
