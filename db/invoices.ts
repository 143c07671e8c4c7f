/**
 * The invoices repository: every read and write goes THROUGH a scope
 * (`tenant_id = ? [AND owner_id = ?]`). Lists are paged with a hard ceiling;
 * search matches the invoice number only, never internal_notes, so search
 * results cannot become an oracle for text the caller may not read.
 *
 * State changes (approve, refund, publish) are one conditional UPDATE:
 * `... AND status IN (allowed from-states)`. SQLite runs it atomically, so of
 * two concurrent approvals exactly one wins, and a row in the wrong state is
 * never touched.
 */
import type Database from "better-sqlite3";
import { scopeFilter } from "./scope";
import { checkId, checkLimit, checkOffset, checkOneOf, checkQuery, likeContains, MAX_LIMIT, type Prepare } from "./sql";
import { DbInputError, INVOICE_STATUSES, type InvoiceRow, type InvoiceStatus, type Scope } from "./types";

/** Why a transition did not happen: no such row in scope, or a row in a state the transition does not start from. */
export type TransitionResult = { outcome: "ok"; row: InvoiceRow } | { outcome: "not_found" } | { outcome: "conflict"; status: InvoiceStatus };

/** Where a keyset page starts: the last row of the previous page. */
export type InvoiceCursor = Pick<InvoiceRow, "created_at" | "id">;

/** One line of the per-status summary: how many invoices, and their total amount. */
export interface InvoiceStatusTotal {
  status: InvoiceStatus;
  count: number;
  amount_cents: number;
}

export interface InvoicesRepository {
  getScoped(id: string, scope: Scope): InvoiceRow | undefined;
  listScoped(scope: Scope, page: { limit: number; offset: number }): InvoiceRow[];
  /**
   * Newest first, like listScoped, but each page starts strictly after the
   * previous page's last row instead of at an offset: rows inserted while a
   * reader walks the pages neither repeat nor push rows out (bulk exports).
   */
  listPageScoped(scope: Scope, page: { limit: number; after?: InvoiceCursor }): InvoiceRow[];
  /** Count and total amount per status over EVERY invoice in scope (no page ceiling: SQLite aggregates). */
  totalsByStatusScoped(scope: Scope): InvoiceStatusTotal[];
  getManyScoped(ids: string[], scope: Scope): InvoiceRow[];
  transitionScoped(id: string, scope: Scope, from: string[], to: string): InvoiceRow | undefined;
  /** transitionScoped that tells 404 from 409; a row outside the scope is `not_found`, exactly like a missing one. */
  transitionScopedResult(id: string, scope: Scope, from: string[], to: string): TransitionResult;
  searchScoped(scope: Scope, q: string, limit: number): InvoiceRow[];
  /**
   * Security monitoring only: the tenant that owns an invoice id, so a
   * cross-tenant probe can be recorded as such. Never returned to a caller
   * and never used to authorize: requests read through *Scoped only.
   */
  tenantOf(id: string): string | undefined;
}

const COLUMNS = "id, tenant_id, owner_id, number, amount_cents, currency, status, internal_notes, created_at";

/** The most ids one getManyScoped call accepts (a batch endpoint, not a dump). */
export const MAX_IDS = MAX_LIMIT;

export function checkStatuses(from: unknown): InvoiceStatus[] {
  if (!Array.isArray(from) || from.length === 0) throw new DbInputError("invalid_input", "from must be a non-empty list of statuses");
  return from.map((s) => checkOneOf(s, INVOICE_STATUSES, "from status"));
}

