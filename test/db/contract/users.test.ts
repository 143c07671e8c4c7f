/**
 * Contract: the users repository, the same tests on SQLite and PostgreSQL
 * (backends.ts). Scoped reads and writes, input checks, invites per tenant,
 * search that never matches private text, inert injections.
 */
import { DbInputError, ScopeError, SEED_USERS } from "../../../db";
import { ACME, ALICE, BOB, DAVE, GLOBEX, INJECTIONS } from "../helpers";
import { BACKENDS, useBackend } from "./backends";

describe.each(BACKENDS)("users on $name", (backend) => {
  const t = useBackend(backend);

  test("findIdentity: the four identity columns of any user, across tenants; unknown and injected ids find nothing", async () => {
    expect(await t.store.users.findIdentity("u_dave")).toEqual({ id: "u_dave", tenant_id: "t_globex", role: "member", status: "active" });
    expect(await t.store.users.findIdentity("u_carol")).toEqual({ id: "u_carol", tenant_id: "t_acme", role: "admin", status: "active" });
    for (const id of ["u_nobody", "", ...INJECTIONS]) expect(await t.store.users.findIdentity(id)).toBeUndefined();
  });

  test("getScoped reads the seed row exactly, only within its scope", async () => {
    const alice = SEED_USERS.find((u) => u.id === "u_alice")!;
    expect(await t.store.users.getScoped("u_alice", ALICE)).toEqual({ ...alice, is_admin: 0, status: "active" });
    expect((await t.store.users.getScoped("u_carol", ACME))?.is_admin).toBe(1);
    expect(await t.store.users.getScoped("u_alice", BOB)).toBeUndefined();
    expect(await t.store.users.getScoped("u_alice", GLOBEX)).toBeUndefined();
    expect(await t.store.users.getScoped("u_dave", ACME)).toBeUndefined();
    for (const id of INJECTIONS) expect(await t.store.users.getScoped(id, ACME)).toBeUndefined();
  });

  test.each([undefined, null, {}, { tenant_id: "" }, { tenant_id: "t_acme", owner_id: "" }, { tenant_id: "t_acme", project_id: "p" }, ["t_acme"]])(
    "refuses the scope %j before any SQL runs",
    async (scope) => {
      await expect(t.store.users.getScoped("u_alice", scope as never)).rejects.toThrow(ScopeError);
      await expect(t.store.users.searchScoped(scope as never, "", 10)).rejects.toThrow(ScopeError);
      await expect(t.store.users.updateScoped("u_alice", scope as never, { displayName: "X" })).rejects.toThrow(ScopeError);
      expect((await t.store.users.getScoped("u_alice", ALICE))?.display_name).toBe("Alice Archer");
    },
  );

  test("updateScoped changes displayName and locale only, and only in scope", async () => {
    const before = (await t.store.users.getScoped("u_alice", ALICE))!;
    expect(await t.store.users.updateScoped("u_alice", ALICE, { displayName: "  Alice A.  ", locale: "fr-FR" })).toEqual({
      ...before,
      display_name: "Alice A.",
      locale: "fr-FR",
    });
    expect(await t.store.users.updateScoped("u_alice", DAVE, { displayName: "Pwned" })).toBeUndefined();
    expect(await t.store.users.updateScoped("u_dave", ACME, { displayName: "Pwned" })).toBeUndefined();
    expect((await t.store.users.getScoped("u_dave", DAVE))?.display_name).toBe("Dave Dawson");
    expect((await t.store.users.updateScoped("u_alice", ALICE, {}))?.id).toBe("u_alice");
  });

  test.each(["isAdmin", "is_admin", "role", "tenant_id", "account_credit_cents", "internal_notes", "status", "__proto__"])(
    "updateScoped refuses %s and writes nothing",
    async (field) => {
      const before = await t.store.users.getScoped("u_alice", ALICE);
      const changes = JSON.parse(`{"displayName": "Changed", ${JSON.stringify(field)}: "admin"}`);
      await expect(t.store.users.updateScoped("u_alice", ALICE, changes)).rejects.toMatchObject({ code: "unknown_field" });
      expect(await t.store.users.getScoped("u_alice", ALICE)).toEqual(before);
    },
  );

  test("updateScoped refuses bad values", async () => {
    for (const [field, value] of [
      ["displayName", ""],
      ["displayName", "x".repeat(101)],
      ["displayName", "abc\u202Eexe"],
      ["locale", "en-US'; --"],
    ] as const) {
      await expect(t.store.users.updateScoped("u_alice", ALICE, { [field]: value })).rejects.toThrow(DbInputError);
    }
  });

  test("setStatusScoped sets a settable status in scope, shows in findIdentity, refuses others", async () => {
    expect((await t.store.users.setStatusScoped("u_bob", ACME, "suspended"))?.status).toBe("suspended");
    expect((await t.store.users.findIdentity("u_bob"))?.status).toBe("suspended");
    expect(await t.store.users.setStatusScoped("u_dave", ACME, "banned")).toBeUndefined();
    expect((await t.store.users.findIdentity("u_dave"))?.status).toBe("active");
    await expect(t.store.users.setStatusScoped("u_bob", ACME, "invited" as never)).rejects.toThrow(DbInputError);
  });

  test("inviteScoped: a fresh invited member in the scope's tenant; email unique per tenant only", async () => {
    const zoe = await t.store.users.inviteScoped(ACME, { email: " Zoe@Acme.Example ", role: "member" });
    expect(zoe).toMatchObject({
      tenant_id: "t_acme",
      email: "zoe@acme.example",
      display_name: "zoe",
      role: "member",
      is_admin: 0,
      status: "invited",
      internal_notes: "",
      account_credit_cents: 0,
      locale: "en-US",
    });
    expect(zoe.id).toMatch(/^u_[A-Za-z0-9_-]+$/);
    expect(zoe.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await t.store.users.getScoped(zoe.id, ACME)).toEqual(zoe);
    await expect(t.store.users.inviteScoped(ACME, { email: "ALICE@acme.example", role: "member" })).rejects.toMatchObject({ code: "conflict" });
    expect((await t.store.users.inviteScoped(GLOBEX, { email: "alice@acme.example", role: "member" })).tenant_id).toBe("t_globex");
    await expect(t.store.users.inviteScoped(ALICE, { email: "x@acme.example", role: "member" })).rejects.toThrow(ScopeError);
    await expect(t.store.users.inviteScoped({ tenant_id: "t_nope" }, { email: "x@acme.example", role: "member" })).rejects.toThrow(ScopeError);
    await expect(t.store.users.inviteScoped(ACME, { email: "x@acme.example", role: "admin" as never })).rejects.toThrow(DbInputError);
  });

  test("searchScoped: email and name, ASCII case-insensitive, in scope, sorted; never private text; injections literal; limit capped", async () => {
    expect((await t.store.users.searchScoped(ACME, "ALI", 10)).map((u) => u.id)).toEqual(["u_alice"]);
    expect((await t.store.users.searchScoped(ACME, "", 100)).map((u) => u.id)).toEqual(["u_alice", "u_bob", "u_carol", "u_frank", "u_heidi"]);
    expect(await t.store.users.searchScoped(ACME, "globex", 10)).toEqual([]);
    expect(await t.store.users.searchScoped(GLOBEX, "globex.example", 10)).toHaveLength(4);
    expect(await t.store.users.searchScoped(ACME, "SECRET", 10)).toEqual([]);
    for (const q of INJECTIONS) expect(await t.store.users.searchScoped(ACME, q, 100)).toEqual([]);
    expect(await t.store.users.searchScoped(ACME, "", 1e9)).toHaveLength(5);
    await expect(t.store.users.searchScoped(ACME, "", 0)).rejects.toThrow(DbInputError);
  });
});
