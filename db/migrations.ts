/**
 * Versioned schema migrations, recorded in `schema_migrations`.
 *
 * Each migration runs once, in order, inside the same IMMEDIATE transaction
 * as its record, so a crash never leaves a half-applied version and two
 * processes opening a new file never both migrate (the second waits for the
 * write lock, then finds nothing pending). Migrations are append-only: never
 * edit a shipped one, add the next version.
 *
 * The tables are STRICT (SQLite checks column types) with CHECK constraints
 * mirroring the allow-lists in types.ts, so a bad value is refused by the
 * database even if a repository check is ever bypassed.
 */
import type Database from "better-sqlite3";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tenants, users, invoices",
    sql: `
CREATE TABLE tenants (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

CREATE TABLE users (
  id                   TEXT PRIMARY KEY,
  tenant_id            TEXT NOT NULL REFERENCES tenants (id),
  email                TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  display_name         TEXT NOT NULL CHECK (length(display_name) <= 100),
  locale               TEXT NOT NULL DEFAULT 'en-US',
  role                 TEXT NOT NULL CHECK (role IN ('member', 'support', 'admin')),
  -- Derived, never stored: a write path cannot set is_admin apart from role.
  is_admin             INTEGER GENERATED ALWAYS AS (role = 'admin') VIRTUAL,
  account_credit_cents INTEGER NOT NULL DEFAULT 0,
  support_priority     TEXT NOT NULL DEFAULT 'standard' CHECK (support_priority IN ('standard', 'priority', 'vip')),
  billing_plan         TEXT NOT NULL DEFAULT 'free' CHECK (billing_plan IN ('free', 'team', 'business', 'enterprise')),
  internal_notes       TEXT NOT NULL DEFAULT '',
  status               TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('invited', 'active', 'suspended', 'disabled', 'banned')),
  created_at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  -- Target of the invoices' (tenant_id, owner_id) key: an owner is always in the invoice's tenant.
  UNIQUE (tenant_id, id)
) STRICT;
-- Unique per tenant, not globally: a global index would let one tenant's
-- admin learn, by a failed invite, that an address exists in another tenant.
CREATE UNIQUE INDEX users_email_per_tenant ON users (tenant_id, email);

CREATE TABLE invoices (
  id             TEXT PRIMARY KEY,
  tenant_id      TEXT NOT NULL REFERENCES tenants (id),
  owner_id       TEXT NOT NULL,
  number         TEXT NOT NULL,
  amount_cents   INTEGER NOT NULL CHECK (amount_cents >= 0),
  currency       TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  status         TEXT NOT NULL CHECK (status IN ('draft', 'pending', 'approved', 'published', 'refunded')),
  internal_notes TEXT NOT NULL DEFAULT '',
  created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  FOREIGN KEY (tenant_id, owner_id) REFERENCES users (tenant_id, id),
  UNIQUE (tenant_id, number)
) STRICT;
CREATE INDEX invoices_by_scope ON invoices (tenant_id, owner_id, created_at);
CREATE INDEX invoices_by_tenant_time ON invoices (tenant_id, created_at);
`,
  },
  {
    version: 2,
    name: "security events (append-only)",
    sql: `
CREATE TABLE security_events (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 100),
  actor_id    TEXT NOT NULL,
  tenant_id   TEXT,
  route_id    TEXT NOT NULL,
  decision_id TEXT,
  detail      TEXT NOT NULL CHECK (json_valid(detail) AND json_type(detail) = 'object')
) STRICT;
CREATE INDEX security_events_by_time  ON security_events (at);
CREATE INDEX security_events_by_kind  ON security_events (kind, at);
CREATE INDEX security_events_by_actor ON security_events (actor_id, at);
-- Audit evidence: refused at the engine, whatever the caller. (DROP TABLE or
-- editing the file are beyond a trigger: protect the file itself.)
CREATE TRIGGER security_events_no_update BEFORE UPDATE ON security_events
BEGIN SELECT RAISE(ABORT, 'security_events is append-only: UPDATE refused'); END;
CREATE TRIGGER security_events_no_delete BEFORE DELETE ON security_events
BEGIN SELECT RAISE(ABORT, 'security_events is append-only: DELETE refused'); END;
-- INSERT OR REPLACE deletes the old row without firing DELETE triggers unless
-- the connection set recursive_triggers: refuse reuse of an id outright.
CREATE TRIGGER security_events_no_replace BEFORE INSERT ON security_events
WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM security_events WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'security_events is append-only: REPLACE refused'); END;
`,
  },
  {
    version: 3,
    name: "traffic counts (route inventory)",
    // One row per (UTC day, method, route template, version, status, actor class, probe):
    // bounded by the registry's templates, never by client-chosen paths.
    // IF NOT EXISTS: a file rolled back to an older schema record (test/db/migrations.test.ts
    // simulates one by deleting schema_migrations rows) may still hold the table.
    sql: `
CREATE TABLE IF NOT EXISTS traffic_counts (
  day         TEXT NOT NULL CHECK (length(day) = 10),
  method      TEXT NOT NULL CHECK (length(method) BETWEEN 1 AND 10),
  template    TEXT NOT NULL CHECK (length(template) BETWEEN 1 AND 200),
  version     TEXT NOT NULL CHECK (length(version) <= 40),
  status      INTEGER NOT NULL CHECK (status BETWEEN 100 AND 599),
  actor_class TEXT NOT NULL CHECK (actor_class IN ('anonymous', 'member', 'admin', 'support')),
  probe       INTEGER NOT NULL CHECK (probe IN (0, 1)),
  count       INTEGER NOT NULL CHECK (count >= 1),
  last_seen   TEXT NOT NULL,
  PRIMARY KEY (day, method, template, version, status, actor_class, probe)
) STRICT;
CREATE INDEX IF NOT EXISTS traffic_counts_by_version ON traffic_counts (version, day);
`,
  },
  {
    version: 4,
    name: "export jobs",
    // read_fields and scope are the authorizing decision's, captured at creation; the
    // last CHECKs keep a job's result, error and row scope consistent with its status and tenant.
    // IF NOT EXISTS: see version 3 (a file rolled back to an older schema record may hold the table).
    sql: `
CREATE TABLE IF NOT EXISTS export_jobs (
  id           TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
  tenant_id    TEXT NOT NULL REFERENCES tenants (id),
  requested_by TEXT NOT NULL,
  format       TEXT NOT NULL CHECK (format IN ('json', 'csv')),
  status       TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  read_fields  TEXT NOT NULL CHECK (json_valid(read_fields) AND json_type(read_fields) = 'array'),
  scope        TEXT NOT NULL CHECK (json_valid(scope) AND json_type(scope) = 'object'),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  started_at   TEXT,
  finished_at  TEXT,
  row_count    INTEGER CHECK (row_count >= 0),
  result       TEXT,
  error        TEXT CHECK (error IN ('row_limit_exceeded', 'export_failed')),
  FOREIGN KEY (tenant_id, requested_by) REFERENCES users (tenant_id, id),
  CHECK ((status = 'done') = (result IS NOT NULL AND row_count IS NOT NULL)),
  CHECK ((status = 'failed') = (error IS NOT NULL)),
  CHECK ((status IN ('done', 'failed')) = (finished_at IS NOT NULL)),
  CHECK (json_extract(scope, '$.tenant_id') = tenant_id)
) STRICT;
CREATE INDEX IF NOT EXISTS export_jobs_by_status ON export_jobs (tenant_id, status, created_at);
`,
  },
  {
    version: 5,
    name: "deprecated version callers",
    // One row per (UTC day, version, actor, client) for calls to Deprecated and Zombie versions (db/version-callers.ts).
    sql: `
CREATE TABLE IF NOT EXISTS version_callers (
  day       TEXT NOT NULL CHECK (length(day) = 10),
  version   TEXT NOT NULL CHECK (length(version) <= 40),
  actor_id  TEXT NOT NULL CHECK (length(actor_id) <= 200),
  tenant_id TEXT,
  client    TEXT NOT NULL CHECK (length(client) <= 60),
  count     INTEGER NOT NULL CHECK (count > 0),
  last_seen TEXT NOT NULL,
  PRIMARY KEY (day, version, actor_id, client)
) STRICT;
CREATE INDEX IF NOT EXISTS version_callers_by_version ON version_callers (version, day);
`,
  },
  {
    version: 6,
    name: "security events: test run",
    // The verified test run (api/identity/test-run.ts) a request belonged to, so auditors can
    // tell a matrix or inventory run's provocations from real ones; NULL for ordinary traffic.
    sql: `
ALTER TABLE security_events ADD COLUMN test_run TEXT CHECK (test_run IS NULL OR length(test_run) BETWEEN 1 AND 64);
CREATE INDEX security_events_by_run ON security_events (test_run, at) WHERE test_run IS NOT NULL;
`,
  },
  {
    version: 7,
    name: "export jobs: leases",
    // The runner that holds a running job and until when (db/exports.ts): any runner may claim a
    // job that is queued, or running with its lease expired (a runner that crashed, stalled or was
    // cut off), and every later write of the job needs the holder's name and an unexpired lease.
    // The CHECK keeps a lease whole and on running jobs only, so even a writer that ignores leases
    // (an older build during an upgrade) cannot finish or requeue a job another runner re-claimed.
    // A job running when this applies has no lease: claimable at once (its runner predates leases).
    // export_jobs_open: the jobs a poll looks for, without reading finished ones.
    sql: `
ALTER TABLE export_jobs ADD COLUMN lease_expires_at TEXT;
ALTER TABLE export_jobs ADD COLUMN lease_owner TEXT CHECK (
  (lease_owner IS NULL) = (lease_expires_at IS NULL)
  AND (lease_owner IS NULL OR (status = 'running' AND length(lease_owner) BETWEEN 1 AND 100))
);
CREATE INDEX export_jobs_open ON export_jobs (tenant_id, created_at) WHERE status IN ('queued', 'running');
`,
  },
  {
    version: 8,
    name: "export jobs: attempts",
    // Runs of the job that took a lease and never handed it back (db/exports.ts): a job that kills
    // or stalls every runner that takes it is failed after a few, instead of going round the fleet forever.
    sql: `
ALTER TABLE export_jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0);
`,
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The highest applied version, 0 for a database without migrations. */
export function currentVersion(db: Database.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (table === undefined) return 0;
  const row = db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Applies every pending migration; `afterFirst` (the seed) runs in the same
 * transaction when the database had no migrations at all, so "new database"
 * means the same thing to every concurrent opener. Returns the versions applied.
 */
export function migrate(db: Database.Database, afterFirst?: () => void): number[] {
  const run = db.transaction((): number[] => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT`);
    const from = currentVersion(db);
    if (from > LATEST_VERSION) {
      // Written by a newer Portcullis: running old code on it could corrupt it.
      throw new Error(`database schema version ${from} is newer than this build knows (${LATEST_VERSION})`);
    }
    const applied: number[] = [];
    const record = db.prepare("INSERT INTO schema_migrations (version, name) VALUES (?, ?)");
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      db.exec(m.sql);
      record.run(m.version, m.name);
      applied.push(m.version);
    }
    if (from === 0 && afterFirst) afterFirst();
    return applied;
  });
  return run.immediate();
}
