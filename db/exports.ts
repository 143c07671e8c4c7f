/**
 * The export jobs repository: every read and write goes THROUGH a scope
 * (`tenant_id = ? [AND requested_by = ?]`), like the invoices. A job of
 * another tenant is indistinguishable from a missing one.
 *
 * A job moves queued -> running -> done | failed, each step one conditional
 * UPDATE. Several runners (one per instance) share the table, so a running
 * job carries a LEASE: the runner that claimed it (`lease_owner`) and until
 * when (`lease_expires_at`, the database's clock, so instances' clocks never
 * disagree about it). A runner claims the oldest job that is queued, or
 * running under an expired lease (its runner crashed, stalled or lost the
 * database), in one statement: two runners never both claim a job. Every
 * later write of the job (renew, complete, fail, requeue) is fenced by the
 * holder's name AND an unexpired lease in the same UPDATE, so a runner that
 * lost its lease never writes over the new holder's run; a result is written
 * together with status `done` (one statement), so no reader sees half of one.
 *
 *   const job = db.exportJobs.createScoped(scope, { requestedBy, format: "csv", readFields, rowScope });
 *   const lease = { runner: "host:1234:ab12", ms: 30_000 };
 *   const claimed = db.exportJobs.claimNextScoped({ tenant_id: job.tenant_id }, lease);   // the runner
 *   db.exportJobs.renewLeaseScoped(claimed.id, scope, lease);                              // while it works
 *   db.exportJobs.completeScoped(claimed.id, scope, lease.runner, { result, rowCount });   // false: lease lost
 */
import { randomUUID } from "node:crypto";
import { checkScope, scopeFilter } from "./scope";
import { checkId, checkOneOf, type Prepare } from "./sql";
import { DbInputError, EXPORT_ERRORS, EXPORT_FORMATS, ScopeError, type ExportError, type ExportFormat, type ExportJobRow, type Scope } from "./types";

export interface NewExportJob {
  requestedBy: string;
  format: ExportFormat;
  /** The authorizing decision's read fields and row scope, captured now; the scope must stay in the job's tenant. */
  readFields: readonly string[];
  rowScope: Scope;
}

/** A runner's hold on the jobs it claims: its name, and how long a claim or renewal holds. */
export interface Lease {
  /** Unique per runner (api/exports/runner.ts: host, process and a random part); at most 100 characters. */
  runner: string;
  /** From the database's now; 0 is already expired (a claim another runner may take at once). */
  ms: number;
}

export interface ExportJobsRepository {
  /** Stores a queued job in the scope's tenant. */
  createScoped(scope: Scope, job: NewExportJob): ExportJobRow;
  getScoped(id: string, scope: Scope): ExportJobRow | undefined;
  /**
   * Claims the scope's oldest job that is queued, or running with an expired
   * (or no) lease: it becomes running, held by `lease`; undefined when there is none.
   */
  claimNextScoped(scope: Scope, lease: Lease): ExportJobRow | undefined;
  /** Extends the runner's unexpired lease to `lease.ms` from now; false when it no longer holds one (lost: stop the run). */
  renewLeaseScoped(id: string, scope: Scope, lease: Lease): boolean;
  /** running -> done with its result and row count; false unless `runner` holds an unexpired lease on it in scope. */
  completeScoped(id: string, scope: Scope, runner: string, outcome: { result: string; rowCount: number }): boolean;
  /** running -> failed with an error code (no result is ever stored for a failed job); fenced as completeScoped. */
  failScoped(id: string, scope: Scope, runner: string, error: ExportError): boolean;
  /** running -> queued, lease released: a run stopped by shutdown starts from scratch on any runner at once (and counts as no attempt); fenced as completeScoped. */
  requeueScoped(id: string, scope: Scope, runner: string): boolean;
  /**
   * running under an expired lease after `maxAttempts` claims -> failed with
   * `export_failed`: a job that kills or stalls every runner taking it is not
   * claimed again. Returns the ids it failed.
   */
  abandonExhaustedScoped(scope: Scope, maxAttempts: number): string[];
  /**
   * The runners' poll, across tenants: the tenants that have a job to claim
   * now (queued, or running under an expired lease). Tenant ids only, never
   * returned to a caller.
   */
  claimableTenants(): string[];
  /**
   * Security monitoring only: the tenant a job id belongs to, so a probe for
   * another tenant's job is recorded as cross-tenant. Never returned to a
   * caller and never used to authorize.
   */
  tenantOf(id: string): string | undefined;
}

