/**
 * GET /api/{version}/search?q=: summaries (id, type, title) of the users
 * and invoices whose name, email or number matches. Summaries only: never a
 * full row, never internal text.
 *
 * Users come through the search decision's scope (the tenant directory).
 * Invoices are only listed where the caller could read them: a second
 * decision, for invoices.list, supplies their scope (a member sees her own
 * invoices, not every number in the tenant); it is logged like any other.
 */
import { toScope } from "../../db";
import { Problem } from "../problems";
import { decideAsRoute } from "./related-decision";
import { LISTS } from "../views";
import type { RouteHandler } from "./types";

const search: RouteHandler = {
  async act(ctx) {
    const q = ctx.query.q;
    if (typeof q !== "string") throw new Problem("invalid_param", { detail: 'query parameter "q" is required', extensions: { param: "q" } });
    const limit = typeof ctx.query.limit === "number" ? ctx.query.limit : 20;
    const users = (await ctx.deps.db.users.searchScoped(ctx.scope, q, limit)).map((u) => ({ id: u.id, type: "user", title: u.display_name }));
    const invoiceDecision = decideAsRoute(ctx, "invoices.list");
    const invoices = invoiceDecision.allow
      ? (await ctx.deps.db.invoices.searchScoped(toScope(invoiceDecision.scope), q, limit)).map((i) => ({ id: i.id, type: "invoice", title: i.number }))
      : [];
    return { status: 200, body: { many: [...users, ...invoices].slice(0, limit), wrap: LISTS["search.get"].rows } };
  },
};

export const searchRoutes: Record<string, RouteHandler> = { "search.get": search };
