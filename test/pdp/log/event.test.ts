/**
 * The event in OPA's EventV1 shape: what is always there, what is left out
 * when empty, labels, bundles, metrics, the PDP's own errors, and the
 * RFC 3339 nanosecond timestamp - seen through the console sink, which
 * prints exactly what every sink receives.
 */
import { PassThrough } from "node:stream";
import { CONSOLE_LOG_TYPE, createDecisionLog } from "../../../pdp/log";
import { buildEvent, formatTimestamp, snapshotOf } from "../../../pdp/log/core/event";
import { makeRecord } from "./fixtures";
import pkg from "../../../package.json";

async function consoleLines(records: ReturnType<typeof makeRecord>[], labels?: Record<string, string>) {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
  const log = createDecisionLog({ console: out, labels, instanceId: "11111111-2222-4333-8444-555555555555" });
  for (const r of records) log.record(r);
  await log.close();
  return chunks
    .join("")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test("an allowed decision becomes one OPA-shaped console line", async () => {
  const record = makeRecord();
  const [line] = await consoleLines([record], { env: "test", id: "spoofed" });
  expect(line).toEqual({
    level: "info",
    msg: "Decision Log",
    time: line.timestamp,
    type: CONSOLE_LOG_TYPE,
    decision_id: record.decisionId,
    labels: { id: "11111111-2222-4333-8444-555555555555", version: pkg.version, env: "test" },
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/),
    path: "portcullis/decision",
    input: record.input,
    result: record.result,
    bundles: { portcullis: { revision: "rev-42" } },
    requested_by: "127.0.0.1:50000",
    req_id: 7,
    metrics: { timer_rego_query_eval_ns: 12345 },
  });
  expect(CONSOLE_LOG_TYPE).toBe("openpolicyagent.org/decision_logs");
});

test("empty fields are left out; a PDP denial on its own carries its error", async () => {
  const record = makeRecord({
    result: undefined,
    revision: "",
    context: {},
    error: { code: "no_bundle", message: "no policy bundle is active" },
  });
  const [line] = await consoleLines([record]);
  expect(Object.keys(line).sort()).toEqual(["decision_id", "error", "input", "labels", "level", "metrics", "msg", "path", "time", "timestamp", "type"].sort());
  expect(line.error).toEqual({ code: "no_bundle", message: "no policy bundle is active" });
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

test("every record gives one line, in order, with distinct decision ids", async () => {
  const records = Array.from({ length: 25 }, () => makeRecord());
  const lines = await consoleLines(records);
  expect(lines.map((l) => l.decision_id)).toEqual(records.map((r) => r.decisionId));
});
