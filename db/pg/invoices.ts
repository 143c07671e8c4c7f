/**
 * The invoices repository on PostgreSQL: db/invoices.ts's methods and checks
 * in parameterized SQL, each *Scoped statement filtered by the scope AND run
 * under the scope's tenant for row-level security. Lists of values travel as
 * ONE array parameter (`= ANY($n::text[])`), never as SQL text.
 *
 * A state change is one conditional UPDATE (`... AND status = ANY($n)`): under
 * READ COMMITTED, a second concurrent UPDATE of the row waits for the first,
 * then re-checks the condition against the committed row, so of two
 * approvals exactly one wins.
 */
import { checkId, checkLimit, checkOffset, checkOneOf, checkQuery, likeContains } from "../sql";
import { checkStatuses, MAX_IDS, type InvoiceStatusTotal, type TransitionResult } from "../invoices";
import type { AsyncInvoicesRepository } from "../store";
import { DbInputError, INVOICE_STATUSES, type InvoiceRow, type Scope } from "../types";
import { pgScopeFilter } from "./scope";
import type { Session } from "./session";

const COLUMNS = "id, tenant_id, owner_id, number, amount_cents, currency, status, internal_notes, created_at";
const NEWEST_FIRST = "ORDER BY created_at DESC, id DESC";

/** A keyset cursor's time must be a time: PostgreSQL compares timestamps, not text. */
function checkCursorTime(value: unknown): string {
  const text = checkId(value, "after.created_at");
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(text) || Number.isNaN(Date.parse(text))) {
    throw new DbInputError("invalid_input", "after.created_at must be the previous page's created_at");
  }
  return text;
}

export function pgInvoicesRepository(session: Session): AsyncInvoicesRepository {
  const getScoped = async (id: string, scope: Scope, on: Session = session): Promise<InvoiceRow | undefined> => {
    const filter = pgScopeFilter("invoices", scope);
    const { rows } = await on.scoped<InvoiceRow>(filter.tenantId, `SELECT ${COLUMNS} FROM invoices WHERE id = $1 AND ${filter.sql(2)}`, [
      checkId(id),
      ...filter.params,
    ]);
    return rows[0];
  };

  const transitionScoped = async (id: string, scope: Scope, from: string[], to: string, on: Session = session): Promise<InvoiceRow | undefined> => {
    const filter = pgScopeFilter("invoices", scope);
    const next = checkOneOf(to, INVOICE_STATUSES, "to status");
    const allowed = checkStatuses(from);
    const { rows } = await on.scoped<InvoiceRow>(
      filter.tenantId,
      `UPDATE invoices SET status = $1 WHERE id = $2 AND ${filter.sql(3)} AND status = ANY($${3 + filter.params.length}::text[]) RETURNING ${COLUMNS}`,
      [next, checkId(id), ...filter.params, allowed],
    );
    return rows[0];
  };

  return {
    getScoped: (id, scope) => getScoped(id, scope),

    async tenantOf(id) {
      // Security monitoring only: the SECURITY DEFINER lookup (migrations.ts, version 5).
      const { rows } = await session.query<{ tenant_id: string | null }>("SELECT portcullis_invoice_tenant($1) AS tenant_id", [checkId(id)]);
      return rows[0].tenant_id ?? undefined;
    },

    async listScoped(scope, page) {
      const filter = pgScopeFilter("invoices", scope);
      if (typeof page !== "object" || page === null) throw new DbInputError("invalid_input", "page must be an object");
      const n = filter.params.length;
      const { rows } = await session.scoped<InvoiceRow>(
        filter.tenantId,
        `SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql(1)} ${NEWEST_FIRST} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...filter.params, checkLimit(page.limit), checkOffset(page.offset)],
      );
      return rows;
    },

    async listPageScoped(scope, page) {
      const filter = pgScopeFilter("invoices", scope);
      if (typeof page !== "object" || page === null) throw new DbInputError("invalid_input", "page must be an object");
      const limit = checkLimit(page.limit);
      const n = filter.params.length;
      if (page.after === undefined) {
        const { rows } = await session.scoped<InvoiceRow>(
          filter.tenantId,
          `SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql(1)} ${NEWEST_FIRST} LIMIT $${n + 1}`,
          [...filter.params, limit],
        );
        return rows;
      }
      const after = page.after;
      if (typeof after !== "object" || after === null) throw new DbInputError("invalid_input", "after must be the previous page's last row");
      // Row comparison: (created_at, id) as one key, the same key as the ORDER BY.
      const { rows } = await session.scoped<InvoiceRow>(
        filter.tenantId,
        `SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql(1)} AND (created_at, id) < ($${n + 1}::timestamptz, $${n + 2}) ${NEWEST_FIRST} LIMIT $${n + 3}`,
        [...filter.params, checkCursorTime(after.created_at), checkId(after.id, "after.id"), limit],
      );
      return rows;
    },

    async totalsByStatusScoped(scope) {
      const filter = pgScopeFilter("invoices", scope);
      const { rows } = await session.scoped<InvoiceStatusTotal>(
        filter.tenantId,
        `SELECT status, COUNT(*) AS count, SUM(amount_cents)::bigint AS amount_cents FROM invoices WHERE ${filter.sql(1)} GROUP BY status ORDER BY status`,
        filter.params,
      );
      return rows;
    },

    async getManyScoped(ids, scope) {
      const filter = pgScopeFilter("invoices", scope);
      if (!Array.isArray(ids)) throw new DbInputError("invalid_input", "ids must be a list");
      const wanted = [...new Set(ids.map((id) => checkId(id)))];
      if (wanted.length > MAX_IDS) throw new DbInputError("invalid_input", `at most ${MAX_IDS} ids per request`);
      if (wanted.length === 0) return [];
      const { rows } = await session.scoped<InvoiceRow>(filter.tenantId, `SELECT ${COLUMNS} FROM invoices WHERE id = ANY($1::text[]) AND ${filter.sql(2)}`, [
        wanted,
        ...filter.params,
      ]);
      // Requested order, each row once; ids out of scope or unknown are simply absent.
      const byId = new Map(rows.map((r) => [r.id, r]));
      return wanted.flatMap((id) => byId.get(id) ?? []);
    },

    transitionScoped: (id, scope, from, to) => transitionScoped(id, scope, from, to),

    transitionScopedResult: (id, scope, from, to) =>
      session.atomic(async (tx): Promise<TransitionResult> => {
        const row = await transitionScoped(id, scope, from, to, tx);
        if (row !== undefined) return { outcome: "ok", row };
        // Same transaction: the state read here is the one the UPDATE refused.
        const current = await getScoped(id, scope, tx);
        return current === undefined ? { outcome: "not_found" } : { outcome: "conflict", status: current.status };
      }),

    async searchScoped(scope, q, limit) {
      const filter = pgScopeFilter("invoices", scope);
      const n = filter.params.length;
      const { rows } = await session.scoped<InvoiceRow>(
        filter.tenantId,
        `SELECT ${COLUMNS} FROM invoices WHERE ${filter.sql(1)} AND number ILIKE $${n + 1} ESCAPE '\\' ${NEWEST_FIRST} LIMIT $${n + 2}`,
        [...filter.params, likeContains(checkQuery(q)), checkLimit(limit)],
      );
      return rows;
    },
  };
}
