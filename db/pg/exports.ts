/**
 * The export jobs repository on PostgreSQL: db/exports.ts's methods, checks
 * and lease semantics, each *Scoped statement filtered by the scope AND run
 * under the scope's tenant for row-level security. A claim is one UPDATE
 * whose subquery locks its pick `FOR UPDATE SKIP LOCKED` (a job another
 * runner is claiming right now is skipped, not waited for); every later
 * write is fenced by the lease holder and an unexpired lease in the same
 * UPDATE; a result is written with `done` in the same statement. Lease times
 * are the database's clock (clock_timestamp(): the statement's time).
 */
import { randomUUID } from "node:crypto";
import { checkLease, checkMaxAttempts, checkReadFields, checkRunner, type NewExportJob } from "../exports";
import { checkScope } from "../scope";
import { checkId, checkOneOf } from "../sql";
import type { AsyncExportJobsRepository } from "../store";
import { DbInputError, EXPORT_ERRORS, EXPORT_FORMATS, ScopeError, type ExportJobRow, type Scope } from "../types";
import { pgErrorCode, pgScopeFilter } from "./scope";
import type { Session } from "./session";

const COLUMNS =
  "id, tenant_id, requested_by, format, status, read_fields, scope, created_at, started_at, finished_at, row_count, result, error, lease_owner, lease_expires_at, attempts";
// The statement's time, like SQLite's 'now' (now() would be the start of a caller's whole transaction).
const NOW = "date_trunc('milliseconds', clock_timestamp())";
/** What a runner may claim: queued, or running under an expired lease (or none: claimed before leases). */
const CLAIMABLE = `status IN ('queued', 'running') AND (status = 'queued' OR lease_expires_at IS NULL OR lease_expires_at <= ${NOW})`;
/** Leaving `running` ends the lease (the schema keeps a lease on running jobs only). */
const RELEASE = "lease_owner = NULL, lease_expires_at = NULL";
/** A lease of $n milliseconds from the statement's time. */
const expiry = (n: number) => `${NOW} + $${n}::integer * interval '1 millisecond'`;

