/**
 * Profiles, invitations and moderation: mass assignment in every shape
 * (top level, nested, other letter case, __proto__), the one refusal for
 * protected fields, admin-only routes for normal users, a second tenant.
 * Refused attacks re-read the rows to prove nothing was persisted.
 */
import * as path from "node:path";
import request from "supertest";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions } from "../../pdp/log/store/query";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const ACME = { tenant_id: "t_acme" };
const row = (id: string, tenant = ACME) => h.db.users.getScoped(id, tenant);
/** The current contract (spec section 2): exactly these, in every version. */
const PROFILE_FIELDS = ["displayName", "email", "id"];

describe("own profile", () => {
  test("GET /users/me: the public view only", async () => {
    const res = await request(h.app)
      .get("/users/me")
      .set(await h.auth("u_carol"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PROFILE_FIELDS);
    expect(JSON.stringify(res.body)).not.toMatch(/SECRET|admin|credit|priority|billing|role|tenant/i);
  });

  test("PATCH /profile changes the display name and answers the profile view", async () => {
    const res = await request(h.app)
      .patch("/profile")
      .set(await h.auth("u_bob"))
      .send({ displayName: "Robert" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: "u_bob", email: "bob@acme.example", displayName: "Robert" });
    expect((await row("u_bob"))?.display_name).toBe("Robert");
  });

  test.each(["/profile", "/api/v1/users/me", "/api/v2/users/me", "/api/old/users/me"])(
    "locale is no longer writable (%s): 403 field_not_writable, nothing persisted",
    async (path) => {
      const before = await row("u_alice");
      expectProblem(
        await request(h.app)
          .patch(path)
          .set(await h.auth("u_alice"))
          .send({ displayName: "Alice", locale: "fr-FR" }),
        403,
        "field_not_writable",
      );
      expect(await row("u_alice")).toEqual(before);
    },
  );

  const attacks: Array<[string, unknown]> = [
    ["isAdmin", { displayName: "x", isAdmin: true }],
    ["role", { role: "admin" }],
    ["ownerId", { ownerId: "u_carol" }],
    ["owner_id", { owner_id: "u_carol" }],
    ["owner id in another spelling, nested", { displayName: "x", prefs: { "Owner-Id": "u_carol" } }],
    ["tenantId", { tenantId: "t_globex" }],
    ["account credit", { account_credit_cents: 1_000_000 }],
    ["support priority", { support_priority: "vip" }],
    ["debug", { debug: true }],
    ["v1 billingPlan", { billingPlan: "enterprise" }],
    ["v1 internalNotes", { internalNotes: "hi" }],
    ["other letter case", { displayName: "x", IsAdmin: true }],
    ["upper case", { ROLE: "admin" }],
    ["nested under a writable field", { displayName: { isAdmin: true } }],
    ["nested deep", { profile: { settings: [{ Role: "admin" }] } }],
    ["__proto__", JSON.parse('{"displayName":"x","__proto__":{"isAdmin":true}}')],
    ["nested __proto__", JSON.parse('{"displayName":"x","prefs":{"__proto__":{"role":"admin"}}}')],
    ["constructor.prototype", { constructor: { prototype: { isAdmin: true } } }],
    ["unknown field", { email: "alice@evil.example" }],
    ["tenant", { tenant_id: "t_globex" }],
  ];

  test.each(attacks)("mass assignment (%s): 403 field_not_writable, nothing persisted", async (_name, body) => {
    const before = await row("u_alice");
    for (const path of ["/profile", "/api/v1/users/me", "/api/v2/users/me", "/api/mobile/users/me"]) {
      const res = await request(h.app)
        .patch(path)
        .set(await h.auth("u_alice"))
        .set("Content-Type", "application/json")
        .send(JSON.stringify(body));
      expectProblem(res, 403, "field_not_writable");
    }
    expect(await row("u_alice")).toEqual(before);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  test("a body of a thousand field names fitting the size limit, writable ones first: one 403, nothing persisted, the decision on record", async () => {
    // Every name reaches the policy and the log, however many; what such a decision costs is a
    // benchmark's question (bench/pdp.bench.ts reports it), not this test's.
    const body: Record<string, unknown> = { displayName: "x" };
    for (let i = 0; JSON.stringify(body).length < 15_000; i++) body[`f${(i * 7919) % 100_000}`] = 0;
    const before = await row("u_alice");
    const res = await request(h.app)
      .patch("/profile")
      .set(await h.auth("u_alice"))
      .set("Content-Type", "application/json")
      .send(JSON.stringify(body));
    expectProblem(res, 403, "field_not_writable");
    expect(await row("u_alice")).toEqual(before);
    await h.log.flush();
    const log = openForRead(path.join(h.dir, "decisions.db"));
    const [logged] = queryDecisions(log, { id: res.headers["decision-id"] });
    log.close();
    expect(logged).toMatchObject({ allowed: false, reason: "field_not_writable" });
    expect((logged.event!.input as { fields: { submitted: string[] } }).fields.submitted.sort()).toEqual(Object.keys(body).sort());
    expect(Object.keys(body).length).toBeGreaterThan(1000);
  });

  test("a value of the wrong type is 400 after the decision, not persisted", async () => {
    const before = await row("u_alice");
    expectProblem(
      await request(h.app)
        .patch("/profile")
        .set(await h.auth("u_alice"))
        .send({ displayName: 42 }),
      400,
      "invalid_body",
    );
    expectProblem(
      await request(h.app)
        .patch("/profile")
        .set(await h.auth("u_alice"))
        .send({ displayName: "" }),
      400,
      "invalid_body",
    );
    expect(await row("u_alice")).toEqual(before);
  });

  test("two keys differing only in letter case are refused", async () => {
    const res = await request(h.app)
      .patch("/profile")
      .set(await h.auth("u_alice"))
      .send({ displayName: "a", DisplayName: "b" });
    expectProblem(res, 403, "field_not_writable");
    expect((await row("u_alice"))?.display_name).toBe("Alice Archer");
  });
});

describe("invitations", () => {
  test("an admin invites a member into her tenant; the role cannot be chosen", async () => {
    const carol = await h.auth("u_carol");
    const res = await request(h.app).post("/users/invite").set(carol).send({ email: "new@acme.example", displayName: "Newbie" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: "new@acme.example", displayName: "Newbie", status: "invited" });
    expect(res.body.role).toBeUndefined();
    expect(await h.db.users.findIdentity(res.body.id)).toMatchObject({ tenant_id: "t_acme", role: "member" });
    const withRole = await request(h.app).post("/users/invite").set(carol).send({ email: "boss@acme.example", role: "admin" });
    expectProblem(withRole, 403, "field_not_writable");
    expect(await h.db.users.searchScoped(ACME, "boss@", 10)).toHaveLength(0);
  });

  test("a member cannot invite", async () => {
    const res = await request(h.app)
      .post("/users/invite")
      .set(await h.auth("u_alice"))
      .send({ email: "friend@acme.example" });
    expectProblem(res, 403, "forbidden");
    expect(await h.db.users.searchScoped(ACME, "friend@", 10)).toHaveLength(0);
  });
});

describe("admin routes", () => {
  test.each([
    ["POST", "/admin/users/u_bob/suspend", undefined],
    ["POST", "/admin/users/u_bob/disable", undefined],
    ["POST", "/admin/users/ban", { user_id: "u_bob" }],
    ["POST", "/api/admin/export", { format: "json" }],
  ] as const)("a normal user gets 403 on %s %s and nothing changes", async (_m, path, body) => {
    for (const user of ["u_alice", "u_frank"]) {
      const res = await request(h.app)
        .post(path)
        .set(await h.auth(user))
        .send(body ?? {});
      expectProblem(res, 403, "forbidden");
      expect(res.body.reason).toBe("role_required");
    }
    expect((await row("u_bob"))?.status).toBe("active");
    const events = await h.events({ kind: "admin_route_denied", actorId: "u_alice" });
    expect(events.length).toBeGreaterThan(0);
  });

  test("an admin cannot moderate a user of another tenant: 404, unchanged, recorded", async () => {
    const carol = await h.auth("u_carol");
    expectProblem(await request(h.app).post("/admin/users/u_dave/suspend").set(carol), 404, "not_found");
    expectProblem(await request(h.app).post("/admin/users/ban").set(carol).send({ user_id: "u_dave" }), 404, "not_found");
    expect((await h.db.users.findIdentity("u_dave"))?.status).toBe("active");
    const events = await h.events({ kind: "cross_tenant_id", actorId: "u_carol" });
    expect(events.map((e) => e.detail.resource_id)).toContain("u_dave");
  });

  test("an admin suspends a member of her tenant; the member's token then gets 403", async () => {
    const bobToken = await h.auth("u_bob");
    const res = await request(h.app)
      .post("/admin/users/u_bob/suspend")
      .set(await h.auth("u_heidi"))
      .send({ reason: "abuse" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: "u_bob", status: "suspended" });
    expectProblem(await request(h.app).get("/users/me").set(bobToken), 403, "account_inactive");
    await h.db.users.setStatusScoped("u_bob", ACME, "active");
  });

  test("an admin starts an export (202); internal report export: 401 / 403 / 200", async () => {
    const ok = await request(h.app)
      .post("/api/admin/export")
      .set(await h.auth("u_carol"))
      .send({ format: "csv" });
    expect(ok.status).toBe(202);
    expect(ok.body).toMatchObject({ status: "queued", format: "csv" });
    for (const method of ["get", "post"] as const) {
      for (const q of ["", "?include=all", "?debug=1&expand=users"]) {
        expectProblem(await request(h.app)[method](`/api/internal/reports/export${q}`), 401, "authentication_required");
        const member = await request(h.app)
          [method](`/api/internal/reports/export${q}`)
          .set(await h.auth("u_alice"));
        expectProblem(member, 403, "forbidden");
      }
      const admin = await request(h.app)
        [method]("/api/internal/reports/export")
        .set(await h.auth("u_carol"));
      expect(admin.status).toBe(200);
      expect(Object.keys(admin.body).sort()).toEqual(["format", "generatedAt", "name", "rows"]);
      // Extra parameters never widen anything: the admin gets 400, not more data.
      expectProblem(
        await request(h.app)
          [method]("/api/internal/reports/export?include=secrets")
          .set(await h.auth("u_carol")),
        400,
        "invalid_param",
      );
    }
  });
});
