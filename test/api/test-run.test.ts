/**
 * Test runs told apart from real traffic, without a place for an attacker
 * to hide (real HTTP, real SQLite decision log and security events, real
 * signed credentials):
 *
 * - a `Portcullis-Test-Run` credential signed with the instance's key marks
 *   every request that carries it, anonymous ones and early refusals
 *   included: the run id is on the outcome and the security events, and
 *   `decisions` / `events` select or exclude it;
 * - anything that does not verify (another key, expired, a bearer token in
 *   its place, a credential naming a subject, two credentials, garbage)
 *   marks nothing: 400 invalid_test_run, on the record under its
 *   Decision-Id, and an invalid_test_run security event;
 * - the credential is no bearer token, and a bearer token is no credential.
 */
import * as path from "node:path";
import { importJWK, SignJWT } from "jose";
import request from "supertest";
import { runCli } from "../inventory/cli-helper";
import { DEV_ALGORITHM, loadOrCreateDevKeys } from "../../api/identity/keys";
import { mintTestRunCredential, TEST_RUN_AUDIENCE, TEST_RUN_TYPE } from "../../api/identity/test-run";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions, type DecisionEntry, type DecisionQuery } from "../../pdp/log/store/query";
import { expectProblem, ISSUER, startHarness, type Harness } from "./harness";

let h: Harness;
let credential: string;
beforeAll(async () => {
  h = await startHarness();
  credential = await mintTestRunCredential({ keyFile: h.keyFile, issuer: ISSUER, runId: "matrix-run-1", ttlSec: 600 });
});
afterAll(() => h.close());

async function query(q: DecisionQuery): Promise<DecisionEntry[]> {
  await h.log.flush();
  const db = openForRead(path.join(h.dir, "decisions.db"));
  try {
    return queryDecisions(db, { limit: 1000, ...q });
  } finally {
    db.close();
  }
}

async function cli(...argv: string[]): Promise<string> {
  await h.log.flush();
  const run = await runCli(argv);
  expect(run.code).toBe(0);
  return run.stdout.replace(/\n$/, "");
}

/** A credential signed with the instance's key but otherwise shaped by the test. */
async function signed(claims: Record<string, unknown>, header: Record<string, unknown> = {}, ttlSec = 600): Promise<string> {
  const { privateJwk } = await loadOrCreateDevKeys(h.keyFile);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: DEV_ALGORITHM, kid: privateJwk.kid, typ: TEST_RUN_TYPE, ...header })
    .setIssuer(ISSUER)
    .setAudience(TEST_RUN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSec)
    .sign(await importJWK(privateJwk, DEV_ALGORITHM));
}