const COLUMNS =
  "id, tenant_id, requested_by, format, status, read_fields, scope, created_at, started_at, finished_at, row_count, result, error, lease_owner, lease_expires_at, attempts";
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
/** The longest lease a runner may take: a longer one would keep a dead runner's job waiting that long. */
export const MAX_LEASE_MS = 3_600_000;
/** More names than any field view holds: a longer list is a bug upstream, not a bigger export. */
const MAX_READ_FIELDS = 100;

type StoredJob = Omit<ExportJobRow, "read_fields" | "scope"> & { read_fields: string; scope: string };

/**
 * The JSON columns are valid JSON (the schema checks it). The scope is not
 * checked here but where it is used: every *Scoped read refuses a bad one,
 * so a damaged job fails on its own instead of breaking every read of the table.
 */
function toRow(stored: StoredJob | undefined): ExportJobRow | undefined {
  if (stored === undefined) return undefined;
  return { ...stored, read_fields: JSON.parse(stored.read_fields) as string[], scope: JSON.parse(stored.scope) as Scope };
}

export function checkReadFields(fields: unknown): string[] {
  if (!Array.isArray(fields) || fields.length > MAX_READ_FIELDS || !fields.every((f) => typeof f === "string" && f.length >= 1 && f.length <= 100)) {
    throw new DbInputError("invalid_input", `readFields must be a list of at most ${MAX_READ_FIELDS} field names`);
  }
  return [...fields];
}

export function checkLease(lease: unknown): Lease {
  const { runner, ms } = (typeof lease === "object" && lease !== null ? lease : {}) as Partial<Lease>;
  if (typeof runner !== "string" || runner.length < 1 || runner.length > 100)
    throw new DbInputError("invalid_input", "lease.runner must be 1 to 100 characters");
  if (!Number.isSafeInteger(ms) || (ms as number) < 0 || (ms as number) > MAX_LEASE_MS)
    throw new DbInputError("invalid_input", `lease.ms must be a whole number of milliseconds from 0 to ${MAX_LEASE_MS}`);
  return { runner, ms: ms as number };
}

export function checkMaxAttempts(maxAttempts: unknown): number {
  if (!Number.isSafeInteger(maxAttempts) || (maxAttempts as number) < 1) throw new DbInputError("invalid_input", "maxAttempts must be a whole number from 1");
  return maxAttempts as number;
}

export function checkRunner(runner: unknown): string {
  return checkLease({ runner, ms: 0 }).runner;
}

function isForeignKeyError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "SQLITE_CONSTRAINT_FOREIGNKEY";
}

/** A lease of `?` milliseconds from the statement's now (SQLite's 'now' is fixed for one statement). */
const EXPIRY = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (? / 1000.0) || ' seconds')";
/** What a runner may claim: queued, or running under an expired lease (or none: claimed before leases). */
const CLAIMABLE = `status IN ('queued', 'running') AND (status = 'queued' OR lease_expires_at IS NULL OR lease_expires_at <= ${NOW})`;
/** Leaving `running` ends the lease (the schema keeps a lease on running jobs only). */
const RELEASE = "lease_owner = NULL, lease_expires_at = NULL";

