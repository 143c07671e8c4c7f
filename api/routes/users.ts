/**
 * Users: the caller's own profile (GET /users/me, PATCH /profile and their
 * versioned forms: id, email, displayName; only displayName is writable),
 * invitations, and admin moderation (suspend, disable,
 * ban). Profile routes always address the caller's own row: there is no id
 * in the request to tamper with, and the owner-scoped decision pins the
 * query to it anyway.
 */
import { Problem } from "../problems";
import { userView } from "../views";
import type { ActContext, RouteHandler } from "./types";

const me: RouteHandler = {
  async act(ctx) {
    const row = await ctx.deps.db.users.getScoped(ctx.state.actor.id, ctx.scope);
    if (!row) throw new Problem("not_found");
    return { status: 200, body: { one: userView(row) } };
  },
};

const updateMe: RouteHandler = {
  async act(ctx) {
    const changes: { displayName?: string } = {};
    if (typeof ctx.body.displayName === "string") changes.displayName = ctx.body.displayName;
    const row = await ctx.deps.db.users.updateScoped(ctx.state.actor.id, ctx.scope, changes);
    if (!row) throw new Problem("not_found");
    return { status: 200, body: { one: userView(row) } };
  },
};

const invite: RouteHandler = {
  async act(ctx) {
    // Invitations are always members: roles are never set through the API. Both writes or neither.
    const row = await ctx.deps.db.transaction(async (tx) => {
      const created = await tx.users.inviteScoped(ctx.scope, { email: ctx.body.email as string, role: "member" });
      if (typeof ctx.body.displayName !== "string") return created;
      return (await tx.users.updateScoped(created.id, { tenant_id: ctx.scope.tenant_id }, { displayName: ctx.body.displayName })) ?? created;
    });
    return { status: 201, body: { one: userView(row) } };
  },
};

/** Moderation targets are located by identity (tenant only), so a user of another tenant is 404 from the policy. */
function moderation(status: "suspended" | "disabled" | "banned"): RouteHandler {
  return {
    locate: async ({ deps, id }) => {
      const identity = await deps.db.users.findIdentity(id);
      return identity ? { tenant: identity.tenant_id } : undefined;
    },
    async act(ctx: ActContext) {
      const target = ctx.id ?? "";
      if (target === ctx.state.actor.id) throw new Problem("conflict", { detail: `admins cannot ${verb(status)} their own account` });
      const row = await ctx.deps.db.users.setStatusScoped(target, ctx.scope, status);
      if (!row) throw new Problem("not_found");
      return { status: 200, body: { one: userView(row) } };
    },
  };
}

function verb(status: string): string {
  return status === "suspended" ? "suspend" : status === "disabled" ? "disable" : "ban";
}

export const userRoutes: Record<string, RouteHandler> = {
  "users.me.get": me,
  "users.me.update": updateMe,
  "users.invite": invite,
  "admin.users.suspend": moderation("suspended"),
  "admin.users.disable": moderation("disabled"),
  "admin.users.ban": moderation("banned"),
};
