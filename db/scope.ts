/**
 * Turns a decision scope into a parameterized SQL filter.
 *
 * This is the single place where object-level authorization becomes SQL:
 * `tenant_id = ?` always, `<owner column> = ?` when the scope names an owner.
 * Column names come only from the fixed OWNER_COLUMN table below, values only
 * travel as parameters. A scope that is not a well-formed object with a
 * non-empty tenant_id throws ScopeError: a bug upstream must never turn into
 * an unscoped (cross-tenant) query.
 */
import type { DecisionScope } from "../pdp/types";
import { ScopeError, type Scope } from "./types";

/** Which column holds a row's owner. A user row's owner is the user itself; an export job's, the user who requested it. */
const OWNER_COLUMN = {
  users: "id",
  invoices: "owner_id",
  export_jobs: "requested_by",
} as const;

export type ScopedTable = keyof typeof OWNER_COLUMN;

export interface ScopeFilter {
  /** `tenant_id = ? AND owner_id = ?` (fixed text, no values). */
  sql: string;
  params: string[];
}

/**
 * Validates a scope at run time (callers may hold a DecisionScope, whose
 * fields are optional, or data that crossed a JSON boundary). Returns a copy
 * so a later mutation of the caller's object cannot change a running query.
 */
export function checkScope(scope: unknown): Scope {
  if (typeof scope !== "object" || scope === null || Array.isArray(scope)) {
    throw new ScopeError("scope must be an object with tenant_id");
  }
  // A restriction this layer does not know (say a future project_id) would be silently
  // dropped, widening the query: refuse it instead.
  const unknown = Object.keys(scope).filter((key) => key !== "tenant_id" && key !== "owner_id");
  if (unknown.length > 0) throw new ScopeError(`scope has keys this data layer cannot enforce: ${unknown.join(", ")}`);
  const { tenant_id, owner_id } = scope as Record<string, unknown>;
  if (typeof tenant_id !== "string" || tenant_id === "") {
    throw new ScopeError("scope.tenant_id is required: unscoped reads are refused");
  }
  // An empty owner would read as "no owner" to a careless truthiness check: refuse it outright.
  if (owner_id !== undefined && (typeof owner_id !== "string" || owner_id === "")) {
    throw new ScopeError("scope.owner_id must be a non-empty string when present");
  }
  return owner_id === undefined ? { tenant_id } : { tenant_id, owner_id };
}

/** The API's bridge from a PDP decision: `toScope(decision.scope)` throws unless tenant_id is set. */
export function toScope(scope: DecisionScope | undefined): Scope {
  return checkScope(scope);
}

/** The WHERE fragment (without the leading WHERE) restricting `table` to `scope`. */
export function scopeFilter(table: ScopedTable, scope: unknown): ScopeFilter {
  const checked = checkScope(scope);
  if (checked.owner_id === undefined) return { sql: "tenant_id = ?", params: [checked.tenant_id] };
  return { sql: `tenant_id = ? AND ${OWNER_COLUMN[table]} = ?`, params: [checked.tenant_id, checked.owner_id] };
}
