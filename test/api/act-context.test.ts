/**
 * The context the act step gives a route's operation (api/middleware/act.ts).
 *
 * `ctx.scope` is the decision's row filter, and reading it on a decision
 * without a tenant is a bug that throws. It is read through ONE getter
 * shared by every context, never an accessor of each context's own: V8
 * allocates a per-object accessor pair in old space, and that pair held
 * each request (req, res, state) through young-generation collections
 * until a full collection (~6 KiB per request copied and promoted; the
 * cost is measured in bench/chain.bench.ts, never timed here).
 */
import type { NextFunction, Request, Response } from "express";
import { initState } from "../../api/context";
import type { ApiDeps } from "../../api/deps";
import { act } from "../../api/middleware/act";
import { ROUTES } from "../../api/registry/routes";
import type { ActContext, RouteHandler } from "../../api/routes/types";
import type { RecordedDecision } from "../../pdp/types";

const record = ROUTES.find((r) => r.id === "invoices.get")!;

function decision(scope: RecordedDecision["scope"]): RecordedDecision {
  return { allow: true, status: 200, reason: "allowed", scope, fields: { read: ["id"], write: [] }, decisionId: "d", revision: "r" };
}

/** Runs the act step once for `scope`; resolves with the context the operation saw and what it read of the scope. */
async function contextFor(scope: RecordedDecision["scope"]): Promise<{ ctx: ActContext; read: unknown }> {
  let seen: { ctx: ActContext; read: unknown } | undefined;
  const handler: RouteHandler = {
    act(ctx) {
      let read: unknown;
      try {
        read = ctx.scope;
      } catch (err) {
        read = err;
      }
      seen = { ctx, read };
      return { status: 200, body: { raw: null } };
    },
  };
  const res = { locals: {} } as unknown as Response;
  const state = initState(res, "127.0.0.1", "127.0.0.1:1");
  state.decision = decision(scope);
  state.resource.id = "inv_alice_1";
  const next = jest.fn() as NextFunction;
  await act(record, handler, { lockWaitMs: 10 } as ApiDeps, new Map())({} as Request, res, next);
  expect(next).toHaveBeenCalledWith();
  return seen!;
}

test("the operation reads the decision's scope through a getter every context shares, not one of its own", async () => {
  const a = await contextFor({ tenant_id: "t_acme", owner_id: "u_alice" });
  const b = await contextFor({ tenant_id: "t_acme" });
  expect(a.read).toEqual({ tenant_id: "t_acme", owner_id: "u_alice" });
  expect(b.read).toEqual({ tenant_id: "t_acme" });
  expect(a.ctx.id).toBe("inv_alice_1");
  // No per-context accessor (the garbage that outlived young-generation collections); one shared getter.
  expect(Object.getOwnPropertyDescriptor(a.ctx, "scope")).toBeUndefined();
  expect(Object.getPrototypeOf(a.ctx)).toBe(Object.getPrototypeOf(b.ctx));
});

test("a decision without a tenant scope: reading ctx.scope is an error naming the route", async () => {
  const { read } = await contextFor({});
  expect(read).toBeInstanceOf(Error);
  expect((read as Error).message).toBe("invoices.get: the decision carries no tenant scope to query through");
});
