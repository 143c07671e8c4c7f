/**
 * The authorization matrix, every cell, in process: real HTTP to the app on
 * an ephemeral port, real JWTs, a seeded SQLite file, the policy compiled
 * from rego/. Zero failed and zero missing cells; every (route, method,
 * version) of the registry x every persona has a cell; the HTML report,
 * rendered by headless chromium, shows exactly the JSON's cells. A run
 * leaves every persona's row exactly as it found it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROUTES } from "../../api/registry/routes";
import { isServable } from "../../api/versions";
import { writeHtmlReport } from "../../matrix/html";
import { loadMatrix } from "../../matrix/model";
import { terminalReport } from "../../matrix/report";
import type { MatrixReport } from "../../matrix/run";
import { dumpDom } from "./chromium";
import { startMatrixServer, type MatrixServer } from "./support";

let server: MatrixServer;
let report: MatrixReport;
let dir: string;
/** Every persona's users row (every column), read from the database before and after the run. */
let personasBefore: string;

async function personaRows(personas: ReadonlyArray<{ id: string; tenant: string | null }>): Promise<string> {
  const rows = await Promise.all(
    personas.filter((p) => p.tenant !== null).map((p) => server.harness.db.users.getScoped(p.id, { tenant_id: p.tenant as string })),
  );
  return JSON.stringify(rows);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-matrix-"));
  server = await startMatrixServer();
  personasBefore = await personaRows(loadMatrix().personas);
  report = await server.run();
}, 300_000); // a full run: ~40 s alone, minutes when the whole suite shares two cores

afterAll(async () => {
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("every cell passes and none is missing", () => {
  const failing = report.cells.filter((c) => c.outcome !== "pass" && c.outcome !== "n/a");
  // The terminal report names each failing cell: the assertion message is the diagnosis.
  if (failing.length > 0 || report.summary.failed > 0) throw new Error(terminalReport(report));
  expect(report.summary).toMatchObject({ failed: 0, missing: 0, stale: 0 });
  expect(report.summary.cells).toBe(report.cells.length);
  expect(report.summary.passed + report.summary.not_applicable).toBe(report.summary.cells);
});

test("a run leaves every persona's row byte-identical, and lists what it did change", async () => {
  expect(await personaRows(report.personas)).toBe(personasBefore);
  expect(JSON.parse(personasBefore)).toHaveLength(9);
  expect(report.restore_problems).toEqual([]);
  expect(report.changes).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^invoice inv_\w+: \w+ -> \w+$/),
      expect.stringMatching(/users invited/),
      "personas: all 9 profiles as the run found them (re-read)",
    ]),
  );
});

test("the personas cover two tenants and at least two users per role", () => {
  const byRole = new Map<string, string[]>();
  for (const p of report.personas) byRole.set(p.role, [...(byRole.get(p.role) ?? []), p.id]);
  for (const role of ["member", "support", "admin"]) expect(byRole.get(role)?.length ?? 0).toBeGreaterThanOrEqual(2);
  expect(byRole.get("anonymous")).toEqual(["anonymous"]);
  expect(new Set(report.personas.map((p) => p.tenant).filter((t) => t !== null))).toEqual(new Set(["t_acme", "t_globex"]));
  expect(report.summary.tenants).toEqual(["t_acme", "t_globex"]);
  expect(report.summary.users_per_role).toEqual(Object.fromEntries([...byRole].sort()));
});

test("every route, method and version of the registry has a cell for every persona", () => {
  const versions = server.harness.deps.versions.versions.filter(isServable).map((v) => v.name);
  const have = new Set(report.cells.map((c) => `${c.method} ${c.route} ${c.version} ${c.persona}`));
  const absent: string[] = [];
  for (const r of ROUTES)
    for (const v of versions)
      for (const p of report.personas) {
        if (!have.has(`${r.method} ${r.id} ${v} ${p.id}`)) absent.push(`${r.method} ${r.id} ${v} ${p.id}`);
      }
  expect(absent).toEqual([]);
});

test("the matrix exercised allows, denials of each kind, field probes and re-reads", () => {
  const passed = report.cells.filter((c) => c.outcome === "pass");
  expect(passed.some((c) => c.expected === "allow" && c.status === 200)).toBe(true);
  for (const status of [401, 403, 404, 409]) expect(passed.some((c) => c.status === status && c.expected.startsWith(`deny ${status}`))).toBe(true);
  expect(passed.some((c) => c.probe === "isAdmin" && c.code === "field_not_writable")).toBe(true);
  // Each workflow transition happened for real at least once (not only 409s).
  for (const route of ["invoices.approve", "invoices.publish", "invoices.refund"]) {
    expect(passed.some((c) => c.route === route && c.status === 200)).toBe(true);
  }
  expect(passed.some((c) => /re-read .*: still active/.test(c.detail))).toBe(true);
});

test("the HTML report, rendered by chromium, shows as many cells as the JSON", () => {
  const file = writeHtmlReport(report, path.join(dir, "matrix.html"));
  const html = fs.readFileSync(file, "utf8");
  // Self-contained: no script, no external stylesheet, image or font.
  expect(html).not.toMatch(/<script|<link|\bsrc=|\bhref=|@import|url\(/i);
  const dom = dumpDom(file);
  expect(dom).toContain("Portcullis authorization matrix");
  expect(dom).toContain("Legend");
  const shown = dom.match(/data-cell="/g)?.length ?? 0;
  expect(shown).toBe(report.cells.length);
  expect(dom.match(/class="cell pass"/g)?.length ?? 0).toBe(report.summary.passed);
});
