/**
 * The bundle protocol against a real bundle server on 127.0.0.1: ETag
 * polling (200, then 304, then a new ETag), failures that leave the active
 * bundle in place (HTTP errors, timeouts, bad bundles, oversized bodies),
 * timer polling with jitter, credentials kept out of status and logs, and
 * close() ending the polling.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { createPdp, type Pdp } from "../../../pdp";
import { describeUrl } from "../../../pdp/bundles/http-source";
import { bundleOf, capturingLogger, member, RecordingLog, waitFor } from "../fixtures";

interface Served {
  status: number;
  bytes: Buffer;
  etag: string;
  /** Hold requests without answering (to provoke a timeout). */
  hang: boolean;
}

let server: http.Server;
let base: string;
let served: Served;
let requests: Array<{ ifNoneMatch?: string; authorization?: string; url?: string }>;
let pdp: Pdp | undefined;

beforeEach(async () => {
  served = { status: 200, bytes: bundleOf({ revision: "r1" }), etag: '"r1"', hang: false };
  requests = [];
  server = http.createServer((req, res) => {
    requests.push({ ifNoneMatch: req.headers["if-none-match"], authorization: req.headers.authorization, url: req.url });
    if (served.hang) return;
    if (served.status !== 200) {
      res.writeHead(served.status).end("no");
    } else if (req.headers["if-none-match"] === served.etag) {
      res.writeHead(304).end();
    } else {
      res.writeHead(200, { "content-type": "application/gzip", etag: served.etag }).end(served.bytes);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await pdp?.close();
  pdp = undefined;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function start(
  options: { minDelayMs?: number; maxDelayMs?: number; timeoutMs?: number; maxBytes?: number; headers?: Record<string, string>; path?: string } = {},
) {
  const log = new RecordingLog();
  const logger = capturingLogger();
  const { path = "/bundles/portcullis.tar.gz", ...rest } = options;
  // Long delays by default: these tests drive polls through refresh().
  pdp = await createPdp({ bundle: { url: base + path, minDelayMs: 60_000, maxDelayMs: 60_000, ...rest }, log, logger });
  return { pdp, log, logger };
}

describe("HTTP bundle source", () => {
  test("200, then 304 with If-None-Match, then a new ETag loads the new bundle", async () => {
    const { pdp } = await start();
    expect(requests).toEqual([expect.objectContaining({ ifNoneMatch: undefined })]);
    expect(pdp.decide(member())).toMatchObject({ allow: true, revision: "r1" });

    await pdp.refresh();
    expect(requests[1].ifNoneMatch).toBe('"r1"');
    expect(pdp.status()).toMatchObject({ active: { revision: "r1" }, reloads: 1, failures: 0 });

    served.bytes = bundleOf({ revision: "r2" });
    served.etag = '"r2"';
    await pdp.refresh();
    expect(requests[2].ifNoneMatch).toBe('"r1"');
    expect(pdp.status()).toMatchObject({ active: { revision: "r2" }, reloads: 2, failures: 0 });
    expect(pdp.decide(member())).toMatchObject({ allow: true, revision: "r2" });

    await pdp.refresh();
    expect(requests[3].ifNoneMatch).toBe('"r2"');
    expect(pdp.status().reloads).toBe(2);
  });

  test("an HTTP error keeps the active bundle and is reported", async () => {
    const { pdp, logger } = await start();
    served.status = 500;
    served.etag = '"r2"';
    await pdp.refresh();
    expect(pdp.status()).toMatchObject({
      active: { revision: "r1" },
      lastError: { code: "bundle_unavailable", message: expect.stringContaining("HTTP 500") },
      failures: 1,
    });
    expect(pdp.decide(member()).revision).toBe("r1");
    expect(logger.entries).toContainEqual(expect.objectContaining({ event: "pdp.bundle_load_failed", code: "bundle_unavailable" }));
  });

  test("a 304 after an outage clears the outage, never a refusal the server still holds", async () => {
    const { pdp } = await start();
    served.status = 500;
    await pdp.refresh();
    expect(pdp.status().lastError).toMatchObject({ code: "bundle_unavailable" });
    served.status = 200;
    await pdp.refresh(); // 304: the server holds the active bundle
    expect(pdp.status()).toMatchObject({ active: { revision: "r1" }, lastError: null });

    served.bytes = Buffer.from("not a bundle");
    served.etag = '"bad"';
    await pdp.refresh();
    served.status = 503;
    await pdp.refresh();
    expect(pdp.status().lastError).toMatchObject({ code: "bundle_unavailable" });
    served.status = 200;
    await pdp.refresh(); // 304 for the refused bundle: it is still what the server offers
    expect(pdp.status()).toMatchObject({ active: { revision: "r1" }, lastError: { code: "bundle_invalid" } });
  });

  test("a bad bundle from the server is refused once and not downloaded again for the same ETag", async () => {
    const { pdp } = await start();
    served.bytes = Buffer.from("not a bundle");
    served.etag = '"bad"';
    await pdp.refresh();
    expect(pdp.status()).toMatchObject({ active: { revision: "r1" }, lastError: { code: "bundle_invalid" }, failures: 1 });
    await pdp.refresh();
    expect(requests.at(-1)?.ifNoneMatch).toBe('"bad"');
    expect(pdp.status().failures).toBe(1);
  });

  test("a server that does not answer times out; the first load failing means deny", async () => {
    served.hang = true;
    const { pdp } = await start({ timeoutMs: 100 });
    expect(pdp.status()).toMatchObject({ active: null, lastError: { code: "bundle_unavailable", message: expect.stringContaining("timed out after 100 ms") } });
    expect(pdp.decide(member())).toMatchObject({ allow: false, status: 503, reason: "policy_unavailable" });
  });

  test("an unreachable server: deny, reported, no exception escapes the poller", async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const { pdp } = await start({ minDelayMs: 5, maxDelayMs: 10 });
    await waitFor(() => pdp.status().failures >= 3);
    expect(pdp.status()).toMatchObject({ active: null, lastError: { code: "bundle_unavailable" } });
    expect(pdp.decide(member()).reason).toBe("policy_unavailable");
    server = http.createServer(); // for afterEach
    server.listen(0, "127.0.0.1");
  });

  test("a body over maxBytes is refused", async () => {
    const { pdp } = await start({ maxBytes: 100 });
    expect(pdp.status()).toMatchObject({
      active: null,
      lastError: { code: "bundle_unavailable", message: expect.stringContaining("exceeds the 100-byte limit") },
    });
  });

  test("the poller picks up a new ETag on its own, with a jittered delay", async () => {
    const { pdp } = await start({ minDelayMs: 10, maxDelayMs: 30 });
    served.bytes = bundleOf({ revision: "r2" });
    served.etag = '"r2"';
    await waitFor(() => pdp.status().active?.revision === "r2");
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.slice(1).every((r) => r.ifNoneMatch !== undefined)).toBe(true);
  });

  test("headers reach the server; credentials and query never reach status or logs", async () => {
    served.status = 403;
    const { pdp, logger } = await start({ headers: { authorization: "Bearer s3cret-token" }, path: "/b.tar.gz?token=s3cret-query" });
    expect(requests[0]).toMatchObject({ authorization: "Bearer s3cret-token", url: "/b.tar.gz?token=s3cret-query" });
    served.status = 200;
    await pdp.refresh();
    const visible = JSON.stringify([pdp.status(), logger.entries]);
    expect(visible).toContain(`${base}/b.tar.gz`);
    expect(visible).not.toContain("s3cret");
    expect(describeUrl("https://user:pw@bundles.example:8443/p/b.tar.gz?t=1")).toBe("https://bundles.example:8443/p/b.tar.gz");
  });

  test("close stops polling and flushes the log", async () => {
    const { pdp, log } = await start({ minDelayMs: 10, maxDelayMs: 20 });
    await pdp.close();
    const seen = requests.length;
    await pdp.refresh();
    await new Promise((r) => setTimeout(r, 100)); // five poll delays: a live poller would have asked again
    expect(requests.length).toBe(seen);
    expect(log.flushes).toBe(1);
  });
});
