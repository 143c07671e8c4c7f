/**
 * The event in OPA's EventV1 shape: what is always there, what is left out
 * when empty, labels, bundles, metrics, the PDP's own errors, and the
 * RFC 3339 nanosecond timestamp - read back from the store, which keeps the
 * event's text as every sink receives it, on both pipelines. (Events the
 * worker builds from an evaluated decision's parts are held to the
 * recording thread's in worker.test.ts.) Then the console sink's line: OPA's
 * console fields around that same event.
 */
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { CONSOLE_LOG_TYPE, createDecisionLog, type LogEvent } from "../../../pdp/log";
import { buildEvent, formatTimestamp, snapshotOf } from "../../../pdp/log/core/event";
import { openForRead } from "../../../pdp/log/store/sqlite-store";
import { makeRecord, PIPELINES, tempDir } from "./fixtures";
import pkg from "../../../package.json";

const INSTANCE_ID = "11111111-2222-4333-8444-555555555555";

/** The events a log with these options stored, in the order it wrote them. */
async function storedEvents(records: ReturnType<typeof makeRecord>[], options: Parameters<typeof createDecisionLog>[0] = {}): Promise<LogEvent[]> {
  const file = path.join(tempDir(), "decisions.db");
  const log = createDecisionLog({ ...options, db: file, instanceId: INSTANCE_ID });
  for (const r of records) log.record(r);
  await log.close();
  const db = openForRead(file);
  try {
    return (db.prepare("SELECT event FROM decisions ORDER BY seq").all() as Array<{ event: string }>).map((row) => JSON.parse(row.event) as LogEvent);
  } finally {
    db.close();
  }
}

describe.each(PIPELINES)("$name", ({ worker }) => {
  test("an allowed decision becomes one OPA-shaped event", async () => {
    const record = makeRecord();
    const [event] = await storedEvents([record], { worker, labels: { env: "test", id: "spoofed" } });
    expect(event).toEqual({
      decision_id: record.decisionId,
      labels: { id: INSTANCE_ID, version: pkg.version, env: "test" },
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/),
      path: "portcullis/decision",
      input: record.input,
      result: record.result,
      bundles: { portcullis: { revision: "rev-42" } },
      requested_by: "127.0.0.1:50000",
      req_id: 7,
      metrics: { timer_rego_query_eval_ns: 12345 },
    });
  });

  test("empty fields are left out; a PDP denial on its own carries its error", async () => {
    const record = makeRecord({
      result: undefined,
      revision: "",
      context: {},
      error: { code: "no_bundle", message: "no policy bundle is active" },
    });
    const [event] = await storedEvents([record], { worker });
    expect(Object.keys(event).sort()).toEqual(["decision_id", "error", "input", "labels", "metrics", "path", "timestamp"]);
    expect(event.error).toEqual({ code: "no_bundle", message: "no policy bundle is active" });
  });

  test("every record gives one event, in order, with distinct decision ids", async () => {
    const records = Array.from({ length: 25 }, () => makeRecord());
    const events = await storedEvents(records, { worker });
    expect(events.map((e) => e.decision_id)).toEqual(records.map((r) => r.decisionId));
  });
});

test("the console sink prints one line per event: OPA's console fields, then the event every sink receives", async () => {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
  // A stream of the caller's stays on its thread: this log runs in-thread (the service's console, stdout, is the worker's).
  const records = [makeRecord(), makeRecord({ result: undefined, error: { code: "no_bundle", message: "no policy bundle is active" } })];
  const stored = await storedEvents(records, { console: out });
  const lines = chunks
    .join("")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines).toEqual(stored.map((event) => ({ level: "info", msg: "Decision Log", time: event.timestamp, type: CONSOLE_LOG_TYPE, ...event })));
  expect(lines.map((l) => l.decision_id)).toEqual(records.map((r) => r.decisionId));
  expect(CONSOLE_LOG_TYPE).toBe("openpolicyagent.org/decision_logs");
});

/** JSON with every object's keys sorted, as the Wasm module dumps values. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`)
    .join(",")}}`;
}

test("a snapshot embeds the texts the policy evaluated, and serialises the objects when it has none", () => {
  const record = makeRecord();
  const source = { instanceId: "i-1", version: "1.0.0", labels: {}, bundleName: "portcullis" };
  const event = buildEvent(record, source, "2026-11-21T12:00:00.000000000Z");
  const plain = snapshotOf(event);
  // Texts as the engine hands them: the module's dump sorts keys and differs in spacing from JSON.stringify.
  const withTexts = { ...record, inputJson: JSON.stringify(record.input), resultJson: sortedJson(record.result) };
  const spliced = snapshotOf(event, withTexts);
  expect(spliced).toContain(`"input":${withTexts.inputJson}`);
  expect(spliced).toContain(`"result":${withTexts.resultJson}`);
  expect(JSON.parse(spliced)).toEqual(JSON.parse(plain));

  // Texts that are not the event's objects (masked, replaced, or missing one) are never used.
  expect(snapshotOf({ ...event, input: { other: true } }, withTexts)).toBe(JSON.stringify({ ...event, input: { other: true } }));
  expect(snapshotOf(event, { ...withTexts, resultJson: undefined })).toBe(plain);
  expect(snapshotOf(event, { ...withTexts, inputJson: undefined })).toBe(plain);
  const noResult = buildEvent({ ...record, result: undefined }, source, "2026-11-21T12:00:00.000000000Z");
  expect(JSON.parse(snapshotOf(noResult, { ...withTexts, result: undefined, resultJson: undefined }))).toEqual(JSON.parse(JSON.stringify(noResult)));
});

test("timestamps keep nanosecond digits and sort as text in time order", () => {
  expect(formatTimestamp(1_763_734_333_123_456_789n)).toBe("2025-11-21T14:12:13.123456789Z");
  expect(formatTimestamp(1_763_734_333_000_000_001n)).toBe("2025-11-21T14:12:13.000000001Z");
  expect(formatTimestamp(1_763_734_333_000_000_001n) > formatTimestamp(1_763_734_332_999_999_999n)).toBe(true);
});
