/**
 * The matrix's CI outputs, through the CLI against the real app listening
 * on an ephemeral port: `--junit FILE` (one testcase per cell, a testsuite
 * per route, failures carrying expected, actual and the request) and
 * `--baseline FILE` (a previous run's --json: newly failing, newly passing,
 * still failing, added, removed, expectation changed; exit 1 only when the
 * run is worse than the baseline). A failing run comes from a foreign key
 * file: the instance refuses the run's test-run credential (400) in every cell.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { matrixCommand } from "../../cli/matrix";
import { BaselineError } from "../../matrix/baseline";
import { DEFAULT_MATRIX_FILE } from "../../matrix/model";
import { AUDIENCE, ISSUER } from "../api/harness";
import { all, parseXmlFile } from "../report/xml";
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

interface Run {
  code: number;
  out: string;
  json:
    | { summary: { cells: number; failed: number }; cells: Array<{ id: string; outcome: string; route: string }>; baseline?: Record<string, unknown> }
    | undefined;
}

let n = 0;
/** One CLI run; `good` uses the instance's key, otherwise a foreign one (every cell fails). */
async function run(routes: string[], options: { good: boolean; json?: boolean; extra?: string[] }): Promise<Run> {
  const lines: string[] = [];
  const spy = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void lines.push(a.join(" ")));
  const key = options.good ? server.harness.keyFile : path.join(server.harness.dir, "foreign-key.json");
  try {
    const code = await matrixCommand([
      "--base-url",
      server.baseUrl,
      "--key",
      key,
      "--html",
      path.join(server.harness.dir, `m${++n}.html`),
      ...routes.flatMap((r) => ["--route", r]),
      ...(options.json ? ["--json"] : []),
      ...(options.extra ?? []),
    ]);
    const out = lines.join("\n");
    return { code, out, json: options.json ? JSON.parse(out) : undefined };
  } finally {
    spy.mockRestore();
  }
}

function save(name: string, r: Run): string {
  const file = path.join(server.harness.dir, name);
  fs.writeFileSync(file, r.out);
  return file;
}

test("--junit: a testsuite per route and method, a testcase per cell, n/a skipped, the run's own checks as a suite", async () => {
  const file = path.join(server.harness.dir, "junit", "matrix.xml");
  const r = await run(["invoices.get", "users.me.update"], { good: true, json: true, extra: ["--junit", file] });
  expect(r.code).toBe(0);
  const root = parseXmlFile(file);
  const suites = all(root, "testsuite");
  expect(suites.map((s) => s.attrs.name)).toEqual(["GET invoices.get", "PATCH users.me.update", "matrix run"]);
  const cases = all(root, "testcase").filter((c) => c.attrs.classname !== "matrix run");
  expect(cases.map((c) => c.attrs.name)).toEqual(r.json!.cells.map((c) => c.id));
  const na = r.json!.cells.filter((c) => c.outcome === "n/a").length;
  expect(na).toBeGreaterThan(0); // the probe rows of denied writes
  expect(root.attrs).toMatchObject({ tests: String(r.json!.summary.cells + 1), failures: "0", skipped: String(na) });
  for (const s of suites) expect(Number(s.attrs.tests)).toBe(all(s, "testcase").length);
});

test("--junit: a failing cell says what was expected, what came back and the request sent", async () => {
  const file = path.join(server.harness.dir, "failing.xml");
  const r = await run(["metrics.get"], { good: false, json: true, extra: ["--junit", file] });
  expect(r.code).toBe(1);
  const root = parseXmlFile(file);
  expect(root.attrs.failures).toBe(String(r.json!.summary.failed));
  const frank = all(root, "testcase").find((c) => c.attrs.name === "GET metrics.get v2 /metrics u_frank none");
  const failure = frank!.children[0];
  expect(failure.tag).toBe("failure");
  expect(failure.attrs).toEqual({ type: "mismatch", message: "expected allow (200), got 400 invalid_test_run" });
  expect(failure.text).toContain("expected: allow (status 200)");
  expect(failure.text).toContain("actual:   400 invalid_test_run");
  expect(failure.text).toContain("request:  GET /metrics");
  expect(failure.text).toContain("persona:  u_frank (support, t_acme)");
});

