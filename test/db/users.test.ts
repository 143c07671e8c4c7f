/**
 * The users repository beyond scoping: writes touch only their columns,
 * input is validated, invites are tenant-local, search never matches private
 * text, and injection attempts are inert.
 */
import { DbInputError, SEED_USERS } from "../../db";
import { ACME, ALICE, closeTempDb, GLOBEX, INJECTIONS, openTempDb, type TempDb } from "./helpers";

let t: TempDb;
beforeEach(() => (t = openTempDb()));
afterEach(() => closeTempDb(t));

describe("findIdentity", () => {
  test("unknown, empty and injected ids find nothing", () => {
    for (const id of ["u_nobody", "", ...INJECTIONS]) expect(t.db.users.findIdentity(id)).toBeUndefined();
  });

  test("reflects status changes", () => {
    t.db.users.setStatusScoped("u_bob", ACME, "suspended");
    expect(t.db.users.findIdentity("u_bob")?.status).toBe("suspended");
  });
});

describe("updateScoped", () => {
  test("changes displayName and locale only", () => {
    const before = t.db.users.getScoped("u_alice", ALICE)!;
    const after = t.db.users.updateScoped("u_alice", ALICE, { displayName: "  Alice A.  ", locale: "fr-FR" });
    expect(after).toEqual({ ...before, display_name: "Alice A.", locale: "fr-FR" });
  });

  test.each(["isAdmin", "is_admin", "role", "tenant_id", "account_credit_cents", "internal_notes", "status", "display_name", "__proto__", "constructor"])(
    "refuses the field %s and writes nothing",
    (field) => {
      const before = t.db.users.getScoped("u_alice", ALICE);
      const changes = JSON.parse(`{"displayName": "Changed", ${JSON.stringify(field)}: "admin"}`);
      expect(() => t.db.users.updateScoped("u_alice", ALICE, changes)).toThrow(expect.objectContaining({ code: "unknown_field" }));
      expect(t.db.users.getScoped("u_alice", ALICE)).toEqual(before);
    },
  );

  test.each([
    ["displayName", ""],
    ["displayName", "   "],
    ["displayName", "x".repeat(101)],
    ["displayName", "evil\u001b[2J"],
    ["displayName", "abc\u202Eexe.txt"],
    ["displayName", 42],
    ["locale", "english"],
    ["locale", "en-US'; --"],
    ["locale", null],
  ])("refuses %s = %j", (field, value) => {
    expect(() => t.db.users.updateScoped("u_alice", ALICE, { [field]: value } as never)).toThrow(DbInputError);
  });

  test("no changes: answers the scoped row without writing", () => {
    expect(t.db.users.updateScoped("u_alice", ALICE, {})?.id).toBe("u_alice");
    expect(t.db.users.updateScoped("u_bob", ALICE, {})).toBeUndefined();
  });

  test("injected text is stored as text", () => {
    for (const text of INJECTIONS.filter((q) => q.length <= 100)) {
      expect(t.db.users.updateScoped("u_alice", ALICE, { displayName: text })?.display_name).toBe(text.trim());
    }
    expect(t.db.users.searchScoped(ACME, "", 100)).toHaveLength(5);
  });
});

describe("setStatusScoped", () => {
  test("sets a settable status", () => {
    for (const status of ["suspended", "disabled", "banned", "active"] as const) {
      expect(t.db.users.setStatusScoped("u_bob", ACME, status)?.status).toBe(status);
    }
  });

  test.each(["invited", "admin", "", "active' OR '1'='1"])("refuses status %j", (status) => {
    expect(() => t.db.users.setStatusScoped("u_bob", ACME, status as "active")).toThrow(DbInputError);
    expect(t.db.users.findIdentity("u_bob")?.status).toBe("active");
  });
});

describe("inviteScoped", () => {
  test("creates an invited, non-admin user with a fresh id", () => {
    const a = t.db.users.inviteScoped(ACME, { email: " Zoe@Acme.Example ", role: "member" });
    const b = t.db.users.inviteScoped(ACME, { email: "yuri@acme.example", role: "support" });
    expect(a).toMatchObject({
      tenant_id: "t_acme",
      email: "zoe@acme.example",
      role: "member",
      is_admin: 0,
      status: "invited",
      internal_notes: "",
      account_credit_cents: 0,
    });
    expect(a.id).toMatch(/^u_[A-Za-z0-9_-]+$/);
    expect(a.id).not.toBe(b.id);
    expect(SEED_USERS.map((u) => u.id)).not.toContain(a.id);
  });

  test.each(["admin", "owner", "", "member' --"])("refuses role %j", (role) => {
    expect(() => t.db.users.inviteScoped(ACME, { email: "x@acme.example", role: role as "member" })).toThrow(DbInputError);
  });

  test.each(["", "no-at-sign", "a@b", "a@@acme.example", "x'@acme.example; DROP TABLE users", `${"a".repeat(250)}@acme.example`])(
    "refuses email %j",
    (email) => {
      expect(() => t.db.users.inviteScoped(ACME, { email, role: "member" })).toThrow(DbInputError);
    },
  );

  test("email is unique per tenant, not across tenants", () => {
    expect(() => t.db.users.inviteScoped(ACME, { email: "ALICE@acme.example", role: "member" })).toThrow(expect.objectContaining({ code: "conflict" }));
    // Another tenant's address must not be revealed by a conflict.
    expect(t.db.users.inviteScoped(GLOBEX, { email: "alice@acme.example", role: "member" }).tenant_id).toBe("t_globex");
  });
});

describe("searchScoped", () => {
  test("matches email and display name, case-insensitively, within the tenant", () => {
    expect(t.db.users.searchScoped(ACME, "ALI", 10).map((u) => u.id)).toEqual(["u_alice"]);
    expect(t.db.users.searchScoped(ACME, "globex", 10)).toEqual([]);
    expect(t.db.users.searchScoped(GLOBEX, "globex.example", 10)).toHaveLength(4);
  });

  test("never matches private text", () => {
    expect(t.db.users.searchScoped(ACME, "SECRET", 10)).toEqual([]);
    expect(t.db.users.searchScoped(ACME, "churn", 10)).toEqual([]);
  });

  test("wildcards and injections are literal text", () => {
    for (const q of INJECTIONS) expect(t.db.users.searchScoped(ACME, q, 100)).toEqual([]);
  });

  test("limit is required to be positive and is capped", () => {
    expect(t.db.users.searchScoped(ACME, "", 2)).toHaveLength(2);
    expect(t.db.users.searchScoped(ACME, "", 1e9)).toHaveLength(5);
    for (const bad of [0, -1, 1.5, NaN, "10"]) expect(() => t.db.users.searchScoped(ACME, "", bad as number)).toThrow(DbInputError);
    expect(() => t.db.users.searchScoped(ACME, "x".repeat(201), 10)).toThrow(DbInputError);
  });
});
