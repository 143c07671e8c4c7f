/**
 * The two backends the ONE repository contract suite runs against:
 *
 *   describe.each(BACKENDS)("$name", (backend) => {
 *     const t = useBackend(backend);
 *     test("...", async () => expect(await t.store.users.getScoped(...)).toEqual(...));
 *   });
 *
 * Before each test, a store on a database holding exactly the seed:
 *   - sqlite: a new file in a temp dir (db/index.ts), behind db/sqlite-store.ts
 *   - postgres: per test file, a database cloned from a template that
 *     `migratePg` migrated and seeded once (per schema: its name carries a
 *     hash of the migrations and the seed), reset to the seed before each
 *     test; the store connects as the service role portcullis_app.
 *
 * PostgreSQL comes from scripts/services/postgres.sh: `make test` starts it
 * before jest and stops it after; run alone, the suite starts it itself (the
 * script is idempotent: an already running cluster is reused and left running).
 * If it cannot start, the suite FAILS: a contract nobody checked is not kept.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import pg from "pg";
import { createPool, openPgStore } from "../../../db/pg";
import { migratePg } from "../../../db/pg/migrate";
import { PG_MIGRATIONS } from "../../../db/pg/migrations";
import { seedPg } from "../../../db/pg/seed";
import { SEED_INVOICES, SEED_TENANTS, SEED_USERS } from "../../../db/seed";
import { openDatabase } from "../../../db";
import { sqliteStore } from "../../../db/sqlite-store";
import type { DataStore } from "../../../db/store";
import { closeTempDb, openTempDb } from "../helpers";

export interface OpenBackend {
  store: DataStore;
  /** Another store on the same database (after `store` was closed, say); closed with the test. */
  reopen(): Promise<DataStore>;
  /** PostgreSQL only: URLs of this test's own database, as the service role and as the owner. */
  urls?: { app: string; owner: string };
  close(): Promise<void>;
}

export interface Backend {
  name: "sqlite" | "postgres";
  /** A store on a database holding exactly the seed. */
  open(): Promise<OpenBackend>;
  /** After the file's last test. */
  dispose(): Promise<void>;
}

/**
 * Registers the hooks: a fresh seeded store before each test, closed after
 * it, the backend disposed after the file. The returned object is filled in
 * before each test (read its fields inside tests, not at describe time).
 */
export function useBackend(backend: Backend): OpenBackend {
  const current = {} as OpenBackend;
  beforeEach(async () => Object.assign(current, await backend.open()));
  afterEach(() => current.close());
  afterAll(() => backend.dispose());
  return current;
}

const ROOT = path.resolve(__dirname, "../../..");

export interface PgUrls {
  app: string;
  owner: string;
}

let serverUrls: PgUrls | undefined;

/** Starts (or finds running) the private cluster and reads its URLs; throws when it cannot. */
export function pgServer(): PgUrls {
  if (serverUrls) return serverUrls;
  execFileSync(path.join(ROOT, "scripts/services/postgres.sh"), ["start"], { stdio: ["ignore", "ignore", "inherit"], timeout: 180_000 });
  const env = Object.fromEntries(
    fs
      .readFileSync(path.join(ROOT, "var/postgres.env"), "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  if (!env.PORTCULLIS_DATABASE_URL || !env.PORTCULLIS_DATABASE_OWNER_URL) throw new Error("var/postgres.env lacks the database URLs");
  serverUrls = { app: env.PORTCULLIS_DATABASE_URL, owner: env.PORTCULLIS_DATABASE_OWNER_URL };
  return serverUrls;
}

/** The same server and role, another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = "/" + database;
  return u.toString();
}

/** A template per schema and seed: a changed migration gets a new template, never a stale one. */
const TEMPLATE = `portcullis_tpl_${createHash("sha256")
  .update(JSON.stringify([PG_MIGRATIONS, SEED_TENANTS, SEED_USERS, SEED_INVOICES]))
  .digest("hex")
  .slice(0, 12)}`;
const TEMPLATE_LOCK = 0x74706c; // "tpl": parallel jest workers build the template once

async function ensureTemplate(urls: PgUrls): Promise<void> {
  const admin = new pg.Client({ connectionString: urls.owner });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [TEMPLATE]);
    // The name is built above from a hex digest, never from input.
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    await migratePg(withDatabase(urls.owner, TEMPLATE), { seed: true }); // a no-op once done
  } finally {
    await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]).catch(() => undefined);
    await admin.end();
  }
}

let templateReady: Promise<void> | undefined;

