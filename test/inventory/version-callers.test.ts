/**
 * Who still calls a deprecated version: the API counts calls to Deprecated
 * and Zombie versions per actor and client (never Current ones, never the
 * inventory's own probes), and `portcullis versions` shows them, so the
 * removal decision rests on data about callers, not just volume.
 */
import * as path from "node:path";
import request from "supertest";
import { MAX_CLIENTS } from "../../db/version-callers";
import { callersTable, type VersionCaller } from "../../inventory/versions/callers";
import { mintTestRunCredential } from "../../api/identity/test-run";
import { ISSUER, startHarness, type Harness } from "../api/harness";
import { bundleFile, runCli } from "./cli-helper";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

test("calls to deprecated and zombie versions are counted per actor and client; portcullis versions shows them", async () => {
  const alice = await h.auth("u_alice");
  for (let i = 0; i < 3; i++) await request(h.app).get("/api/v1/users/me").set(alice).set("User-Agent", "mobile-app/3.2 (iOS 17)");
  await request(h.app)
    .get("/users/me")
    .set(await h.auth("u_bob"))
    .set("Api-Version", "beta")
    .set("User-Agent", "partner-sync/1.0");
  await request(h.app).get("/api/old/health").set("User-Agent", "curl/8.5.0");
  // Not callers of a deprecated version: a current version, and the inventory's own probe (a verified
  // test run). A client-set probe header alone is a caller like any other.
  await request(h.app)
    .get("/api/v2/users/me")
    .set(await h.auth("u_carol"));
  const credential = await mintTestRunCredential({ keyFile: h.keyFile, issuer: ISSUER, runId: "inventory-1", ttlSec: 600 });
  await request(h.app)
    .get("/api/v1/users/me")
    .set(await h.auth("u_dave"))
    .set("Portcullis-Test-Run", credential)
    .expect(200);
  await request(h.app)
    .get("/api/v1/users/me")
    .set(await h.auth("u_ivan"))
    .set("Portcullis-Probe", "inventory")
    .set("User-Agent", "hiding/1.0");
  await h.db.versionCallers.flush();

  const run = await runCli(["versions", "--json", "--bundle", bundleFile(), "--db", path.join(h.dir, "portcullis.db")]);
  expect(run.code).toBe(0);
  const { callers } = JSON.parse(run.stdout) as { callers: Array<Record<string, unknown>> };
  expect(callers).toEqual([
    { version: "beta", actor: "u_bob", tenant: "t_acme", client: "partner-sync/1.0", requests: 1, lastSeen: expect.any(String) },
    { version: "old", actor: "anonymous", tenant: null, client: "curl/8.5.0", requests: 1, lastSeen: expect.any(String) },
    { version: "v1", actor: "u_alice", tenant: "t_acme", client: "mobile-app/3.2", requests: 3, lastSeen: expect.any(String) },
    { version: "v1", actor: "u_ivan", tenant: "t_globex", client: "hiding/1.0", requests: 1, lastSeen: expect.any(String) },
  ]);

  // The terminal table (what `portcullis versions` prints under "Who still calls deprecated versions").
  const table = callersTable(callers as unknown as VersionCaller[]);
  expect(table).toMatch(/^VERSION\s+ACTOR\s+TENANT\s+CLIENT\s+REQUESTS\s+LAST SEEN/);
  expect(table).toMatch(/v1\s+u_alice\s+t_acme\s+mobile-app\/3\.2\s+3/);
});

test("one actor cannot grow the table by inventing clients", async () => {
  const bob = await h.auth("u_bob");
  for (let i = 0; i < MAX_CLIENTS + 5; i++) {
    await request(h.app).get("/api/v1/users/me").set(bob).set("User-Agent", `tool-${i}/1`);
    await h.db.versionCallers.flush();
  }
  const rows = (await h.db.versionCallers.summary()).filter((r) => r.version === "v1" && r.actor_id === "u_bob");
  expect(rows).toHaveLength(MAX_CLIENTS + 1);
  expect(rows.find((r) => r.client === "(other)")?.count).toBe(5);
});
