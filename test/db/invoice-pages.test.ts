/**
 * The invoice reads bulk exports and reports use: keyset pages that visit
 * every row in scope exactly once (even with inserts between pages), and
 * per-status totals over every row in scope, not over one page.
 */
import { DbInputError, type InvoiceCursor } from "../../db";
import { ACME, ALICE, closeTempDb, GLOBEX, openTempDb, type TempDb } from "./helpers";
import { countInvoices, insertInvoices, manyInvoices } from "./insert-invoices";

let t: TempDb;
beforeEach(() => (t = openTempDb()));
afterEach(() => closeTempDb(t));

function walk(scope: typeof ACME | typeof ALICE, limit: number, between?: (page: number) => void): string[] {
  const ids: string[] = [];
  let after: InvoiceCursor | undefined;
  for (let page = 0; ; page++) {
    const rows = t.db.invoices.listPageScoped(scope, { limit, after });
    ids.push(...rows.map((r) => r.id));
    if (rows.length < limit) return ids;
    after = rows[rows.length - 1];
    between?.(page);
  }
}

describe("listPageScoped", () => {
  test("pages through every row of the scope once, newest first, same order as listScoped", () => {
    insertInvoices(t.file, manyInvoices("t_acme", "u_bob", 230));
    const ids = walk(ACME, 100);
    expect(ids).toHaveLength(countInvoices(t.file, "t_acme"));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 100)).toEqual(t.db.invoices.listScoped(ACME, { limit: 100, offset: 0 }).map((r) => r.id));
    expect(ids.some((id) => id.startsWith("inv_dave"))).toBe(false);
    expect(walk(ALICE, 2)).toEqual(["inv_alice_3", "inv_alice_2", "inv_alice_1"]);
  });

  test("rows inserted between pages neither repeat a row nor push one out", () => {
    insertInvoices(t.file, manyInvoices("t_acme", "u_bob", 150));
    const before = walk(ACME, 100);
    const during = walk(ACME, 100, (page) => {
      // Newer than everything: with OFFSET paging they would shift every later page by 10.
      insertInvoices(
        t.file,
        manyInvoices("t_acme", "u_bob", 10, `late_${page}`).map((i) => ({ ...i, created_at: "2027-01-01T00:00:00.000Z" })),
      );
    });
    expect(during).toEqual(before);
  });

  test("refuses a malformed cursor and bad limits", () => {
    for (const page of [{ limit: 0 }, { limit: 5, after: null }, { limit: 5, after: { id: "x" } }, { limit: 5, after: "inv_1" }]) {
      expect(() => t.db.invoices.listPageScoped(ACME, page as never)).toThrow(DbInputError);
    }
  });
});

describe("totalsByStatusScoped", () => {
  test("counts and sums every invoice of the scope, well past one page", () => {
    insertInvoices(t.file, manyInvoices("t_acme", "u_bob", 250));
    const totals = t.db.invoices.totalsByStatusScoped(ACME);
    expect(totals.reduce((n, r) => n + r.count, 0)).toBe(countInvoices(t.file, "t_acme"));
    const all = walk(ACME, 100).map((id) => t.db.invoices.getScoped(id, ACME)!);
    for (const r of totals) {
      const rows = all.filter((i) => i.status === r.status);
      expect(r).toEqual({ status: r.status, count: rows.length, amount_cents: rows.reduce((n, i) => n + i.amount_cents, 0) });
    }
    expect(t.db.invoices.totalsByStatusScoped(ALICE).reduce((n, r) => n + r.count, 0)).toBe(3);
    expect(t.db.invoices.totalsByStatusScoped(GLOBEX).reduce((n, r) => n + r.count, 0)).toBe(countInvoices(t.file, "t_globex"));
  });
});
