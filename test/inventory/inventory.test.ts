/**
 * `portcullis inventory` and `portcullis versions` on the clean tree, end to
 * end through the CLI: the real app in process (real bundle, temp SQLite,
 * dev key), the repository's gateway config, schemas, code and
 * acknowledgements. Every route of the registry is listed with every field
 * filled, and --check passes because every finding is acknowledged.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ROUTES } from "../../api/registry/routes";
import { isServable, loadVersions } from "../../api/versions";
import type { InventoryResult } from "../../inventory/types";
import { inProcess, parseResult, REPO, runCli, tempDir } from "./cli-helper";

let dir: string;
let result: InventoryResult;
let stderr: string;
let code: number;
beforeAll(async () => {
  dir = tempDir();
  const run = await runCli(["inventory", "--json", "--check", ...inProcess(dir)]);
  code = run.code;
  stderr = run.stderr;
  result = parseResult(run);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const servable = loadVersions()
  .versions.filter(isServable)
  .map((v) => v.name);

test("--check passes on the clean tree: every finding is acknowledged, none expired", () => {
  expect(result.failing).toEqual([]);
  expect(code).toBe(0);
  expect(result.findings.length).toBeGreaterThan(0);
  expect(result.findings.every((f) => f.acknowledged && f.acknowledged.owner && f.acknowledged.reason)).toBe(true);
  expect(stderr).toMatch(/inventory check passed/);
});

test("every route of the registry is a record, per version where the path is versioned", () => {
  const keys = new Set(result.records.map((r) => `${r.method} ${r.endpoint} ${r.version}`));
  for (const route of ROUTES) {
    for (const p of route.paths) {
      if (p.includes("{version}")) for (const v of servable) expect(keys).toContain(`${route.method} ${p.replace("{version}", v)} ${v}`);
      else expect(keys).toContain(`${route.method} ${p} *`);
    }
  }
});

test("every record has every field filled, from probes and sources", () => {
  for (const r of result.records) {
    expect(
      [r.endpoint, r.method, r.version, r.owner, r.nextTest, r.class, r.lastSeen, r.auth.summary].every((s) => typeof s === "string" && s.length > 0),
    ).toBe(true);
    expect(r.sources.length).toBeGreaterThan(0);
    expect(r.risk.reasons.length).toBeGreaterThan(0);
    expect(typeof r.documented).toBe("boolean");
    if (r.method !== "GRAPHQL") {
      expect(r.auth.anonymous.status).toBeGreaterThan(0);
      expect(r.auth.member.status).toBeGreaterThan(0);
    }
    if (r.routeId) {
      expect(r.sources).toEqual(expect.arrayContaining(["registry", "deployed", "code"]));
      expect(r.owner).toBe(ROUTES.find((x) => x.id === r.routeId)?.owner);
    }
  }
});

test("facts drive classes: diagnostics, internal shadows, legacy and client versions, archived schema operations", () => {
  const find = (m: string, e: string) => result.records.find((r) => r.method === m && r.endpoint === e);
  expect(find("GET", "/metrics")).toMatchObject({ class: "debug/diagnostic", documented: false, flags: expect.arrayContaining(["shadow"]) });
  expect(find("GET", "/api/internal/reports/export")?.class).toBe("shadow");
  expect(find("GET", "/api/v1/users/me")).toMatchObject({ class: "legacy-version", documented: true });
  expect(find("GET", "/api/mobile/users/me")?.class).toBe("client-specific");
  expect(find("GET", "/api/v1/users/{user_id}/notes")).toMatchObject({ class: "schema-discovered", sources: ["openapi-archive"] });
  expect(find("GET", "/invoices/{invoice_id}")).toMatchObject({
    class: "documented",
    auth: { anonymous: { verdict: "denied", status: 401 }, member: { verdict: "allowed", status: 200 } },
  });
  // Non-GET probes never act: the member's allowed publish is a 400 on the probe parameter, not a publish.
  expect(find("POST", "/invoices/{invoice_id}/publish")?.auth.member).toEqual({ status: 400, problem: "invalid_param", verdict: "allowed" });
});

test("versions: probed, declared, measured; no parity defect between the served versions", () => {
  const v = new Map(result.versions.map((x) => [x.name, x]));
  expect(v.get("legacy")).toMatchObject({ declared: "Retired", state: "Retired", probe: { status: 410, result: "denied" } });
  // Run on the real day: old is served until its sunset (2026-12-31), then the API retires it by itself.
  const old = loadVersions().versions.find((x) => x.name === "old");
  if (old && isServable(old)) expect(v.get("old")).toMatchObject({ declared: "Zombie", state: "Zombie", probe: { result: "live" } });
  else expect(v.get("old")).toMatchObject({ declared: "Zombie", state: "Retired", probe: { status: 410 } });
  expect(v.get("v1")).toMatchObject({ state: "Deprecated", parity: "ok", readyToRemove: false, traffic: { requests: null } });
  expect(v.has("v3")).toBe(false);
  expect(result.parity).toEqual([]);
});

test("table, HTML and progress outputs", async () => {
  const table = await runCli(["inventory", ...inProcess(dir)]);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/^METHOD\s+ENDPOINT\s+VERSION\s+CLASS/m);
  expect(table.stdout).toMatch(/Ready to remove: none/);
  // Not a terminal: one line per phase, no carriage returns.
  expect(table.stderr).toMatch(/inventory: probing routes \(\d+\)/);
  expect(table.stderr).not.toMatch(/\r/);

  const file = path.join(dir, "report.html");
  const html = await runCli(["inventory", "--html", file, ...inProcess(dir)]);
  expect(html.code).toBe(0);
  const text = fs.readFileSync(file, "utf8");
  expect(text).toMatch(/^<!doctype html>/i);
  expect(text).toContain("/api/v1/users/{user_id}/notes");
  // Self-contained: the route filters are the one inline script; nothing is fetched.
  expect(text).not.toMatch(/<link|\ssrc=|@import|url\(/i);

  expect((await runCli(["inventory", "--json", "--html", file])).code).toBe(2);
});

test("portcullis versions --json: the lifecycle table", async () => {
  const run = await runCli(["versions", "--json", ...inProcess(dir)]);
  expect(run.code).toBe(0);
  const out = JSON.parse(run.stdout) as { versions: InventoryResult["versions"] };
  const names = out.versions.map((v) => v.name);
  for (const v of loadVersions().versions) expect(names).toContain(v.name);
  for (const v of out.versions) expect(v.owner && v.removalPlan && v.blocker && v.probe.path).toBeTruthy();
  expect(out.versions.find((v) => v.name === "mobile")).toMatchObject({ client: "mobile-apps", state: "Current" });
  const table = await runCli(["versions", ...inProcess(dir)]);
  expect(table.stdout).toMatch(/^VERSION\s+OWNER\s+DECLARED\s+STATE/m);
});

test("an expired acknowledgement fails --check, and so does the finding it covered", async () => {
  const acks = fs
    .readFileSync(path.join(REPO, "inventory/acknowledgements.yaml"), "utf8")
    .replace(/expires: 2027-03-31(\s+- finding: "deprecated-live:beta")/, "expires: 2020-01-01$1");
  expect(acks).toContain("2020-01-01");
  const file = path.join(dir, "acks.yaml");
  fs.writeFileSync(file, acks);
  const run = await runCli(["inventory", "--json", "--check", "--acks", file, ...inProcess(dir)]);
  expect(run.code).toBe(1);
  expect(
    parseResult(run)
      .failing.map((f) => f.id)
      .sort(),
  ).toEqual(["acknowledgement-expired:deprecated-live:v1", "deprecated-live:v1"]);
});
