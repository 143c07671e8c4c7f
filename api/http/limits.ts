/**
 * The HTTP server's limits: how long a client may take to send a request,
 * how long an idle connection is kept, how many connections are served at
 * once, and how a shutdown drains. Values suited to a JSON API whose
 * requests are a few KiB (bodies are capped at 16 KiB) sent by programs,
 * not humans on slow links: a client trickling its headers (slowloris) or
 * holding a connection open without a request is cut off in seconds.
 *
 * They are settings of the configuration (config/settings.ts `http.*`, with
 * PORTCULLIS_* variables; config/README.md); these are the defaults.
 */
export interface HttpLimits {
  /** Request line and headers complete, also a new connection's first request (node answers 408 past it). */
  headersTimeoutMs: number;
  /** The whole request, body included (408 past it). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection between requests. */
  keepAliveTimeoutMs: number;
  /** No byte either way on a connection (a stalled response, a stalled client). */
  idleTimeoutMs: number;
  /** Connections served at once; more are closed on arrival (and counted in the log). */
  maxConnections: number;
  /** Header fields per request node keeps; the app refuses a request reaching it (431), since node drops the rest. */
  maxHeadersCount: number;
  /** Requests per keep-alive connection, then `Connection: close`. */
  maxRequestsPerSocket: number;
  /** Largest request head (request line and headers); larger is 431. */
  maxHeaderBytes: number;
  /** At shutdown, how long idle keep-alive connections may still send a last request before they are closed. */
  drainIdleGraceMs: number;
  /** At shutdown, when connections still open are cut. */
  shutdownGraceMs: number;
  /** How often node checks the header and request timeouts of open connections (default 1000). */
  checkIntervalMs?: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<Required<HttpLimits>> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  maxConnections: 1_000,
  maxHeadersCount: 100,
  maxRequestsPerSocket: 1_000,
  maxHeaderBytes: 16 * 1024,
  drainIdleGraceMs: 1_000,
  shutdownGraceMs: 10_000,
  checkIntervalMs: 1_000,
});
