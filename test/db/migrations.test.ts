/**
 * Opening the database: directories created, WAL and foreign keys on,
 * migrations versioned, recorded and idempotent, seed only for a new file,
 * read-only opens that never create or migrate.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { LATEST_VERSION, openDatabase } from "../../db";
import { MIGRATIONS } from "../../db/migrations";
import { closeTempDb, openTempDb, type TempDb } from "./helpers";

let t: TempDb | undefined;
afterEach(() => closeTempDb(t));

function raw(file: string): Database.Database {
  return new Database(file);
}

test("creates the directories and the file, in WAL mode, at the latest version", () => {
  t = openTempDb();
  expect(fs.existsSync(t.file)).toBe(true);
  expect(t.db.schemaVersion).toBe(LATEST_VERSION);
  const r = raw(t.file);
  expect(r.pragma("journal_mode", { simple: true })).toBe("wal");
  const versions = r.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all();
  expect(versions).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  r.close();
});

test("a new file is readable by its owner only", () => {
  t = openTempDb();
  expect(fs.statSync(t.file).mode & 0o777).toBe(0o600);
  expect(fs.statSync(`${t.file}-wal`).mode & 0o777).toBe(0o600);
});

test("versions are strictly increasing and unique", () => {
  const versions = MIGRATIONS.map((m) => m.version);
  expect(versions).toEqual([...versions].sort((a, b) => a - b));
  expect(new Set(versions).size).toBe(versions.length);
});

test("opening twice is idempotent: no new migrations, no second seed", () => {
  t = openTempDb();
  t.db.close();
  const again = openDatabase(t.file, { seed: true });
  t.db = again;
  expect(again.tenants.list()).toHaveLength(2);
  const r = raw(t.file);
  expect((r.prepare("SELECT COUNT(*) AS n FROM schema_migrations").get() as { n: number }).n).toBe(MIGRATIONS.length);
  expect((r.prepare("SELECT COUNT(*) AS n FROM users").get() as { n: number }).n).toBe(9);
  r.close();
});

test("seeds only a database that is new", () => {
  t = openTempDb({ seed: false });
  expect(t.db.tenants.list()).toEqual([]);
  t.db.close();
  t.db = openDatabase(t.file, { seed: true });
  expect(t.db.tenants.list()).toEqual([]);
});

test("foreign keys are enforced on the connection", () => {
  t = openTempDb();
  // An invite into a tenant that does not exist must fail on the foreign key, not insert an orphan.
  expect(() => t!.db.users.inviteScoped({ tenant_id: "t_nowhere" }, { email: "x@y.example", role: "member" })).toThrow(/no tenant/);
});

test("applies only the pending migrations of an older database", () => {
  t = openTempDb({ seed: false });
  t.db.close();
  // Simulate a file written by a build that knew only version 1 (without the tables later versions alter).
  const r = raw(t.file);
  r.exec("DROP TABLE security_events; DROP TABLE export_jobs; DELETE FROM schema_migrations WHERE version > 1");
  r.close();
  t.db = openDatabase(t.file);
  t.db.securityEvents.record({ kind: "k", actorId: "a", tenantId: null, routeId: "r", detail: {} });
  expect(t.db.securityEvents.query({})).toHaveLength(1);
});

test("refuses a database written by a newer build", () => {
  t = openTempDb({ seed: false });
  t.db.close();
  const r = raw(t.file);
  r.prepare("INSERT INTO schema_migrations (version, name) VALUES (?, 'from the future')").run(LATEST_VERSION + 1);
  r.close();
  expect(() => openDatabase(t!.file)).toThrow(/newer/);
});

test("a failing migration leaves nothing behind", () => {
  t = openTempDb({ seed: false });
  t.db.close();
  const r = raw(t.file);
  r.exec("DROP TABLE security_events; DELETE FROM schema_migrations WHERE version > 1; CREATE TABLE security_events_by_time (x)");
  r.close();
  // Version 2's index name now collides with a table: the migration must fail as a whole.
  expect(() => openDatabase(t!.file)).toThrow();
  const check = raw(t.file);
  expect(check.prepare("SELECT MAX(version) AS v FROM schema_migrations").get()).toEqual({ v: 1 });
  expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'security_events'").get()).toBeUndefined();
  check.close();
});

describe("read-only open", () => {
  test("refuses a missing file without creating it", () => {
    t = openTempDb();
    const missing = path.join(t.dir, "absent.db");
    expect(() => openDatabase(missing, { readonly: true })).toThrow(/no database/);
    expect(fs.existsSync(missing)).toBe(false);
  });

  test("reads, and refuses writes", () => {
    t = openTempDb();
    const ro = openDatabase(t.file, { readonly: true });
    try {
      expect(ro.tenants.list()).toHaveLength(2);
      expect(() => ro.securityEvents.record({ kind: "k", actorId: "a", tenantId: null, routeId: "r", detail: {} })).toThrow(/readonly/i);
    } finally {
      ro.close();
    }
  });

  test("refuses an unmigrated file", () => {
    t = openTempDb();
    const empty = path.join(t.dir, "empty.db");
    new Database(empty).close();
    expect(() => openDatabase(empty, { readonly: true })).toThrow(/schema version 0/);
  });
});
