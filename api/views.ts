/**
 * Public views: internal rows (snake_case, every column) mapped to the
 * field names the policy's field views use. Only these views are ever
 * projected; internal columns (internal_notes, credits, role, is_admin,
 * billing_plan, tenant_id) are simply not in them, so no policy mistake can
 * serialise them. Fields that are protected but public-view-shaped (owner_id)
 * are present and left to decision.fields.read.
 */
import type { ExportJobRow, InvoiceRow, UserRow } from "../db";

export type View = Record<string, unknown>;

/** The fields of invoiceView, in its order (an export's CSV columns follow it). */
export const INVOICE_VIEW_FIELDS = ["id", "number", "status", "amount_cents", "currency", "owner_id", "created_at"] as const;

export function invoiceView(row: InvoiceRow): Record<(typeof INVOICE_VIEW_FIELDS)[number], string | number> {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    amount_cents: row.amount_cents,
    currency: row.currency,
    owner_id: row.owner_id,
    created_at: row.created_at,
  };
}

export function profileView(row: UserRow): View {
  return { id: row.id, email: row.email, displayName: row.display_name, locale: row.locale, createdAt: row.created_at, status: row.status };
}

/**
 * An export job as its requester sees it. Every field is always present
 * (null until it applies), so a client polling the job sees one shape.
 * The job's tenant, requester, row scope and field list stay internal.
 * `result`: the rows (JSON format) or the CSV text (csv format), once done.
 */
export function exportJobView(row: ExportJobRow): View {
  return {
    id: row.id,
    status: row.status,
    format: row.format,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    rowCount: row.row_count,
    error: row.error,
    result: row.result === null ? null : row.format === "json" ? (JSON.parse(row.result) as unknown) : row.result,
  };
}
