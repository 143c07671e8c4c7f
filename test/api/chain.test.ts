/**
 * The request chain itself: start-up refuses unregistered routes and routes
 * without a policy, the params guard, body limits, problem+json with a
 * decision id on every answer, fail-closed 503s, the OpenAPI document,
 * structured logs without secrets, and security events.
 */
import * as path from "node:path";
import request from "supertest";
import { createApp } from "../../api/app";
import { StartupCheckError } from "../../api/registry/check";
import { ROUTES } from "../../api/registry/routes";
import { createPdp } from "../../pdp";
import { createDecisionLog } from "../../pdp/log";
import { queryDecisions } from "../../pdp/log/store/query";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ enumeration: { threshold: 4, windowMs: 60_000 } });
});
afterAll(async () => h?.close());

describe("start-up checks", () => {
  test("a route Express serves without a registry record fails start-up", () => {
    expect(() => createApp(h.deps, { extend: (app) => app.get("/debug/dump", (_req, res) => void res.send("oops")) })).toThrow(StartupCheckError);
    expect(() => createApp(h.deps, { extend: (app) => app.get("/debug/dump", (_req, res) => void res.send("oops")) })).toThrow(/GET \/debug\/dump/);
  });

  test("a record without a policy in the bundle fails start-up", () => {
    const rogue = { ...ROUTES.find((r) => r.id === "invoices.get")!, id: "invoices.delete", paths: ["/invoices/{invoice_id}/delete"] };
    // A handler exists for the real id only; give the rogue record one by reusing the id table.
    expect(() => createApp(h.deps, { routes: [...ROUTES, rogue] })).toThrow(/invoices.delete/);
    const wrongMethod = { ...ROUTES.find((r) => r.id === "invoices.get")!, method: "DELETE" as const, paths: ["/invoices/{invoice_id}"] };
    expect(() => createApp(h.deps, { routes: [...ROUTES, wrongMethod] })).toThrow(/method_not_allowed/);
  });

  test("no policy bundle: start-up fails; a PDP failure at run time is 503, never 200", async () => {
    const log = createDecisionLog({});
    const empty = await createPdp({ bundle: { file: path.join(h.dir, "missing.tar.gz"), watch: false, pollIntervalMs: 60_000 }, log, logger: () => undefined });
    try {
      expect(() => createApp({ ...h.deps, pdp: empty })).toThrow(/cannot decide/);
      const deps = { ...h.deps };
      const app = createApp(deps);
      deps.pdp = empty; // the bundle disappears while serving
      for (const p of ["/health", "/users/me", "/invoices/inv_alice_1"]) {
        expectProblem(
          await request(app)
            .get(p)
            .set(await h.auth("u_alice")),
          503,
          "policy_unavailable",
        );
      }
    } finally {
      await empty.close();
      await log.close();
    }
  });
});

describe("params guard", () => {
  test.each([
    "debug=1",
    "admin=true",
    "role=admin",
    "redirect=https://evil.example",
    "next=/admin",
    "include=internalNotes",
    "expand=owner",
    "fields=isAdmin",
    "owner_id=u_bob",
    "Limit=5",
    "__proto__=x",
    "a[b]=1",
  ])("?%s is 400 for a caller the policy allows", async (q) => {
    const res = await request(h.app)
      .get(`/invoices?${q}`)
      .set(await h.auth("u_alice"));
    expectProblem(res, 400, "invalid_param");
  });

  test("declared parameters are validated; repeats refused", async () => {
    const alice = await h.auth("u_alice");
    expect((await request(h.app).get("/invoices?limit=2").set(alice)).body.invoices).toHaveLength(2);
    expectProblem(await request(h.app).get("/invoices?limit=0").set(alice), 400, "invalid_param");
    expectProblem(await request(h.app).get("/invoices?limit=abc").set(alice), 400, "invalid_param");
    expectProblem(await request(h.app).get("/invoices?limit=1&limit=100").set(alice), 400, "invalid_param");
  });

  test("parameters never change the policy's answer (401 stays 401, 403 stays 403)", async () => {
    expectProblem(await request(h.app).get("/invoices?debug=1"), 401, "authentication_required");
    expectProblem(
      await request(h.app)
        .get("/metrics?admin=true")
        .set(await h.auth("u_alice")),
      403,
      "forbidden",
    );
  });
});

