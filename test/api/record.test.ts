/**
 * Every refusal is on the auditor's record (spec 5.4): over real HTTP, the
 * real PDP and the real SQLite decision log, each Decision-Id the API
 * returns is found by `portcullis decisions --id` (the CLI's query code),
 * with the policy's answer AND what the client got:
 *
 * - a same-tenant BOLA attempt the policy allowed but the owner scope
 *   answered 404 is a refusal (`--denied`), with a cross_owner_id event;
 * - requests refused before the policy was asked (bad tokens of every
 *   class, unknown version, no such route, rate limit) have an event marked
 *   as not evaluated, and token failures are security events with their
 *   class, never the token.
 */
import * as path from "node:path";
import request from "supertest";
import { runCli } from "../inventory/cli-helper";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions, type DecisionEntry, type DecisionQuery } from "../../pdp/log/store/query";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ rateLimits: { diagnostic: { limit: 2, windowSec: 60 } } });
});
afterAll(() => h.close());

async function query(q: DecisionQuery): Promise<DecisionEntry[]> {
  await h.log.flush();
  const db = openForRead(path.join(h.dir, "decisions.db"));
  try {
    return queryDecisions(db, q);
  } finally {
    db.close();
  }
}

/** A genuine token with claims changed after signing (the signature no longer matches). */
function forge(token: string, claims: Record<string, unknown>): string {
  const [header, payload, signature] = token.split(".");
  const changed = { ...JSON.parse(Buffer.from(payload, "base64url").toString()), ...claims };
  return [header, Buffer.from(JSON.stringify(changed)).toString("base64url"), signature].join(".");
}

async function byId(id: string): Promise<DecisionEntry> {
  const found = await query({ id });
  expect(found).toHaveLength(1);
  return found[0];
}

/** `portcullis decisions ...` as the auditor runs it, its printed lines. */
async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  await h.log.flush();
  const run = await runCli(["decisions", "--db", path.join(h.dir, "decisions.db"), ...args]);
  return { code: run.code, out: run.stdout.replace(/\n$/, "") };
}

describe("a read the policy allowed but the scope did not find", () => {
  test("a same-tenant BOLA attempt is on the record as a 404 refusal, with a cross_owner_id event", async () => {
    const res = await request(h.app)
      .get("/invoices/inv_alice_1")
      .set(await h.auth("u_bob"));
    expectProblem(res, 404, "not_found");
    const id = res.headers["decision-id"];

    const entry = await byId(id);
    expect(entry).toMatchObject({ allowed: true, status: 200, actor_id: "u_bob" }); // the policy's answer, as it was
    expect(entry.outcome).toMatchObject({
      method: "GET",
      http_path: "/invoices/inv_alice_1",
      route_id: "invoices.get",
      version: "v2",
      status: 404,
      problem: "not_found",
      scope_found: false,
      aborted: false,
    });
    expect((await query({ denied: true, actor: "u_bob" })).map((e) => e.decision_id)).toContain(id);

    const events = await h.events({ kind: "cross_owner_id", actorId: "u_bob" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ decision_id: id, route_id: "invoices.get", tenant_id: "t_acme" });
    expect(events[0].detail).toMatchObject({ resource_type: "invoice", resource_id: "inv_alice_1", status: 404 });
    expect(JSON.stringify(events[0].detail)).not.toContain("u_alice"); // the owner is classified, never disclosed

    const { code, out } = await cli("--id", id);
    expect(code).toBe(0);
    const row = out.split("\n").find((l) => l.includes(id));
    expect(row).toMatch(/u_bob\s+GET \/invoices\/inv_alice_1\s+invoices\.get\s+v2\s+allowed 200 allowed\s+404 not_found \(no row in scope\)/);
  });

  test("a missing id and an own row: no owner event; the own row is not a refusal", async () => {
    const bob = await h.auth("u_bob");
    const missing = await request(h.app).get("/invoices/inv_nope").set(bob);
    expectProblem(missing, 404, "not_found");
    const own = await request(h.app).get("/invoices/inv_bob_1").set(bob);
    expect(own.status).toBe(200);
    expect((await byId(missing.headers["decision-id"])).outcome).toMatchObject({ status: 404, scope_found: false });
    expect((await byId(own.headers["decision-id"])).outcome).toMatchObject({ status: 200, problem: null, scope_found: true });
    const denied = (await query({ denied: true, actor: "u_bob" })).map((e) => e.decision_id);
    expect(denied).toContain(missing.headers["decision-id"]);
    expect(denied).not.toContain(own.headers["decision-id"]);
    expect((await h.events({ kind: "cross_owner_id" })).map((e) => e.detail.resource_id)).not.toContain("inv_nope");
  });

  test("a write whose owner scope finds another member's row is a refusal too", async () => {
    const res = await request(h.app)
      .post("/invoices/inv_alice_1/publish")
      .set(await h.auth("u_bob"))
      .send({});
    expectProblem(res, 404, "not_found");
    const entry = await byId(res.headers["decision-id"]);
    expect(entry).toMatchObject({ allowed: true });
    expect(entry.outcome).toMatchObject({ route_id: "invoices.publish", status: 404, problem: "not_found", scope_found: false });
    expect((await h.events({ kind: "cross_owner_id" })).map((e) => e.decision_id)).toContain(res.headers["decision-id"]);
    expect((await query({ denied: true })).map((e) => e.decision_id)).toContain(res.headers["decision-id"]);
  });
});

