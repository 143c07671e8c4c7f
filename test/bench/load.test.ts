/** The API bench's load generator: its answer parser and one short run against a real server. */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { parseResponse, runLoad } from "../../bench/load";

const bytes = (s: string) => Buffer.from(s, "latin1");

test("parseResponse finds the end of Content-Length and chunked answers, and waits for missing bytes", () => {
  const fixed = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}';
  expect(parseResponse(bytes(fixed))).toEqual({ status: 200, length: fixed.length });
  expect(parseResponse(bytes(fixed.slice(0, -1)))).toBeNull();
  expect(parseResponse(bytes(fixed + "HTTP/1.1 404"))).toEqual({ status: 200, length: fixed.length });

  const chunked = "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\na\r\n0123456789\r\n0\r\n\r\n";
  expect(parseResponse(bytes(chunked))).toEqual({ status: 404, length: chunked.length });
  expect(parseResponse(bytes(chunked.slice(0, -2)))).toBeNull();
  expect(parseResponse(bytes("HTTP/1.1 200 OK\r\nContent-Len"))).toBeNull();
  expect(parseResponse(bytes("HTTP/1.1 204 No Content\r\n\r\n"))).toEqual({ status: 204, length: 27 });
  expect(() => parseResponse(bytes("HTTP/1.1 200 OK\r\n\r\nbody"))).toThrow(/without Content-Length/);
});

test("runLoad counts 200s, counts every other status as an error, and sends the given headers", async () => {
  let seen = 0;
  const server = http.createServer((req, res) => {
    seen++;
    const ok = req.headers.authorization === "Bearer t" && req.url === "/x";
    // Every third answer chunked (no Content-Length), to exercise both framings.
    if (seen % 3 === 0) res.writeHead(ok ? 200 : 401, { "Content-Type": "text/plain" }).end("chunked");
    else res.writeHead(ok ? 200 : 401, { "Content-Length": "2" }).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const good = await runLoad({ port, path: "/x", headers: { Authorization: "Bearer t" }, seconds: 0.3, connections: 4 });
    expect(good.requests).toBeGreaterThan(10);
    expect(good.errors).toBe(0);
    expect(good.requests).toBe(seen);
    expect(good.p99).toBeGreaterThanOrEqual(good.p50);
    const refused = await runLoad({ port, path: "/x", headers: {}, seconds: 0.2, connections: 2 });
    expect(refused.requests).toBe(0);
    expect(refused.errors).toBeGreaterThan(5);
  } finally {
    server.close();
  }
});

test("runLoad spreads its connections over several ports, each request naming its own server", async () => {
  const seen: string[][] = [[], []];
  const servers = seen.map((hosts) =>
    http.createServer((req, res) => {
      hosts.push(String(req.headers.host));
      res.writeHead(200, { "Content-Length": "2" }).end("ok");
    }),
  );
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  try {
    const result = await runLoad({ port: ports, path: "/x", headers: {}, seconds: 0.3, connections: 4 });
    expect(result.errors).toBe(0);
    expect(result.requests).toBe(seen[0].length + seen[1].length);
    for (const [i, hosts] of seen.entries()) {
      expect(hosts.length).toBeGreaterThan(5);
      expect(new Set(hosts)).toEqual(new Set([`127.0.0.1:${ports[i]}`]));
    }
  } finally {
    for (const s of servers) s.close();
  }
});
