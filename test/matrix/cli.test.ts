/**
 * `portcullis matrix --base-url`: against a listening app, operations from
 * its /openapi.json plus the registry, persona tokens minted with the
 * instance's key file (--key) and its issuer/audience (environment, as for
 * `portcullis token`). Targeted with --route to stay quick.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { matrixCommand } from "../../cli/matrix";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions } from "../../pdp/log/store/query";
import { AUDIENCE, ISSUER } from "../api/harness";
import { startMatrixServer, type MatrixServer } from "./support";

let server: MatrixServer;
const env = { ...process.env };

beforeAll(async () => {
  server = await startMatrixServer();
  process.env.PORTCULLIS_JWT_ISSUER = ISSUER;
  process.env.PORTCULLIS_JWT_AUDIENCE = AUDIENCE;
  delete process.env.PORTCULLIS_JWKS_URL;
});

afterAll(async () => {
  process.env = env;
  await server?.close();
});

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const spy = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void lines.push(a.join(" ")));
  try {
    const code = await matrixCommand(args);
    return { code, out: lines.join("\n") };
  } finally {
    spy.mockRestore();
  }
}

test("--json reports every cell of the chosen routes, zero failed, and writes the HTML page", async () => {
  const html = path.join(server.harness.dir, "reports", "matrix.html");
  const { code, out } = await run([
    "--base-url",
    server.baseUrl,
    "--key",
    server.harness.keyFile,
    "--json",
    "--html",
    html,
    "--route",
    "invoices.get",
    "--route",
    "metrics.get",
  ]);
  const report = JSON.parse(out) as {
    summary: { cells: number; failed: number; missing: number };
    versions: string[];
    source: string;
    cells: Array<{ route: string }>;
  };
  expect(code).toBe(0);
  expect(report.source).toContain("/openapi.json");
  expect(report.versions).toEqual(expect.arrayContaining(["v2", "v1", "old"]));
  expect(report.summary).toMatchObject({ failed: 0, missing: 0 });
  expect(new Set(report.cells.map((c) => c.route))).toEqual(new Set(["invoices.get", "metrics.get"]));
  // 10 personas x versions x (3 targets for invoices.get + 1 for metrics.get)
  expect(report.summary.cells).toBe(10 * report.versions.length * 4);
  expect(fs.readFileSync(html, "utf8")).toContain(`data-cell="GET metrics.get v2 /metrics u_frank none"`);
});

test("every request of a run is marked with its test run, so auditors can set the run apart", async () => {
  const { out } = await run([
    "--base-url",
    server.baseUrl,
    "--key",
    server.harness.keyFile,
    "--json",
    "--html",
    path.join(server.harness.dir, "r.html"),
    "--route",
    "metrics.get",
  ]);
  const report = JSON.parse(out) as { test_run: string; summary: { requests: number } };
  expect(report.test_run).toMatch(/^matrix-\d{8}T\d{6}Z-[0-9a-f]{6}$/);
  await server.harness.log.flush();
  const db = openForRead(path.join(server.harness.dir, "decisions.db"));
  try {
    const marked = queryDecisions(db, { testRun: report.test_run, limit: 10_000 });
    expect(marked.length).toBe(report.summary.requests);
    expect(marked.filter((e) => e.allowed === false).length).toBeGreaterThan(0); // its denials are the run's, not an attacker's
  } finally {
    db.close();
  }
});

test("the terminal table names failing cells and the exit code is 1 when tokens are not accepted", async () => {
  // A foreign key file: the run's test-run credential (signed with it) is refused before any token is
  // looked at (400 invalid_test_run), so every cell fails by name, anonymous ones included.
  const { code, out } = await run([
    "--base-url",
    server.baseUrl,
    "--key",
    path.join(server.harness.dir, "other-key.json"),
    "--route",
    "metrics.get",
    "--html",
    path.join(server.harness.dir, "m.html"),
  ]);
  expect(code).toBe(1);
  expect(out).toMatch(/FAIL GET metrics\.get v2 \/metrics u_frank none: expected allow got 400 invalid_test_run \[mismatch\]/);
  expect(out).toMatch(/FAIL GET metrics\.get v2 \/metrics anonymous none: expected deny 401 authentication_required got 400 invalid_test_run/);
  expect(out).toMatch(/metrics\.get\s+GET\s+60/);
});