test("--baseline: newly failing, added, newly passing, removed and known failures, with the ratchet's exit code", async () => {
  const good = await run(["metrics.get"], { good: true, json: true });
  expect(good.code).toBe(0);
  const base1 = save("base1.json", good);

  // Worse: every metrics.get cell now fails, and invoices.get cells appear (failing).
  const worse = await run(["metrics.get", "invoices.get"], { good: false, extra: ["--baseline", base1] });
  expect(worse.code).toBe(1);
  const metrics = good.json!.cells.length;
  expect(worse.out).toMatch(
    new RegExp(
      `\\n  (\\d+) newly failing, 0 newly passing, 0 failing differently, 0 still failing, (\\d+) added, 0 removed, 0 expectations changed, (\\d+) new run problems \\(0 known\\)`,
    ),
  );
  expect(worse.out).toMatch(
    /NEWLY FAILING:\n( {2}.*\n)* {2}GET metrics\.get v2 \/metrics u_frank none: pass \(expected allow, got 200\) -> mismatch \(expected allow, got 400 invalid_test_run\)/,
  );
  expect(worse.out).toContain("WORSE than the baseline: exit 1");
  const worseJson = await run(["metrics.get", "invoices.get"], { good: false, json: true, extra: ["--baseline", base1] });
  const diff = worseJson.json!.baseline as { newly_failing: unknown[]; added: Array<{ id: string }>; worse: boolean };
  const invoices = worseJson.json!.cells.filter((c) => c.route === "invoices.get").length;
  expect(diff.added.map((c) => c.id)).toEqual(worseJson.json!.cells.filter((c) => c.route === "invoices.get").map((c) => c.id));
  expect(diff.newly_failing).toHaveLength(metrics + invoices);
  expect(diff.worse).toBe(true);
  const base2 = save("base2.json", worseJson);

  // The same failures again: known, tolerated (exit 0 although cells fail), but still listed as failing.
  const same = await run(["metrics.get", "invoices.get"], { good: false, extra: ["--baseline", base2] });
  expect(same.out).toContain(
    `0 newly failing, 0 newly passing, 0 failing differently, ${metrics + invoices} still failing, 0 added, 0 removed, 0 expectations changed, 0 new run problems`,
  );
  expect(same.out).toMatch(/FAIL GET metrics\.get v2 \/metrics u_frank none/);
  expect(same.code).toBe(0);

  // Better: invoices.get passes again, metrics.get left out of this run.
  const better = await run(["invoices.get"], { good: true, extra: ["--baseline", base2] });
  expect(better.code).toBe(0);
  expect(better.out).toContain(`0 newly failing, ${invoices} newly passing, 0 failing differently, 0 still failing, 0 added, ${metrics} removed`);
  expect(better.out).toMatch(/removed:\n( {2}.*\n)* {2}GET metrics\.get v2 \/metrics u_alice none: was mismatch/);
  expect(better.out).toContain("not worse than the baseline");
}, 240_000);

test("--baseline: a changed expectation is named even where it makes the cell fail", async () => {
  const base = save("base3.json", await run(["metrics.get"], { good: true, json: true }));
  // A copy of the matrix where members may read the metrics: the policy still says 403.
  const raw = YAML.parse(fs.readFileSync(DEFAULT_MATRIX_FILE, "utf8"), { merge: true }) as {
    routes: Record<string, { expect: Record<string, Record<string, string>> }>;
  };
  raw.routes["GET metrics.get"].expect = { ...raw.routes["GET metrics.get"].expect, u_alice: { "*": "allow" } };
  const loosened = path.join(server.harness.dir, "loosened.yaml");
  fs.writeFileSync(loosened, YAML.stringify(raw));
  const r = await run(["metrics.get"], { good: true, extra: ["--baseline", base, "--matrix", loosened] });
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/expectation changed:\n( {2}.*\n)* {2}GET metrics\.get v2 \/metrics u_alice none: deny 403 \S+ -> allow/);
  expect(r.out).toMatch(/NEWLY FAILING:\n( {2}.*\n)* {2}GET metrics\.get v2 \/metrics u_alice none: pass .* -> unexpected_deny/);
});

test("--baseline that is not a matrix report stops the command before any request", async () => {
  const bogus = path.join(server.harness.dir, "bogus.json");
  fs.writeFileSync(bogus, JSON.stringify({ summary: {} }));
  const requestsBefore = server.harness.logs.length;
  await expect(run(["metrics.get"], { good: true, extra: ["--baseline", bogus] })).rejects.toThrow(BaselineError);
  await expect(run(["metrics.get"], { good: true, extra: ["--baseline", path.join(server.harness.dir, "absent.json")] })).rejects.toThrow(
    /--baseline .*absent\.json: cannot read/,
  );
  expect(server.harness.logs.length).toBe(requestsBefore);
});
