/**
 * Invoices written straight into a database file, for tests that need more
 * rows than the seed has, or stranger ones (the API creates no invoices).
 * A second connection, as another process would: WAL lets it write while
 * the service's connection stays open.
 *
 *   insertInvoices(file, manyInvoices("t_acme", "u_alice", 150));
 */
import Database from "better-sqlite3";
import type { InvoiceRow } from "../../db";

export type NewInvoice = Pick<InvoiceRow, "id" | "tenant_id" | "owner_id" | "number"> &
  Partial<Pick<InvoiceRow, "amount_cents" | "currency" | "status" | "internal_notes" | "created_at">>;

export function insertInvoices(file: string, invoices: NewInvoice[]): void {
  const db = new Database(file);
  try {
    const insert = db.prepare(
      `INSERT INTO invoices (id, tenant_id, owner_id, number, amount_cents, currency, status, internal_notes, created_at)
       VALUES (@id, @tenant_id, @owner_id, @number, @amount_cents, @currency, @status, @internal_notes, @created_at)`,
    );
    db.transaction(() => {
      for (const i of invoices) {
        insert.run({ amount_cents: 1_000, currency: "USD", status: "draft", internal_notes: `SECRET-${i.id}`, created_at: "2026-05-01T00:00:00.000Z", ...i });
      }
    })();
  } finally {
    db.close();
  }
}

/** `count` invoices of one owner; ids and numbers start with `prefix`, amounts and statuses vary. */
export function manyInvoices(tenant: string, owner: string, count: number, prefix = `bulk_${tenant}`): NewInvoice[] {
  const statuses = ["draft", "pending", "approved", "published", "refunded"] as const;
  return Array.from({ length: count }, (_, n) => ({
    id: `${prefix}_${n}`,
    tenant_id: tenant,
    owner_id: owner,
    number: `${prefix.toUpperCase()}-${String(n).padStart(5, "0")}`,
    amount_cents: 100 + n,
    status: statuses[n % statuses.length],
    // Many rows share a timestamp: pages must order by (created_at, id), not created_at alone.
    created_at: `2026-05-${String(1 + (n % 28)).padStart(2, "0")}T00:00:00.000Z`,
  }));
}

/** How many invoices a tenant holds, counted without any repository. */
export function countInvoices(file: string, tenant: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM invoices WHERE tenant_id = ?").get(tenant) as { n: number }).n;
  } finally {
    db.close();
  }
}