describe("bodies", () => {
  test("too large: 413; not JSON: 415; malformed JSON: 400; a body where none is taken: 400", async () => {
    const alice = await h.auth("u_alice");
    const big = await request(h.app)
      .patch("/profile")
      .set(alice)
      .send({ displayName: "x".repeat(20_000) });
    expectProblem(big, 413, "payload_too_large");
    expectProblem(await request(h.app).patch("/profile").set(alice).set("Content-Type", "text/plain").send("displayName=x"), 415, "unsupported_media_type");
    expectProblem(await request(h.app).patch("/profile").set(alice).set("Content-Type", "application/json").send('{"displayName": '), 400, "invalid_body");
    expectProblem(await request(h.app).patch("/profile").set(alice).set("Content-Type", "application/json").send("[1]"), 400, "invalid_body");
    expectProblem(await request(h.app).post("/invoices/inv_alice_1/publish").set(alice).send({ note: "x" }), 403, "field_not_writable");
    expect((await h.db.users.getScoped("u_alice", { tenant_id: "t_acme" }))?.display_name).toBe("Alice Archer");
  });
});

describe("every answer", () => {
  test("carries Decision-Id; errors are problem+json with a stable type", async () => {
    const alice = await h.auth("u_alice");
    const answers = [
      await request(h.app).get("/health"),
      await request(h.app).get("/users/me").set(alice),
      await request(h.app).get("/no/such/route"),
      await request(h.app).delete("/invoices/inv_alice_1").set(alice),
      await request(h.app).get("/Invoices/inv_alice_1").set(alice),
      await request(h.app).get("/invoices/inv_alice_1/").set(alice),
    ];
    for (const res of answers) expect(res.headers["decision-id"]).toMatch(/^[0-9a-f-]{36}$/);
    for (const res of answers.slice(2)) expectProblem(res, 404, "route_not_found");
  });

  test("structured logs: one JSON line per request, never the token", async () => {
    const token = await h.token("u_alice");
    h.logs.length = 0;
    await request(h.app).get("/invoices?debug=secret-value").set("Authorization", `Bearer ${token}`);
    const line = JSON.stringify(h.logs);
    expect(h.logs).toHaveLength(1);
    expect(h.logs[0]).toMatchObject({
      event: "http.request",
      route_id: "invoices.list",
      actor: "u_alice",
      status: 400,
      problem: "invalid_param",
      path: "/invoices",
    });
    expect(line).not.toContain(token);
    expect(line).not.toContain(token.split(".")[2]);
    expect(line).not.toContain("secret-value");
  });
});

