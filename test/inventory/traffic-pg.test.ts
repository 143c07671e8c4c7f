/**
 * The inventory's traffic from a PostgreSQL data store: what two instances
 * counted into one database is read back as one sum (readTrafficPg), and
 * `inventory` / `versions` read it when PORTCULLIS_DATABASE_URL is set and
 * no --db names a SQLite file (loadTraffic). An unreachable database is a
 * note, not a crash, and never prints the password.
 */
import { loadTraffic } from "../../cli/inventory";
import { parseArgs } from "../../cli/args";
import { openPgStore } from "../../db/pg";
import { readTrafficPg } from "../../inventory/sources/traffic";
import { clonePgDatabase } from "../db/contract/backends";

jest.setTimeout(120_000);

let db: Awaited<ReturnType<typeof clonePgDatabase>>;
beforeAll(async () => {
  db = await clonePgDatabase();
  // Two instances on one database, each summing its own hits in memory.
  const instances = [await openPgStore({ url: db.urls.app }), await openPgStore({ url: db.urls.app })];
  const hit = { method: "GET", template: "/api/{version}/users/me", version: "v1", status: 200, actorClass: "member" as const };
  instances[0].traffic.count(hit);
  instances[0].traffic.count(hit);
  instances[1].traffic.count(hit);
  instances[1].traffic.count({ ...hit, version: "beta" });
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
  const traffic = await readTrafficPg(db.urls.app, since);
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
  const traffic = await readTrafficPg(url.toString(), since);
  expect(traffic.observations).toEqual([]);
  expect(traffic.notes).toHaveLength(1);
  expect(traffic.notes[0]).toMatch(/^traffic database postgres:\/\/127\.0\.0\.1:1\/portcullis_test_\w+ unreadable: /);
  expect(traffic.notes[0]).not.toContain(url.password);
});
