/**
 * An export job's result is cut for whoever READS it, at read time: a
 * reader with fewer rights than the admin who created the job sees only
 * the invoice fields and rows that reader may read through invoices.export.
 *
 * The shipped policy lets admins only read jobs; here the policy is
 * altered the way a security team would ("support, once granted", and a
 * member too), compiled, and hot-reloaded into the running app, and real
 * jobs (json and csv) created by an admin are read as those roles.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import request from "supertest";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import { fromCsv } from "../../api/exports/csv";
import { collectPolicyInputs } from "../../cli/files";
import { ENTRYPOINTS, startHarness, type Harness } from "./harness";

const REPO = path.resolve(__dirname, "../..");
const ADMIN_FIELDS = ["amount_cents", "created_at", "currency", "id", "number", "owner_id", "status"];
const SUPPORT_FIELDS = ["amount_cents", "created_at", "currency", "id", "number", "status"];

let h: Harness;
const jobs: Record<"json" | "csv", string> = { json: "", csv: "" };

async function done(user: string, location: string) {
  for (let i = 0; i < 250; i++) {
    const res = await request(h.app)
      .get(location)
      .set(await h.auth(user));
    if (res.status !== 200 || res.body.status === "done" || res.body.status === "failed") return res;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${location} did not finish`);
}

/** rego/ compiled with support and members granted admin.export.get, shipped through hot reload. */
async function grantJobReads(): Promise<void> {
  const { sources, data } = collectPolicyInputs([path.join(REPO, "rego")]);
  const policies = sources.filter((s) => !s.file.endsWith("_test.rego"));
  const routes = (data.portcullis as { routes: Record<string, { grants: Record<string, unknown> }> }).routes;
  routes["admin.export.get"].grants.support = { read: "export.job_result" };
  routes["admin.export.get"].grants.member = { read: "export.job_result" };
  const { wasm } = compile(policies, { entrypoints: ENTRYPOINTS });
  const bundle = writeBundle({
    wasm,
    data,
    manifest: { revision: "job-readers", roots: [""], rego_version: 1, wasm: ENTRYPOINTS.map((entrypoint) => ({ entrypoint, module: "/policy.wasm" })) },
    sources: policies.map((s) => ({ path: path.relative(REPO, s.file), content: s.source })),
  });
  fs.writeFileSync(path.join(h.dir, "bundle.tar.gz"), bundle);
  await h.pdp.refresh();
  expect(h.pdp.status().active?.revision).toBe("job-readers");
}

beforeAll(async () => {
  h = await startHarness();
  for (const format of ["json", "csv"] as const) {
    const started = await request(h.app)
      .post("/api/admin/export")
      .set(await h.auth("u_carol"))
      .send({ format });
    expect(started.status).toBe(202);
    const finished = await done("u_carol", started.headers.location);
    expect(finished.body.status).toBe("done");
    jobs[format] = started.headers.location;
  }
  await grantJobReads();
}, 60_000);
afterAll(async () => h?.close());

const keysOf = (rows: Array<Record<string, unknown>>) => [...new Set(rows.flatMap((r) => Object.keys(r)))].sort();

test("the creating admin still reads every stored field and row", async () => {
  const json = await request(h.app)
    .get(jobs.json)
    .set(await h.auth("u_carol"));
  expect(keysOf(json.body.result)).toEqual(ADMIN_FIELDS);
  const csv = await request(h.app)
    .get(jobs.csv)
    .set(await h.auth("u_heidi"));
  expect(fromCsv(csv.body.result).columns.sort()).toEqual(ADMIN_FIELDS);
  expect(json.body.result).toHaveLength(json.body.rowCount);
});

test("support, once granted job reads, gets the rows without the fields support may not read (json and csv)", async () => {
  const admin = await request(h.app)
    .get(jobs.json)
    .set(await h.auth("u_carol"));
  const json = await request(h.app)
    .get(jobs.json)
    .set(await h.auth("u_frank"));
  expect(json.status).toBe(200);
  expect(keysOf(json.body.result)).toEqual(SUPPORT_FIELDS);
  expect(JSON.stringify(json.body)).not.toContain("owner_id");
  // Same rows (support's scope is the tenant, like the admin's).
  expect(json.body.result.map((r: { id: string }) => r.id)).toEqual(admin.body.result.map((r: { id: string }) => r.id));

  const csv = await request(h.app)
    .get(jobs.csv)
    .set(await h.auth("u_frank"));
  const table = fromCsv(csv.body.result);
  expect(table.columns.sort()).toEqual(SUPPORT_FIELDS);
  expect(table.rows).toHaveLength(admin.body.rowCount);
  expect(csv.body.result).not.toMatch(/owner_id|u_bob|u_alice/);
});

test("a member, once granted job reads, gets only her own invoices, cut to member fields", async () => {
  const json = await request(h.app)
    .get(jobs.json)
    .set(await h.auth("u_alice"));
  expect(json.status).toBe(200);
  const own = (await h.db.invoices.listScoped({ tenant_id: "t_acme", owner_id: "u_alice" }, { limit: 100, offset: 0 })).map((r) => r.id).sort();
  expect(own.length).toBeGreaterThan(0);
  expect(json.body.result.map((r: { id: string }) => r.id).sort()).toEqual(own);
  expect(keysOf(json.body.result)).not.toContain("owner_id");

  const csv = fromCsv(
    (
      await request(h.app)
        .get(jobs.csv)
        .set(await h.auth("u_alice"))
    ).body.result,
  );
  expect(csv.rows.map((r) => r.id).sort()).toEqual(own);
  expect(csv.columns).not.toContain("owner_id");
});

test("another tenant's support still cannot read the job at all", async () => {
  const res = await request(h.app)
    .get(jobs.json)
    .set(await h.auth("u_grace"));
  expect(res.status).toBe(404);
});
