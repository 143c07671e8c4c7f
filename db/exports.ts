/**
 * The export jobs repository: every read and write goes THROUGH a scope
 * (`tenant_id = ? [AND requested_by = ?]`), like the invoices. A job of
 * another tenant is indistinguishable from a missing one.
 *
 * A job moves queued -> running -> done | failed, each step one conditional
 * UPDATE (`... AND status = <from>`): two runners can never both claim a
 * job, and a result is written together with status `done` in the same
 * statement (one transaction), so no reader ever sees half of an export.
 *
 *   const job = db.exportJobs.createScoped(scope, { requestedBy, format: "csv", readFields, rowScope });
 *   db.exportJobs.claimNextScoped({ tenant_id: job.tenant_id });   // the runner
 */
import { randomUUID } from "node:crypto";
import { checkScope, scopeFilter } from "./scope";
import { checkId, checkOneOf, type Prepare } from "./sql";
import {
  DbInputError,
  EXPORT_ERRORS,
  EXPORT_FORMATS,
  ScopeError,
  type ExportError,
  type ExportFormat,
  type ExportJobRow,
  type ExportStatus,
  type Scope,
} from "./types";

export interface NewExportJob {
  requestedBy: string;
  format: ExportFormat;
  /** The authorizing decision's read fields and row scope, captured now; the scope must stay in the job's tenant. */
  readFields: readonly string[];
  rowScope: Scope;
}

export interface ExportJobsRepository {
  /** Stores a queued job in the scope's tenant. */
  createScoped(scope: Scope, job: NewExportJob): ExportJobRow;
  getScoped(id: string, scope: Scope): ExportJobRow | undefined;
  /** Claims the oldest queued job in scope (queued -> running); undefined when none is queued. */
  claimNextScoped(scope: Scope): ExportJobRow | undefined;
  /** running -> done with its result and row count; false when the job was not running in scope. */
  completeScoped(id: string, scope: Scope, outcome: { result: string; rowCount: number }): boolean;
  /** running -> failed with an error code (no result is ever stored for a failed job). */
  failScoped(id: string, scope: Scope, error: ExportError): boolean;
  /** running -> queued: a run stopped by shutdown starts again from scratch later. */
  requeueScoped(id: string, scope: Scope): boolean;
  /** Every running job in scope -> queued (at start-up: whoever ran them died with the process); returns how many. */
  requeueRunningScoped(scope: Scope): number;
  /**
   * Security monitoring only: the tenant a job id belongs to, so a probe for
   * another tenant's job is recorded as cross-tenant. Never returned to a
   * caller and never used to authorize.
   */
  tenantOf(id: string): string | undefined;
}

const COLUMNS = "id, tenant_id, requested_by, format, status, read_fields, scope, created_at, started_at, finished_at, row_count, result, error";
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
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

function isForeignKeyError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "SQLITE_CONSTRAINT_FOREIGNKEY";
}

export function exportJobsRepository(prepare: Prepare): ExportJobsRepository {
  /** One status change of one job in scope, only from `from`; `sets` is fixed text from this module, values are bound. */
  const transition = (id: string, scope: Scope, from: ExportStatus, sets: string, values: Array<string | number>): boolean => {
    const filter = scopeFilter("export_jobs", scope);
    const info = prepare(`UPDATE export_jobs SET ${sets} WHERE id = ? AND ${filter.sql} AND status = ?`).run(...values, checkId(id), ...filter.params, from);
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

    claimNextScoped(scope) {
      const filter = scopeFilter("export_jobs", scope);
      // The subquery picks, the outer condition re-checks: of two claimers, one UPDATE wins.
      // rowid breaks ties of jobs created in the same millisecond: insertion order (ids are random).
      return toRow(
        prepare(
          `UPDATE export_jobs SET status = 'running', started_at = ${NOW}
           WHERE id = (SELECT id FROM export_jobs WHERE ${filter.sql} AND status = 'queued' ORDER BY created_at, rowid LIMIT 1)
             AND ${filter.sql} AND status = 'queued'
           RETURNING ${COLUMNS}`,
        ).get(...filter.params, ...filter.params) as StoredJob | undefined,
      );
    },

    completeScoped(id, scope, outcome) {
      if (typeof outcome?.result !== "string") throw new DbInputError("invalid_input", "result must be text");
      if (!Number.isSafeInteger(outcome.rowCount) || outcome.rowCount < 0) throw new DbInputError("invalid_input", "rowCount must be a non-negative integer");
      return transition(id, scope, "running", `status = 'done', result = ?, row_count = ?, finished_at = ${NOW}`, [outcome.result, outcome.rowCount]);
    },

    failScoped(id, scope, error) {
      return transition(id, scope, "running", `status = 'failed', error = ?, finished_at = ${NOW}`, [checkOneOf(error, EXPORT_ERRORS, "error")]);
    },

    requeueScoped(id, scope) {
      return transition(id, scope, "running", "status = 'queued', started_at = NULL", []);
    },

    requeueRunningScoped(scope) {
      const filter = scopeFilter("export_jobs", scope);
      return prepare(`UPDATE export_jobs SET status = 'queued', started_at = NULL WHERE ${filter.sql} AND status = 'running'`).run(...filter.params).changes;
    },

    tenantOf(id) {
      const row = prepare("SELECT tenant_id FROM export_jobs WHERE id = ?").get(checkId(id)) as { tenant_id: string } | undefined;
      return row?.tenant_id;
    },
  };
}
