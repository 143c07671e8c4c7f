/**
 * One export job, from claimed (running) to done, failed or handed back.
 *
 * The job reads invoices through the scope and projects them to the fields
 * its authorizing decision allowed, both stored with the job when it was
 * created: a later change of the caller's role or of the policy does not
 * widen (nor narrow) an export already accepted. Pages are read on separate
 * turns of the event loop, so requests are served between them, and the
 * result is stored with status `done` in one UPDATE; a failure or a stop
 * leaves no result at all.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { ExportJobRow, InvoiceCursor } from "../../db";
import type { DataStore } from "../../db/store";
import { pick } from "../middleware/project";
import { INVOICE_VIEW_FIELDS, invoiceView, type View } from "../views";
import { toCsv } from "./csv";

/** Rows per page: the repository's page ceiling. */
const PAGE_SIZE = 100;

/** `cancelled`: the runner is stopping; the job is queued again and starts over on the next run. */
export type JobOutcome = { status: "done"; rowCount: number } | { status: "failed"; error: "row_limit_exceeded" } | { status: "cancelled" };

/** Runs one write, waiting on timers while another connection holds the lock (the runner's `write`). */
export type Write = <T>(fn: () => Promise<T>) => Promise<T>;

const immediately: Write = (fn) => fn();

export async function runExportJob(
  db: DataStore,
  job: ExportJobRow,
  maxRows: number,
  stopping: () => boolean,
  write: Write = immediately,
): Promise<JobOutcome> {
  // The job's own row is reached through its tenant, like any other row.
  const jobScope = { tenant_id: job.tenant_id };
  const rows: View[] = [];
  let after: InvoiceCursor | undefined;
  for (;;) {
    await nextTurn();
    if (stopping()) {
      await write(() => db.exportJobs.requeueScoped(job.id, jobScope));
      return { status: "cancelled" };
    }
    // One row past the ceiling is enough to know it is exceeded.
    const limit = Math.min(PAGE_SIZE, maxRows + 1 - rows.length);
    const page = await db.invoices.listPageScoped(job.scope, { limit, after });
    for (const row of page) rows.push(pick(invoiceView(row), job.read_fields));
    if (rows.length > maxRows) {
      await write(() => db.exportJobs.failScoped(job.id, jobScope, "row_limit_exceeded"));
      return { status: "failed", error: "row_limit_exceeded" };
    }
    if (page.length < limit) break;
    after = page[page.length - 1];
  }
  // Only this runner moves a job it claimed out of `running`: anything else is a bug worth an error.
  const result = render(job, rows);
  if (!(await write(() => db.exportJobs.completeScoped(job.id, jobScope, { result, rowCount: rows.length })))) {
    throw new Error(`export job ${job.id} was no longer running when its result was ready`);
  }
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