describe("refusals made before the policy is asked", () => {
  /** The entry of a refusal: no policy evaluated, no bundle, the API's answer as its status and reason. */
  async function expectRefusal(id: string, status: number, problem: string, stage: string): Promise<DecisionEntry> {
    const entry = await byId(id);
    expect(entry).toMatchObject({ allowed: false, status, reason: problem, revision: null, path: null });
    expect(entry.event).not.toHaveProperty("result");
    expect(entry.event).not.toHaveProperty("bundles");
    expect(entry.event!.custom).toEqual({ policy_evaluated: false, refusal: { stage, status, problem } });
    expect(entry.outcome).toMatchObject({ status, problem });
    expect((await query({ denied: true })).map((e) => e.decision_id)).toContain(id);
    return entry;
  }

  test.each([
    ["garbage", () => Promise.resolve("Bearer not-a-jwt"), "malformed"],
    ["a key the service does not know", async () => `Bearer ${await h.token("u_alice", { keyFile: path.join(h.dir, "attacker-key.json") })}`, "unknown_key"],
    ["a payload changed under a genuine signature", async () => `Bearer ${forge(await h.token("u_bob"), { sub: "u_carol" })}`, "bad_signature"],
    ["an expired token", async () => `Bearer ${await h.token("u_alice", { ttlSec: -60 })}`, "expired"],
    ["a token for another audience", async () => `Bearer ${await h.token("u_alice", { audience: "someone-else" })}`, "claims_invalid"],
    ["a subject that is no user", async () => `Bearer ${await h.token("u_mallory")}`, "unknown_subject"],
  ])("%s: 401 findable by its Decision-Id, and an invalid_token security event of that class", async (_name, header, reason) => {
    const authorization = await header();
    const res = await request(h.app).get("/invoices/inv_alice_1").set("Authorization", authorization);
    expectProblem(res, 401, "invalid_token");
    const id = res.headers["decision-id"];
    const entry = await expectRefusal(id, 401, "invalid_token", "authenticate");
    expect(entry.event!.input).toMatchObject({ actor: { id: "anonymous" }, route: { id: "invoices.get", method: "GET" } });
    expect(entry.outcome).toMatchObject({ http_path: "/invoices/inv_alice_1", actor_id: "anonymous" });

    const events = (await h.events({ kind: "invalid_token" })).filter((e) => e.decision_id === id);
    expect(events).toHaveLength(1);
    expect(events[0].detail).toMatchObject({ reason, status: 401 });
    const token = authorization.slice("Bearer ".length);
    for (const text of [JSON.stringify(events[0]), JSON.stringify(entry)]) expect(text).not.toContain(token);

    const { out } = await cli("--id", id);
    expect(out).toMatch(new RegExp(`${id}\\s+anonymous\\s+GET /invoices/inv_alice_1\\s+invoices\\.get\\s+-\\s+not asked\\s+401 invalid_token`));
  });

  test("unknown version, no such route and a spent rate limit are findable too", async () => {
    const unknownVersion = await request(h.app).get("/api/v9/users/me");
    expectProblem(unknownVersion, 404, "unknown_version");
    await expectRefusal(unknownVersion.headers["decision-id"], 404, "unknown_version", "resolve-route");

    const noRoute = await request(h.app).get("/no/such/route");
    expectProblem(noRoute, 404, "route_not_found");
    const entry = await expectRefusal(noRoute.headers["decision-id"], 404, "route_not_found", "router");
    expect(entry.event!.input).toMatchObject({ route: null, action: null, resource: null });
    expect(entry.outcome).toMatchObject({ method: "GET", http_path: "/no/such/route", route_id: null });

    const carol = await h.auth("u_carol");
    let limited: request.Response | undefined;
    for (let i = 0; i < 4 && !limited; i++) {
      const res = await request(h.app).get("/metrics").set(carol);
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expectProblem(limited!, 429, "rate_limited");
    await expectRefusal(limited!.headers["decision-id"], 429, "rate_limited", "rate-limit");
  });

  test("an allowed anonymous health check: its event is dropped by policy, its outcome still answers --id", async () => {
    const res = await request(h.app).get("/health");
    expect(res.status).toBe(200);
    const entry = await byId(res.headers["decision-id"]);
    expect(entry.event).toBeNull();
    expect(entry.outcome).toMatchObject({ status: 200, route_id: "health.get" });
    expect((await cli("--id", res.headers["decision-id"])).out).toMatch(/not logged\s+200/);
  });

  test("--path matches an HTTP path or a route id", async () => {
    const res = await request(h.app)
      .get("/invoices/inv_bob_2")
      .set(await h.auth("u_bob"));
    const id = res.headers["decision-id"];
    expect((await query({ path: "/invoices/inv_bob_2" })).map((e) => e.decision_id)).toEqual([id]);
    expect((await query({ path: "invoices.get", limit: 1000 })).map((e) => e.decision_id)).toContain(id);
    expect((await query({ path: "portcullis/decision", limit: 1000 })).map((e) => e.decision_id)).toContain(id);
    expect((await cli("--path", "/invoices/inv_bob_2")).out).toContain(id);
  });
});