describe("diagnostics", () => {
  test("metrics: staff only", async () => {
    expectProblem(await request(h.app).get("/metrics"), 401, "authentication_required");
    expectProblem(
      await request(h.app)
        .get("/metrics")
        .set(await h.auth("u_alice")),
      403,
      "forbidden",
    );
    const res = await request(h.app)
      .get("/metrics")
      .set(await h.auth("u_frank"));
    expect(res.status).toBe(200);
    expect(res.body.metrics.requests_total).toBeGreaterThan(0);
  });

  test("openapi.json: from the registry, no internal operation, protected fields only where their readers get them", async () => {
    const res = await request(h.app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const paths = Object.keys(res.body.paths);
    expect(paths).toEqual(expect.arrayContaining(["/invoices/{invoice_id}", "/api/{version}/users/me", "/profile", "/users/invite"]));
    expect(paths.some((p) => p.includes("internal"))).toBe(false);
    expect(paths).not.toContain("/metrics");
    const text = JSON.stringify(res.body);
    for (const f of [
      "isAdmin",
      "ownerId",
      "account_credit_cents",
      "support_priority",
      '"role"',
      '"debug"',
      "billingPlan",
      "internalNotes",
      "tenant_id",
      "locale",
    ]) {
      expect(text).not.toContain(f);
    }
    // owner_id: admins read it, so their answers' schema has it, optional and saying who reads it; no request body takes it.
    const invoice = res.body.paths["/invoices/{invoice_id}"].get.responses["200"].content["application/json"].schema;
    expect(invoice.properties.owner_id).toMatchObject({ type: "string", description: "read only by admin" });
    expect(invoice.required).not.toContain("owner_id");
    for (const ops of Object.values(res.body.paths) as Array<Record<string, { requestBody?: unknown }>>) {
      for (const op of Object.values(ops)) expect(JSON.stringify(op.requestBody ?? {})).not.toContain("owner_id");
    }
    const documented = ROUTES.filter((r) => r.documented && r.audience !== "internal");
    for (const r of documented) for (const p of r.paths) expect(res.body.paths[p][r.method.toLowerCase()]).toBeDefined();
  });
});

describe("security events", () => {
  test("enumeration: repeated unknown ids by one actor", async () => {
    const bob = await h.auth("u_bob");
    for (const id of ["inv_alice_1", "inv_alice_2", "inv_x1", "inv_dave_1"]) {
      expectProblem(await request(h.app).get(`/invoices/${id}`).set(bob), 404, "not_found");
    }
    const events = await h.events({ kind: "enumeration", actorId: "u_bob" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ route_id: "invoices.get", tenant_id: "t_acme" });
    expect(events[0].detail.distinct_ids).toEqual(["inv_alice_1", "inv_alice_2", "inv_x1", "inv_dave_1"]);
  });

  test("protected-field submissions and security-relevant parameters are recorded", async () => {
    const dave = await h.auth("u_dave");
    await request(h.app)
      .patch("/profile")
      .set(dave)
      .send({ displayName: "D", settings: { IsAdmin: true } });
    await request(h.app).get("/invoices?debug=1").set(dave);
    const fields = await h.events({ kind: "protected_field_submission", actorId: "u_dave" });
    expect(fields[0].detail).toMatchObject({ fields: ["isAdmin"], outcome: "field_not_writable" });
    expect((await h.events({ kind: "forbidden_param", actorId: "u_dave" }))[0].detail.params).toEqual(["debug"]);
  });
});

test("a protected field sent to a route that takes no body is refused the same way (403)", async () => {
  const bob = await h.auth("u_bob");
  for (const body of [{ isAdmin: true }, { owner_id: "u_bob" }]) {
    expectProblem(
      await request(h.app)
        .post("/invoices/inv_alice_2/approve")
        .set(await h.auth("u_carol"))
        .send(body),
      403,
      "field_not_writable",
    );
    expectProblem(await request(h.app).get("/users/me").set(bob).send(body), 403, "field_not_writable");
  }
  expect((await h.db.invoices.getScoped("inv_alice_2", { tenant_id: "t_acme" }))?.status).toBe("pending");
});

test("unmatched paths spend a rate-limit budget too", async () => {
  const small = await startHarness({ rateLimits: { diagnostic: { limit: 2, windowSec: 60 } } });
  try {
    const statuses = [];
    for (const p of ["/a", "/b", "/c"]) statuses.push((await request(small.app).get(p)).status);
    expect(statuses).toEqual([404, 404, 429]);
  } finally {
    await small.close();
  }
});

test("each app counts its own requests: the decision log's req_id starts at 1 for a new app in the same process", async () => {
  const alice = await h.auth("u_alice");
  await request(h.app).get("/users/me").set(alice);
  const fresh = createApp(h.deps);
  const res = await request(fresh).get("/users/me").set(alice);
  expect(res.status).toBe(200);
  await h.log.flush();
  const db = openForRead(path.join(h.dir, "decisions.db"));
  try {
    const [entry] = queryDecisions(db, { id: res.headers["decision-id"] });
    expect(entry.event?.req_id).toBe(1);
  } finally {
    db.close();
  }
});

test("decisions as another route come from the app's own registry: an app built without invoices.list searches no invoice", async () => {
  const alice = await h.auth("u_alice");
  expect((await request(h.app).get("/api/v2/search?q=a").set(alice)).status).toBe(200);
  const withoutList = createApp(h.deps, { routes: ROUTES.filter((r) => r.id !== "invoices.list") });
  expectProblem(await request(withoutList).get("/api/v2/search?q=a").set(alice), 500, "internal_error");
});
