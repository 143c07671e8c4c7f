/**
 * Hostile bytes, fuzz-style: malformed paths (bad percent-encoding, invalid
 * UTF-8, NUL, overlong ids), malformed query strings, headers node lets
 * through and headers its parser refuses, broken bodies, sent raw over a
 * socket to the real server (api/http/server.ts around the app), with and
 * without a token. Every answer must be a 4xx application/problem+json with
 * a Decision-Id matching its body, no stack trace and no HTML, and be on
 * the record: a log line with that decision id.
 */
import type { AddressInfo } from "node:net";
import * as net from "node:net";
import { DEFAULT_HTTP_LIMITS } from "../../api/http/limits";
import { createHttpServer, type HttpService } from "../../api/http/server";
import { startHarness, type Harness } from "./harness";

let h: Harness;
let service: HttpService;
let port: number;
let alice: string;
beforeAll(async () => {
  h = await startHarness({
    rateLimits: { default: { limit: 100_000, windowSec: 60 }, sensitive: { limit: 100_000, windowSec: 60 }, diagnostic: { limit: 100_000, windowSec: 60 } },
  });
  // Short request timeouts, so a body that never comes is cut (408) within the test.
  const limits = { ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 1000, requestTimeoutMs: 1500, checkIntervalMs: 100 };
  service = createHttpServer(h.app, { limits, logger: h.deps.logger });
  await new Promise<void>((resolve) => service.server.listen(0, "127.0.0.1", resolve));
  port = (service.server.address() as AddressInfo).port;
  alice = `Bearer ${await h.token("u_alice")}`;
});
afterAll(async () => {
  await service.drain();
  await h?.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

/** Sends exact bytes (keeping its side open: node drops a request whose client half-closed), reads until the server closes. */
function send(bytes: Buffer | string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("latin1");
      const end = raw.indexOf("\r\n\r\n");
      const head = raw.slice(0, end < 0 ? raw.length : end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(head[0]?.split(" ")[1]), headers, body: end < 0 ? "" : raw.slice(end + 4), raw });
    });
    socket.write(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes);
  });
}

