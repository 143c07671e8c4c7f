/**
 * Hot reload runs the start-up check: a bundle lacking a policy for a route
 * of the registry is refused on reload (the active bundle keeps deciding),
 * and the failure shows in /health (degraded, with the reason and the
 * active revision; ok again once a good bundle loads) and in /metrics.
 * The same holds for any bundle failure (unreadable source, not a bundle).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import request from "supertest";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import { createService } from "../../api/service";
import { DEFAULT_RATE_LIMITS } from "../../api/middleware/rate-limit";
import { collectPolicyInputs } from "../../cli/files";
import { AUDIENCE, ENTRYPOINTS, ISSUER, startHarness, type Harness } from "./harness";

const REPO = path.resolve(__dirname, "../..");

/** The project's policies as a bundle with its own revision, optionally without some route policies. */
function bundle(revision: string, withoutRoutes: string[] = []): Buffer {
  const { sources, data } = collectPolicyInputs([path.join(REPO, "rego")]);
  const policies = sources.filter((s) => !s.file.endsWith("_test.rego"));
  const routes = (data as { portcullis: { routes: Record<string, unknown> } }).portcullis.routes;
  for (const id of withoutRoutes) delete routes[id];
  const { wasm } = compile(policies, { entrypoints: ENTRYPOINTS });
  return writeBundle({
    wasm,
    data,
    sources: [],
    manifest: { revision, roots: [""], rego_version: 1, wasm: ENTRYPOINTS.map((entrypoint) => ({ entrypoint, module: "/policy.wasm" })) },
  });
}

let h: Harness;
let bundleFile: string;
beforeAll(async () => {
  h = await startHarness();
  bundleFile = path.join(h.dir, "bundle.tar.gz");
});
afterAll(async () => h?.close());

async function health() {
  const res = await request(h.app).get("/health");
  return { status: res.status, body: res.body };
}

async function metrics() {
  return (
    await request(h.app)
      .get("/metrics")
      .set(await h.auth("u_carol"))
  ).body.metrics;
}

test("a reload lacking a route's policy is refused; the old revision keeps serving; health and metrics say so; a good bundle heals it", async () => {
  expect(await health()).toEqual({ status: 200, body: { status: "ok", revision: "api-test", reasons: [] } });
  const before = await metrics();

  fs.writeFileSync(bundleFile, bundle("no-invoices-get", ["invoices.get"]));
  await h.pdp.refresh();
  expect(h.pdp.status()).toMatchObject({
    active: { revision: "api-test" },
    lastError: { code: "check_failed", message: expect.stringContaining("invoices.get") },
  });
  // The route still answers from the old bundle (not 403 no_policy).
  const res = await request(h.app)
    .get("/invoices/inv_alice_1")
    .set(await h.auth("u_alice"));
  expect(res.status).toBe(200);
  const degraded = await health();
  expect(degraded).toEqual({
    status: 200,
    body: {
      status: "degraded",
      revision: "api-test",
      reasons: [{ component: "policy_bundle", code: "check_failed", detail: expect.stringContaining("lacks a policy"), since: expect.any(String) }],
    },
  });
  // Public health names the code, never the raw message (paths); metrics (staff) carry it.
  expect(JSON.stringify(degraded.body)).not.toContain(h.dir);
  const after = await metrics();
  expect(after.bundle_failures).toBe(before.bundle_failures + 1);
  expect(after.bundle_last_error).toMatchObject({ code: "check_failed", message: expect.stringContaining("invoices.get") });
  expect(after.bundle_revision).toBe("api-test");

  fs.writeFileSync(bundleFile, bundle("good-again"));
  await h.pdp.refresh();
  expect(await health()).toEqual({ status: 200, body: { status: "ok", revision: "good-again", reasons: [] } });
  expect((await metrics()).bundle_last_error).toBeNull();
});

test("an unreadable source and a corrupt bundle are degraded too, and heal when the source is back", async () => {
  const good = fs.readFileSync(bundleFile);
  const active = h.pdp.status().active?.revision;
  fs.rmSync(bundleFile);
  await h.pdp.refresh();
  const gone = await health();
  expect(gone.body).toMatchObject({ status: "degraded", revision: active, reasons: [{ component: "policy_bundle", code: "bundle_unavailable" }] });
  // The same bytes come back: nothing to activate, and nothing wrong any more.
  fs.writeFileSync(bundleFile, good);
  await h.pdp.refresh();
  expect((await health()).body).toEqual({ status: "ok", revision: active, reasons: [] });

  fs.writeFileSync(bundleFile, Buffer.from("not a bundle"));
  await h.pdp.refresh();
  expect((await health()).body).toMatchObject({ status: "degraded", reasons: [{ code: "bundle_invalid" }] });
  fs.writeFileSync(bundleFile, good);
  await h.pdp.refresh();
  expect((await health()).body.status).toBe("ok");
});

test("start-up refuses the same bundle the reload refuses, and says why", async () => {
  const dir = fs.mkdtempSync(path.join(h.dir, "startup-"));
  const file = path.join(dir, "bundle.tar.gz");
  fs.writeFileSync(file, bundle("no-invoices-get", ["invoices.get"]));
  await expect(
    createService(
      {
        database: { file: path.join(dir, "portcullis.db") },
        bundle: { file, watch: false, pollIntervalMs: 60_000 },
        decisionLog: { file: path.join(dir, "decisions.db") },
        identity: { issuer: ISSUER, audience: AUDIENCE, algorithms: ["ES256"], devKeyFile: path.join(dir, "key.json"), clockToleranceSec: 0 },
        rateLimits: DEFAULT_RATE_LIMITS,
      },
      { logger: () => undefined, pdpLogger: () => undefined, decisionLogErrors: () => undefined },
    ),
  ).rejects.toThrow(/check_failed.*invoices\.get/s);
});
