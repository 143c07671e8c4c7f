/**
 * The count-traffic step against the real app (harness: real bundle, SQLite
 * file, signed JWTs): every finished request is counted by method, route
 * template, version, status and actor class; undeclared versions keep their
 * name; unmatched paths collapse into one template; the inventory's own
 * probes (a verified test run, never a client-set header) are counted apart. And the migration that holds it is appended.
 */
import request from "supertest";
import { MIGRATIONS } from "../../db/migrations";
import { mintTestRunCredential } from "../../api/identity/test-run";
import { ISSUER, startHarness, type Harness } from "../api/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** The counts are written on "finish", which can trail supertest's promise by a tick. */
async function rows() {
  await new Promise((r) => setImmediate(r));
  return h.db.traffic.summary();
}

test("the traffic table is a new migration appended after the shipped ones", () => {
  expect(MIGRATIONS.slice(0, 2).map((m) => m.version)).toEqual([1, 2]);
  expect(MIGRATIONS.find((m) => m.sql.includes("CREATE TABLE IF NOT EXISTS traffic_counts"))?.version).toBeGreaterThan(2);
});

test("counts per template, version, status and actor class", async () => {
  const alice = await h.auth("u_alice");
  const carol = await h.auth("u_carol");
  await request(h.app).get("/api/v1/users/me").set(alice).expect(200);
  await request(h.app).get("/api/v1/users/me").set(alice).expect(200);
  await request(h.app).get("/users/me").set(carol).set("Api-Version", "beta").expect(200);
  await request(h.app).get("/invoices/inv_alice_1").expect(401);
  await request(h.app).get("/api/v9/health").expect(404);
  await request(h.app).get("/api/legacy/health").expect(410);
  await request(h.app).get("/no/such/path/inv_1").expect(404);
  // Counted apart only with a VERIFIED test-run credential; the old client-set header alone is real traffic.
  const credential = await mintTestRunCredential({ keyFile: h.keyFile, issuer: ISSUER, runId: "inventory-test", ttlSec: 600 });
  await request(h.app).get("/health").set("Portcullis-Test-Run", credential).expect(200);
  await request(h.app).get("/api/v1/health").set("Portcullis-Probe", "inventory").expect(200);
  const got = (await rows()).map((r) => [r.method, r.template, r.version, r.status, r.actor_class, r.probe, r.count]);
  expect(got).toEqual(
    expect.arrayContaining([
      ["GET", "/api/{version}/users/me", "v1", 200, "member", 0, 2],
      ["GET", "/users/me", "beta", 200, "admin", 0, 1],
      ["GET", "/invoices/{invoice_id}", "v2", 401, "anonymous", 0, 1],
      ["GET", "/api/{version}/health", "v9", 404, "anonymous", 0, 1],
      ["GET", "/api/{version}/health", "legacy", 410, "anonymous", 0, 1],
      ["GET", "(unmatched)", "", 404, "anonymous", 0, 1],
      ["GET", "/health", "v2", 200, "anonymous", 1, 1],
      ["GET", "/api/{version}/health", "v1", 200, "anonymous", 0, 1],
    ]),
  );
  // Raw paths never become rows: probing cannot grow the table.
  expect(got.some((r) => String(r[1]).includes("inv_1"))).toBe(false);
});

test("a failing count never changes the answer", async () => {
  const spy = jest.spyOn(h.db.traffic, "count").mockImplementation(() => {
    throw new Error("database is locked");
  });
  try {
    const res = await request(h.app).get("/health");
    expect(res.status).toBe(200);
    expect(spy).toHaveBeenCalled();
  } finally {
    spy.mockRestore();
  }
});