function request(method: string, target: string, headers: string[] = [], body?: Buffer | string): Buffer {
  const b = body === undefined ? Buffer.alloc(0) : typeof body === "string" ? Buffer.from(body, "latin1") : body;
  const lines = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close", ...headers];
  if (body !== undefined && !headers.some((l) => /^(content-length|transfer-encoding):/i.test(l))) lines.push(`Content-Length: ${b.length}`);
  return Buffer.concat([Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1"), b]);
}

function expectRefusedCleanly(res: RawResponse): void {
  const what = `${res.raw.slice(0, 300)}`;
  expect({ what, status: res.status >= 400 && res.status < 500 }).toEqual({ what, status: true });
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.raw).not.toMatch(/<html|<!doctype|<pre>|\n\s+at \S|Error: |request state missing/i);
  const decisionId = res.headers["decision-id"];
  expect(decisionId).toMatch(/^[0-9a-f-]{36}$/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body.decision_id).toBe(decisionId);
  expect(body.type).toMatch(/^urn:portcullis:problem:[a-z_]+$/);
  expect(body.status).toBe(res.status);
  // On the record like any other refusal.
  expect(h.logs.filter((l) => l.event === "http.request" && l.decision_id === decisionId)).toHaveLength(1);
}

const PATHS = [
  "/invoices/%ff",
  "/invoices/%",
  "/invoices/%zz",
  "/invoices/%c0%af",
  "/invoices/%ed%a0%80",
  "/invoices/%f8%88%80%80%80",
  "/invoices/%ff/approve",
  "/invoices/%00",
  "/invoices/a%00b",
  "/invoices/%2e%2e%2fetc",
  "/invoices/..%2f..%2fhealth",
  "/invoices/" + "x".repeat(8192),
  "/invoices/" + "%41".repeat(3000),
  "/invoices/inv alice",
  "/invoices/inv%20alice%0d%0aX-Injected:%201",
  "/invoices/%3Cscript%3E",
  "/api/%ff/health",
  "/api/%/users/me",
  "/api/v2/%ff",
  "/api/admin/export/%e0%80",
  "/api/admin/export/" + "j".repeat(5000),
  "/admin/users/%ff/suspend",
  "/admin/users/" + "u".repeat(300) + "/disable",
  "/%ff",
  "/%",
  "/%%",
  "//",
  "/health/%ff",
  "/health;%ff",
  "/users/me/%c0",
];

const QUERIES = [
  "/invoices?%ff=1",
  "/invoices?a=%ff",
  "/invoices?%",
  "/invoices?limit=%zz",
  "/invoices?limit=%ff",
  "/invoices?limit=1&limit=2",
  "/invoices?limit=" + "9".repeat(400),
  "/invoices?__proto__=1",
  "/invoices?a[b]=1",
  "/invoices?=",
  "/invoices?&&&=&",
  "/invoices?limit=%c0%80",
  "/api/v2/search?q=%ff",
  "/api/v2/search?q=%",
  "/api/v2/search?q=%ed%a0%80",
  "/api/v2/search?q=" + "%e2%82".repeat(10),
  "/health?%ed%a0%80",
  "/health?x=%ff%fe",
  "/invoices/export?ids=%ff",
  "/invoices/export?ids=" + "i".repeat(300),
  "/invoices/inv_alice_1?%",
];

const MALFORMED_HEADERS: Array<[string, string[]]> = [
  ["non-ASCII bearer", ["Authorization: Bearer \xff\xfe"]],
  ["Basic scheme", ["Authorization: Basic dTpw"]],
  ["empty bearer", ["Authorization: Bearer "]],
  ["non-ASCII version", ["Api-Version: \xff"]],
  ["version path trick", ["Api-Version: ../v1"]],
  ["non-ASCII accept", ["Accept: application/vnd.portcullis.\xff+json"]],
  ["two versions", ["Api-Version: v1", "Accept: application/vnd.portcullis.v2+json"]],
];

// Rejected by node's parser before Express: answered by api/http/server.ts.
const UNPARSEABLE: Array<[string, string]> = [
  ["bad Content-Length", "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"],
  ["two Content-Lengths", "POST /invoices/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"],
  ["header without colon", "GET /health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n"],
  ["space in header name", "GET /health HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n"],
  ["control byte in value", "GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n"],
  ["bad chunk", "POST /invoices/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"],
  ["garbage request line", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"],
  ["bad version", "GET /health HTTP/9.9\r\nHost: x\r\n\r\n"],
  ["space in target", "GET /health x HTTP/1.1\r\nHost: x\r\n\r\n"],
  ["headers over 16 KiB", `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`],
];

const BODIES: Array<[string, string, string[], Buffer | string]> = [
  ["invalid JSON", "/profile", ["Content-Type: application/json"], "{"],
  ["invalid UTF-8", "/profile", ["Content-Type: application/json"], Buffer.from([0x7b, 0x22, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ["overlong UTF-8", "/profile", ["Content-Type: application/json"], Buffer.from('{"displayName":"\xc0\xaf"}', "latin1")],
  [
    "a lone surrogate escape is still JSON text, so a broken raw surrogate",
    "/profile",
    ["Content-Type: application/json"],
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
  ],
  ["BOM", "/profile", ["Content-Type: application/json"], Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])],
  ["not JSON type", "/profile", ["Content-Type: text/plain"], "{}"],
  ["non-ASCII type", "/profile", ["Content-Type: \xff/\xff"], "{}"],
  ["utf-16 charset", "/profile", ["Content-Type: application/json; charset=utf-16"], "{}"],
  ["gzip garbage", "/profile", ["Content-Type: application/json", "Content-Encoding: gzip"], "not gzip"],
  ["unknown encoding", "/profile", ["Content-Type: application/json", "Content-Encoding: zz"], "{}"],
  ["deep nesting", "/profile", ["Content-Type: application/json"], "[".repeat(5000) + "]".repeat(5000)],
  ["array", "/profile", ["Content-Type: application/json"], "[]"],
  ["too large", "/profile", ["Content-Type: application/json"], JSON.stringify({ displayName: "x".repeat(20_000) })],
  ["body shorter than its Content-Length", "/profile", ["Content-Type: application/json", "Content-Length: 10"], "{}"],
];

describe.each([
  ["anonymous", [] as string[]],
  ["with a token", ["Authorization: %TOKEN%"]],
])("%s", (_who, auth) => {
  const headers = () => auth.map((l) => l.replace("%TOKEN%", alice));

  test.each(PATHS)("GET %s", async (target) => expectRefusedCleanly(await send(request("GET", target, headers()))));
  test.each(PATHS)("POST %s", async (target) =>
    expectRefusedCleanly(await send(request("POST", target, [...headers(), "Content-Type: application/json"], "{}"))),
  );
  test.each(QUERIES)("GET %s", async (target) => expectRefusedCleanly(await send(request("GET", target, headers()))));
  test.each(MALFORMED_HEADERS)("header: %s", async (_name, lines) => {
    const extra = lines.some((l) => l.startsWith("Authorization:")) ? lines : [...headers(), ...lines];
    expectRefusedCleanly(await send(request("GET", "/invoices/inv_alice_1?debug=1", extra)));
  });
  test.each(BODIES)("body: %s", async (_name, target, lines, body) => {
    expectRefusedCleanly(await send(request("PATCH", target, [...headers(), ...lines], body)));
  });
});

test.each(UNPARSEABLE)("unparseable: %s", async (_name, bytes) => expectRefusedCleanly(await send(bytes)));

test("a request reaching the header-count limit is refused, not served with headers dropped", async () => {
  const many = Array.from({ length: DEFAULT_HTTP_LIMITS.maxHeadersCount }, (_, i) => `X-Filler-${i}: ${i}`);
  const res = await send(request("GET", "/invoices/inv_alice_1", [...many, `Authorization: ${alice}`]));
  expectRefusedCleanly(res);
  expect(res.status).toBe(431);
});

test("a well-formed request on the same server still answers 200", async () => {
  const res = await send(request("GET", "/invoices/inv_alice_1", [`Authorization: ${alice}`]));
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body).id).toBe("inv_alice_1");
});
