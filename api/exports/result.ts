/**
 * An export's result as a READER may see it, decided when the job is read
 * (GET /api/admin/export/{job_id}), not when it was created.
 *
 * A job stores its rows cut to its creator's invoice fields and row scope.
 * Whoever reads the job later gets them cut again to what that reader may
 * read now through invoices.export (the reader's own decision):
 * - fields: the stored fields that are also in the reader's fields.read;
 * - rows: all of them when the reader's scope covers the job's (same
 *   tenant, and no owner filter or the same one); otherwise only the rows
 *   whose id the reader's scope reaches (re-checked in the database), none
 *   when the stored fields lack the id.
 * JSON results are cut row by row; CSV results are read back (fromCsv) and
 * written again with the remaining columns. A reader who may read all of it
 * gets the stored result unchanged.
 *
 *   resultForReader(job, { fields: decision.fields.read, scope }, (ids, scope) => reachable ids)
 */
import type { ExportJobRow, Scope } from "../../db";
import { pick } from "../middleware/project";
import { fromCsv, toCsv } from "./csv";

export interface Reader {
  fields: readonly string[];
  scope: Scope;
}

/** The ids of `ids` that `scope` reaches. */
export type Reach = (ids: string[], scope: Scope) => Promise<Set<string>>;

export function covers(reader: Scope, job: Scope): boolean {
  return reader.tenant_id === job.tenant_id && (reader.owner_id === undefined || reader.owner_id === job.owner_id);
}

export async function resultForReader(job: ExportJobRow, reader: Reader, reach: Reach): Promise<unknown> {
  if (job.result === null) return null;
  const fields = job.read_fields.filter((f) => reader.fields.includes(f));
  const allRows = covers(reader.scope, job.scope);
  if (job.format === "json") {
    const rows = JSON.parse(job.result) as Array<Record<string, unknown>>;
    return (await keep(rows, allRows, reader.scope, reach)).map((row) => pick(row, fields));
  }
  const csv = fromCsv(job.result);
  const columns = csv.columns.filter((c) => fields.includes(c));
  if (allRows && columns.length === csv.columns.length) return job.result;
  return toCsv(columns, await keep(csv.rows, allRows, reader.scope, reach));
}

async function keep<T extends Record<string, unknown>>(rows: T[], all: boolean, scope: Scope, reach: Reach): Promise<T[]> {
  if (all) return rows;
  const ids = rows.map((r) => r.id).filter((id): id is string => typeof id === "string");
  const reachable = ids.length === 0 ? new Set<string>() : await reach(ids, scope);
  return rows.filter((r) => typeof r.id === "string" && reachable.has(r.id));
}
