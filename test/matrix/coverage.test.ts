/**
 * `matrix --coverage`: which policy rules the cells exercised, through the
 * CLI against the real app on an ephemeral port. The cells' decisions are
 * read from the instance's decision log (SQLite) by the run's test-run id
 * and evaluated on an instrumented compilation of the bundle's sources; a
 * rule no cell reaches is a finding (terminal, JSON, HTML), and a rule no
 * input can reach (a dead rule added to the policy) is always one.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { compile, readBundle, writeBundle } from "@portcullis/rego-wasm";
import { matrixCommand } from "../../cli/matrix";
import { ruleCoverage, type RuleCoverage } from "../../matrix/coverage";
import { AUDIENCE, ENTRYPOINTS, ISSUER, policyBundle } from "../api/harness";
import { startMatrixServer, type MatrixServer } from "./support";

let server: MatrixServer;
const env = { ...process.env };

beforeAll(async () => {
  server = await startMatrixServer();
  process.env.PORTCULLIS_JWT_ISSUER = ISSUER;
  process.env.PORTCULLIS_JWT_AUDIENCE = AUDIENCE;
  delete process.env.PORTCULLIS_JWKS_URL;
}, 120_000);

afterAll(async () => {
  process.env = env;
  await server?.close();
});

interface Cells {
  cells: Array<{ outcome: string; decision_id: string | null }>;
  coverage: RuleCoverage;
}

let n = 0;
async function run(routes: string[], bundle: string, json: boolean): Promise<{ code: number; out: string; html: string }> {
  const lines: string[] = [];
  const spy = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void lines.push(a.join(" ")));
  const html = path.join(server.harness.dir, `coverage${++n}.html`);
  try {
    const code = await matrixCommand([
      "--base-url",
      server.baseUrl,
      "--key",
      server.harness.keyFile,
      "--html",
      html,
      "--coverage",
      "--decisions",
      path.join(server.harness.dir, "decisions.db"),
      "--bundle",
      bundle,
      ...routes.flatMap((r) => ["--route", r]),
      ...(json ? ["--json"] : []),
    ]);
    return { code, out: lines.join("\n"), html: fs.readFileSync(html, "utf8") };
  } finally {
    spy.mockRestore();
  }
}

const DEAD = `package portcullis.extra

dead_rule if input.action == "teleport"
`;

/** The project's policy plus a module the decision never refers to. */
function withDeadRule(): string {
  const base = readBundle(policyBundle());
  const sources = [...base.files]
    .filter(([name]) => name.endsWith(".rego"))
    .map(([name, bytes]) => ({ path: name.slice(1), content: Buffer.from(bytes).toString("utf8") }));
  sources.push({ path: "rego/portcullis/extra.rego", content: DEAD });
  const { wasm } = compile(
    sources.map((s) => ({ file: s.path, source: s.content })),
    { entrypoints: ENTRYPOINTS },
  );
  const file = path.join(server.harness.dir, "dead.tar.gz");
  fs.writeFileSync(file, writeBundle({ wasm, data: base.data, manifest: { ...base.manifest, revision: "with-dead-rule" }, sources }));
  return file;
}

test("the rules the cells reached, the ones they did not as findings; more routes reach more rules", async () => {
  const bundle = path.join(server.harness.dir, "bundle.tar.gz");
  const metrics = await run(["metrics.get"], bundle, true);
  expect(metrics.code).toBe(0);
  const m = JSON.parse(metrics.out) as Cells;
  const decided = m.cells.filter((c) => c.decision_id !== null).length;
  expect(decided).toBeGreaterThan(0);
  // Every cell that sent a request was decided by the policy (metrics.get has no refusal before the policy here).
  expect(m.coverage).toMatchObject({
    revision: "api-test",
    entrypoint: "portcullis/decision",
    inputs: decided,
    cells_without_input: m.cells.length - decided,
    errors: 0,
  });
  expect(m.coverage.reached).toBeGreaterThan(0);
  expect(m.coverage.unreached.length).toBe(m.coverage.rules - m.coverage.reached);
  // Admins read metrics: the allow body of data.portcullis.decision (decision.rego, the one with "allow": true) was reached.
  const decisionRego = fs.readFileSync(path.join(__dirname, "../../rego/portcullis/decision.rego"), "utf8").split("\n");
  const allowRow = decisionRego.findIndex((l, i) => l.startsWith("decision := {") && decisionRego[i + 1].includes('"allow": true')) + 1;
  expect(allowRow).toBeGreaterThan(0);
  const unreachedAt = (c: RuleCoverage) => new Set(c.unreached.map((r) => `${r.file}:${r.row}`));
  expect(unreachedAt(m.coverage).has(`rego/portcullis/decision.rego:${allowRow}`)).toBe(false);

  const both = JSON.parse((await run(["metrics.get", "invoices.get"], bundle, true)).out) as Cells;
  expect(both.coverage.rules).toBe(m.coverage.rules);
  expect(both.coverage.reached).toBeGreaterThan(m.coverage.reached);
  // What the wider run reached was unreached before, never the reverse.
  for (const r of unreachedAt(both.coverage)) expect(unreachedAt(m.coverage).has(r)).toBe(true);

  const text = await run(["metrics.get"], bundle, false);
  expect(text.out).toContain(`policy rules exercised: ${m.coverage.reached} of ${m.coverage.rules} (bundle api-test;`);
  for (const r of m.coverage.unreached) expect(text.out).toContain(`FINDING rule no cell reaches: ${r.rule} (${r.file}:${r.row})`);
  expect(text.html).toContain(`<p id="coverage"><b>${m.coverage.reached}</b> of <b>${m.coverage.rules}</b>`);
}, 300_000);

test("a rule no input can reach is always a finding, with its file and line", async () => {
  const r = await run(["metrics.get", "invoices.get"], withDeadRule(), true);
  const c = (JSON.parse(r.out) as Cells).coverage;
  expect(c.revision).toBe("with-dead-rule");
  expect(c.unreached).toContainEqual({ rule: "data.portcullis.extra.dead_rule", file: "rego/portcullis/extra.rego", row: 3 });
  expect(r.html).toContain("<code>data.portcullis.extra.dead_rule</code></td><td><code>rego/portcullis/extra.rego:3</code>");
}, 300_000);

test("no input reaches no rule", async () => {
  const c = await ruleCoverage(policyBundle(), [], 0);
  expect(c.rules).toBeGreaterThan(0);
  expect(c).toMatchObject({ inputs: 0, reached: 0, errors: 0 });
  expect(c.unreached).toHaveLength(c.rules);
});
