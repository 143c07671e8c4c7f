/**
 * A lean HTTP/1.1 load generator for the API bench: `connections`
 * keep-alive TCP connections, each with exactly one request in flight (no
 * pipelining, like a browser or an API client), the request bytes built
 * once, each response parsed only as far as finding its status and its end
 * (Content-Length or chunked).
 *
 *   const r = await runLoad({ port, path: "/invoices/inv_alice_1", headers, seconds: 2, connections: 16 });
 *
 * Why not node:http's client: it spent more CPU per request than the bare
 * server it was measuring (~200 µs), and on a 2-CPU machine the load
 * generator shares the cores with the server under test; its cost then
 * decides the figures, not the server's. This one costs a few µs per request,
 * which the bench reports next to the servers' own CPU.
 */
import * as net from "node:net";

export interface LoadOptions {
  /** One server, or several: connection i goes to ports[i % ports.length] (instances behind a round-robin balancer). */
  port: number | number[];
  path: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
}

export interface LoadResult {
  /** Requests answered 200. */
  requests: number;
  /** Other statuses, malformed answers and socket errors. */
  errors: number;
  rps: number;
  /** Latency of the 200 answers, in ms. */
  p50: number;
  p99: number;
  /** This process's CPU (user + system) per answered request, in µs. */
  clientCpuUs: number;
}

const HEADER_END = Buffer.from("\r\n\r\n");

/** One parsed answer at the start of `buf`: its status and total length, or null when more bytes are needed. */
export function parseResponse(buf: Buffer): { status: number; length: number } | null {
  const headerEnd = buf.indexOf(HEADER_END);
  if (headerEnd < 0) return null;
  const head = buf.toString("latin1", 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headerEnd + 4;
  const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (contentLength) {
    const length = bodyStart + Number(contentLength[1]);
    return buf.length >= length ? { status, length } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf("\r\n", at);
      if (lineEnd < 0) return null;
      const size = parseInt(buf.toString("latin1", at, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error("malformed chunk size");
      const next = lineEnd + 2 + size + 2;
      if (buf.length < next) return null;
      if (size === 0) return { status, length: next }; // no trailers from our servers
      at = next;
    }
  }
  if (status === 204 || status === 304) return { status, length: bodyStart };
  throw new Error(`answer without Content-Length or chunked body (status ${status})`);
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const ports = Array.isArray(options.port) ? options.port : [options.port];
  const requests = ports.map((port) => {
    const lines = [`GET ${options.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Connection: keep-alive"];
    for (const [name, value] of Object.entries(options.headers)) lines.push(`${name}: ${value}`);
    return Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1");
  });
  const latencies: number[] = [];
  let errors = 0;
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(options.seconds * 1e9));

  const connection = (_: unknown, i: number) =>
    new Promise<void>((resolve) => {
      const request = requests[i % ports.length];
      const socket = net.connect(ports[i % ports.length], "127.0.0.1");
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      let sentAt = 0n;
      const send = () => {
        sentAt = process.hrtime.bigint();
        if (sentAt >= deadline) return void socket.end();
        socket.write(request);
      };
      socket.on("connect", send);
      socket.on("data", (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        let answer;
        try {
          answer = parseResponse(pending);
        } catch {
          errors++;
          return void socket.destroy();
        }
        if (!answer) return;
        if (answer.status === 200) latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
        else errors++;
        pending = pending.subarray(answer.length);
        send();
      });
      socket.on("error", () => {
        errors++;
      });
      socket.on("close", () => resolve());
    });

  return Promise.all(Array.from({ length: options.connections }, connection)).then(() => {
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
    return {
      requests: latencies.length,
      errors,
      rps: latencies.length / elapsed,
      p50: q(0.5),
      p99: q(0.99),
      clientCpuUs: (cpu.user + cpu.system) / Math.max(1, latencies.length),
    };
  });
}
