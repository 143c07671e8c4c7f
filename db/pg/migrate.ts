/**
 * Applies the PostgreSQL migrations (migrations.ts), each once, in order,
 * in ONE transaction with their `schema_migrations` records: PostgreSQL's DDL
 * is transactional, so a failure leaves the database exactly as it was. An
 * advisory lock held for that transaction serialises concurrent migrators
 * (several instances starting at once): the second waits, then finds
 * nothing pending.
 *
 *   await migratePg(ownerUrl, { seed: true });   // `npx portcullis db migrate [--seed]`
 *
 * The migrator must be the tables' owner, never the service role: a service
 * that owned its tables could switch their row-level security off.
 */
import pg from "pg";
import { APP_ROLE, LOOKUP_ROLE, PG_LATEST_VERSION, PG_MIGRATIONS } from "./migrations";
import { seedPg } from "./seed";

/** Any number, fixed: the advisory lock every Portcullis migrator takes. */
const MIGRATION_LOCK = 0x706f7274; // "port"

export class MigrationError extends Error {
  override readonly name = "MigrationError";
  constructor(
    /** Stable code for callers and the CLI. */
    readonly code: "role_missing" | "migrator_is_service_role" | "migrator_not_lookup_member" | "schema_too_new",
    message: string,
  ) {
    super(message);
  }
}

export interface MigrateResult {
  from: number;
  to: number;
  applied: number[];
  seeded: boolean;
}

/** The highest applied version; 0 when the database has no schema_migrations table. */
export async function pgSchemaVersion(client: pg.ClientBase): Promise<number> {
  const table = await client.query<{ t: string | null }>("SELECT to_regclass('public.schema_migrations')::text AS t");
  if (table.rows[0].t === null) return 0;
  const row = await client.query<{ v: number | null }>("SELECT MAX(version) AS v FROM schema_migrations");
  return row.rows[0].v ?? 0;
}

async function checkRoles(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ app: boolean; lookup: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS app, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2) AS lookup",
    [APP_ROLE, LOOKUP_ROLE],
  );
  if (!rows[0].app || !rows[0].lookup) {
    throw new MigrationError(
      "role_missing",
      `roles ${APP_ROLE} and ${LOOKUP_ROLE} must exist before migrating (scripts/services/postgres.sh creates them; see db/README.md)`,
    );
  }
  const member = await client.query<{ app: boolean; lookup: boolean }>(
    "SELECT pg_has_role(current_user, $1, 'MEMBER') AS app, pg_has_role(current_user, $2, 'MEMBER') AS lookup",
    [APP_ROLE, LOOKUP_ROLE],
  );
  if (member.rows[0].app) {
    throw new MigrationError(
      "migrator_is_service_role",
      `migrate as the tables' owner (PORTCULLIS_DATABASE_OWNER_URL), not as ${APP_ROLE} or a member of it: tables the service owned, it could take out of row-level security`,
    );
  }
  if (!member.rows[0].lookup) {
    throw new MigrationError(
      "migrator_not_lookup_member",
      `the migrating role must be a member of ${LOOKUP_ROLE} (GRANT ${LOOKUP_ROLE} TO <owner>) to give it the cross-tenant lookups`,
    );
  }
}

/** Migrates the database at `url` (as its owner); seeds it when `seed` and the database was new. */
export async function migratePg(url: string, options: { seed?: boolean } = {}): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: url, application_name: "portcullis-migrate" });
  await client.connect();
  try {
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      await checkRoles(client);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const from = await pgSchemaVersion(client);
      if (from > PG_LATEST_VERSION) {
        throw new MigrationError("schema_too_new", `database schema version ${from} is newer than this build knows (${PG_LATEST_VERSION})`);
      }
      const pending = PG_MIGRATIONS.filter((m) => m.version > from);
      for (const m of pending) {
        await client.query(m.sql);
        await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      }
      const seeded = from === 0 && options.seed === true;
      if (seeded) await seedPg(client);
      await client.query("COMMIT");
      return { from, to: PG_LATEST_VERSION, applied: pending.map((m) => m.version), seeded };
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  } finally {
    await client.end();
  }
}