test("a verified run marks its requests, anonymous and early refusals too; decisions and events select or exclude it", async () => {
  const bob = await h.auth("u_bob");
  const bola = await request(h.app).get("/invoices/inv_alice_1").set(bob).set("Portcullis-Test-Run", credential);
  expectProblem(bola, 404, "not_found");
  const anonymous = await request(h.app).get("/invoices/inv_alice_1").set("Portcullis-Test-Run", credential);
  expectProblem(anonymous, 401, "authentication_required");
  const badToken = await request(h.app).get("/users/me").set("Authorization", "Bearer x.y.z").set("Portcullis-Test-Run", credential);
  expectProblem(badToken, 401, "invalid_token");
  const unmatched = await request(h.app).get("/nowhere").set("Portcullis-Test-Run", credential);
  expectProblem(unmatched, 404, "route_not_found");
  const real = await request(h.app).get("/invoices/inv_alice_1").set(bob); // the same attempt, not in a run
  expectProblem(real, 404, "not_found");

  const marked = [bola, anonymous, badToken, unmatched].map((r) => r.headers["decision-id"]);
  const run = await query({ testRun: "matrix-run-1" });
  expect(run.map((e) => e.decision_id).sort()).toEqual([...marked].sort());
  for (const e of run) expect(e.outcome!.test_run).toBe("matrix-run-1");
  const realOnly = (await query({ excludeTestRuns: true, denied: true })).map((e) => e.decision_id);
  expect(realOnly).toContain(real.headers["decision-id"]);
  for (const id of marked) expect(realOnly).not.toContain(id);

  // Security events carry the run in their own column.
  const owner = await h.events({ kind: "cross_owner_id" });
  expect(owner.find((e) => e.decision_id === bola.headers["decision-id"])?.test_run).toBe("matrix-run-1");
  expect(owner.find((e) => e.decision_id === real.headers["decision-id"])?.test_run).toBeNull();
  expect((await h.events({ testRun: "matrix-run-1" })).map((e) => e.kind).sort()).toEqual(["cross_owner_id", "invalid_token"]);
  expect((await h.events({ excludeTestRuns: true })).map((e) => e.decision_id)).not.toContain(bola.headers["decision-id"]);

  // The auditor's commands.
  const decisions = await cli("decisions", "--db", path.join(h.dir, "decisions.db"), "--test-run", "matrix-run-1");
  for (const id of marked) expect(decisions).toContain(id);
  expect(decisions).toContain("[test run matrix-run-1]");
  const excluded = await cli("decisions", "--db", path.join(h.dir, "decisions.db"), "--exclude-test-runs", "--limit", "1000");
  expect(excluded).toContain(real.headers["decision-id"]);
  for (const id of marked) expect(excluded).not.toContain(id);
  const events = await cli("events", "--db", path.join(h.dir, "portcullis.db"), "--test-run", "matrix-run-1", "--json");
  expect(events.split("\n").map((l) => (JSON.parse(l) as { test_run: string }).test_run)).toEqual(["matrix-run-1", "matrix-run-1"]);
});

describe("a credential that does not verify marks nothing: 400, on the record, a security event", () => {
  test.each([
    [
      "another key's",
      () => mintTestRunCredential({ keyFile: path.join(h.dir, "attacker.json"), issuer: ISSUER, runId: "hide-me", ttlSec: 600 }),
      "unknown_key",
    ],
    ["an expired one", () => signed({ run: "hide-me" }, {}, -60), "expired"],
    ["a bearer token", () => h.token("u_alice"), "claims_invalid"],
    ["one naming a subject", () => signed({ run: "hide-me", sub: "u_alice" }), "claims_invalid"],
    ["one typed as a plain JWT", () => signed({ run: "hide-me" }, { typ: "JWT" }), "claims_invalid"],
    ["one living longer than a run may", () => signed({ run: "hide-me" }, {}, 3 * 24 * 3600), "claims_invalid"],
    ["one whose run id is not a label", () => signed({ run: "hide me\n" }), "claims_invalid"],
    ["garbage", () => Promise.resolve("not-a-credential"), "malformed"],
    ["two credentials", () => Promise.resolve(`${credential}, ${credential}`), "malformed"],
  ])("%s", async (_name, make, reason) => {
    const res = await request(h.app)
      .get("/invoices/inv_bob_1")
      .set(await h.auth("u_bob"))
      .set("Portcullis-Test-Run", await make());
    expectProblem(res, 400, "invalid_test_run");
    const id = res.headers["decision-id"];
    const [entry] = await query({ id });
    expect(entry.event!.custom).toEqual({ policy_evaluated: false, refusal: { stage: "test-run", status: 400, problem: "invalid_test_run" } });
    expect(entry.outcome).toMatchObject({ status: 400, problem: "invalid_test_run", test_run: null });
    const events = (await h.events({ kind: "invalid_test_run" })).filter((e) => e.decision_id === id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ test_run: null, route_id: "invoices.get" });
    expect(events[0].detail).toMatchObject({ reason, status: 400 });
    expect((await query({ testRun: "hide-me" })).length).toBe(0);
  });
});

test("the credential is no bearer token", async () => {
  const res = await request(h.app).get("/users/me").set("Authorization", `Bearer ${credential}`);
  expectProblem(res, 401, "invalid_token");
});