export function exportJobsRepository(prepare: Prepare): ExportJobsRepository {
  /**
   * One change of a job `runner` holds an unexpired lease on, in scope; `sets` is
   * fixed text from this module, values are bound. The fence and the change are one statement.
   */
  const fenced = (id: string, scope: Scope, runner: string, sets: string, values: Array<string | number>): boolean => {
    const filter = scopeFilter("export_jobs", scope);
    const info = prepare(
      `UPDATE export_jobs SET ${sets} WHERE id = ? AND ${filter.sql} AND status = 'running' AND lease_owner = ? AND lease_expires_at > ${NOW}`,
    ).run(...values, checkId(id), ...filter.params, checkRunner(runner));
    return info.changes === 1;
  };

  return {
    createScoped(scope, job) {
      const filter = scopeFilter("export_jobs", scope);
      const [tenantId, owner] = filter.params;
      if (typeof job !== "object" || job === null) throw new DbInputError("invalid_input", "job must be an object");
      const requestedBy = checkId(job.requestedBy, "requestedBy");
      // An owner-scoped caller reaches only its own jobs, so it may only create its own.
      if (owner !== undefined && owner !== requestedBy) throw new ScopeError("an owner-scoped caller creates export jobs for itself only");
      const rowScope = checkScope(job.rowScope);
      if (rowScope.tenant_id !== tenantId) throw new ScopeError("an export job reads rows of its own tenant only");
      try {
        return toRow(
          prepare(`INSERT INTO export_jobs (id, tenant_id, requested_by, format, read_fields, scope) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`).get(
            `exp_${randomUUID()}`,
            tenantId,
            requestedBy,
            checkOneOf(job.format, EXPORT_FORMATS, "format"),
            JSON.stringify(checkReadFields(job.readFields)),
            JSON.stringify(rowScope),
          ) as StoredJob,
        ) as ExportJobRow;
      } catch (err) {
        if (isForeignKeyError(err)) throw new ScopeError("requestedBy is no user of the scope's tenant");
        throw err;
      }
    },

    getScoped(id, scope) {
      const filter = scopeFilter("export_jobs", scope);
      return toRow(prepare(`SELECT ${COLUMNS} FROM export_jobs WHERE id = ? AND ${filter.sql}`).get(checkId(id), ...filter.params) as StoredJob | undefined);
    },

    claimNextScoped(scope, lease) {
      const filter = scopeFilter("export_jobs", scope);
      const { runner, ms } = checkLease(lease);
      // The subquery picks, the outer condition re-checks: of two claimers, one UPDATE wins.
      // rowid breaks ties of jobs created in the same millisecond: insertion order (ids are random).
      return toRow(
        prepare(
          `UPDATE export_jobs SET status = 'running', started_at = ${NOW}, lease_owner = ?, lease_expires_at = ${EXPIRY}, attempts = attempts + 1
           WHERE id = (SELECT id FROM export_jobs WHERE ${filter.sql} AND ${CLAIMABLE} ORDER BY created_at, rowid LIMIT 1)
             AND ${filter.sql} AND ${CLAIMABLE}
           RETURNING ${COLUMNS}`,
        ).get(runner, ms, ...filter.params, ...filter.params) as StoredJob | undefined,
      );
    },

    renewLeaseScoped(id, scope, lease) {
      const { runner, ms } = checkLease(lease);
      return fenced(id, scope, runner, `lease_expires_at = ${EXPIRY}`, [ms]);
    },

    completeScoped(id, scope, runner, outcome) {
      if (typeof outcome?.result !== "string") throw new DbInputError("invalid_input", "result must be text");
      if (!Number.isSafeInteger(outcome.rowCount) || outcome.rowCount < 0) throw new DbInputError("invalid_input", "rowCount must be a non-negative integer");
      return fenced(id, scope, runner, `status = 'done', result = ?, row_count = ?, finished_at = ${NOW}, ${RELEASE}`, [outcome.result, outcome.rowCount]);
    },

    failScoped(id, scope, runner, error) {
      return fenced(id, scope, runner, `status = 'failed', error = ?, finished_at = ${NOW}, ${RELEASE}`, [checkOneOf(error, EXPORT_ERRORS, "error")]);
    },

    requeueScoped(id, scope, runner) {
      return fenced(id, scope, runner, `status = 'queued', started_at = NULL, attempts = attempts - 1, ${RELEASE}`, []);
    },

    abandonExhaustedScoped(scope, maxAttempts) {
      const filter = scopeFilter("export_jobs", scope);
      const rows = prepare(
        `UPDATE export_jobs SET status = 'failed', error = 'export_failed', finished_at = ${NOW}, ${RELEASE}
         WHERE ${filter.sql} AND status = 'running' AND lease_expires_at <= ${NOW} AND attempts >= ?
         RETURNING id`,
      ).all(...filter.params, checkMaxAttempts(maxAttempts)) as Array<{ id: string }>;
      return rows.map((r) => r.id);
    },

    claimableTenants() {
      const rows = prepare(`SELECT DISTINCT tenant_id FROM export_jobs WHERE ${CLAIMABLE} ORDER BY tenant_id`).all() as Array<{ tenant_id: string }>;
      return rows.map((r) => r.tenant_id);
    },

    tenantOf(id) {
      const row = prepare("SELECT tenant_id FROM export_jobs WHERE id = ?").get(checkId(id)) as { tenant_id: string } | undefined;
      return row?.tenant_id;
    },
  };
}