/** A seeded database cloned from the template (about 0.2 s: once per test file, see POSTGRES). */
export async function clonePgDatabase(): Promise<{ urls: PgUrls; drop(): Promise<void> }> {
  const server = pgServer();
  await (templateReady ??= ensureTemplate(server));
  const name = `portcullis_test_${randomBytes(6).toString("hex")}`;
  await asOwner(server.owner, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE} STRATEGY FILE_COPY`));
  return {
    urls: { app: withDatabase(server.app, name), owner: withDatabase(server.owner, name) },
    drop: () =>
      asOwner(server.owner, async (c) => {
        await serviceSessionsGone(c, name);
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/**
 * Waits until no service-role session is left on the database: a client's
 * end() resolves before the server has seen its socket close, and the owner
 * may not end another role's sessions, so DROP ... WITH (FORCE) would fail.
 * Names what is left after 10 s (a test that never closed a connection).
 */
async function serviceSessionsGone(owner: pg.Client, database: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await owner.query<{ application_name: string }>(
      "SELECT application_name FROM pg_stat_activity WHERE datname = $1 AND usename = 'portcullis_app'",
      [database],
    );
    if (rows.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`service-role connections left open on ${database}: ${rows.map((r) => r.application_name || "(unnamed)").join(", ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function asOwner<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Back to the seed, in one transaction as the owner. DELETE, not TRUNCATE:
 * on tables this small it is several times faster (TRUNCATE makes new
 * files). FORCE row-level security holds the owner too, so the tenant rows
 * are deleted tenant by tenant (the seed's tenants are the only ones: every
 * other tenant_id is refused by the foreign keys). The append-only trigger
 * is lifted for this transaction only: a test database, never a real one.
 */
const RESET_SQL = `
BEGIN;
ALTER TABLE security_events DISABLE TRIGGER security_events_no_change;
DELETE FROM security_events;
ALTER TABLE security_events ENABLE TRIGGER security_events_no_change;
ALTER TABLE security_events ALTER COLUMN id RESTART;
ALTER TABLE export_jobs ALTER COLUMN seq RESTART;
DELETE FROM traffic_counts;
DELETE FROM version_callers;`;

async function resetPgDatabase(owner: pg.Client): Promise<void> {
  try {
    await owner.query(RESET_SQL);
    for (const tenant of SEED_TENANTS) {
      await owner.query("SELECT set_config('portcullis.tenant', $1, true)", [tenant.id]);
      await owner.query("DELETE FROM export_jobs; DELETE FROM invoices; DELETE FROM users;");
    }
    await owner.query("DELETE FROM tenants");
    await seedPg(owner);
    await owner.query("COMMIT");
  } catch (err) {
    await owner.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

export const SQLITE: Backend = {
  name: "sqlite",
  async open() {
    const temp = openTempDb();
    const stores = [sqliteStore(temp.db)];
    return {
      store: stores[0],
      async reopen() {
        stores.push(sqliteStore(openDatabase(temp.file)));
        return stores[stores.length - 1];
      },
      async close() {
        for (const store of stores) await store.close().catch(() => undefined); // a test may have closed it
        closeTempDb(temp);
      },
    };
  },
  async dispose() {},
};

/**
 * One database per test FILE (jest loads this module once per file), reset
 * to the seed before each test, with one owner connection and one service
 * pool for the file: a password (SCRAM) login costs more than a test.
 */
let file: { db: { urls: PgUrls; drop(): Promise<void> }; owner: pg.Client; pool: pg.Pool } | undefined;

export const POSTGRES: Backend = {
  name: "postgres",
  async open() {
    if (file === undefined) {
      const db = await clonePgDatabase();
      const owner = new pg.Client({ connectionString: db.urls.owner });
      await owner.connect();
      file = { db, owner, pool: createPool({ url: db.urls.app, max: 4 }) };
    } else {
      await resetPgDatabase(file.owner);
    }
    const pool = file.pool;
    const stores = [await openPgStore({ pool })];
    return {
      store: stores[0],
      urls: file.db.urls,
      async reopen() {
        stores.push(await openPgStore({ pool }));
        return stores[stores.length - 1];
      },
      async close() {
        for (const store of stores) await store.close().catch(() => undefined);
      },
    };
  },
  async dispose() {
    if (file === undefined) return;
    const { db, owner, pool } = file;
    file = undefined;
    await pool.end();
    await owner.end();
    await db.drop();
  },
};

export const BACKENDS: Backend[] = [SQLITE, POSTGRES];
