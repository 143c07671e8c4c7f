/**
 * The data layer's vocabulary: scopes, internal rows, the allow-lists of
 * enumerated values, and the errors the repositories throw.
 *
 * Rows are INTERNAL: snake_case, every column, including ones no caller may
 * ever see (internal_notes, credits). The API projects them to public views
 * and never serialises a row directly.
 */

/**
 * The row filter every *Scoped method queries through, taken from the PDP
 * decision: WHERE tenant_id = ? [AND owner = ?]. A missing tenant_id is a
 * programming error (an unscoped read), so it throws instead of widening.
 */
export interface Scope {
  tenant_id: string;
  owner_id?: string;
}

export interface TenantRow {
  id: string;
  name: string;
}

export const USER_ROLES = ["member", "support", "admin"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** `invited` is only ever set by inviteScoped; the others by setStatusScoped. */
export const USER_STATUSES = ["invited", "active", "suspended", "disabled", "banned"] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const SETTABLE_USER_STATUSES = ["active", "suspended", "disabled", "banned"] as const;
export type SettableUserStatus = (typeof SETTABLE_USER_STATUSES)[number];
export const INVITABLE_ROLES = ["member", "support"] as const;

export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  display_name: string;
  locale: string;
  role: UserRole;
  /** Derived from role by SQLite (a generated column): nothing can set it directly. */
  is_admin: 0 | 1;
  account_credit_cents: number;
  support_priority: string;
  billing_plan: string;
  internal_notes: string;
  status: UserStatus;
  created_at: string;
}

export const INVOICE_STATUSES = ["draft", "pending", "approved", "published", "refunded"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export interface InvoiceRow {
  id: string;
  tenant_id: string;
  owner_id: string;
  number: string;
  amount_cents: number;
  currency: string;
  status: InvoiceStatus;
  internal_notes: string;
  created_at: string;
}

export const EXPORT_FORMATS = ["json", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_STATUSES = ["queued", "running", "done", "failed"] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];
/** Why a job failed: more rows than the runner's ceiling, or anything else (logged, never stored). */
export const EXPORT_ERRORS = ["row_limit_exceeded", "export_failed"] as const;
export type ExportError = (typeof EXPORT_ERRORS)[number];

/**
 * An export job. `read_fields` and `scope` are what the decision that
 * authorized the job allowed, captured when it was created: the runner reads
 * and projects through them, never through a later or wider decision.
 */
export interface ExportJobRow {
  id: string;
  tenant_id: string;
  requested_by: string;
  format: ExportFormat;
  status: ExportStatus;
  read_fields: string[];
  scope: Scope;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Set exactly when the job is done. */
  row_count: number | null;
  /** The rendered export (JSON or CSV text); set exactly when the job is done. */
  result: string | null;
  /** Set exactly when the job failed. */
  error: ExportError | null;
  /** The runner holding a running job's lease (db/exports.ts); null on any other job, and on a running job claimed before leases. */
  lease_owner: string | null;
  /** Until when the lease holds (the database's clock); set with lease_owner. */
  lease_expires_at: string | null;
  /** Claims of the job not handed back by a release (stop()): runs that finished it, or died, stalled or were cut off. */
  attempts: number;
}

export interface SecurityEventRow {
  id: number;
  /** ISO 8601 UTC with milliseconds (`2026-11-21T14:00:00.000Z`): sorts as text. */
  at: string;
  kind: string;
  actor_id: string;
  tenant_id: string | null;
  route_id: string;
  decision_id: string | null;
  /** The verified test run the request belonged to (null: ordinary traffic). */
  test_run: string | null;
  detail: Record<string, unknown>;
}

/** A scope without a usable tenant_id (or with an empty owner_id): never widened, always refused. */
export class ScopeError extends Error {
  override readonly name = "ScopeError";
  /** Stable code: an API maps it to a 500 (a server bug), never to a client error. */
  readonly code = "scope_invalid";
}

/**
 * Input the data layer refuses (bad email, unknown status, unknown field,
 * over-long text). `code` is stable for the API to map to a 400/409.
 */
export class DbInputError extends Error {
  override readonly name = "DbInputError";
  constructor(
    readonly code: "invalid_input" | "unknown_field" | "conflict",
    message: string,
  ) {
    super(message);
  }
}
