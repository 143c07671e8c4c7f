/**
 * The matrix catches policy mistakes and names the cells. Each test compiles
 * rego/ with ONE thing altered, ships the bundle to the running app through
 * the PDP's hot reload, and runs the invoices.get cells:
 * - a rule: members' invoice reads lose their owner filter (a member reads
 *   any invoice of her tenant) -> unexpected allows, by cell;
 * - a field view: members may read `owner_id` (listed in their view AND
 *   made readable by members in the protected list, since the protected list
 *   alone keeps a view mistake from leaking it) -> unexpected allows of a field.
 * The HTML page, rendered by chromium, shows those cells as unexpected allows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import { collectPolicyInputs } from "../../cli/files";
import { writeHtmlReport } from "../../matrix/html";
import { ENTRYPOINTS } from "../api/harness";
import { dumpDom } from "./chromium";
import { startMatrixServer, type MatrixServer } from "./support";

const REPO = path.resolve(__dirname, "../..");
const OWNER_SCOPE = 'owner_scope := {"owner_id": input.actor.id} if grant.owner_scoped == true else := {}';
const BROKEN_SCOPE = 'owner_scope := {"owner_id": input.actor.id} if { grant.owner_scoped == true; input.route.id != "invoices.get" } else := {}';

type Alter = (inputs: { sources: Array<{ file: string; source: string }>; data: Record<string, unknown> }) => void;

/** rego/ compiled as `make build` does, after `alter` changed one thing. */
async function shipAltered(server: MatrixServer, revision: string, alter: Alter): Promise<void> {
  const { sources, data } = collectPolicyInputs([path.join(REPO, "rego")]);
  const policies = sources.filter((s) => !s.file.endsWith("_test.rego"));
  alter({ sources: policies, data });
  const { wasm } = compile(policies, { entrypoints: ENTRYPOINTS });
  const bundle = writeBundle({
    wasm,
    data,
    manifest: { revision, roots: [""], rego_version: 1, wasm: ENTRYPOINTS.map((entrypoint) => ({ entrypoint, module: "/policy.wasm" })) },
    sources: policies.map((s) => ({ path: path.relative(REPO, s.file), content: s.source })),
  });
  fs.writeFileSync(path.join(server.harness.dir, "bundle.tar.gz"), bundle);
  await server.harness.pdp.refresh();
  expect(server.harness.pdp.status().active?.revision).toBe(revision);
}

let server: MatrixServer;
beforeAll(async () => {
  server = await startMatrixServer();
});
afterAll(async () => server?.close());

test("a member reading any invoice of her tenant is caught, cell by cell", async () => {
  await shipAltered(server, "matrix-broken-scope", ({ sources }) => {
    const tenancy = sources.find((s) => s.file.endsWith(path.join("portcullis", "tenancy.rego")));
    // If the rule is rewritten, this test must be updated rather than silently test nothing.
    expect(tenancy?.source).toContain(OWNER_SCOPE);
    tenancy!.source = tenancy!.source.replace(OWNER_SCOPE, BROKEN_SCOPE);
  });
  const report = await server.run({ routes: ["invoices.get"] });
  const failing = report.cells.filter((c) => c.outcome !== "pass" && c.outcome !== "n/a");
  const alice = failing.find((c) => c.id === "GET invoices.get v2 /invoices/{invoice_id} u_alice same_tenant");
  expect(alice).toMatchObject({ outcome: "unexpected_allow", object: "inv_bob_1", status: 200, expected: "deny 404 not_found" });
  // Exactly the members' same-tenant cells fail, in every version; foreign tenants and other roles still pass.
  expect(failing.every((c) => c.role === "member" && c.target === "same_tenant" && c.outcome === "unexpected_allow")).toBe(true);
  expect(failing).toHaveLength(4 * report.versions.length);
  expect(report.summary).toMatchObject({ failed: 4 * report.versions.length, missing: 0 });

  const file = writeHtmlReport(report, path.join(server.harness.dir, "broken.html"));
  const dom = dumpDom(file);
  expect(dom.match(/class="cell unexpected_allow"/g)?.length ?? 0).toBe(failing.length);
  expect(dom).toContain("GET invoices.get v2 /invoices/{invoice_id} u_alice same_tenant (inv_bob_1): expected deny 404 not_found, got 200");
});

test("a field leaked to members is caught as an unexpected allow of that field", async () => {
  await shipAltered(server, "matrix-broken-field", ({ data }) => {
    const fields = (data.portcullis as { fields: { views: Record<string, string[]>; protected: Record<string, { readable_by: string[] }> } }).fields;
    expect(fields.views["invoice.member"]).not.toContain("owner_id");
    fields.views["invoice.member"].push("owner_id");
    fields.protected.owner_id.readable_by.push("member");
  });
  const report = await server.run({ routes: ["invoices.get"] });
  const failing = report.cells.filter((c) => c.outcome !== "pass" && c.outcome !== "n/a");
  expect(failing.find((c) => c.id === "GET invoices.get old /invoices/{invoice_id} u_dave own")).toMatchObject({
    outcome: "unexpected_allow",
    status: 200,
    detail: expect.stringContaining("returned fields the matrix does not allow: owner_id"),
  });
  expect(failing.every((c) => c.role === "member" && c.target === "own")).toBe(true);
  expect(failing).toHaveLength(4 * report.versions.length);
});
