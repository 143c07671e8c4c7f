/**
 * `portcullis decisions` on a real SQLite decision log: the table an auditor
 * reads, full events with --json, and each filter (actor, denied, since,
 * path, id, limit), plus the errors for a missing log and bad options.
 */
import * as path from "node:path";
import { main } from "../../cli";
import { parseSince } from "../../pdp/log/store/query";
import { SqliteSink } from "../../pdp/log/sinks/sqlite-sink";
import type { LogEvent } from "../../pdp/log";
import { tempDir } from "../pdp/log/fixtures";

const ALLOWED = { allow: true, status: 200, reason: "allowed" };
const DENIED = { allow: false, status: 403, reason: "role_required" };

function event(id: string, timestamp: string, actor: string, result: object | undefined, extra: Partial<LogEvent> = {}): LogEvent {
  return {
    decision_id: id,
    labels: { id: "inst-1", version: "0.1.0" },
    timestamp,
    path: "portcullis/decision",
    input: { actor: { id: actor, tenant: "t_acme", roles: ["member"] }, action: "read", resource: { type: "invoice" } },
    ...(result ? { result } : {}),
    bundles: { portcullis: { revision: "rev-7" } },
    ...extra,
  };
}

const EVENTS: LogEvent[] = [
  event("d-1", "2026-11-20T09:00:00.000000001Z", "u_alice", ALLOWED),
  event("d-2", "2026-11-20T10:00:00.000000000Z", "u_bob", DENIED),
  event("d-3", "2026-11-21T08:30:00.500000000Z", "u_alice", DENIED, { path: "portcullis/admin/decision" }),
  event("d-4", "2026-11-21T09:15:00.000000000Z", "u_carol", ALLOWED, { bundles: { portcullis: { revision: "rev-8" } } }),
  // The PDP denied on its own: the (invalid) raw result is on the record, but the error decides.
  event("d-5", "2026-11-21T09:20:00.000000000Z", "anonymous", ALLOWED, { error: { code: "invalid_decision", message: "fields missing" } }),
];

let db: string;

beforeAll(async () => {
  db = path.join(tempDir(), "decisions.db");
  const sink = new SqliteSink({
    file: db,
    onError: (e) => {
      throw e;
    },
  });
  for (const e of EVENTS) sink.write(e);
  await sink.close();
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const error = jest.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    const code = await main(["decisions", ...args]);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** Decision ids in the table body, in printed order. */
function ids(out: string): string[] {
  return out
    .split("\n")
    .map((l) => /\b(d-\d)\b/.exec(l)?.[1])
    .filter((id): id is string => id !== undefined);
}

test("the default table: newest first, with time, id, actor, request, route, version, the policy's answer, the outcome and revision", async () => {
  const { code, out } = await run("--db", db);
  expect(code).toBe(0);
  const lines = out.split("\n");
  expect(lines[0]).toMatch(/^TIME \(UTC\)\s+DECISION ID\s+ACTOR\s+REQUEST\s+ROUTE\s+VERSION\s+POLICY\s+OUTCOME\s+REVISION$/);
  expect(ids(out)).toEqual(["d-5", "d-4", "d-3", "d-2", "d-1"]);
  // These events have no recorded outcome (written by the sink alone): "none".
  expect(lines[1]).toMatch(/^2026-11-21 09:20:00\.000Z\s+d-5\s+anonymous\s+-\s+-\s+-\s+denied invalid_decision\s+none\s+rev-7$/);
  expect(lines.find((l) => l.includes("d-2"))).toMatch(/u_bob\s+-\s+-\s+-\s+denied 403 role_required\s+none\s+rev-7$/);
  expect(lines.find((l) => l.includes("d-4"))).toMatch(/u_carol\s+-\s+-\s+-\s+allowed 200 allowed\s+none\s+rev-8$/);
  expect(lines.at(-1)).toBe("5 decisions");
});

test("filters: --actor, --denied, --path, --id, --since, --limit, and their combination", async () => {
  expect(ids((await run("--db", db, "--actor", "u_alice")).out)).toEqual(["d-3", "d-1"]);
  expect(ids((await run("--db", db, "--denied")).out)).toEqual(["d-5", "d-3", "d-2"]);
  expect(ids((await run("--db", db, "--path", "portcullis/admin")).out)).toEqual(["d-3"]);
  expect(ids((await run("--db", db, "--path", "/portcullis/decision")).out)).toEqual(["d-5", "d-4", "d-2", "d-1"]);
  expect(ids((await run("--db", db, "--id", "d-2")).out)).toEqual(["d-2"]);
  expect(ids((await run("--db", db, "--since", "2026-11-21")).out)).toEqual(["d-5", "d-4", "d-3"]);
  expect(ids((await run("--db", db, "--since", "2026-11-21T09:15:00Z")).out)).toEqual(["d-5", "d-4"]);
  expect(ids((await run("--db", db, "--denied", "--actor", "u_alice", "--since", "2026-11-20T12:00")).out)).toEqual(["d-3"]);
  const limited = await run("--db", db, "--limit", "2");
  expect(ids(limited.out)).toEqual(["d-5", "d-4"]);
  expect(limited.out).toMatch(/newest 2 shown/);
  expect((await run("--db", db, "--actor", "nobody")).out).toBe("no decisions match");
});

test("--json prints the full logged events with their outcome (null: none recorded), one per line", async () => {
  const { code, out } = await run("--db", db, "--json", "--denied");
  expect(code).toBe(0);
  const events = out.split("\n").map((l) => JSON.parse(l) as LogEvent);
  expect(events).toEqual([EVENTS[4], EVENTS[2], EVENTS[1]].map((e) => ({ ...e, outcome: null })));
});

test("a missing log and bad options are clear errors", async () => {
  const missing = await run("--db", path.join(tempDir(), "nope.db"));
  expect(missing.code).toBe(1);
  expect(missing.err).toMatch(/decisions_db_missing: no decision log at/);
  const badLimit = await run("--db", db, "--limit", "0");
  expect(badLimit.code).toBe(2);
  expect(badLimit.err).toMatch(/--limit must be a positive integer/);
  const badSince = await run("--db", db, "--since", "yesterday");
  expect(badSince.code).toBe(1);
  expect(badSince.err).toMatch(/decisions_bad_filter/);
  const unknown = await run("--db", db, "--verbose");
  expect(unknown.code).toBe(2);
});

test("--since takes durations back from now and RFC 3339 times (UTC when no zone is given)", () => {
  const now = new Date("2026-11-21T12:00:00Z");
  expect(parseSince("90s", now)).toBe("2026-11-21T11:58:30.000000000Z");
  expect(parseSince("15m", now)).toBe("2026-11-21T11:45:00.000000000Z");
  expect(parseSince("2h", now)).toBe("2026-11-21T10:00:00.000000000Z");
  expect(parseSince("7d", now)).toBe("2026-11-14T12:00:00.000000000Z");
  expect(parseSince("2026-11-20T08:00:00+02:00", now)).toBe("2026-11-20T06:00:00.000000000Z");
  expect(parseSince("2026-11-20T08:00", now)).toBe("2026-11-20T08:00:00.000000000Z");
  expect(() => parseSince("last week", now)).toThrow(/decisions_bad_filter/);
});
