/**
 * The inventory's counts from a PostgreSQL data store: what two instances
 * counted into one database is read back as one sum (readTraffic), and
 * `inventory` / `versions` read it when PORTCULLIS_DATABASE_URL is set and
 * no --db names a SQLite file (loadTraffic): the traffic, the callers of
 * deprecated versions, the version trend and the roles of an access log's
 * actors all come from that one store. An unreachable database is a note,
 * not a crash, and never prints the password.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { loadTraffic } from "../../cli/inventory";
import { parseArgs } from "../../cli/args";
import { openPgStore } from "../../db/pg";
import { readTraffic } from "../../inventory/sources/traffic";
import { clonePgDatabase } from "../db/contract/backends";
import { bundleFile, runCli, tempDir } from "./cli-helper";

jest.setTimeout(120_000);

let db: Awaited<ReturnType<typeof clonePgDatabase>>;
let supportId: string;
beforeAll(async () => {
  db = await clonePgDatabase();
  // Two instances on one database, each summing its own hits in memory.
  const instances = [await openPgStore({ url: db.urls.app }), await openPgStore({ url: db.urls.app })];
  const hit = { method: "GET", template: "/api/{version}/users/me", version: "v1", status: 200, actorClass: "member" as const };
  instances[0].traffic.count(hit);
  instances[0].traffic.count(hit);
  instances[1].traffic.count(hit);
  instances[1].traffic.count({ ...hit, version: "beta" });
  const call = { version: "v1", actorId: "u_alice", tenantId: "t_acme", client: "mobile-app/3.2" };
  instances[0].versionCallers.count(call);
  instances[1].versionCallers.count(call);
  instances[1].versionCallers.count({ ...call, actorId: "u_bob", client: "partner-sync/1.0" });
  // An account only this database has: an access log's actor must be classed by the store's own users table.
  supportId = (await instances[0].users.inviteScoped({ tenant_id: "t_acme" }, { email: "pg-only@acme.test", role: "support" })).id;
  for (const store of instances) await store.close(); // close writes what each held
});
afterAll(() => db?.drop());

const since = "2000-01-01";
const usersMe = (observations: Array<{ template: string; version: string; count: number }>) =>
  observations
    .filter((o) => o.template === "/api/{version}/users/me")
    .map((o) => [o.version, o.count])
    .sort();

test("the counts of every instance, summed in one table, read back as one", async () => {
  const traffic = await readTraffic({ kind: "postgres", url: db.urls.app }, since);
  expect(traffic.notes).toEqual([]);
  expect(usersMe(traffic.observations)).toEqual([
    ["beta", 1],
    ["v1", 3],
  ]);
  // Named without credentials.
  expect(traffic.from).toHaveLength(1);
  expect(traffic.from[0]).toMatch(/^postgres:\/\/127\.0\.0\.1:\d+\/portcullis_test_/);
  expect(traffic.from[0]).not.toContain("@");
});

test("inventory reads PostgreSQL when PORTCULLIS_DATABASE_URL is set, and --db still names a SQLite file", async () => {
  const now = new Date();
  const fromPg = await loadTraffic(parseArgs([], {}), now, { PORTCULLIS_DATABASE_URL: db.urls.app });
  expect(usersMe(fromPg.observations)).toEqual([
    ["beta", 1],
    ["v1", 3],
  ]);
  const fromFile = await loadTraffic(parseArgs(["--db", "/nonexistent/portcullis.db"], { values: { "--db": "db" } }), now, {
    PORTCULLIS_DATABASE_URL: db.urls.app,
  });
  expect(fromFile.observations).toEqual([]);
  expect(fromFile.notes).toEqual(["no traffic database at /nonexistent/portcullis.db"]);
});

test("an unreachable database is a note that names it without its password", async () => {
  const url = new URL(db.urls.app);
  url.port = "1"; // nothing listens there
  const traffic = await readTraffic({ kind: "postgres", url: url.toString() }, since);
  expect(traffic.observations).toEqual([]);
  expect(traffic.notes).toHaveLength(1);
  expect(traffic.notes[0]).toMatch(/^traffic database postgres:\/\/127\.0\.0\.1:1\/portcullis_test_\w+ unreadable: /);
  expect(traffic.notes[0]).not.toContain(url.password);
});

test("versions reads who calls deprecated versions, and the trend, from the same PostgreSQL database", async () => {
  const run = await runCli(["versions", "--json", "--bundle", bundleFile()], { env: { PORTCULLIS_DATABASE_URL: db.urls.app } });
  expect(run.code).toBe(0);
  const report = JSON.parse(run.stdout) as {
    callers: Array<Record<string, unknown>>;
    trend: { days: string[]; versions: Record<string, number[]> };
    notes: string[];
  };
  expect(report.callers).toEqual([
    { version: "v1", actor: "u_alice", tenant: "t_acme", client: "mobile-app/3.2", requests: 2, lastSeen: expect.any(String) },
    { version: "v1", actor: "u_bob", tenant: "t_acme", client: "partner-sync/1.0", requests: 1, lastSeen: expect.any(String) },
  ]);
  // Today's requests, summed over both instances, on the last day of the window.
  expect(report.trend.versions.v1?.at(-1)).toBe(3);
  expect(report.trend.versions.beta?.at(-1)).toBe(1);
  expect(report.notes.filter((n) => /database/.test(n))).toEqual([]);
});

test("an access log's actors are classed by the users table of the store the traffic comes from", async () => {
  const dir = tempDir();
  const log = path.join(dir, "access.log");
  const line = (actor: string) =>
    JSON.stringify({ event: "http.request", time: new Date().toISOString(), method: "GET", path: "/users/me", status: 200, actor });
  fs.writeFileSync(log, [line(supportId), line("u_carol"), line("u_nobody"), line("anonymous")].join("\n") + "\n");
  try {
    const args = parseArgs(["--log", log], { values: { "--log": "log" } });
    const classes = (t: Awaited<ReturnType<typeof loadTraffic>>) =>
      t.observations
        .filter((o) => o.template === "/users/me")
        .map((o) => [o.actorClass, o.count])
        .sort();
    const fromPg = await loadTraffic(args, new Date(), { PORTCULLIS_DATABASE_URL: db.urls.app });
    expect(classes(fromPg)).toEqual([
      ["admin", 1],
      ["anonymous", 1],
      ["member", 1],
      ["support", 1],
    ]);
    // No store to ask (a --db file that does not exist): every named actor counts as a member.
    const noStore = await loadTraffic(parseArgs(["--log", log, "--db", path.join(dir, "none.db")], { values: { "--log": "log", "--db": "db" } }), new Date(), {
      PORTCULLIS_DATABASE_URL: db.urls.app,
    });
    expect(classes(noStore)).toEqual([
      ["anonymous", 1],
      ["member", 3],
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
