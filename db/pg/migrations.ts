/**
 * PostgreSQL schema, as versioned migrations recorded in `schema_migrations`
 * (applied by migrate.ts, `npx portcullis db migrate`). Append-only: never
 * edit a shipped migration, add the next version.
 *
 * Versions 1-4 and 6 mirror db/migrations.ts (1-5) table for table, column for column,
 * with the same CHECK constraints, so a row means the same on both backends
 * and the repositories return identical rows:
 *   - timestamps are timestamptz, defaulted to the millisecond (SQLite's
 *     precision: the keyset cursor `(created_at, id)` round-trips exactly);
 *     the pool reads them back as ISO strings (pool.ts)
 *   - text that is compared or sorted is COLLATE "C" (byte order, like
 *     SQLite's BINARY), whatever the database's locale
 *   - JSON columns are json/jsonb with the same shape checks
 * Version 5 adds what SQLite cannot: privileges for the service role and
 * row-level security on every tenant table (the "second wall" of issue 23).
 * Version 8 is the decision log's store (pdp/log/store/sqlite-store.ts's tables), append-only;
 * versions 9 and 10 mirror SQLite's 7 and 8 (export job leases and attempts); version 11 adds the
 * decision log's index of failed outcomes (sqlite-store.ts creates the same on the SQLite store).
 *
 * Roles (created by whoever provisions the database; scripts/services/postgres.sh does it here):
 *   - the migrator: owns the tables; must be a member of `portcullis_lookup`, never of `portcullis_app`
 *   - `portcullis_app`: what the service connects as (or a member of it); not the owner, so RLS applies
 *   - `portcullis_lookup` (NOLOGIN): owns the three SECURITY DEFINER lookups that must cross tenants
 */

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** The role the service connects as. Fixed: the migrations grant to it by name. */
export const APP_ROLE = "portcullis_app";
/** The role owning the cross-tenant lookups (findIdentity, tenantOf). */
export const LOOKUP_ROLE = "portcullis_lookup";

