/**
 * Public views: internal rows (snake_case, every column) mapped to wire
 * fields. Only these views are ever projected; internal columns
 * (internal_notes, credits, role, is_admin, billing_plan, locale,
 * tenant_id) are simply not in them, so no policy mistake can serialise
 * them. Protected fields that are view-shaped (owner_id) are present and
 * left to decision.fields.read.
 *
 * WIRE_FIELDS says, per resource, which fields its view has and their JSON
 * Schema: the OpenAPI document is built from it and the policy's views
 * (api/fields.ts), and test/api/field-vocabulary.test.ts fails when a
 * policy view names a field missing here, or a view here holds a field no
 * policy view reads.
 */
import { EXPORT_FORMATS, EXPORT_STATUSES, INVOICE_STATUSES, USER_STATUSES, type ExportJobRow, type InvoiceRow, type UserRow } from "../db";

export type View = Record<string, unknown>;
export type JsonSchema = Record<string, unknown>;

const STRING = { type: "string" };
const ID = { type: "string", minLength: 1 };
const INTEGER = { type: "integer" };
const TIME = { type: "string", format: "date-time" };
const NULLABLE_TIME = { type: ["string", "null"], format: "date-time" };

const INVOICE = {
  id: ID,
  number: STRING,
  status: { type: "string", enum: [...INVOICE_STATUSES] },
  amount_cents: { type: "integer", minimum: 0 },
  currency: { type: "string", pattern: "^[A-Z]{3}$" },
  owner_id: ID,
  created_at: TIME,
};

/** resource -> wire field -> JSON Schema (2020-12, as OpenAPI 3.1 uses). */
export const WIRE_FIELDS: Record<string, Record<string, JsonSchema>> = {
  invoice: INVOICE,
  user: {
    id: ID,
    email: { type: "string", format: "email" },
    displayName: STRING,
    status: { type: "string", enum: [...USER_STATUSES] },
    createdAt: TIME,
  },
  export: {
    id: ID,
    status: { type: "string", enum: [...EXPORT_STATUSES] },
    format: { type: "string", enum: [...EXPORT_FORMATS] },
    createdAt: TIME,
    startedAt: NULLABLE_TIME,
    finishedAt: NULLABLE_TIME,
    rowCount: { type: ["integer", "null"], minimum: 0 },
    error: { enum: ["row_limit_exceeded", "export_failed", null] },
    result: {
      description: "null until done; then the rows (format json) or the CSV text (format csv), cut to the invoice fields the READER may read now",
      oneOf: [{ type: "null" }, { type: "string" }, { type: "array", items: { type: "object", properties: INVOICE, additionalProperties: false } }],
    },
  },
  search: { id: ID, type: { type: "string", enum: ["user", "invoice"] }, title: STRING },
  report: {
    name: STRING,
    format: { type: "string", enum: [...EXPORT_FORMATS] },
    generatedAt: TIME,
    rows: {
      type: "array",
      items: {
        type: "object",
        properties: { status: { type: "string", enum: [...INVOICE_STATUSES] }, count: INTEGER, amount_cents: INTEGER },
        required: ["status", "count", "amount_cents"],
        additionalProperties: false,
      },
    },
  },
  health: {
    status: { type: "string", enum: ["ok", "degraded"] },
    revision: { type: ["string", "null"] },
    reasons: {
      type: "array",
      items: {
        type: "object",
        properties: { component: STRING, code: STRING, detail: STRING, since: { type: ["string", "null"] } },
        required: ["component", "code", "detail", "since"],
        additionalProperties: false,
      },
    },
  },
  metrics: { metrics: { type: "object" } },
  openapi: { openapi: STRING, info: { type: "object" }, servers: { type: "array" }, paths: { type: "object" }, components: { type: "object" } },
};

/**
 * List answers: the rows under one member, beside members that are not
 * rows (page, export time) and are not cut by fields.read.
 */
export const LISTS: Record<string, { rows: string; members: Record<string, JsonSchema> }> = {
  "invoices.list": { rows: "invoices", members: { limit: INTEGER, offset: INTEGER } },
  "invoices.export": { rows: "invoices", members: { format: { const: "json" }, exported_at: TIME } },
  "invoices.batch": { rows: "invoices", members: {} },
  "search.get": { rows: "results", members: {} },
};

/** The fields of invoiceView, in its order (an export's CSV columns follow it). */
export const INVOICE_VIEW_FIELDS = Object.keys(INVOICE);

export function invoiceView(row: InvoiceRow): Record<keyof typeof INVOICE, string | number> {
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

/** A user as any route shows it, before the cut: the profile reads id, email, displayName; moderation id and status. */
export function userView(row: UserRow): View {
  return { id: row.id, email: row.email, displayName: row.display_name, status: row.status, createdAt: row.created_at };
}

/**
 * An export job as its requester sees it. Every field is always present
 * (null until it applies), so a client polling the job sees one shape.
 * The job's tenant, requester, row scope and field list stay internal.
 * `result`: the rows (JSON format) or the CSV text (csv format), once done,
 * as the reader may see them (api/exports/result.ts); null before.
 */
export function exportJobView(row: ExportJobRow, result: unknown = null): View {
  return {
    id: row.id,
    status: row.status,
    format: row.format,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    rowCount: row.row_count,
    error: row.error,
    result,
  };
}
