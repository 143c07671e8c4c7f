/**
 * Tenant-wide exports, all read through the decision's tenant scope:
 *
 * - POST /api/admin/export {format}: stores a queued export job and hands it
 *   to the runner (api/exports/); 202 with the job and its `Location`.
 * - GET /api/admin/export/{job_id}: the job, and once done its result (the
 *   rows for json, the CSV text for csv), cut for the READER: the invoice
 *   fields and rows the reader may read now through invoices.export (a
 *   decision of its own), never more than the job stored
 *   (api/exports/result.ts). Another tenant's job is 404 `not_found`,
 *   exactly like an unknown id.
 * - GET|POST /api/internal/reports/export: invoice count and amount per
 *   status over all the tenant's invoices (internal tooling). POST
 *   {format: "csv"} answers text/csv (RFC 4180, formula guard, as a
 *   download), or 406 when the Accept header refuses text/csv; otherwise JSON.
 *
 * What a job may read is settled when it is accepted. The admin.export
 * decision's fields describe the job itself; the rows come from a second
 * decision, for invoices.export (the on-the-spot invoice export), whose
 * scope and read fields are stored with the job. So a job never exports
 * more than its requester could read through GET /invoices/export then.
 */
import { toScope, type ExportFormat, type Scope } from "../../db";
import { resultForReader } from "../exports/result";
import type { RecordedDecision } from "../../pdp/types";
import { Problem, problemForDecision } from "../problems";
import { exportJobView } from "../views";
import { decideAsRoute } from "./related-decision";
import type { ActContext, RouteHandler } from "./types";

const requestedFormat = (ctx: ActContext): ExportFormat => (ctx.body.format === "csv" ? "csv" : "json");

/** Ids per scoped lookup: the repositories' ceiling for getManyScoped. */
const IDS_PER_LOOKUP = 100;

/** Where a job is polled (admin.export.get). */
const jobLocation = (id: string) => `/api/admin/export/${encodeURIComponent(id)}`;

/** The rows decision, made once per request even when the act step runs again after a locked write (db/busy.ts). */
const rowsDecisions = new WeakMap<ActContext, RecordedDecision>();

const startExport: RouteHandler = {
  async act(ctx) {
    let rows = rowsDecisions.get(ctx);
    if (!rows) rowsDecisions.set(ctx, (rows = decideAsRoute(ctx, "invoices.export")));
    if (!rows.allow) throw problemForDecision(rows.status, rows.reason);
    const job = await ctx.deps.db.exportJobs.createScoped(ctx.scope, {
      requestedBy: ctx.state.actor.id,
      format: requestedFormat(ctx),
      readFields: rows.fields.read,
      rowScope: toScope(rows.scope),
    });
    ctx.deps.exportRunner.enqueue(job);
    return { status: 202, headers: { Location: jobLocation(job.id) }, body: { one: exportJobView(job) } };
  },
};

const getExport: RouteHandler = {
  async act(ctx) {
    const job = await ctx.deps.db.exportJobs.getScoped(ctx.id ?? "", ctx.scope);
    if (!job) throw new Problem("not_found");
    if (job.result === null) return { status: 200, body: { one: exportJobView(job) } };
    // The rows are invoices: the reader sees the ones, and the fields, it may read through invoices.export now.
    const rows = decideAsRoute(ctx, "invoices.export");
    if (!rows.allow) throw problemForDecision(rows.status, rows.reason);
    const { invoices } = ctx.deps.db;
    const reach = async (ids: string[], scope: Scope) => {
      const found = new Set<string>();
      for (let i = 0; i < ids.length; i += IDS_PER_LOOKUP)
        for (const row of await invoices.getManyScoped(ids.slice(i, i + IDS_PER_LOOKUP), scope)) found.add(row.id);
      return found;
    };
    return { status: 200, body: { one: exportJobView(job, await resultForReader(job, { fields: rows.fields.read, scope: toScope(rows.scope) }, reach)) } };
  },
};

/** The report's CSV columns: one line per invoice status. */
const REPORT_COLUMNS = ["status", "count", "amount_cents"] as const;

const reportExport: RouteHandler = {
  async act(ctx) {
    const format = requestedFormat(ctx);
    // Asked for CSV by a client that will not take it: refused before any row is read.
    if (format === "csv" && !ctx.req.accepts("text/csv"))
      throw new Problem("not_acceptable", { detail: "format csv is answered as text/csv, which the Accept header refuses" });
    const rows = await ctx.deps.db.invoices.totalsByStatusScoped(ctx.scope);
    const generatedAt = new Date().toISOString();
    const view = { name: "invoices-by-status", format, generatedAt, rows };
    if (format === "json") return { status: 200, body: { one: view } };
    const filename = `invoices-by-status-${generatedAt.slice(0, 10)}.csv`;
    return { status: 200, body: { csv: { view, rows: "rows", columns: REPORT_COLUMNS, filename } } };
  },
};

export const adminRoutes: Record<string, RouteHandler> = {
  "admin.export": startExport,
  "admin.export.get": getExport,
  "internal.reports.export": reportExport,
};
