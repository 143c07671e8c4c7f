/**
 * Public views: internal rows (snake_case, every column) mapped to the
 * field names the policy's field views use. Only these views are ever
 * projected; internal columns (internal_notes, credits, role, is_admin,
 * billing_plan, tenant_id) are simply not in them, so no policy mistake can
 * serialise them. Fields that are protected but public-view-shaped (owner_id)
 * are present and left to decision.fields.read.
 */
import type { InvoiceRow, UserRow } from "../db";

export type View = Record<string, unknown>;

export function invoiceView(row: InvoiceRow): View {
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
