/**
 * The export jobs repository on PostgreSQL: db/exports.ts's methods and
 * checks, each *Scoped statement filtered by the scope AND run under the
 * scope's tenant for row-level security. Every status change is one
 * conditional UPDATE (`... AND status = <from>`), so two runners never both
 * claim a job; a result is written with `done` in the same statement.
 */
import { randomUUID } from "node:crypto";
import { checkReadFields, type NewExportJob } from "../exports";
import { checkScope } from "../scope";
import { checkId, checkOneOf } from "../sql";
import type { AsyncExportJobsRepository } from "../store";
import { DbInputError, EXPORT_ERRORS, EXPORT_FORMATS, ScopeError, type ExportJobRow, type ExportStatus, type Scope } from "../types";
import { pgErrorCode, pgScopeFilter } from "./scope";
import type { Session } from "./session";

const COLUMNS = "id, tenant_id, requested_by, format, status, read_fields, scope, created_at, started_at, finished_at, row_count, result, error";
// The statement's time, like SQLite's 'now' (now() would be the start of a caller's whole transaction).
const NOW = "date_trunc('milliseconds', clock_timestamp())";

export function pgExportJobsRepository(session: Session): AsyncExportJobsRepository {
  /** One status change of one job in scope, only from `from`; `sets` is fixed text from this module with placeholders $1..$k, values bound. */
  const transition = async (id: string, scope: Scope, from: ExportStatus, sets: string, values: Array<string | number>): Promise<boolean> => {
    const filter = pgScopeFilter("export_jobs", scope);
    const k = values.length;
    const result = await session.scoped(
      filter.tenantId,
      `UPDATE export_jobs SET ${sets} WHERE id = $${k + 1} AND ${filter.sql(k + 2)} AND status = $${k + 2 + filter.params.length}`,
      [...values, checkId(id), ...filter.params, from],
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

    async claimNextScoped(scope) {
      const filter = pgScopeFilter("export_jobs", scope);
      // The subquery picks and locks (SKIP LOCKED: a job another runner is claiming right now is
      // skipped, not waited for); the outer condition re-checks. seq: insertion order (ids are random).
      const { rows } = await session.scoped<ExportJobRow>(
        filter.tenantId,
        `UPDATE export_jobs SET status = 'running', started_at = ${NOW}
         WHERE id = (SELECT id FROM export_jobs WHERE ${filter.sql(1)} AND status = 'queued' ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
           AND ${filter.sql(1)} AND status = 'queued'
         RETURNING ${COLUMNS}`,
        filter.params,
      );
      return rows[0];
    },

    async completeScoped(id, scope, outcome) {
      if (typeof outcome?.result !== "string") throw new DbInputError("invalid_input", "result must be text");
      if (!Number.isSafeInteger(outcome.rowCount) || outcome.rowCount < 0) throw new DbInputError("invalid_input", "rowCount must be a non-negative integer");
      return transition(id, scope, "running", `status = 'done', result = $1, row_count = $2, finished_at = ${NOW}`, [outcome.result, outcome.rowCount]);
    },

    async failScoped(id, scope, error) {
      return transition(id, scope, "running", `status = 'failed', error = $1, finished_at = ${NOW}`, [checkOneOf(error, EXPORT_ERRORS, "error")]);
    },

    async requeueScoped(id, scope) {
      return transition(id, scope, "running", "status = 'queued', started_at = NULL", []);
    },

    async requeueRunningScoped(scope) {
      const filter = pgScopeFilter("export_jobs", scope);
      const result = await session.scoped(
        filter.tenantId,
        `UPDATE export_jobs SET status = 'queued', started_at = NULL WHERE ${filter.sql(1)} AND status = 'running'`,
        filter.params,
      );
      return result.rowCount ?? 0;
    },

    async tenantOf(id) {
      // Security monitoring only: the SECURITY DEFINER lookup (migrations.ts, version 5).
      const { rows } = await session.query<{ tenant_id: string | null }>("SELECT portcullis_export_job_tenant($1) AS tenant_id", [checkId(id)]);
      return rows[0].tenant_id ?? undefined;
    },
  };
}
