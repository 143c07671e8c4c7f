/**
 * Invoices: read one, list, export, batch read, and the three workflow
 * actions. Every row is reached through the decision's scope; a row outside
 * it is `not_found`, exactly like a missing one. get, list, export and batch
 * return the same public view, cut to the same fields.read.
 */
import { Problem } from "../problems";
import { ID } from "../registry/routes";
import { validateValue } from "../validate";
import { invoiceView, LISTS } from "../views";
import type { ActContext, RouteHandler } from "./types";

/** Workflow transitions: the states each action may start from. */
const TRANSITIONS = {
  approve: { from: ["draft", "pending"], to: "approved" },
  publish: { from: ["approved"], to: "published" },
  refund: { from: ["published"], to: "refunded" },
} as const;

/** All or nothing: every id must be reachable, else the whole request is 404 (no partial answers to probe with). */
async function readMany(ctx: ActContext, ids: string[]) {
  const rows = await ctx.deps.db.invoices.getManyScoped(ids, ctx.scope);
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) {
    ctx.state.resource.id = missing; // counted by the enumeration detector
    throw new Problem("not_found");
  }
  return rows;
}

const get: RouteHandler = {
  async act(ctx) {
    const row = await ctx.deps.db.invoices.getScoped(ctx.id ?? "", ctx.scope);
    if (!row) throw new Problem("not_found");
    return { status: 200, body: { one: invoiceView(row) } };
  },
};

const list: RouteHandler = {
  async act(ctx) {
    const limit = typeof ctx.query.limit === "number" ? ctx.query.limit : 50;
    const offset = typeof ctx.query.offset === "number" ? ctx.query.offset : 0;
    const rows = await ctx.deps.db.invoices.listScoped(ctx.scope, { limit, offset });
    return { status: 200, body: { many: rows.map(invoiceView), wrap: LISTS["invoices.list"].rows, extra: { limit, offset } } };
  },
};

const exportInvoices: RouteHandler = {
  async act(ctx) {
    const raw = typeof ctx.query.ids === "string" ? ctx.query.ids : undefined;
    const ids =
      raw === undefined
        ? undefined
        : [
            ...new Set(
              raw
                .split(",")
                .map((s) => s.trim())
                .filter((s) => s !== ""),
            ),
          ];
    if (ids !== undefined && (ids.length === 0 || ids.length > 100)) throw new Problem("invalid_param", { detail: "ids must name 1 to 100 invoices" });
    // Each id like a path id: a malformed one is the parameter's fault, not the body's (there is none).
    const malformed = ids?.find((id) => validateValue(ID, id) !== null);
    if (malformed !== undefined)
      throw new Problem("invalid_param", { detail: "ids must be invoice ids (1-64 of A-Z a-z 0-9 _ -)", extensions: { param: "ids" } });
    const rows = ids ? await readMany(ctx, ids) : await ctx.deps.db.invoices.listScoped(ctx.scope, { limit: 100, offset: 0 });
    return {
      status: 200,
      body: { many: rows.map(invoiceView), wrap: LISTS["invoices.export"].rows, extra: { format: "json", exported_at: new Date().toISOString() } },
    };
  },
};

const batch: RouteHandler = {
  async act(ctx) {
    const rows = await readMany(ctx, ctx.body.ids as string[]);
    return { status: 200, body: { many: rows.map(invoiceView), wrap: LISTS["invoices.batch"].rows } };
  },
};

function workflow(action: keyof typeof TRANSITIONS): RouteHandler {
  const t = TRANSITIONS[action];
  return {
    // Separation of duties (approve, refund) needs the owner; found only within the actor's tenant.
    locate:
      action === "refund" || action === "approve"
        ? async ({ deps, state, id }) => {
            const row = await deps.db.invoices.getScoped(id, { tenant_id: state.actor.tenant as string });
            return row ? { tenant: row.tenant_id, owner: row.owner_id } : undefined;
          }
        : undefined,
    async act(ctx) {
      const result = await ctx.deps.db.invoices.transitionScopedResult(ctx.id ?? "", ctx.scope, [...t.from], t.to);
      if (result.outcome === "not_found") throw new Problem("not_found");
      if (result.outcome === "conflict") {
        throw new Problem("conflict", { detail: `an invoice in status ${result.status} cannot be ${t.to}`, extensions: { current_status: result.status } });
      }
      return { status: 200, body: { one: invoiceView(result.row) } };
    },
  };
}

export const invoiceRoutes: Record<string, RouteHandler> = {
  "invoices.get": get,
  "invoices.list": list,
  "invoices.export": exportInvoices,
  "invoices.batch": batch,
  "invoices.approve": workflow("approve"),
  "invoices.publish": workflow("publish"),
  "invoices.refund": workflow("refund"),
};
