/**
 * The PostgreSQL migrator and `portcullis db migrate`: every version once,
 * in order, recorded; concurrent migrators serialised; the service role
 * refused; a schema newer than the build refused; nothing half-applied.
 */
import pg from "pg";
import { dbCommand } from "../../../cli/db";
import { UsageError } from "../../../cli/args";
import { migratePg, MigrationError } from "../../../db/pg/migrate";
import { PG_LATEST_VERSION, PG_MIGRATIONS } from "../../../db/pg/migrations";
import { pgServer, withDatabase } from "../contract/backends";

let server: { app: string; owner: string };
let name: string;
let urls: { app: string; owner: string };

async function ownerQuery<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

beforeEach(async () => {
  server = pgServer();
  name = `portcullis_migrate_${process.pid}_${Date.now()}`;
  await ownerQuery(server.owner, `CREATE DATABASE ${name}`);
  urls = { app: withDatabase(server.app, name), owner: withDatabase(server.owner, name) };
});
afterEach(async () => {
  await ownerQuery(server.owner, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

test("applies every version once, in order, and records each", async () => {
  expect(await migratePg(urls.owner)).toEqual({ from: 0, to: PG_LATEST_VERSION, applied: PG_MIGRATIONS.map((m) => m.version), seeded: false });
  expect(await migratePg(urls.owner, { seed: true })).toEqual({ from: PG_LATEST_VERSION, to: PG_LATEST_VERSION, applied: [], seeded: false });
  const rows = await ownerQuery<{ version: number; name: string }>(urls.owner, "SELECT version, name FROM schema_migrations ORDER BY version");
  expect(rows).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  expect(await ownerQuery(urls.owner, "SELECT 1 FROM tenants")).toEqual([]); // no seed unless asked on a new database
});

test("seeds a new database when asked, in the same transaction", async () => {
  expect((await migratePg(urls.owner, { seed: true })).seeded).toBe(true);
  expect(await ownerQuery(urls.owner, "SELECT id FROM tenants ORDER BY id")).toEqual([{ id: "t_acme" }, { id: "t_globex" }]);
});

test("concurrent migrators: one applies, the other waits and finds nothing pending", async () => {
  const results = await Promise.all([migratePg(urls.owner), migratePg(urls.owner), migratePg(urls.owner)]);
  expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, PG_MIGRATIONS.length]);
});

test("the service role may not migrate, and nothing is created", async () => {
  await expect(migratePg(urls.app)).rejects.toMatchObject({ name: "MigrationError", code: "migrator_is_service_role" });
  expect(await ownerQuery(urls.owner, "SELECT to_regclass('public.schema_migrations') AS t")).toEqual([{ t: null }]);
});

test("a schema newer than this build is refused, untouched", async () => {
  await migratePg(urls.owner);
  await ownerQuery(urls.owner, "INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')");
  const err = await migratePg(urls.owner).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MigrationError);
  expect(err).toMatchObject({ code: "schema_too_new" });
});

describe("portcullis db migrate", () => {
  test("migrates PORTCULLIS_DATABASE_OWNER_URL and says what it did, never the URL", async () => {
    const log = jest.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      expect(await dbCommand(["migrate", "--seed"], { PORTCULLIS_DATABASE_OWNER_URL: urls.owner, PORTCULLIS_DATABASE_URL: urls.app })).toBe(0);
      expect(await dbCommand(["migrate"], { PORTCULLIS_DATABASE_OWNER_URL: urls.owner })).toBe(0);
      const printed = log.mock.calls.map((c) => String(c[0]));
      expect(printed).toEqual([
        `schema version 0 -> ${PG_LATEST_VERSION}: applied ${PG_MIGRATIONS.map((m) => m.version).join(", ")}; seeded`,
        `schema version ${PG_LATEST_VERSION} -> ${PG_LATEST_VERSION}: nothing to apply`,
      ]);
      for (const line of printed) expect(line).not.toContain(new URL(urls.owner).password);
    } finally {
      log.mockRestore();
    }
  });

  test("without a URL, with a non-PostgreSQL URL, or another subcommand: a usage error", async () => {
    await expect(dbCommand(["migrate"], {})).rejects.toThrow(UsageError);
    await expect(dbCommand(["migrate"], { PORTCULLIS_DATABASE_URL: "mysql://x@y/z" })).rejects.toThrow(UsageError);
    await expect(dbCommand(["drop"], { PORTCULLIS_DATABASE_OWNER_URL: urls.owner })).rejects.toThrow(UsageError);
    await expect(dbCommand(["migrate", "extra"], { PORTCULLIS_DATABASE_OWNER_URL: urls.owner })).rejects.toThrow(UsageError);
  });
});
