/**
 * The seed: stable ids and roles other suites and tools rely on, every role
 * twice, every invoice in its owner's tenant, distinctive private values.
 */
import Database from "better-sqlite3";
import { SEED_INVOICES, SEED_USERS } from "../../db";
import { closeTempDb, openTempDb, type TempDb } from "./helpers";

let t: TempDb | undefined;
afterEach(() => closeTempDb(t));

const EXPECTED_USERS: Record<string, [string, string]> = {
  u_alice: ["t_acme", "member"],
  u_bob: ["t_acme", "member"],
  u_carol: ["t_acme", "admin"],
  u_frank: ["t_acme", "support"],
  u_heidi: ["t_acme", "admin"],
  u_dave: ["t_globex", "member"],
  u_erin: ["t_globex", "admin"],
  u_grace: ["t_globex", "support"],
  u_ivan: ["t_globex", "member"],
};

test("tenants", () => {
  t = openTempDb();
  expect(t.db.tenants.list()).toEqual([
    { id: "t_acme", name: "Acme" },
    { id: "t_globex", name: "Globex" },
  ]);
});

test("users: stable ids, tenants and roles; all active", () => {
  t = openTempDb();
  for (const [id, [tenant, role]] of Object.entries(EXPECTED_USERS)) {
    expect(t.db.users.findIdentity(id)).toEqual({ id, tenant_id: tenant, role, status: "active" });
    expect(t.db.users.getScoped(id, { tenant_id: tenant })?.is_admin).toBe(role === "admin" ? 1 : 0);
  }
  expect(SEED_USERS.map((u) => u.id).sort()).toEqual(Object.keys(EXPECTED_USERS).sort());
});

test("every role has at least two users, and spans both tenants", () => {
  for (const role of ["member", "support", "admin"]) {
    const users = SEED_USERS.filter((u) => u.role === role);
    expect(users.length).toBeGreaterThanOrEqual(2);
    expect(new Set(users.map((u) => u.tenant_id))).toEqual(new Set(["t_acme", "t_globex"]));
  }
});

test("invoices: the stable ones exist, each in its owner's tenant, statuses varied", () => {
  t = openTempDb();
  const ids = SEED_INVOICES.map((i) => i.id);
  expect(ids).toEqual(expect.arrayContaining(["inv_alice_1", "inv_alice_2", "inv_bob_1", "inv_dave_1", "inv_ivan_1"]));
  expect(t.db.invoices.getScoped("inv_alice_2", { tenant_id: "t_acme", owner_id: "u_alice" })?.status).toBe("pending");
  for (const inv of SEED_INVOICES) {
    const owner = SEED_USERS.find((u) => u.id === inv.owner_id);
    expect(owner?.tenant_id).toBe(inv.tenant_id);
    expect(t.db.invoices.getScoped(inv.id, { tenant_id: inv.tenant_id, owner_id: inv.owner_id })?.id).toBe(inv.id);
  }
  expect(new Set(SEED_INVOICES.map((i) => i.status)).size).toBe(5);
});

test("private columns carry distinctive values, so a leak shows", () => {
  for (const row of [...SEED_USERS, ...SEED_INVOICES]) expect(row.internal_notes).toMatch(/^SECRET-/);
  expect(new Set(SEED_USERS.map((u) => u.email)).size).toBe(SEED_USERS.length);
});

test("the database rejects an invoice whose owner is in another tenant", () => {
  t = openTempDb();
  const r = new Database(t.file);
  r.pragma("foreign_keys = ON");
  expect(() =>
    r
      .prepare(
        "INSERT INTO invoices (id, tenant_id, owner_id, number, amount_cents, currency, status) VALUES ('x', 't_acme', 'u_dave', 'N', 1, 'USD', 'draft')",
      )
      .run(),
  ).toThrow(/FOREIGN KEY/);
  r.close();
});
