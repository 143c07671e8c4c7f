/**
 * `portcullis events`, run in-process on a real database file: the table,
 * JSON lines, filters, usage errors, read-only access and escaped hostile text.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { main } from "../../cli";
import { parseSince, printable } from "../../cli/events";
import { closeTempDb, openTempDb, type TempDb } from "./helpers";

let t: TempDb;
let out: string[];

beforeEach(() => {
  t = openTempDb();
  const ev = t.db.securityEvents;
  ev.record({
    kind: "cross_tenant_read",
    actorId: "u_alice",
    tenantId: "t_acme",
    routeId: "invoices.get",
    detail: { target: "inv_dave_1" },
    decisionId: "d-1",
  });
  ev.record({ kind: "forbidden_param", actorId: "u_bob", tenantId: "t_acme", routeId: "users.list", detail: { param: "debug", value: "\u001b[2J\u202e" } });
  t.db.close();
  out = [];
  jest.spyOn(console, "log").mockImplementation((...args: unknown[]) => void out.push(args.join(" ")));
  jest.spyOn(console, "error").mockImplementation((...args: unknown[]) => void out.push(args.join(" ")));
});

afterEach(() => {
  jest.restoreAllMocks();
  closeTempDb(t);
});

test("prints a table, newest first", async () => {
  expect(await main(["events", "--db", t.file])).toBe(0);
  const text = out.join("\n");
  const lines = text.split("\n");
  expect(lines[0]).toMatch(/^TIME \(UTC\)\s+KIND\s+ACTOR\s+TENANT\s+ROUTE\s+DECISION ID\s+TEST RUN\s+DETAIL$/);
  expect(lines[1]).toContain("forbidden_param");
  expect(lines[2]).toMatch(/cross_tenant_read\s+u_alice\s+t_acme\s+invoices\.get\s+d-1\s+-\s+\{"target":"inv_dave_1"\}/);
  expect(lines[3]).toBe("2 events");
});

test("escapes control and bidi characters from event text", async () => {
  await main(["events", "--db", t.file, "--kind", "forbidden_param"]);
  const text = out.join("\n");
  // eslint-disable-next-line no-control-regex -- no escape character may reach the terminal
  expect(text).not.toMatch(/[\u001b\u202e]/);
  expect(text).toContain("\\u001b[2J");
  expect(printable("a\u202eb\u0007")).toBe("a\\u202eb\\u0007");
  out.length = 0;
  await main(["events", "--db", t.file, "--kind", "forbidden_param", "--json"]);
  // eslint-disable-next-line no-control-regex -- nor the JSON output
  expect(out[0]).not.toMatch(/[\u001b\u202e]/);
  expect(JSON.parse(out[0]).detail.value).toBe("\u001b[2J\u202e");
});

test("--json prints one parsed event per line", async () => {
  expect(await main(["events", "--db", t.file, "--json", "--actor", "u_alice"])).toBe(0);
  expect(out).toHaveLength(1);
  expect(JSON.parse(out[0])).toMatchObject({
    id: 1,
    kind: "cross_tenant_read",
    actor_id: "u_alice",
    tenant_id: "t_acme",
    route_id: "invoices.get",
    decision_id: "d-1",
    detail: { target: "inv_dave_1" },
  });
});

test("filters: --kind, --since, --limit", async () => {
  await main(["events", "--db", t.file, "--json", "--kind", "forbidden_param"]);
  expect(out.map((l) => JSON.parse(l).actor_id)).toEqual(["u_bob"]);
  out.length = 0;
  await main(["events", "--db", t.file, "--json", "--since", "1h"]);
  expect(out).toHaveLength(2);
  out.length = 0;
  await main(["events", "--db", t.file, "--json", "--since", "2999-01-01"]);
  expect(out).toHaveLength(0);
  out.length = 0;
  await main(["events", "--db", t.file, "--limit", "1"]);
  expect(out.join("\n")).toContain("(newest 1 shown; --limit N for more)");
  out.length = 0;
  await main(["events", "--db", t.file, "--kind", "nothing"]);
  expect(out).toEqual(["no security events match"]);
});

test.each([[["--limit", "0"]], [["--limit", "abc"]], [["--since", "last tuesday"]], [["--bogus"]], [["positional"]]])("usage error for %j", async (args) => {
  expect(await main(["events", "--db", t.file, ...args])).toBe(2);
  expect(out.join("\n")).toContain("usage: portcullis");
});

test("a missing database is an error, and is not created", async () => {
  const missing = path.join(t.dir, "absent.db");
  expect(await main(["events", "--db", missing])).toBe(1);
  expect(out.join("\n")).toContain("no database at");
  expect(fs.existsSync(missing)).toBe(false);
});

test("parseSince: durations and dates, zone-less times are UTC", () => {
  const now = new Date("2026-11-21T15:00:00.000Z");
  expect(parseSince("90s", now)).toBe("2026-11-21T14:58:30.000Z");
  expect(parseSince("2h", now)).toBe("2026-11-21T13:00:00.000Z");
  expect(parseSince("7d", now)).toBe("2026-11-14T15:00:00.000Z");
  expect(parseSince("2026-11-21", now)).toBe("2026-11-21T00:00:00.000Z");
  expect(parseSince("2026-11-21T14:00", now)).toBe("2026-11-21T14:00:00.000Z");
  expect(parseSince("2026-11-21T14:00:00+01:00", now)).toBe("2026-11-21T13:00:00.000Z");
});
