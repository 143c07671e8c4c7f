/**
 * Planted faults, one at a time, each through the real CLI: the inventory
 * must find it, classify it, and `--check` must fail on it (and on nothing
 * else: the rest of the tree is clean and acknowledged).
 *
 * - the gateway exposes a path no code documents (and /metrics);
 * - a version the repository declares Retired still answers (the deployed
 *   catalogue drifted);
 * - one version's response grew a field (a proxy in front of the real app);
 * - a schema publishes operations no route serves;
 * - code registers a route directly with Express, outside the registry;
 * - traffic shows a version nobody declared;
 * - a route quietly honours a parameter it does not declare.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import express, { type Express } from "express";
import { loadVersions } from "../../api/versions";
import { openDatabase } from "../../db";
import { startInProcess, type Target } from "../../inventory/target";
import { bundleFile, inProcess, noTraffic, parseResult, REPO, runCli, tempDir } from "./cli-helper";

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const failingIds = (run: Awaited<ReturnType<typeof runCli>>) =>
  parseResult(run)
    .failing.map((f) => f.id)
    .sort();

async function withTarget<T>(target: Target, fn: (args: string[]) => Promise<T>): Promise<T> {
  try {
    return await fn(["--base-url", target.baseUrl, "--key", target.keyFile as string]);
  } finally {
    await target.close();
  }
}

test("a gateway path the code does not document: shadow, exposed at the edge, no owner", async () => {
  const gateway = path.join(dir, "kong.yaml");
  fs.writeFileSync(
    gateway,
    fs.readFileSync(path.join(REPO, "inventory/gateway/kong.yaml"), "utf8") +
      ["      - name: planted-export", "        methods: [GET]", '        paths: ["~/users/export$", "~/metrics$"]', ""].join("\n"),
  );
  const run = await runCli(["inventory", "--json", "--check", "--gateway", gateway, ...inProcess(dir)]);
  expect(run.code).toBe(1);
  const record = parseResult(run).records.find((r) => r.endpoint === "/users/export");
  expect(record).toMatchObject({ method: "GET", class: "shadow", sources: ["gateway"], documented: false, owner: "(none)" });
  expect(record?.auth.member.verdict).toBe("absent");
  expect(record?.risk.reasons.join(" ")).toMatch(/exposed at the edge gateway/);
  expect(failingIds(run)).toEqual([
    "gateway-undocumented:GET /metrics",
    "gateway-undocumented:GET /users/export",
    "owner-missing:GET /users/export",
    "shadow-route:GET /users/export",
  ]);
});

test("a retired version still answering is a Zombie", async () => {
  // The deployment serves "legacy" as if it were only deprecated (with a sunset still ahead: past it, the
  // API would refuse it by itself); the repository declares it Retired.
  const catalog = loadVersions();
  const drifted = {
    ...catalog,
    versions: catalog.versions.map((v) => (v.name === "legacy" ? { ...v, state: "Deprecated" as const, sunset: "2099-01-01T00:00:00Z" } : v)),
  };
  const run = await withTarget(await startInProcess({ bundleFile: bundleFile(), versions: drifted }), (args) =>
    runCli(["inventory", "--json", "--check", ...args, ...noTraffic(dir)]),
  );
  expect(run.code).toBe(1);
  const result = parseResult(run);
  expect(result.versions.find((v) => v.name === "legacy")).toMatchObject({ declared: "Retired", state: "Zombie", probe: { status: 200, result: "live" } });
  expect(result.records.find((r) => r.endpoint === "/api/legacy/users/me" && r.method === "GET")).toMatchObject({ class: "legacy-version", version: "legacy" });
  expect(failingIds(run)).toEqual(["zombie-version:legacy"]);
});

test("a version whose response grew a field is a parity defect", async () => {
  const wrap = (app: Express): Express => {
    const proxy = express();
    proxy.use((req, res, next) => {
      if (req.method === "GET" && req.path === "/api/v1/users/me") {
        const send = res.send.bind(res);
        res.send = (body: unknown) => {
          if (res.statusCode !== 200 || typeof body !== "string") return send(body);
          return send(JSON.stringify({ ...JSON.parse(body), billingPlan: "team" }));
        };
      }
      next();
    });
    proxy.use(app);
    return proxy;
  };
  const run = await withTarget(await startInProcess({ bundleFile: bundleFile(), wrap }), (args) =>
    runCli(["inventory", "--json", "--check", ...args, ...noTraffic(dir)]),
  );
  expect(run.code).toBe(1);
  const result = parseResult(run);
  const fields = result.parity.filter((d) => d.aspect === "fields");
  expect(fields.length).toBeGreaterThan(0);
  for (const d of fields) {
    expect(d.route).toBe("GET users.me.get");
    expect(d.versions).toContain("v1");
    expect(d.detail).toMatch(/billingPlan/);
  }
  expect(new Set(fields.map((d) => d.persona))).toEqual(new Set(["member", "admin", "support"]));
  expect(result.versions.find((v) => v.name === "v1")?.parity).toBe("defects");
  expect(result.versions.find((v) => v.name === "v2")?.parity).toBe("defects");
  expect(result.records.find((r) => r.endpoint === "/api/v1/users/me" && r.method === "GET")?.risk.reasons.join(" ")).toMatch(/parity defect/);
  expect(failingIds(run).every((id) => id.startsWith("parity-defect:GET users.me.get ") && id.includes("fields") && id.includes("v1"))).toBe(true);
  expect(failingIds(run)).toContain("parity-defect:GET users.me.get member fields v1/v2");
});

test("schema operations with no route are schema-discovered", async () => {
  const schemas = path.join(dir, "schemas");
  fs.cpSync(path.join(REPO, "inventory/schemas"), schemas, { recursive: true });
  fs.writeFileSync(
    path.join(schemas, "reports.graphql"),
    [
      "directive @rest(method: String!, path: String!) on FIELD_DEFINITION",
      'type Query { exportEverything: String @rest(method: "GET", path: "/invoices/export-all") auditTrail: [String] }',
    ].join("\n"),
  );
  const run = await runCli(["inventory", "--json", "--check", "--schemas", schemas, ...inProcess(dir)]);
  expect(run.code).toBe(1);
  const result = parseResult(run);
  expect(result.records.find((r) => r.endpoint === "/invoices/export-all")).toMatchObject({ class: "schema-discovered", sources: ["graphql"] });
  // The path reaches GET /invoices/{invoice_id} (an invoice id "export-all"): not this operation.
  expect(result.records.find((r) => r.endpoint === "/invoices/export-all")?.auth.summary).toMatch(/answered by the route of \/invoices\/\{invoice_id\}/);
  expect(result.records.find((r) => r.endpoint === "graphql:Query.auditTrail")).toMatchObject({ method: "GRAPHQL", class: "schema-discovered" });
  expect(failingIds(run)).toEqual(["schema-orphan:GET /invoices/export-all", "schema-orphan:GRAPHQL graphql:Query.auditTrail"]);
});

test("a route registered in code outside the registry", async () => {
  const code = path.join(dir, "code");
  fs.mkdirSync(code);
  fs.writeFileSync(
    path.join(code, "debug.ts"),
    'import type { Router } from "express";\nexport function mount(router: Router) {\n  router.get("/debug/vars", (_req, res) => void res.json(process.env));\n}\n',
  );
  const run = await runCli(["inventory", "--json", "--check", "--code", code, ...inProcess(dir)]);
  expect(run.code).toBe(1);
  const record = parseResult(run).records.find((r) => r.endpoint === "/debug/vars");
  expect(record).toMatchObject({ class: "debug/diagnostic", sources: ["code"], flags: expect.arrayContaining(["shadow"]) });
  expect(record?.where[0]).toMatch(/debug\.ts:3$/);
  expect(failingIds(run)).toEqual(["code-unregistered:GET /debug/vars", "owner-missing:GET /debug/vars", "shadow-route:GET /debug/vars"]);
});

test("traffic on a version nobody declared is an Unknown version", async () => {
  const dbFile = path.join(dir, "traffic.db");
  const db = openDatabase(dbFile, { seed: true });
  db.traffic.count({ method: "GET", template: "/api/{version}/users/me", version: "v7", status: 404, actorClass: "member", n: 12 });
  db.traffic.count({ method: "GET", template: "/api/{version}/users/me", version: "v1", status: 200, actorClass: "member", n: 40 });
  // The inventory's own probes do not count as use.
  db.traffic.count({ method: "GET", template: "/api/{version}/health", version: "beta", status: 200, actorClass: "anonymous", probe: true, n: 500 });
  db.close();
  const run = await runCli(["inventory", "--json", "--check", "--bundle", bundleFile(), "--db", dbFile]);
  expect(run.code).toBe(1);
  const result = parseResult(run);
  const v = new Map(result.versions.map((x) => [x.name, x]));
  expect(v.get("v7")).toMatchObject({ declared: null, state: "Unknown", owner: "(none)", traffic: { requests: 12 } });
  expect(v.get("v1")?.traffic.requests).toBe(40);
  expect(v.get("beta")?.traffic.requests).toBe(0);
  expect(result.records.find((r) => r.endpoint === "/api/v1/users/me" && r.method === "GET")?.lastSeen).toMatch(/^\d{4}-/);
  expect(failingIds(run)).toEqual(["unknown-version:v7"]);
});

test("a route that honours an undeclared parameter shows hidden-parameter behaviour", async () => {
  // A proxy that swallows ?debug=... on GET /invoices: the app never sees (and never refuses) it.
  const wrap = (app: Express): Express => {
    const proxy = express();
    proxy.use((req, _res, next) => {
      if (req.method === "GET" && req.path === "/invoices" && req.url.includes("debug=")) {
        req.url = "/invoices";
        req.originalUrl = "/invoices";
      }
      next();
    });
    proxy.use(app);
    return proxy;
  };
  const run = await withTarget(await startInProcess({ bundleFile: bundleFile(), wrap }), (args) =>
    runCli(["inventory", "--json", "--check", ...args, ...noTraffic(dir)]),
  );
  expect(run.code).toBe(1);
  const record = parseResult(run).records.find((r) => r.endpoint === "/invoices" && r.method === "GET");
  expect(record).toMatchObject({ class: "hidden-parameter behaviour", flags: expect.arrayContaining(["documented"]) });
  expect(failingIds(run)).toEqual(["hidden-parameter:GET /invoices"]);
});
