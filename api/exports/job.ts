/**
 * One export job, from claimed (running) to done, failed, handed back or
 * given up.
 *
 * The job reads invoices through the scope and projects them to the fields
 * its authorizing decision allowed, both stored with the job when it was
 * created: a later change of the caller's role or of the policy does not
 * widen (nor narrow) an export already accepted. Pages are read on separate
 * turns of the event loop, so requests are served between them, and the
 * result is stored with status `done` in one UPDATE; a failure or a stop
 * leaves no result at all.
 *
 * The runner holds the job under a lease (db/exports.ts): before each page it
 * renews the lease when due, and every write of the job is fenced by it. A
 * lease lost (this process stalled or lost the database past its expiry, and
 * another runner may have claimed the job) ends the run without a write: the
 * new holder's run is the only one that can finish the job.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { ExportJobRow, InvoiceCursor } from "../../db";
import type { DataStore } from "../../db/store";
import { pick } from "../middleware/project";
import { INVOICE_VIEW_FIELDS, invoiceView, type View } from "../views";
import { toCsv } from "./csv";

/** Rows per page: the repository's page ceiling. */
const PAGE_SIZE = 100;

/**
 * `cancelled`: the runner is stopping; the job is queued again and starts over on any runner.
 * `lease_lost`: the runner no longer holds the job; nothing was written.
 */
export type JobOutcome =
  { status: "done"; rowCount: number } | { status: "failed"; error: "row_limit_exceeded" } | { status: "cancelled" } | { status: "lease_lost" };

/** Runs one write, waiting on timers while another connection holds the lock (the runner's `write`). */
export type Write = <T>(fn: () => Promise<T>) => Promise<T>;

export interface JobRun {
  /** The most rows the export may hold. */
  maxRows: number;
  /** True once the runner is stopping: the job is handed back before its next page. */
  stopping: () => boolean;
  write: Write;
  /** The lease holder's name: every write of the job is fenced by its lease. */
  runner: string;
  /** Before each page: renews the lease when it is due; false once it is lost. */
  keepLease: () => Promise<boolean>;
}

export async function runExportJob(db: DataStore, job: ExportJobRow, run: JobRun): Promise<JobOutcome> {
  const { maxRows, stopping, write, runner } = run;
  // The job's own row is reached through its tenant, like any other row.
  const jobScope = { tenant_id: job.tenant_id };
  const lost = { status: "lease_lost" } as const;
  const rows: View[] = [];
  let after: InvoiceCursor | undefined;
  for (;;) {
    await nextTurn();
    if (stopping()) {
      // Released at once for any runner (false: the lease was already lost, and another may hold it).
      await write(() => db.exportJobs.requeueScoped(job.id, jobScope, runner));
      return { status: "cancelled" };
    }
    if (!(await run.keepLease())) return lost;
    // One row past the ceiling is enough to know it is exceeded.
    const limit = Math.min(PAGE_SIZE, maxRows + 1 - rows.length);
    const page = await db.invoices.listPageScoped(job.scope, { limit, after });
    for (const row of page) rows.push(pick(invoiceView(row), job.read_fields));
    if (rows.length > maxRows) {
      if (!(await write(() => db.exportJobs.failScoped(job.id, jobScope, runner, "row_limit_exceeded")))) return lost;
      return { status: "failed", error: "row_limit_exceeded" };
    }
    if (page.length < limit) break;
    after = page[page.length - 1];
  }
  const result = render(job, rows);
  if (!(await write(() => db.exportJobs.completeScoped(job.id, jobScope, runner, { result, rowCount: rows.length })))) return lost;
  return { status: "done", rowCount: rows.length };
}

/** JSON: the projected rows. CSV: one column per readable field of the invoice view, in the decision's order. */
function render(job: ExportJobRow, rows: View[]): string {
  if (job.format === "json") return JSON.stringify(rows);
  const viewFields: readonly string[] = INVOICE_VIEW_FIELDS;
  return toCsv(
    job.read_fields.filter((f) => viewFields.includes(f)),
    rows,
  );
}