/** ISO-8601 milliseconds, like SQLite's strftime('%Y-%m-%dT%H:%M:%fZ', 'now'). */
const NOW_MS = "date_trunc('milliseconds', now())";

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "tenants, users, invoices",
    sql: `
CREATE TABLE tenants (
  id         text COLLATE "C" PRIMARY KEY,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT ${NOW_MS}
);

CREATE TABLE users (
  id                   text COLLATE "C" PRIMARY KEY,
  tenant_id            text COLLATE "C" NOT NULL REFERENCES tenants (id),
  email                text COLLATE "C" NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  display_name         text COLLATE "C" NOT NULL CHECK (length(display_name) <= 100),
  locale               text NOT NULL DEFAULT 'en-US',
  role                 text NOT NULL CHECK (role IN ('member', 'support', 'admin')),
  -- Derived, never written: a write path cannot set is_admin apart from role.
  is_admin             integer GENERATED ALWAYS AS (CASE WHEN role = 'admin' THEN 1 ELSE 0 END) STORED,
  account_credit_cents bigint NOT NULL DEFAULT 0,
  support_priority     text NOT NULL DEFAULT 'standard' CHECK (support_priority IN ('standard', 'priority', 'vip')),
  billing_plan         text NOT NULL DEFAULT 'free' CHECK (billing_plan IN ('free', 'team', 'business', 'enterprise')),
  internal_notes       text NOT NULL DEFAULT '',
  status               text NOT NULL DEFAULT 'active' CHECK (status IN ('invited', 'active', 'suspended', 'disabled', 'banned')),
  created_at           timestamptz NOT NULL DEFAULT ${NOW_MS},
  -- Target of the invoices' (tenant_id, owner_id) key: an owner is always in the invoice's tenant.
  UNIQUE (tenant_id, id)
);
-- Unique per tenant, not globally: a global index would let one tenant's
-- admin learn, by a failed invite, that an address exists in another tenant.
CREATE UNIQUE INDEX users_email_per_tenant ON users (tenant_id, email);

CREATE TABLE invoices (
  id             text COLLATE "C" PRIMARY KEY,
  tenant_id      text COLLATE "C" NOT NULL REFERENCES tenants (id),
  owner_id       text COLLATE "C" NOT NULL,
  number         text COLLATE "C" NOT NULL,
  amount_cents   bigint NOT NULL CHECK (amount_cents >= 0),
  currency       text NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  status         text COLLATE "C" NOT NULL CHECK (status IN ('draft', 'pending', 'approved', 'published', 'refunded')),
  internal_notes text NOT NULL DEFAULT '',
  created_at     timestamptz NOT NULL DEFAULT ${NOW_MS},
  FOREIGN KEY (tenant_id, owner_id) REFERENCES users (tenant_id, id),
  UNIQUE (tenant_id, number)
);
CREATE INDEX invoices_by_scope ON invoices (tenant_id, owner_id, created_at);
CREATE INDEX invoices_by_tenant_time ON invoices (tenant_id, created_at);
`,
  },
  {
    version: 2,
    name: "security events (append-only)",
    // json, not jsonb: evidence is kept as it came, key order included.
    sql: `
CREATE TABLE security_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL,
  kind        text COLLATE "C" NOT NULL CHECK (length(kind) BETWEEN 1 AND 100),
  actor_id    text COLLATE "C" NOT NULL,
  tenant_id   text COLLATE "C",
  route_id    text NOT NULL,
  decision_id text,
  detail      json NOT NULL CHECK (json_typeof(detail) = 'object')
);
CREATE INDEX security_events_by_time  ON security_events (at);
CREATE INDEX security_events_by_kind  ON security_events (kind, at);
CREATE INDEX security_events_by_actor ON security_events (actor_id, at);
-- Audit evidence: refused at the engine, whatever the role (the owner included;
-- the service role is not even granted UPDATE or DELETE, see version 5).
CREATE FUNCTION security_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'security_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER security_events_no_change BEFORE UPDATE OR DELETE ON security_events
  FOR EACH ROW EXECUTE FUNCTION security_events_append_only();
CREATE TRIGGER security_events_no_truncate BEFORE TRUNCATE ON security_events
  FOR EACH STATEMENT EXECUTE FUNCTION security_events_append_only();
`,
  },
  {
    version: 3,
    name: "traffic counts (route inventory)",
    // One row per (UTC day, method, route template, version, status, actor class, probe).
    sql: `
CREATE TABLE traffic_counts (
  day         date NOT NULL,
  method      text COLLATE "C" NOT NULL CHECK (length(method) BETWEEN 1 AND 10),
  template    text COLLATE "C" NOT NULL CHECK (length(template) BETWEEN 1 AND 200),
  version     text COLLATE "C" NOT NULL CHECK (length(version) <= 40),
  status      integer NOT NULL CHECK (status BETWEEN 100 AND 599),
  actor_class text NOT NULL CHECK (actor_class IN ('anonymous', 'member', 'admin', 'support')),
  probe       integer NOT NULL CHECK (probe IN (0, 1)),
  count       bigint NOT NULL CHECK (count >= 1),
  last_seen   timestamptz NOT NULL,
  PRIMARY KEY (day, method, template, version, status, actor_class, probe)
);
CREATE INDEX traffic_counts_by_version ON traffic_counts (version, day);
`,
  },
  {
    version: 4,
    name: "export jobs",
    // seq: insertion order, the claim order's tie-break (SQLite's rowid; ids are random).
    sql: `
CREATE TABLE export_jobs (
  seq          bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  id           text COLLATE "C" PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
  tenant_id    text COLLATE "C" NOT NULL REFERENCES tenants (id),
  requested_by text COLLATE "C" NOT NULL,
  format       text NOT NULL CHECK (format IN ('json', 'csv')),
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  read_fields  jsonb NOT NULL CHECK (jsonb_typeof(read_fields) = 'array'),
  scope        jsonb NOT NULL CHECK (jsonb_typeof(scope) = 'object'),
  created_at   timestamptz NOT NULL DEFAULT ${NOW_MS},
  started_at   timestamptz,
  finished_at  timestamptz,
  row_count    bigint CHECK (row_count >= 0),
  result       text,
  error        text CHECK (error IN ('row_limit_exceeded', 'export_failed')),
  FOREIGN KEY (tenant_id, requested_by) REFERENCES users (tenant_id, id),
  CHECK ((status = 'done') = (result IS NOT NULL AND row_count IS NOT NULL)),
  CHECK ((status = 'failed') = (error IS NOT NULL)),
  CHECK ((status IN ('done', 'failed')) = (finished_at IS NOT NULL)),
  CHECK (scope ->> 'tenant_id' = tenant_id)
);
CREATE INDEX export_jobs_by_status ON export_jobs (tenant_id, status, created_at);
`,
  },
  {
    version: 5,
    name: "service role privileges, row-level security, cross-tenant lookups",
    sql: `
-- The service role gets exactly what the repositories do, column by column
-- for updates: no DELETE anywhere, no UPDATE of role, tenant, owner or amounts.
GRANT SELECT ON tenants, schema_migrations TO ${APP_ROLE};
GRANT SELECT, INSERT ON users, invoices, export_jobs TO ${APP_ROLE};
GRANT UPDATE (display_name, locale, status) ON users TO ${APP_ROLE};
GRANT UPDATE (status) ON invoices TO ${APP_ROLE};
GRANT UPDATE (status, started_at, finished_at, row_count, result, error) ON export_jobs TO ${APP_ROLE};
GRANT SELECT, INSERT ON security_events TO ${APP_ROLE};
GRANT SELECT, INSERT, UPDATE (count, last_seen) ON traffic_counts TO ${APP_ROLE};

-- The second wall: a row of a tenant table is visible and writable only in a
-- transaction that gave portcullis.tenant its tenant (set_config(..., true),
-- i.e. SET LOCAL: it ends with the transaction, so a pooled connection never
-- carries a tenant into the next one). Unset or empty: no row at all.
-- FORCE: the owner is held to the same policy (a service misconfigured to
-- connect as the owner still cannot cross tenants).
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE users FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON users
  USING (tenant_id = current_setting('portcullis.tenant', true))
  WITH CHECK (tenant_id = current_setting('portcullis.tenant', true));
ALTER TABLE invoices ENABLE ROW LEVEL SECURITY;
ALTER TABLE invoices FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON invoices
  USING (tenant_id = current_setting('portcullis.tenant', true))
  WITH CHECK (tenant_id = current_setting('portcullis.tenant', true));
ALTER TABLE export_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE export_jobs FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON export_jobs
  USING (tenant_id = current_setting('portcullis.tenant', true))
  WITH CHECK (tenant_id = current_setting('portcullis.tenant', true));

-- Three reads must cross tenants by design: authentication finds a token's
-- user before any tenant is known, and security monitoring names the tenant
-- of a probed id. They are functions owned by portcullis_lookup, the only
-- role with a cross-tenant policy, which may read only the columns they return.
-- The policy also demands current_user = the lookup role itself, which holds
-- only INSIDE those SECURITY DEFINER functions: the owner, a member of
-- portcullis_lookup (to hand it the functions), inherits the policy's role
-- but never passes its condition when querying directly.
GRANT SELECT (id, tenant_id, role, status) ON users TO ${LOOKUP_ROLE};
GRANT SELECT (id, tenant_id) ON invoices, export_jobs TO ${LOOKUP_ROLE};
CREATE POLICY cross_tenant_lookup ON users FOR SELECT TO ${LOOKUP_ROLE} USING (current_user = '${LOOKUP_ROLE}');
CREATE POLICY cross_tenant_lookup ON invoices FOR SELECT TO ${LOOKUP_ROLE} USING (current_user = '${LOOKUP_ROLE}');
CREATE POLICY cross_tenant_lookup ON export_jobs FOR SELECT TO ${LOOKUP_ROLE} USING (current_user = '${LOOKUP_ROLE}');

CREATE FUNCTION portcullis_find_identity(user_id text)
  RETURNS TABLE (id text, tenant_id text, role text, status text)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $$ SELECT u.id, u.tenant_id, u.role, u.status FROM public.users u WHERE u.id = user_id $$;
CREATE FUNCTION portcullis_invoice_tenant(invoice_id text) RETURNS text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $$ SELECT i.tenant_id FROM public.invoices i WHERE i.id = invoice_id $$;
CREATE FUNCTION portcullis_export_job_tenant(job_id text) RETURNS text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $$ SELECT j.tenant_id FROM public.export_jobs j WHERE j.id = job_id $$;
-- A new owner needs CREATE on the schema at the moment of the change only.
GRANT CREATE ON SCHEMA public TO ${LOOKUP_ROLE};
ALTER FUNCTION portcullis_find_identity(text) OWNER TO ${LOOKUP_ROLE};
ALTER FUNCTION portcullis_invoice_tenant(text) OWNER TO ${LOOKUP_ROLE};
ALTER FUNCTION portcullis_export_job_tenant(text) OWNER TO ${LOOKUP_ROLE};
REVOKE CREATE ON SCHEMA public FROM ${LOOKUP_ROLE};
REVOKE ALL ON FUNCTION portcullis_find_identity(text), portcullis_invoice_tenant(text), portcullis_export_job_tenant(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION portcullis_find_identity(text), portcullis_invoice_tenant(text), portcullis_export_job_tenant(text) TO ${APP_ROLE};
`,
  },
  {
    version: 6,
    name: "deprecated version callers",
    // Mirrors SQLite's version 5 (db/version-callers.ts). Like security_events, not a tenant
    // table: tenant_id is the caller's (nullable), and operators read it across tenants.
    sql: `
CREATE TABLE version_callers (
  day       date NOT NULL,
  version   text COLLATE "C" NOT NULL CHECK (length(version) <= 40),
  actor_id  text COLLATE "C" NOT NULL CHECK (length(actor_id) <= 200),
  tenant_id text COLLATE "C",
  client    text COLLATE "C" NOT NULL CHECK (length(client) <= 60),
  count     bigint NOT NULL CHECK (count > 0),
  last_seen timestamptz NOT NULL,
  PRIMARY KEY (day, version, actor_id, client)
);
CREATE INDEX version_callers_by_version ON version_callers (version, day);
GRANT SELECT, INSERT, UPDATE (count, last_seen) ON version_callers TO ${APP_ROLE};
`,
  },
  {
    version: 7,
    name: "security events: test run",
    // As SQLite's version 6: the verified test run a request belonged to; NULL for ordinary traffic.
    // The table-level grants of version 5 cover the new column.
    sql: `
ALTER TABLE security_events ADD COLUMN test_run text COLLATE "C" CHECK (test_run IS NULL OR length(test_run) BETWEEN 1 AND 64);
CREATE INDEX security_events_by_run ON security_events (test_run, at) WHERE test_run IS NOT NULL;
`,
  },
  {
    version: 8,
    name: "decision log: decisions, outcomes, run markers",
    // pdp/log/store/sqlite-store.ts's tables on PostgreSQL (the decision log of every instance, one trail):
    // the same columns and the same indexes for the same queries (pdp/log/store/query.ts), plus
    // decisions.run_id, the instance (run) that wrote the row, since several write at once.
    // `timestamp` stays the log's text (RFC 3339 UTC, nine fraction digits: timestamptz
    // keeps microseconds only), checked so text order is time order, as on SQLite.
    // Append-only at two levels: the service role is granted INSERT and SELECT only, and
    // triggers refuse UPDATE, DELETE and TRUNCATE for every role (the owner included).
    // No row-level policy: auditors read the trail across tenants.
    sql: `
CREATE TABLE decisions (
  seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  decision_id text COLLATE "C" NOT NULL UNIQUE,
  timestamp   text COLLATE "C" NOT NULL CHECK (timestamp ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{9}Z$'),
  path        text COLLATE "C",
  actor_id    text COLLATE "C",
  allowed     smallint NOT NULL CHECK (allowed IN (0, 1)),
  status      integer,
  reason      text COLLATE "C",
  revision    text COLLATE "C",
  run_id      text COLLATE "C" NOT NULL,
  -- json, not jsonb: the event is kept as the log wrote it, key order included.
  event       json NOT NULL CHECK (json_typeof(event) = 'object')
);
CREATE INDEX decisions_by_time  ON decisions (timestamp);
CREATE INDEX decisions_by_actor ON decisions (actor_id, timestamp);
CREATE INDEX decisions_by_path  ON decisions (path, timestamp);
CREATE INDEX decisions_denied   ON decisions (timestamp) WHERE allowed = 0;
-- What a restart counts for an interrupted run (runs.ts): its rows, its last one.
CREATE INDEX decisions_by_run   ON decisions (run_id, seq);

CREATE TABLE outcomes (
  seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  decision_id text COLLATE "C" NOT NULL UNIQUE,
  timestamp   text COLLATE "C" NOT NULL CHECK (timestamp ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{9}Z$'),
  method      text COLLATE "C" NOT NULL,
  http_path   text COLLATE "C" NOT NULL,
  route_id    text COLLATE "C",
  version     text COLLATE "C",
  actor_id    text COLLATE "C" NOT NULL,
  status      integer NOT NULL,
  problem     text COLLATE "C",
  scope_found smallint CHECK (scope_found IN (0, 1)),
  test_run    text COLLATE "C",
  aborted     smallint NOT NULL CHECK (aborted IN (0, 1))
);
CREATE INDEX outcomes_by_time  ON outcomes (timestamp);
CREATE INDEX outcomes_by_path  ON outcomes (http_path, timestamp);
CREATE INDEX outcomes_by_route ON outcomes (route_id, timestamp);
CREATE INDEX outcomes_by_run   ON outcomes (test_run, timestamp) WHERE test_run IS NOT NULL;

-- One row per log start, clean stop, and interrupted run found at a start (pdp/log/runs.ts).
CREATE TABLE log_runs (
  seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id  text COLLATE "C" NOT NULL,
  kind    text NOT NULL CHECK (kind IN ('start', 'clean_stop', 'interrupted')),
  at      text COLLATE "C" NOT NULL,
  detail  json NOT NULL CHECK (json_typeof(detail) = 'object')
);
CREATE INDEX log_runs_by_run ON log_runs (run_id, kind);
-- An interrupted run is recorded once, whichever instance finds it first.
CREATE UNIQUE INDEX log_runs_interrupted_once ON log_runs (run_id) WHERE kind = 'interrupted';

CREATE FUNCTION decision_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the decision log is append-only: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER decisions_no_change BEFORE UPDATE OR DELETE ON decisions FOR EACH ROW EXECUTE FUNCTION decision_log_append_only();
CREATE TRIGGER decisions_no_truncate BEFORE TRUNCATE ON decisions FOR EACH STATEMENT EXECUTE FUNCTION decision_log_append_only();
CREATE TRIGGER outcomes_no_change BEFORE UPDATE OR DELETE ON outcomes FOR EACH ROW EXECUTE FUNCTION decision_log_append_only();
CREATE TRIGGER outcomes_no_truncate BEFORE TRUNCATE ON outcomes FOR EACH STATEMENT EXECUTE FUNCTION decision_log_append_only();
CREATE TRIGGER log_runs_no_change BEFORE UPDATE OR DELETE ON log_runs FOR EACH ROW EXECUTE FUNCTION decision_log_append_only();
CREATE TRIGGER log_runs_no_truncate BEFORE TRUNCATE ON log_runs FOR EACH STATEMENT EXECUTE FUNCTION decision_log_append_only();

GRANT SELECT, INSERT ON decisions, outcomes, log_runs TO ${APP_ROLE};
`,
  },
  {
    version: 9,
    name: "export jobs: leases",
    // As SQLite's version 7: the runner holding a running job and until when, a lease whole and on
    // running jobs only (even an older build's writes cannot finish a job another runner re-claimed).
    // portcullis_export_claimable_tenants: what every runner polls for, one statement whatever the
    // number of tenants; it crosses tenants, so it is one more SECURITY DEFINER lookup of version 5's
    // kind (owned by the lookup role, which may read only the columns it needs), returning tenant ids only.
    sql: `
ALTER TABLE export_jobs ADD COLUMN lease_owner text COLLATE "C";
ALTER TABLE export_jobs ADD COLUMN lease_expires_at timestamptz;
ALTER TABLE export_jobs ADD CONSTRAINT export_jobs_lease CHECK (
  (lease_owner IS NULL) = (lease_expires_at IS NULL)
  AND (lease_owner IS NULL OR (status = 'running' AND length(lease_owner) BETWEEN 1 AND 100))
);
CREATE INDEX export_jobs_open ON export_jobs (tenant_id, created_at) WHERE status IN ('queued', 'running');
GRANT UPDATE (lease_owner, lease_expires_at) ON export_jobs TO ${APP_ROLE};

GRANT SELECT (status, lease_expires_at) ON export_jobs TO ${LOOKUP_ROLE};
CREATE FUNCTION portcullis_export_claimable_tenants() RETURNS SETOF text
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $$ SELECT DISTINCT j.tenant_id FROM public.export_jobs j
        WHERE j.status IN ('queued', 'running')
          AND (j.status = 'queued' OR j.lease_expires_at IS NULL OR j.lease_expires_at <= clock_timestamp()) $$;
GRANT CREATE ON SCHEMA public TO ${LOOKUP_ROLE};
ALTER FUNCTION portcullis_export_claimable_tenants() OWNER TO ${LOOKUP_ROLE};
REVOKE CREATE ON SCHEMA public FROM ${LOOKUP_ROLE};
REVOKE ALL ON FUNCTION portcullis_export_claimable_tenants() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION portcullis_export_claimable_tenants() TO ${APP_ROLE};
`,
  },
  {
    version: 10,
    name: "export jobs: attempts",
    // As SQLite's version 8: runs of the job that took a lease and never handed it back.
    sql: `
ALTER TABLE export_jobs ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0);
GRANT UPDATE (attempts) ON export_jobs TO ${APP_ROLE};
`,
  },
  {
    version: 11,
    name: "decision log: failed outcomes index",
    // As pdp/log/store/sqlite-store.ts's outcomes_failed: the requests that ended in an error, which
    // `portcullis decisions --denied` reads through it (with decisions_denied) when they are rare,
    // instead of walking the log by time (pdp/log/store/query.ts). Partial: the bulk of outcomes
    // (successes) only has its status compared. Built in the migration's transaction, which holds
    // outcomes' inserts (the log sinks retry them) while it reads the table once.
    sql: `
CREATE INDEX IF NOT EXISTS outcomes_failed ON outcomes (timestamp) WHERE status >= 400;
`,
  },
  {
    version: 12,
    name: "decision log: a run interrupted once per life",
    // A run that a start recorded interrupted while its lease was between connections, and that
    // resumed (a second 'start' row, pdp/log/store/runs.ts PgRun), can really die later: that
    // death needs an 'interrupted' row of its own. Unique per start row ended (detail.start_seq)
    // instead of per run; rows written before this version have no start_seq and stay as they are.
    sql: `
DROP INDEX log_runs_interrupted_once;
CREATE UNIQUE INDEX log_runs_interrupted_once ON log_runs (run_id, (detail ->> 'start_seq')) WHERE kind = 'interrupted';
`,
  },
];

export const PG_LATEST_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version;
