/**
 * Tenant-wide exports: POST /api/admin/export (admins start an export job)
 * and GET|POST /api/internal/reports/export (internal tooling, admins).
 * Both read only through the decision's tenant scope.
 *
 * The export job is answered as accepted (202) with its description; the
 * job runner itself is outside this service (no job table yet).
 */
import { randomUUID } from "node:crypto";
import type { RouteHandler } from "./types";

const adminExport: RouteHandler = {
  act(ctx) {
    const format = typeof ctx.body.format === "string" ? ctx.body.format : "json";
    return { status: 202, body: { one: { id: `exp_${randomUUID()}`, status: "queued", format, createdAt: new Date().toISOString() } } };
  },
};

const reportExport: RouteHandler = {
  act(ctx) {
    const format = typeof ctx.body.format === "string" ? ctx.body.format : "json";
    const rows = ctx.deps.db.invoices.listScoped(ctx.scope, { limit: 100, offset: 0 });
    const byStatus = new Map<string, { status: string; count: number; amount_cents: number }>();
    for (const row of rows) {
      const entry = byStatus.get(row.status) ?? { status: row.status, count: 0, amount_cents: 0 };
      entry.count++;
      entry.amount_cents += row.amount_cents;
      byStatus.set(row.status, entry);
    }
    return { status: 200, body: { one: { name: "invoices-by-status", format, generatedAt: new Date().toISOString(), rows: [...byStatus.values()] } } };
  },
};

export const adminRoutes: Record<string, RouteHandler> = {
  "admin.export": adminExport,
  "internal.reports.export": reportExport,
};
