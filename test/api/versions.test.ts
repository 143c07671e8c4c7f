/**
 * One behavioural contract, every version: each servable version, reached
 * by path prefix, header or content negotiation, answers with the same
 * fields, accepts the same input, refuses the same attacks and draws from
 * the same rate-limit budget. Lifecycle: Deprecation/Sunset headers, 410
 * for retired, 404 for unknown. Version hopping regains nothing.
 */
import request from "supertest";
import { loadVersions, resolveVersion } from "../../api/versions";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const catalog = loadVersions();
const SERVED = catalog.versions.filter((v) => ["Current", "Deprecated", "Zombie"].includes(v.state)).map((v) => v.name);
const ALL_NAMED = ["v1", "v2", "beta", "legacy", "old", "mobile", "partner"];

test("the catalogue names every version the issue lists, each with owner, state, sunset and plan", () => {
  for (const name of ALL_NAMED) {
    const v = catalog.versions.find((x) => x.name === name);
    expect(v).toBeDefined();
    expect(v?.owner).toBeTruthy();
    expect(v?.removal_plan).toBeTruthy();
  }
});

describe.each(SERVED)("version %s", (version) => {
  const ways: Array<[string, (r: request.Test) => request.Test, string]> = [
    ["path prefix", (r) => r, `/api/${version}/users/me`],
    ["Api-Version header", (r) => r.set("Api-Version", version), "/users/me"],
    ["Accept vendor type", (r) => r.set("Accept", `application/vnd.portcullis.${version}+json`), "/users/me"],
  ];

  test.each(ways)("GET users/me by %s: the same fields as v2, no v1 fields", async (name, how, path) => {
    const reference = await request(h.app)
      .get("/api/v2/users/me")
      .set(await h.auth("u_alice"));
    const res = await how(
      request(h.app)
        .get(path)
        .set(await h.auth("u_alice")),
    );
    expect(res.status).toBe(200);
    expect(res.headers["api-version"]).toBe(version);
    expect(res.headers["content-type"]).toMatch(name.startsWith("Accept") ? `application/vnd.portcullis.${version}+json` : /^application\/json/);
    expect(res.body).toEqual(reference.body);
    for (const field of ["role", "billingPlan", "internalNotes", "isAdmin", "tenant_id"]) expect(res.body[field]).toBeUndefined();
  });

  test("the same input accepted and the same attacks refused", async () => {
    const alice = await h.auth("u_alice");
    const ok = await request(h.app)
      .patch(`/api/${version}/users/me`)
      .set(alice)
      .send({ displayName: `Alice ${version}` });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body).sort()).toEqual(["displayName", "email", "id"]);
    for (const body of [{ role: "admin" }, { billingPlan: "enterprise" }, { internalNotes: "x" }, { isAdmin: true }, { locale: "fr-FR" }]) {
      expectProblem(await request(h.app).patch(`/api/${version}/users/me`).set(alice).send(body), 403, "field_not_writable");
    }
    expectProblem(await request(h.app).patch(`/api/${version}/users/me`).set(alice).send({ displayName: 7 }), 400, "invalid_body");
    expectProblem(await request(h.app).get(`/api/${version}/users/me`), 401, "authentication_required");
    expect(await h.db.users.getScoped("u_alice", { tenant_id: "t_acme" })).toMatchObject({ role: "member", billing_plan: "team" });
    // Unversioned routes through the header refuse the same way.
    expectProblem(await request(h.app).post("/invoices/inv_alice_2/approve").set(alice).set("Api-Version", version), 403, "forbidden");
    expectProblem(await request(h.app).get("/invoices/inv_bob_1").set(alice).set("Api-Version", version), 404, "not_found");
  });

  test("health and search exist with the same policy", async () => {
    expect((await request(h.app).get(`/api/${version}/health`)).body).toEqual({ status: "ok", revision: "api-test", reasons: [] });
    const res = await request(h.app)
      .get(`/api/${version}/search?q=a`)
      .set(await h.auth("u_dave"));
    expect(res.status).toBe(200);
    for (const r of res.body.results) expect(Object.keys(r).sort()).toEqual(["id", "title", "type"]);
    expect(JSON.stringify(res.body)).not.toMatch(/acme|SECRET/i);
    expectProblem(
      await request(h.app)
        .get(`/api/${version}/search?q=a&debug=1`)
        .set(await h.auth("u_dave")),
      400,
      "invalid_param",
    );
    expectProblem(await request(h.app).get(`/api/${version}/search?q=a`), 401, "authentication_required");
  });

  test("lifecycle headers", async () => {
    const record = catalog.versions.find((v) => v.name === version)!;
    const res = await request(h.app).get(`/api/${version}/health`);
    if (record.state === "Current") {
      expect(res.headers.deprecation).toBeUndefined();
      expect(res.headers.sunset).toBeUndefined();
    } else {
      expect(res.headers.deprecation).toBe(`@${Math.floor(Date.parse(record.deprecated_at!) / 1000)}`);
      expect(res.headers.sunset).toBe(new Date(record.sunset!).toUTCString());
    }
  });
});

