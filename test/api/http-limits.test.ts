/**
 * The HTTP server's limits (api/http/limits.ts, server.ts), with small
 * configured values so each case ends quickly: a slowloris client trickling
 * header lines, a connection that never sends a request, a body that never
 * completes, and an idle keep-alive connection are all closed by the server
 * (408 problem+json where a request had begun); connections beyond
 * maxConnections are closed on arrival. No assertion is on time: each test
 * waits for the server to close the socket.
 */
import type { AddressInfo } from "node:net";
import * as net from "node:net";
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from "../../api/http/limits";
import { ConfigError, loadConfig } from "../../config";
import { createHttpServer, type HttpService } from "../../api/http/server";
import { startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const SMALL: HttpLimits = {
  ...DEFAULT_HTTP_LIMITS,
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 200,
  idleTimeoutMs: 2000,
  maxConnections: 3,
  checkIntervalMs: 50,
};

async function listen(limits: HttpLimits): Promise<{ service: HttpService; port: number }> {
  const service = createHttpServer(h.app, { limits, logger: h.deps.logger });
  await new Promise<void>((resolve) => service.server.listen(0, "127.0.0.1", resolve));
  return { service, port: (service.server.address() as AddressInfo).port };
}

/** A socket and everything it received until the server closed it. */
function open(port: number): { socket: net.Socket; closed: Promise<string> } {
  const socket = net.connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (c) => chunks.push(c));
  socket.on("error", () => undefined); // a reset is a close too
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1"))));
  return { socket, closed };
}

function expectTimeoutProblem(received: string): void {
  expect(received).toMatch(/^HTTP\/1\.1 408 /);
  expect(received).toMatch(/\r\nContent-Type: application\/problem\+json/i);
  expect(received).toMatch(/\r\nDecision-Id: [0-9a-f-]{36}\r\n/i);
  expect(received).toMatch(/"type":"urn:portcullis:problem:request_timeout"/);
}

describe("with small limits", () => {
  let service: HttpService;
  let port: number;
  beforeEach(async () => ({ service, port } = await listen(SMALL)));
  afterEach(async () => service.drain());

  test("slowloris: header lines trickled forever, the connection is closed with 408", async () => {
    const { socket, closed } = open(port);
    socket.write("GET /health HTTP/1.1\r\nHost: x\r\n");
    let i = 0;
    const trickle = setInterval(() => socket.writable && socket.write(`X-Slow-${i++}: a\r\n`), 50);
    const received = await closed;
    clearInterval(trickle);
    expectTimeoutProblem(received);
    expect(h.logs.some((l) => l.event === "http.request" && l.problem === "request_timeout")).toBe(true);
  });

  test("a connection that never sends a request is closed", async () => {
    const { closed } = open(port);
    await closed; // resolves only because the server closed it
  });

  test("a body that never completes is closed with 408", async () => {
    const { socket, closed } = open(port);
    socket.write("PATCH /profile HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
    const trickle = setInterval(() => socket.writable && socket.write(" "), 50);
    const received = await closed;
    clearInterval(trickle);
    expectTimeoutProblem(received);
  });

  test("an idle keep-alive connection is closed after its answer", async () => {
    const { socket, closed } = open(port);
    socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    const received = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/\r\nKeep-Alive: timeout=0\r\n|\r\nConnection: keep-alive\r\n/i);
  });

  test("connections beyond maxConnections are closed on arrival; the others are served", async () => {
    const held = [open(port), open(port), open(port)];
    await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once("connect", resolve))));
    // Let the server accept the three before the fourth arrives.
    await new Promise((resolve) => setImmediate(resolve));
    const extra = open(port);
    expect(await extra.closed).toBe(""); // closed without a byte
    held[0].socket.write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(await held[0].closed).toMatch(/^HTTP\/1\.1 200 /);
    for (const { socket } of held) socket.destroy();
  });
});

test("the service's defaults are API-sized, and the settings are checked", () => {
  const { http } = loadConfig({ env: {} });
  expect(http).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 1_000, maxHeadersCount: 100 });
  expect(loadConfig({ env: { PORTCULLIS_HEADERS_TIMEOUT_MS: "2000", PORTCULLIS_MAX_CONNECTIONS: "50" } }).http).toMatchObject({
    headersTimeoutMs: 2000,
    maxConnections: 50,
  });
  for (const bad of ["0", "-1", "1.5", "ten", "1e3x"]) expect(() => loadConfig({ env: { PORTCULLIS_MAX_CONNECTIONS: bad } })).toThrow(ConfigError);
  expect(() => loadConfig({ env: { PORTCULLIS_HEADERS_TIMEOUT_MS: "60000" } })).toThrow(/request timeout/);
});
