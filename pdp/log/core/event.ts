/**
 * Builds one decision-log event in OPA's EventV1 shape from the record the
 * PDP hands over (see shared/design/decision-log-format.md). Only
 * decision_id, labels and timestamp are always present; every other field is
 * left out when empty, as OPA does.
 *
 * The event REFERS to the record's input and result (no copy here): the
 * log takes its snapshot as the event's JSON text (snapshotOf), once, and
 * anything that edits an event (masking) works on a copy parsed from that
 * text, never on the PDP's objects.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { binaryInputJson } from "@portcullis/rego-wasm";
import type { DecisionEvent, DecisionRecord } from "../../types";

/** Who emits the events: OPA's `labels` (id and version always, plus configured ones). */
export interface EventSource {
  instanceId: string;
  version: string;
  labels: Record<string, string>;
  /** The name under which the deciding bundle's revision is reported in `bundles`. */
  bundleName: string;
}

/** Each source's labels, merged once: events only serialise them, so they can share one object. */
const labelsBySource = new WeakMap<EventSource, Record<string, string>>();

function labelsOf(source: EventSource): Record<string, string> {
  let labels = labelsBySource.get(source);
  if (!labels) {
    // Configured labels first: id and version identify the instance and must not be overridden.
    labels = { ...source.labels, id: source.instanceId, version: source.version };
    labelsBySource.set(source, labels);
  }
  return labels;
}

export function buildEvent(record: DecisionRecord, source: EventSource, timestamp: string): DecisionEvent {
  const event: DecisionEvent = { decision_id: record.decisionId, labels: labelsOf(source), timestamp };
  if (record.path) event.path = record.path.replace(/^data[./]/, "").replace(/^\/+/, "");
  if (record.input !== undefined) event.input = record.input;
  if (record.result !== undefined) event.result = record.result;
  if (record.revision) event.bundles = { [source.bundleName]: { revision: record.revision } };
  if (record.context?.requestedBy) event.requested_by = record.context.requestedBy;
  if (typeof record.context?.reqId === "number") event.req_id = record.context.reqId;
  if (Number.isFinite(record.evalNs) && record.evalNs >= 0 && !record.refusal) {
    event.metrics = { timer_rego_query_eval_ns: Math.round(record.evalNs) };
  }
  if (record.error) event.error = { code: String(record.error.code), message: String(record.error.message) };
  // OPA's EventV1 carries extras in `custom`; receivers keep it as it is.
  if (record.trail && !record.refusal) event.custom = { trail: record.trail.entries };
  if (record.refusal) {
    // No policy ran: no result, no bundles, no timer; the marker says so and what the API answered.
    const { stage, status, problem } = record.refusal;
    event.custom = { policy_evaluated: false, refusal: { stage: String(stage), status: Number(status), problem: String(problem) } };
  }
  return event;
}

/**
 * The event's JSON text: the snapshot every later step reads (the mask and
 * drop policies' input, the sinks' serialised event). One stringify per
 * event instead of a copy of input and result plus one per policy and sink;
 * with the record's texts of input and result (the ones the policy read and
 * wrote), only the event's small rest is serialised. Throws on values JSON
 * cannot carry faithfully (cycles, BigInt).
 */
export function snapshotOf(
  event: DecisionEvent,
  record?: Pick<DecisionRecord, "input" | "inputJson" | "inputBinary" | "result" | "resultJson" | "trail">,
): string {
  if (!record || !textsCover(event, record)) return JSON.stringify(event);
  // The binary input's text, made here (off the request path); it throws on malformed bytes, and the caller fails safe.
  const inputJson = record.inputJson ?? binaryInputJson(record.inputBinary!);
  // The texts the engine evaluated, spliced in: the event without them, then input and result (and the trail's, resolved once per distinct trail).
  const { input: _input, result, custom, ...rest } = event;
  const trail = custom !== undefined && isTrailOnly(custom, record) ? `,"custom":{"trail":${record.trail!.json}}` : "";
  const head = JSON.stringify(trail === "" && custom !== undefined ? { ...rest, custom } : rest);
  const tail = result === undefined ? "" : `,"result":${record.resultJson}`;
  return `${head.slice(0, -1)},"input":${inputJson}${tail}${trail}}`;
}

/** `custom` is exactly the record's trail, whose text the record has. */
function isTrailOnly(custom: Record<string, unknown>, record: Pick<DecisionRecord, "trail">): boolean {
  if (record.trail === undefined || custom.trail !== record.trail.entries) return false;
  for (const key in custom) if (key !== "trail") return false;
  return true;
}

/** The record's texts are the event's input and result (the event refers to the same objects and a text, or the binary input, exists for each). */
function textsCover(event: DecisionEvent, record: Pick<DecisionRecord, "input" | "inputJson" | "inputBinary" | "result" | "resultJson">): boolean {
  if (record.inputJson === undefined && record.inputBinary === undefined) return false;
  if (event.input === undefined || event.input !== record.input) return false;
  return event.result === undefined || (event.result === record.result && record.resultJson !== undefined);
}

// --- time: RFC 3339 UTC with nanosecond digits -----------------------------

let anchorNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

/**
 * Wall-clock time in nanoseconds: the monotonic clock gives the sub-millisecond
 * digits; the anchor is re-taken when the wall clock moved (NTP step) by more
 * than a millisecond, so timestamps stay true to the wall clock.
 */
export function nowNs(): bigint {
  let ns = anchorNs + process.hrtime.bigint();
  const wallMs = BigInt(Date.now());
  const drift = ns / 1_000_000n - wallMs;
  if (drift > 1n || drift < -1n) {
    anchorNs = wallMs * 1_000_000n - process.hrtime.bigint();
    ns = anchorNs + process.hrtime.bigint();
  }
  return ns;
}

/** `2026-11-21T14:12:13.123456789Z`: fixed width, so text order is time order (SQLite queries rely on it). */
export function formatTimestamp(ns: bigint): string {
  const seconds = ns / 1_000_000_000n;
  // Events come many per second: the date part is formatted once per second.
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    lastIso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  }
  const fraction = (ns % 1_000_000_000n).toString().padStart(9, "0");
  return `${lastIso}.${fraction}Z`;
}

let lastSeconds = -1n;
let lastIso = "";

/** A point in time as the log's timestamp text (for range queries); throws on an unparsable time. */
export function timestampOf(date: Date): string {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new RangeError("invalid time");
  return formatTimestamp(BigInt(ms) * 1_000_000n);
}

let cachedVersion: string | undefined;

/** The portcullis package version, found by walking up from this module (works from source and dist/). */
export function packageVersion(): string {
  if (cachedVersion !== undefined) return cachedVersion;
  let dir = __dirname;
  for (;;) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "portcullis") return (cachedVersion = String(pkg.version ?? "unknown"));
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (cachedVersion = "unknown");
    dir = parent;
  }
}
