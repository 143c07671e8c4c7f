/**
 * A second decision for the same caller, on another route of the registry:
 * what a route reads on the caller's behalf must be something the caller
 * could read through that route (search lists invoices as invoices.list
 * would; an export job reads them as invoices.export would). The route's
 * method, action and resource come from its record in the app's registry,
 * so they cannot drift from what the policy data says. Logged like any other decision.
 *
 *   const rows = decideAsRoute(ctx, "invoices.list");
 *   if (rows.allow) ... toScope(rows.scope), rows.fields.read
 */
import type { RecordedDecision } from "../../pdp/types";
import type { ActContext } from "./types";

export function decideAsRoute(ctx: ActContext, routeId: string): RecordedDecision {
  // The app's own registry (createApp's routes), never a global one: an app built without the route cannot decide as it.
  const record = ctx.routes.get(routeId);
  // A handler naming a route the registry lacks is a programming error, not a request error (500, nothing read).
  if (!record) throw new Error(`no registry record for route ${routeId}`);
  return ctx.deps.pdp.decide(
    {
      actor: ctx.state.actor,
      action: record.action,
      resource: { type: record.resource },
      route: { id: record.id, method: record.method, version: ctx.state.version?.name ?? "" },
      fields: { submitted: [] },
      params: [],
    },
    { requestedBy: ctx.state.client },
  );
}
