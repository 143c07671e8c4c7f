/**
 * The scope as PostgreSQL SQL: `tenant_id = $n [AND <owner column> = $n+1]`,
 * built by db/scope.ts's rules (the same checks, the same owner columns), with
 * numbered placeholders. The tenant is also what session.scoped() sets for
 * row-level security: the WHERE clause and the policy always agree.
 */
import { checkScope, type ScopedTable } from "../scope";

const OWNER_COLUMN: Record<ScopedTable, string> = {
  users: "id",
  invoices: "owner_id",
  export_jobs: "requested_by",
};

export interface PgScopeFilter {
  tenantId: string;
  /** The values, in placeholder order: [tenant_id] or [tenant_id, owner]. */
  params: string[];
  /** The WHERE fragment with placeholders numbered from `first` (fixed text, no values). */
  sql(first: number): string;
}

/** Throws ScopeError (before any SQL runs) for a scope db/scope.ts would refuse. */
export function pgScopeFilter(table: ScopedTable, scope: unknown): PgScopeFilter {
  const checked = checkScope(scope);
  if (checked.owner_id === undefined) {
    return { tenantId: checked.tenant_id, params: [checked.tenant_id], sql: (first) => `tenant_id = $${first}` };
  }
  return {
    tenantId: checked.tenant_id,
    params: [checked.tenant_id, checked.owner_id],
    sql: (first) => `tenant_id = $${first} AND ${OWNER_COLUMN[table]} = $${first + 1}`,
  };
}

/** The SQLSTATE of a PostgreSQL error (23505 unique, 23503 foreign key, ...), undefined for anything else. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
