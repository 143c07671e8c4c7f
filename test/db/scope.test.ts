/**
 * The object-level contract, one table for every *Scoped method: a malformed
 * scope throws before any SQL runs; a row of another tenant or another owner
 * is out of reach, for reads and for writes (which must leave it unchanged).
 */
import { ScopeError, toScope, type PortcullisDb, type Scope } from "../../db";
import { ACME, ALICE, closeTempDb, DAVE, GLOBEX, openTempDb, type TempDb } from "./helpers";

let t: TempDb | undefined;
afterEach(() => closeTempDb(t));
// Refused calls change nothing (each test asserts it), so they share one database: fast.
let shared: TempDb;
beforeAll(() => (shared = openTempDb()));
afterAll(() => closeTempDb(shared));

/** Each method aimed at one target row; `reached` says whether the call touched it. */
interface Case {
  name: string;
  call(db: PortcullisDb, scope: Scope, target: { user: string; invoice: string }): unknown;
  reached(result: unknown, target: { user: string; invoice: string }): boolean;
}

const hasId = (result: unknown, id: string) =>
  Array.isArray(result) ? result.some((r) => (r as { id: string }).id === id) : (result as { id?: string } | undefined)?.id === id;

const CASES: Case[] = [
  { name: "users.getScoped", call: (db, s, x) => db.users.getScoped(x.user, s), reached: (r, x) => hasId(r, x.user) },
  { name: "users.updateScoped", call: (db, s, x) => db.users.updateScoped(x.user, s, { displayName: "Mallory" }), reached: (r, x) => hasId(r, x.user) },
  { name: "users.setStatusScoped", call: (db, s, x) => db.users.setStatusScoped(x.user, s, "banned"), reached: (r, x) => hasId(r, x.user) },
  { name: "users.searchScoped", call: (db, s) => db.users.searchScoped(s, "", 100), reached: (r, x) => hasId(r, x.user) },
  { name: "invoices.getScoped", call: (db, s, x) => db.invoices.getScoped(x.invoice, s), reached: (r, x) => hasId(r, x.invoice) },
  { name: "invoices.listScoped", call: (db, s) => db.invoices.listScoped(s, { limit: 100, offset: 0 }), reached: (r, x) => hasId(r, x.invoice) },
  { name: "invoices.getManyScoped", call: (db, s, x) => db.invoices.getManyScoped([x.invoice], s), reached: (r, x) => hasId(r, x.invoice) },
  {
    name: "invoices.transitionScoped",
    call: (db, s, x) => db.invoices.transitionScoped(x.invoice, s, ["pending", "approved", "draft"], "refunded"),
    reached: (r, x) => hasId(r, x.invoice),
  },
  {
    name: "invoices.transitionScopedResult",
    call: (db, s, x) => db.invoices.transitionScopedResult(x.invoice, s, ["pending", "approved", "draft"], "refunded"),
    reached: (r) => (r as { outcome: string }).outcome !== "not_found",
  },
  { name: "invoices.searchScoped", call: (db, s) => db.invoices.searchScoped(s, "20", 100), reached: (r, x) => hasId(r, x.invoice) },
];

const BAD_SCOPES: unknown[] = [
  undefined,
  null,
  {},
  "t_acme",
  ["t_acme"],
  { owner_id: "u_alice" },
  { tenant_id: "" },
  { tenant_id: 7 },
  { tenant_id: null, owner_id: "u_alice" },
  { tenant_id: "t_acme", owner_id: "" },
  { tenant_id: "t_acme", owner_id: null },
  { tenant_id: "t_acme", project_id: "p_1" },
  { tenant_id: "t_acme", tenantId: "t_acme" },
];

/** A snapshot of the rows a write could have changed, read with a scope that reaches them. */
function snapshot(db: PortcullisDb) {
  return {
    dave: db.users.getScoped("u_dave", GLOBEX),
    bob: db.users.getScoped("u_bob", ACME),
    daveInvoice: db.invoices.getScoped("inv_dave_1", GLOBEX),
    bobInvoice: db.invoices.getScoped("inv_bob_1", ACME),
  };
}

describe.each(CASES)("$name", (c) => {
  test.each(BAD_SCOPES.map((s) => [JSON.stringify(s) ?? "undefined", s]))("refuses scope %s", (_label, scope) => {
    const before = snapshot(shared.db);
    expect(() => c.call(shared.db, scope as Scope, { user: "u_alice", invoice: "inv_alice_1" })).toThrow(ScopeError);
    expect(snapshot(shared.db)).toEqual(before);
  });

  test("cannot reach a row of another tenant", () => {
    t = openTempDb();
    const before = snapshot(t.db);
    // Acme-wide scope (an admin's) aimed at Globex rows.
    expect(c.reached(c.call(t.db, ACME, { user: "u_dave", invoice: "inv_dave_1" }), { user: "u_dave", invoice: "inv_dave_1" })).toBe(false);
    // Right owner id, wrong tenant: the tenant still filters.
    expect(
      c.reached(c.call(t.db, { tenant_id: "t_acme", owner_id: "u_dave" }, { user: "u_dave", invoice: "inv_dave_1" }), {
        user: "u_dave",
        invoice: "inv_dave_1",
      }),
    ).toBe(false);
    expect(snapshot(t.db)).toEqual(before);
  });

  test("cannot reach a row of another owner in the same tenant", () => {
    t = openTempDb();
    const before = snapshot(t.db);
    expect(c.reached(c.call(t.db, ALICE, { user: "u_bob", invoice: "inv_bob_1" }), { user: "u_bob", invoice: "inv_bob_1" })).toBe(false);
    expect(snapshot(t.db)).toEqual(before);
  });

  test("reaches its own row (the filter is not simply closed)", () => {
    t = openTempDb();
    expect(c.reached(c.call(t.db, DAVE, { user: "u_dave", invoice: "inv_dave_1" }), { user: "u_dave", invoice: "inv_dave_1" })).toBe(true);
  });
});

test("users.inviteScoped refuses bad scopes and owner scopes", () => {
  t = openTempDb();
  for (const scope of [...BAD_SCOPES, ALICE]) {
    expect(() => t!.db.users.inviteScoped(scope as Scope, { email: "new@acme.example", role: "member" })).toThrow(ScopeError);
  }
  expect(t.db.users.searchScoped(ACME, "new@", 10)).toEqual([]);
});

test("users.inviteScoped creates the user in the scope's tenant only", () => {
  t = openTempDb();
  const row = t.db.users.inviteScoped(GLOBEX, { email: "new@globex.example", role: "support" });
  expect(row.tenant_id).toBe("t_globex");
  expect(t.db.users.getScoped(row.id, ACME)).toBeUndefined();
  expect(t.db.users.getScoped(row.id, GLOBEX)?.email).toBe("new@globex.example");
});

test("toScope copies a valid decision scope and refuses the rest", () => {
  const decision = { tenant_id: "t_acme", owner_id: "u_alice" };
  const scope = toScope(decision);
  expect(scope).toEqual(decision);
  decision.owner_id = "u_bob";
  expect(scope.owner_id).toBe("u_alice");
  expect(toScope({ tenant_id: "t_acme" })).toEqual({ tenant_id: "t_acme" });
  expect(() => toScope({})).toThrow(expect.objectContaining({ code: "scope_invalid" }));
  expect(() => toScope(undefined)).toThrow(ScopeError);
});
