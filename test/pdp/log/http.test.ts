/**
 * The remote sink against a real local receiver on 127.0.0.1: OPA's upload
 * format (POST /logs, gzip JSON arrays within the size limit), a receiver
 * that fails and then recovers (nothing lost, nothing duplicated), a full
 * buffer (oldest dropped, every drop counted), an event too large to send,
 * and undeliverable events at close counted as dropped.
 */
import { randomBytes } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { createDecisionLog, type DecisionLogError } from "../../../pdp/log";
import type { DecisionRecord } from "../../../pdp/types";
import { makeRecord } from "./fixtures";

interface Upload {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  compressedBytes: number;
  events: Array<{ decision_id: string; input?: unknown }>;
}

const receivers: http.Server[] = [];

// A failed assertion must not leave a server open (Jest would wait on it forever).
afterEach(async () => {
  for (const server of receivers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A receiver answering each upload with the next planned reply (200 once the plan runs out). */
async function startReceiver(plan: Array<number | "reset"> = []) {
  const uploads: Upload[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const reply = plan.shift() ?? 200;
      uploads.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        compressedBytes: body.length,
        events: JSON.parse(gunzipSync(body).toString("utf8")),
      });
      if (reply === "reset") req.socket.destroy();
      else res.writeHead(reply).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receivers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, uploads };
}

/** Remote-only log; periodic trigger with a delay far beyond the test, so only flush() uploads. */
function remoteLog(url: string, extra: Record<string, unknown> = {}) {
  const errors: DecisionLogError[] = [];
  const log = createDecisionLog({
    remote: { url, trigger: "periodic", minDelayMs: 3_600_000, maxDelayMs: 3_600_000, minBackoffMs: 1, maxBackoffMs: 4, ...extra },
    onError: (e) => errors.push(e),
  });
  return { log, errors };
}

const bulky = (): DecisionRecord => makeRecord({ context: { requestedBy: randomBytes(24).toString("hex") } });

test("events arrive as gzip JSON arrays on POST /logs, each body within the upload limit, in order, once", async () => {
  const receiver = await startReceiver();
  const { log } = remoteLog(receiver.url, { uploadSizeLimitBytes: 1024, headers: { Authorization: "Bearer test-token" } });
  const records = Array.from({ length: 60 }, bulky);
  for (const r of records) log.record(r);
  expect(receiver.uploads).toHaveLength(0); // record() only buffered
  await log.flush();

  expect(receiver.uploads.length).toBeGreaterThan(1);
  for (const upload of receiver.uploads) {
    expect(upload.method).toBe("POST");
    expect(upload.url).toBe("/logs");
    expect(upload.headers["content-type"]).toBe("application/json");
    expect(upload.headers["content-encoding"]).toBe("gzip");
    expect(upload.headers.authorization).toBe("Bearer test-token");
    expect(upload.compressedBytes).toBeLessThanOrEqual(1024);
  }
  expect(receiver.uploads.flatMap((u) => u.events.map((e) => e.decision_id))).toEqual(records.map((r) => r.decisionId));
  expect(log.stats().sinks.http).toEqual({ written: 60, pending: 0, dropped: 0, failures: 0 });
});

test("a failing receiver that recovers loses nothing: failed chunks are requeued and resent", async () => {
  const receiver = await startReceiver([500, "reset", 503]);
  const { log, errors } = remoteLog(receiver.url);
  const records = Array.from({ length: 20 }, () => makeRecord());
  for (const r of records) log.record(r);
  await log.flush();

  expect(receiver.uploads).toHaveLength(4);
  // The same chunk each time until it was acknowledged.
  for (const upload of receiver.uploads) expect(upload.events.map((e) => e.decision_id)).toEqual(records.map((r) => r.decisionId));
  expect(log.stats().sinks.http).toEqual({ written: 20, pending: 0, dropped: 0, failures: 3 });
  expect(errors.map((e) => e.code)).toEqual(["http_upload_failed", "http_upload_failed", "http_upload_failed"]);
  expect(errors.map((e) => e.message).join(" ")).not.toContain(records[0].decisionId);
});

test("a full buffer drops the oldest events and counts every drop", async () => {
  const receiver = await startReceiver();
  const { log } = remoteLog(receiver.url, { bufferSizeLimitEvents: 5 });
  const records = Array.from({ length: 8 }, () => makeRecord());
  for (const r of records) log.record(r);
  await nextBatch();
  expect(log.stats().sinks.http).toEqual({ written: 0, pending: 5, dropped: 3, failures: 0 });
  await log.flush();
  expect(receiver.uploads.flatMap((u) => u.events.map((e) => e.decision_id))).toEqual(records.slice(3).map((r) => r.decisionId));
  const { written, pending, dropped } = log.stats().sinks.http;
  expect(written + pending + dropped).toBe(records.length);
});

test("requeued chunks count against the buffer too: every event is written, pending or dropped", async () => {
  const receiver = await startReceiver([500, 500, 500]);
  const { log } = remoteLog(receiver.url, { bufferSizeLimitEvents: 10, flushMaxAttempts: 3 });
  for (let i = 0; i < 10; i++) log.record(makeRecord());
  await log.flush(); // gives up after 3 failed attempts; the events stay pending
  expect(log.stats().sinks.http).toEqual({ written: 0, pending: 10, dropped: 0, failures: 3 });
  for (let i = 0; i < 4; i++) log.record(makeRecord());
  await nextBatch();
  expect(log.stats().sinks.http).toEqual(expect.objectContaining({ pending: 10, dropped: 4 }));
  await log.flush(); // the receiver has recovered
  expect(log.stats().sinks.http).toEqual({ written: 10, pending: 0, dropped: 4, failures: 3 });
});

test("events still undeliverable at close are counted as dropped and reported", async () => {
  const receiver = await startReceiver(Array(10).fill(500));
  const { log, errors } = remoteLog(receiver.url, { flushMaxAttempts: 2 });
  for (let i = 0; i < 3; i++) log.record(makeRecord());
  await log.close();
  expect(log.stats().sinks.http).toEqual({ written: 0, pending: 0, dropped: 3, failures: 2 });
  expect(errors.at(-1)!.message).toMatch(/3 events undelivered at close/);
});

test("an event larger than the upload limit on its own is dropped, counted and reported; the rest go", async () => {
  const receiver = await startReceiver();
  const { log, errors } = remoteLog(receiver.url, { uploadSizeLimitBytes: 512 });
  const small = makeRecord();
  const huge = makeRecord({ context: { requestedBy: randomBytes(2048).toString("base64") } });
  const after = makeRecord();
  for (const r of [small, huge, after]) log.record(r);
  await log.flush();
  expect(receiver.uploads.flatMap((u) => u.events.map((e) => e.decision_id))).toEqual([small.decisionId, after.decisionId]);
  expect(log.stats().sinks.http).toEqual({ written: 2, pending: 0, dropped: 1, failures: 0 });
  expect(errors.map((e) => e.code)).toEqual(["event_too_large"]);
});

test("the immediate trigger uploads without an explicit flush", async () => {
  const receiver = await startReceiver();
  const log = createDecisionLog({ remote: { url: receiver.url, trigger: "immediate" } });
  const record = makeRecord();
  const delivered = new Promise<void>((resolve) => {
    const poll = () => (receiver.uploads.length > 0 ? resolve() : setTimeout(poll, 5));
    poll();
  });
  log.record(record);
  await delivered;
  await log.close();
  expect(receiver.uploads[0].events.map((e) => e.decision_id)).toEqual([record.decisionId]);
});

/** The log masks and writes records in a batch on the next turn of the event loop. */
function nextBatch(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