export function pgExportJobsRepository(session: Session): AsyncExportJobsRepository {
  /**
   * One change of a job `runner` holds an unexpired lease on, in scope; `sets` is fixed text
   * from this module with placeholders $1..$k, values bound. The fence and the change are one statement.
   */
  const fenced = async (id: string, scope: Scope, runner: string, sets: string, values: Array<string | number>): Promise<boolean> => {
    const filter = pgScopeFilter("export_jobs", scope);
    const k = values.length;
    const result = await session.scoped(
      filter.tenantId,
      `UPDATE export_jobs SET ${sets}
       WHERE id = $${k + 1} AND ${filter.sql(k + 2)} AND status = 'running'
         AND lease_owner = $${k + 2 + filter.params.length} AND lease_expires_at > ${NOW}`,
      [...values, checkId(id), ...filter.params, checkRunner(runner)],
    );
    return result.rowCount === 1;
  };

  return {
    async createScoped(scope, job: NewExportJob) {
      const filter = pgScopeFilter("export_jobs", scope);
      const [tenantId, owner] = filter.params;
      if (typeof job !== "object" || job === null) throw new DbInputError("invalid_input", "job must be an object");
      const requestedBy = checkId(job.requestedBy, "requestedBy");
      // An owner-scoped caller reaches only its own jobs, so it may only create its own.
      if (owner !== undefined && owner !== requestedBy) throw new ScopeError("an owner-scoped caller creates export jobs for itself only");
      const rowScope = checkScope(job.rowScope);
      if (rowScope.tenant_id !== tenantId) throw new ScopeError("an export job reads rows of its own tenant only");
      try {
        const { rows } = await session.scoped<ExportJobRow>(
          tenantId,
          `INSERT INTO export_jobs (id, tenant_id, requested_by, format, read_fields, scope) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb) RETURNING ${COLUMNS}`,
          [
            `exp_${randomUUID()}`,
            tenantId,
            requestedBy,
            checkOneOf(job.format, EXPORT_FORMATS, "format"),
            JSON.stringify(checkReadFields(job.readFields)),
            JSON.stringify(rowScope),
          ],
        );
        return rows[0];
      } catch (err) {
        if (pgErrorCode(err) === "23503") throw new ScopeError("requestedBy is no user of the scope's tenant");
        throw err;
      }
    },

    async getScoped(id, scope) {
      const filter = pgScopeFilter("export_jobs", scope);
      const { rows } = await session.scoped<ExportJobRow>(filter.tenantId, `SELECT ${COLUMNS} FROM export_jobs WHERE id = $1 AND ${filter.sql(2)}`, [
        checkId(id),
        ...filter.params,
      ]);
      return rows[0];
    },

    async claimNextScoped(scope, lease) {
      const filter = pgScopeFilter("export_jobs", scope);
      const { runner, ms } = checkLease(lease);
      const n = filter.params.length;
      // The subquery picks and locks; the outer condition re-checks. seq: insertion order (ids are random).
      const { rows } = await session.scoped<ExportJobRow>(
        filter.tenantId,
        `UPDATE export_jobs SET status = 'running', started_at = ${NOW}, lease_owner = $${n + 1}, lease_expires_at = ${expiry(n + 2)}, attempts = attempts + 1
         WHERE id = (SELECT id FROM export_jobs WHERE ${filter.sql(1)} AND ${CLAIMABLE} ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
           AND ${filter.sql(1)} AND ${CLAIMABLE}
         RETURNING ${COLUMNS}`,
        [...filter.params, runner, ms],
      );
      return rows[0];
    },

    async renewLeaseScoped(id, scope, lease) {
      const { runner, ms } = checkLease(lease);
      return fenced(id, scope, runner, `lease_expires_at = ${expiry(1)}`, [ms]);
    },

    async completeScoped(id, scope, runner, outcome) {
      if (typeof outcome?.result !== "string") throw new DbInputError("invalid_input", "result must be text");
      if (!Number.isSafeInteger(outcome.rowCount) || outcome.rowCount < 0) throw new DbInputError("invalid_input", "rowCount must be a non-negative integer");
      return fenced(id, scope, runner, `status = 'done', result = $1, row_count = $2, finished_at = ${NOW}, ${RELEASE}`, [outcome.result, outcome.rowCount]);
    },

    async failScoped(id, scope, runner, error) {
      return fenced(id, scope, runner, `status = 'failed', error = $1, finished_at = ${NOW}, ${RELEASE}`, [checkOneOf(error, EXPORT_ERRORS, "error")]);
    },

    async requeueScoped(id, scope, runner) {
      return fenced(id, scope, runner, `status = 'queued', started_at = NULL, attempts = attempts - 1, ${RELEASE}`, []);
    },

    async abandonExhaustedScoped(scope, maxAttempts) {
      const filter = pgScopeFilter("export_jobs", scope);
      const n = filter.params.length;
      const { rows } = await session.scoped<{ id: string }>(
        filter.tenantId,
        `UPDATE export_jobs SET status = 'failed', error = 'export_failed', finished_at = ${NOW}, ${RELEASE}
         WHERE ${filter.sql(1)} AND status = 'running' AND lease_expires_at <= ${NOW} AND attempts >= $${n + 1}
         RETURNING id`,
        [...filter.params, checkMaxAttempts(maxAttempts)],
      );
      return rows.map((r) => r.id);
    },

    async claimableTenants() {
      // Across tenants: the SECURITY DEFINER lookup (migrations.ts, version 9), tenant ids only.
      const { rows } = await session.query<{ tenant_id: string }>("SELECT t AS tenant_id FROM portcullis_export_claimable_tenants() AS t ORDER BY t", []);
      return rows.map((r) => r.tenant_id);
    },

    async tenantOf(id) {
      // Security monitoring only: the SECURITY DEFINER lookup (migrations.ts, version 5).
      const { rows } = await session.query<{ tenant_id: string | null }>("SELECT portcullis_export_job_tenant($1) AS tenant_id", [checkId(id)]);
      return rows[0].tenant_id ?? undefined;
    },
  };
}