describe("lifecycle refusals", () => {
  test("a retired version is 410 by every way of naming it", async () => {
    const alice = await h.auth("u_alice");
    expectProblem(await request(h.app).get("/api/legacy/users/me").set(alice), 410, "version_retired");
    expectProblem(await request(h.app).get("/users/me").set(alice).set("Api-Version", "legacy"), 410, "version_retired");
    expectProblem(await request(h.app).get("/users/me").set(alice).set("Accept", "application/vnd.portcullis.legacy+json"), 410, "version_retired");
    expectProblem(await request(h.app).patch("/api/legacy/users/me").set(alice).send({ role: "admin" }), 410, "version_retired");
  });

  test("an unknown version is 404", async () => {
    for (const v of ["v3", "v0", "internal", "V2x"]) {
      expectProblem(
        await request(h.app)
          .get(`/api/${v}/users/me`)
          .set(await h.auth("u_alice")),
        404,
        "unknown_version",
      );
    }
  });

  test("two different versions in one request are refused (no picking the laxer one)", async () => {
    const res = await request(h.app)
      .get("/api/v2/users/me")
      .set(await h.auth("u_alice"))
      .set("Api-Version", "v1");
    expectProblem(res, 400, "version_conflict");
  });
});

describe("one rate-limit budget across versions", () => {
  test("hopping versions does not reset the budget; 429 carries the headers", async () => {
    const small = await startHarness({ rateLimits: { default: { limit: 3, windowSec: 60 } } });
    try {
      const alice = await small.auth("u_alice");
      const answers = [];
      for (const v of ["v1", "v2", "mobile", "partner", "beta"]) answers.push(await request(small.app).get(`/api/${v}/users/me`).set(alice));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      expect(answers[0].headers["ratelimit-policy"]).toBe('"default";q=3;w=60');
      expect(answers[2].headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
      expectProblem(answers[3], 429, "rate_limited");
      expect(Number(answers[3].headers["retry-after"])).toBeGreaterThan(0);
      // Header-named versions share it too; other users and routes have their own.
      expectProblem(await request(small.app).get("/users/me").set(alice).set("Api-Version", "old"), 429, "rate_limited");
      expect(
        (
          await request(small.app)
            .get("/users/me")
            .set(await small.auth("u_bob"))
        ).status,
      ).toBe(200);
      expect((await request(small.app).get("/invoices").set(alice)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

test("a version in state Unknown is not served (404), whatever names it", () => {
  const withUnknown = {
    ...catalog,
    versions: [
      ...catalog.versions,
      { name: "v0", owner: "nobody", state: "Unknown" as const, deprecated_at: null, sunset: null, removal_plan: "find an owner" },
    ],
  };
  expect(resolveVersion(withUnknown, { path: "v0" })).toEqual({ ok: false, problem: "unknown_version", named: "v0" });
  expect(resolveVersion(withUnknown, { header: "v0" })).toEqual({ ok: false, problem: "unknown_version", named: "v0" });
  expect(resolveVersion(withUnknown, { accept: "application/vnd.portcullis.v0+json" })).toEqual({ ok: false, problem: "unknown_version", named: "v0" });
});

test("search lists only invoices the caller could read (a second, invoices.list decision)", async () => {
  const invoiceIds = (res: request.Response) =>
    res.body.results
      .filter((r: { type: string }) => r.type === "invoice")
      .map((r: { id: string }) => r.id)
      .sort();
  const member = await request(h.app)
    .get("/api/v2/search?q=ACME-")
    .set(await h.auth("u_alice"));
  expect(invoiceIds(member)).toEqual(["inv_alice_1", "inv_alice_2", "inv_alice_3"]);
  const admin = await request(h.app)
    .get("/api/v2/search?q=ACME-")
    .set(await h.auth("u_carol"));
  expect(invoiceIds(admin)).toEqual(["inv_alice_1", "inv_alice_2", "inv_alice_3", "inv_bob_1", "inv_bob_2", "inv_carol_1", "inv_frank_1", "inv_heidi_1"]);
  const otherTenant = await request(h.app)
    .get("/api/v2/search?q=ACME")
    .set(await h.auth("u_erin"));
  expect(otherTenant.body.results).toEqual([]);
});
