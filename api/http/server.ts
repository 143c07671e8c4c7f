/**
 * The HTTP server around the app: its limits (limits.ts), an answer for the
 * requests node refuses before the app sees them, and a shutdown that loses
 * no request a client already sent.
 *
 *   const service = createHttpServer(app, { limits, logger });
 *   service.server.listen(8080);
 *   await service.drain();        // SIGTERM: stop accepting, finish, close
 *
 * Requests node's parser refuses (bad request line, invalid header bytes,
 * header fields over 16 KiB, a header or request timeout) never reach
 * Express. They are answered here like any other refusal: problem+json
 * (`malformed_request` 400, `headers_too_large` 431, `request_timeout`
 * 408) with a Decision-Id, `Connection: close`, and a log line, instead of
 * node's bare status line.
 */
import * as http from "node:http";
import * as net from "node:net";
import type { Express } from "express";
import { newDecisionId } from "../../pdp/decision-id";
import type { ApiLogger } from "../deps";
import { expressMessages } from "./express-messages";
import { PROBLEM_TYPE_PREFIX, PROBLEMS, type ProblemCode } from "../problems";
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from "./limits";

export interface HttpService {
  server: http.Server;
  /**
   * Graceful shutdown: stop accepting; answer every request in flight or
   * still arriving on an open connection with `Connection: close`; give
   * idle keep-alive connections `drainIdleGraceMs` to send a last request, then
   * close them; cut what is left at `shutdownGraceMs`. Resolves once every
   * connection is closed.
   */
  drain(): Promise<void>;
}

export function createHttpServer(app: Express, options: { limits: HttpLimits; logger: ApiLogger }): HttpService {
  const limits = options.limits;
  const server = http.createServer(
    {
      // Requests and responses born on Express's prototypes: Express then has none to change (express-messages.ts).
      ...expressMessages(app),
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: limits.checkIntervalMs ?? DEFAULT_HTTP_LIMITS.checkIntervalMs,
    },
    app,
  );
  server.timeout = limits.idleTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.maxHeadersCount = limits.maxHeadersCount;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;

  // Responses not yet finished, so a shutdown can tell each of them to close its connection.
  const inFlight = new Set<http.ServerResponse>();
  const forget = function (this: http.ServerResponse): void {
    inFlight.delete(this);
  };
  let draining = false;
  server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
    // Arrived during the drain (already on the wire, or on a connection still open): served, then closed.
    if (draining) res.setHeader("Connection", "close");
    inFlight.add(res);
    res.once("close", forget);
  });

  server.on("clientError", (err: NodeJS.ErrnoException, socket: net.Socket) => answerClientError(err, socket, options.logger));

  let dropped = 0;
  let lastDropLog = 0;
  server.on("drop", () => {
    // Over maxConnections: node closed the connection on arrival. Logged at most every 10 s, with the count.
    dropped++;
    const now = Date.now();
    if (now - lastDropLog >= 10_000) {
      lastDropLog = now;
      options.logger({ level: "warn", event: "http.connections_dropped", max_connections: limits.maxConnections, dropped_total: dropped });
    }
  });

  let drained: Promise<void> | undefined;
  const drain = (): Promise<void> => {
    drained ??= new Promise<void>((resolve) => {
      draining = true;
      // net.Server's close, not http.Server's: node's (>= 19) also closes idle keep-alive connections at
      // once, resetting any request a client had already sent on one. Connections are closed below instead.
      let sweep: NodeJS.Timeout | undefined;
      net.Server.prototype.close.call(server, () => {
        clearTimeout(grace);
        clearTimeout(deadline);
        clearInterval(sweep);
        // Lets http.Server stop its timeout checks; the listener is already closed.
        server.close(() => resolve());
      });
      for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
      // Busy clients send their next request within the grace and get `Connection: close` with its answer.
      const grace = setTimeout(
        () => {
          server.closeIdleConnections();
          // Answers whose headers had gone out before the drain could not say `Connection: close`: their
          // connections are closed as soon as they are idle.
          sweep = setInterval(() => server.closeIdleConnections(), 100);
        },
        Math.min(limits.drainIdleGraceMs, limits.shutdownGraceMs),
      );
      const deadline = setTimeout(() => server.closeAllConnections(), limits.shutdownGraceMs);
    });
    return drained;
  };

  return { server, drain };
}

/** Parser errors node hands to `clientError`, by the problem they are. */
function problemForClientError(err: NodeJS.ErrnoException): ProblemCode {
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") return "request_timeout";
  if (err.code === "HPE_HEADER_OVERFLOW") return "headers_too_large";
  return "malformed_request";
}

function answerClientError(err: NodeJS.ErrnoException, socket: net.Socket, logger: ApiLogger): void {
  // A reset or a half-written answer (node's own check: the socket's current response has sent headers) cannot be answered.
  const current = (socket as net.Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === "ECONNRESET" || !socket.writable || current?.headersSent) {
    socket.destroy();
    return;
  }
  const code = problemForClientError(err);
  const spec = PROBLEMS[code];
  const decisionId = newDecisionId();
  const body = JSON.stringify({ type: PROBLEM_TYPE_PREFIX + code, title: spec.title, status: spec.status, detail: spec.detail, decision_id: decisionId });
  socket.end(
    `HTTP/1.1 ${spec.status} ${spec.title}\r\n` +
      "Content-Type: application/problem+json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Decision-Id: ${decisionId}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
  // Like the log step's line for a refusal; nothing of the request is known beyond its sender.
  logger({
    level: "info",
    event: "http.request",
    method: null,
    path: null,
    route_id: null,
    status: spec.status,
    problem: code,
    decision_id: decisionId,
    client: `${socket.remoteAddress ?? "unknown"}:${socket.remotePort ?? 0}`,
    parser_error: err.code ?? null,
  });
}