export function invoicesRepository(db: Database.Database, prepare: Prepare): InvoicesRepository {
  const getScoped = (id: string, scope: Scope): InvoiceRow | undefined => {
    const filter = scopeFilter("invoices", scope);
    return prepare(`SELECT ${COLUMNS} FROM invoices WHERE id = ? AND ${filter.sql}`).get(checkId(id), ...filter.params) as InvoiceRow | undefined;
  };

  const transitionScoped = (id: string, scope: Scope, from: string[], to: string): InvoiceRow | undefined => {
    const filter = scopeFilter("invoices", scope);
    const next = checkOneOf(to, INVOICE_STATUSES, "to status");
    const allowed = checkStatuses(from);
    // The from-states travel as one JSON parameter, expanded by json_each: no SQL built from values.
    return prepare(`UPDATE invoices SET status = ? WHERE id = ? AND ${filter.sql} AND status IN (SELECT value FROM json_each(?)) RETURNING ${COLUMNS}`).get(
      next,
      checkId(id),
      ...filter.params,
      JSON.stringify(allowed),
    ) as InvoiceRow | undefined;
  };

  const transitionScopedResult = db.transaction((id: string, scope: Scope, from: string[], to: string): TransitionResult => {
    const row = transitionScoped(id, scope, from, to);
    if (row !== undefined) return { outcome: "ok", row };
    // Same transaction: the state read here is the one the UPDATE refused.
    const current = getScoped(id, scope);
    return current === undefined ? { outcome: "not_found" } : { outcome: "conflict", status: current.status };
  });

  return {
    getScoped,

    tenantOf(id) {
      const row = prepare("SELECT tenant_id FROM invoices WHERE id = ?").get(checkId(id)) as { tenant_id: string } | undefined;
      return row?.tenant_id;
    },

    listScoped(scope, page) {
      const filter = scopeFilter("invoices", scope);
      if (typeof page !== "object" || page === null) throw new DbInputError("invalid_input", "page must be an object");
      return prepare(`SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`).all(
        ...filter.params,
        checkLimit(page.limit),
        checkOffset(page.offset),
      ) as InvoiceRow[];
    },

    listPageScoped(scope, page) {
      const filter = scopeFilter("invoices", scope);
      if (typeof page !== "object" || page === null) throw new DbInputError("invalid_input", "page must be an object");
      const limit = checkLimit(page.limit);
      if (page.after === undefined) {
        return prepare(`SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql} ORDER BY created_at DESC, id DESC LIMIT ?`).all(
          ...filter.params,
          limit,
        ) as InvoiceRow[];
      }
      const after = page.after;
      if (typeof after !== "object" || after === null) throw new DbInputError("invalid_input", "after must be the previous page's last row");
      // Row values compare (created_at, id) as one key, the same key as the ORDER BY.
      return prepare(`SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql} AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`).all(
        ...filter.params,
        checkId(after.created_at, "after.created_at"),
        checkId(after.id, "after.id"),
        limit,
      ) as InvoiceRow[];
    },

    totalsByStatusScoped(scope) {
      const filter = scopeFilter("invoices", scope);
      return prepare(
        `SELECT status, COUNT(*) AS count, SUM(amount_cents) AS amount_cents FROM invoices WHERE ${filter.sql} GROUP BY status ORDER BY status`,
      ).all(...filter.params) as InvoiceStatusTotal[];
    },

    getManyScoped(ids, scope) {
      const filter = scopeFilter("invoices", scope);
      if (!Array.isArray(ids)) throw new DbInputError("invalid_input", "ids must be a list");
      const wanted = [...new Set(ids.map((id) => checkId(id)))];
      if (wanted.length > MAX_IDS) throw new DbInputError("invalid_input", `at most ${MAX_IDS} ids per request`);
      if (wanted.length === 0) return [];
      const rows = prepare(`SELECT ${COLUMNS} FROM invoices WHERE id IN (SELECT value FROM json_each(?)) AND ${filter.sql}`).all(
        JSON.stringify(wanted),
        ...filter.params,
      ) as InvoiceRow[];
      // Requested order, each row once; ids out of scope or unknown are simply absent.
      const byId = new Map(rows.map((r) => [r.id, r]));
      return wanted.flatMap((id) => byId.get(id) ?? []);
    },

    transitionScoped,
    transitionScopedResult: (id, scope, from, to) => transitionScopedResult.immediate(id, scope, from, to),

    searchScoped(scope, q, limit) {
      const filter = scopeFilter("invoices", scope);
      return prepare(`SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql} AND number LIKE ? ESCAPE '\\' ORDER BY created_at DESC, id DESC LIMIT ?`).all(
        ...filter.params,
        likeContains(checkQuery(q)),
        checkLimit(limit),
      ) as InvoiceRow[];
    },
  };
}
