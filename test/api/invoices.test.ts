/**
 * Invoices through the full chain: object-level checks wherever an id
 * appears (path, query, body, nested body), a second tenant, property-level
 * cuts, and one decision per workflow action. Every refused attack re-reads
 * the rows to prove nothing changed.
 */
import request from "supertest";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const ACME = { tenant_id: "t_acme" };
const GLOBEX = { tenant_id: "t_globex" };
const MEMBER_FIELDS = ["amount_cents", "created_at", "currency", "id", "number", "status"];
const withoutId = (body: Record<string, unknown>) => ({ ...body, decision_id: undefined });

describe("reading", () => {
  test("a member reads her own invoice, cut to the member view", async () => {
    const res = await request(h.app)
      .get("/invoices/inv_alice_1")
      .set(await h.auth("u_alice"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(MEMBER_FIELDS);
    expect(JSON.stringify(res.body)).not.toMatch(/SECRET|internal|owner|tenant/);
  });

  test("another user's invoice answers exactly like a missing one (404)", async () => {
    const alice = await h.auth("u_alice");
    const foreign = await request(h.app).get("/invoices/inv_bob_1").set(alice);
    const otherTenant = await request(h.app).get("/invoices/inv_dave_1").set(alice);
    const missing = await request(h.app).get("/invoices/inv_nope").set(alice);
    for (const res of [foreign, otherTenant, missing]) expectProblem(res, 404, "not_found");
    expect(withoutId(foreign.body)).toEqual(withoutId(missing.body));
    expect(withoutId(otherTenant.body)).toEqual(withoutId(missing.body));
  });

  test("probing another tenant's invoice id is recorded as cross-tenant; a same-tenant miss is not", async () => {
    const frank = await h.auth("u_frank");
    expectProblem(await request(h.app).get("/invoices/inv_dave_1").set(frank), 404, "not_found");
    expectProblem(await request(h.app).get("/invoices/inv_nope").set(frank), 404, "not_found");
    const events = await h.events({ kind: "cross_tenant_id", actorId: "u_frank" });
    expect(events.map((e) => [e.detail.resource_id, e.detail.resource_tenant])).toEqual([["inv_dave_1", "t_globex"]]);
  });

  test("an admin of another tenant gets 404 too", async () => {
    const res = await request(h.app)
      .get("/invoices/inv_alice_1")
      .set(await h.auth("u_erin"));
    expectProblem(res, 404, "not_found");
  });

  test("support reads tenant invoices without customer-facing owner data; admin sees owner_id", async () => {
    const support = await request(h.app)
      .get("/invoices/inv_bob_1")
      .set(await h.auth("u_frank"));
    expect(support.status).toBe(200);
    expect(support.body.owner_id).toBeUndefined();
    const admin = await request(h.app)
      .get("/invoices/inv_bob_1")
      .set(await h.auth("u_carol"));
    expect(admin.body.owner_id).toBe("u_bob");
  });

  test("get, list, export and batch return the same field set", async () => {
    const alice = await h.auth("u_alice");
    const one = await request(h.app).get("/invoices/inv_alice_1").set(alice);
    const list = await request(h.app).get("/invoices").set(alice);
    const exp = await request(h.app).get("/invoices/export").set(alice);
    const batch = await request(h.app)
      .post("/invoices/batch")
      .set(alice)
      .send({ ids: ["inv_alice_1"] });
    for (const res of [list, exp, batch]) {
      expect(res.status).toBe(200);
      for (const inv of res.body.invoices) expect(Object.keys(inv).sort()).toEqual(Object.keys(one.body).sort());
    }
    // A member lists only her own rows.
    expect(list.body.invoices.map((i: { id: string }) => i.id).sort()).toEqual(["inv_alice_1", "inv_alice_2", "inv_alice_3"]);
    expect(exp.body.invoices).toHaveLength(3);
  });

  test("ids in the query are checked: export of a foreign id is 404, all or nothing", async () => {
    const alice = await h.auth("u_alice");
    const own = await request(h.app).get("/invoices/export?ids=inv_alice_1,inv_alice_2").set(alice);
    expect(own.body.invoices).toHaveLength(2);
    for (const ids of ["inv_alice_1,inv_bob_1", "inv_dave_1"]) {
      expectProblem(await request(h.app).get(`/invoices/export?ids=${ids}`).set(alice), 404, "not_found");
    }
  });

  test("ids in the body are checked, nested ones refused", async () => {
    const alice = await h.auth("u_alice");
    expectProblem(
      await request(h.app)
        .post("/invoices/batch")
        .set(alice)
        .send({ ids: ["inv_alice_1", "inv_bob_1"] }),
      404,
      "not_found",
    );
    expectProblem(
      await request(h.app)
        .post("/invoices/batch")
        .set(alice)
        .send({ ids: ["inv_dave_1"] }),
      404,
      "not_found",
    );
    // Nested objects where ids belong: 400 (validated after the decision, never read).
    expectProblem(
      await request(h.app)
        .post("/invoices/batch")
        .set(alice)
        .send({ ids: [{ id: "inv_bob_1" }] }),
      400,
      "invalid_body",
    );
    // Any other body field, at any depth, is not writable.
    const extra = await request(h.app)
      .post("/invoices/batch")
      .set(alice)
      .send({ ids: ["inv_alice_1"], filter: { owner_id: "u_bob" } });
    expectProblem(extra, 403, "field_not_writable");
  });
});

describe("workflow actions, one decision each", () => {
  test("a member cannot approve; nothing changes", async () => {
    const res = await request(h.app)
      .post("/invoices/inv_alice_2/approve")
      .set(await h.auth("u_alice"));
    expectProblem(res, 403, "forbidden");
    expect(res.body.reason).toBe("role_required");
    expect((await h.db.invoices.getScoped("inv_alice_2", ACME))?.status).toBe("pending");
  });

  test("an admin approves in her tenant, then the same transition is 409", async () => {
    const carol = await h.auth("u_carol");
    const ok = await request(h.app).post("/invoices/inv_alice_3/approve").set(carol);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe("approved");
    const again = await request(h.app).post("/invoices/inv_alice_3/approve").set(carol);
    expectProblem(again, 409, "conflict");
  });

  test("an admin of another tenant cannot approve: 404, unchanged", async () => {
    const res = await request(h.app)
      .post("/invoices/inv_bob_1/approve")
      .set(await h.auth("u_erin"));
    expectProblem(res, 404, "not_found");
    expect((await h.db.invoices.getScoped("inv_bob_1", ACME))?.status).toBe("pending");
  });

  test("a member publishes her own approved invoice, never someone else's", async () => {
    const bob = await h.auth("u_bob");
    const foreign = await request(h.app).post("/invoices/inv_alice_1/publish").set(bob);
    expectProblem(foreign, 404, "not_found");
    expect((await h.db.invoices.getScoped("inv_alice_1", ACME))?.status).toBe("approved");
    const own = await request(h.app)
      .post("/invoices/inv_alice_1/publish")
      .set(await h.auth("u_alice"));
    expect(own.status).toBe(200);
    expect(own.body.status).toBe("published");
  });

  test("support refunds only with a reason; members never", async () => {
    const frank = await h.auth("u_frank");
    const noReason = await request(h.app).post("/invoices/inv_bob_2/refund").set(frank).send({});
    expectProblem(noReason, 403, "forbidden");
    expect(noReason.body.reason).toBe("refund_reason_required");
    const member = await request(h.app)
      .post("/invoices/inv_bob_2/refund")
      .set(await h.auth("u_bob"))
      .send({ reason: "mine" });
    expectProblem(member, 403, "forbidden");
    expect((await h.db.invoices.getScoped("inv_bob_2", ACME))?.status).toBe("published");
    const ok = await request(h.app).post("/invoices/inv_bob_2/refund").set(frank).send({ reason: "customer complaint", amount_cents: 5000 });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe("refunded");
  });

  test("nobody approves or refunds their own invoice, admins included; the row is unchanged", async () => {
    // inv_carol_1 (pending) and inv_frank_1 (published) belong to staff of t_acme.
    const carol = await h.auth("u_carol");
    const approve = await request(h.app).post("/invoices/inv_carol_1/approve").set(carol);
    expectProblem(approve, 403, "forbidden");
    expect(approve.body.reason).toBe("separation_of_duties");
    const refund = await request(h.app).post("/invoices/inv_carol_1/refund").set(carol).send({ reason: "paying myself" });
    expect(refund.body.reason).toBe("separation_of_duties");
    expect((await h.db.invoices.getScoped("inv_carol_1", ACME))?.status).toBe("pending");

    const self = await request(h.app)
      .post("/invoices/inv_frank_1/refund")
      .set(await h.auth("u_frank"))
      .send({ reason: "mine" });
    expect(self.body.reason).toBe("separation_of_duties");
    expect((await h.db.invoices.getScoped("inv_frank_1", ACME))?.status).toBe("published");

    // Another admin of the tenant approves it: the rule is about owners, not about the invoice.
    const other = await request(h.app)
      .post("/invoices/inv_carol_1/approve")
      .set(await h.auth("u_heidi"));
    expect(other.status).toBe(200);
    expect(other.body.status).toBe("approved");
  });

  test("refund with a protected field in the body is refused and changes nothing", async () => {
    const res = await request(h.app)
      .post("/invoices/inv_ivan_1/refund")
      .set(await h.auth("u_erin"))
      .send({ reason: "x", account_credit_cents: 1_000_000 });
    expectProblem(res, 403, "field_not_writable");
    expect((await h.db.invoices.getScoped("inv_ivan_1", GLOBEX))?.status).toBe("approved");
  });
});
