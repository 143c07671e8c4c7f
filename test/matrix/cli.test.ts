/**
 * `portcullis matrix --base-url`: against a listening app, operations from
 * its /openapi.json plus the registry, persona tokens minted with the
 * instance's key file (--key) and its issuer/audience (environment, as for
 * `portcullis token`). Targeted with --route to stay quick.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { matrixCommand } from "../../cli/matrix";
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
  const { code, out } = await run(["--base-url", server.baseUrl, "--key", server.harness.keyFile, "--json", "--html", html, "--route", "invoices.get", "--route", "metrics.get"]);
  const report = JSON.parse(out) as { summary: { cells: number; failed: number; missing: number }; versions: string[]; source: string; cells: Array<{ route: string }> };
  expect(code).toBe(0);
  expect(report.source).toContain("/openapi.json");
  expect(report.versions).toEqual(expect.arrayContaining(["v2", "v1", "old"]));
  expect(report.summary).toMatchObject({ failed: 0, missing: 0 });
  expect(new Set(report.cells.map((c) => c.route))).toEqual(new Set(["invoices.get", "metrics.get"]));
  // 10 personas x versions x (3 targets for invoices.get + 1 for metrics.get)
  expect(report.summary.cells).toBe(10 * report.versions.length * 4);
  expect(fs.readFileSync(html, "utf8")).toContain(`data-cell="GET metrics.get v2 /metrics u_frank none"`);
});

test("the terminal table names failing cells and the exit code is 1 when tokens are not accepted", async () => {
  // A foreign key file: every persona's token is refused (401), so every non-anonymous cell fails by name.
  const { code, out } = await run(["--base-url", server.baseUrl, "--key", path.join(server.harness.dir, "other-key.json"), "--route", "metrics.get", "--html", path.join(server.harness.dir, "m.html")]);
  expect(code).toBe(1);
  expect(out).toMatch(/FAIL GET metrics\.get v2 \/metrics u_frank none: expected allow got 401 invalid_token \[unexpected_deny\]/);
  expect(out).toMatch(/metrics\.get\s+GET\s+60/);
});
