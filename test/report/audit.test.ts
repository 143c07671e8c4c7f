/**
 * `portcullis audit`: the auditor's report over real decisions and security
 * events. The real app (test/api/harness.ts: compiled policy, SQLite files,
 * signed tokens) answers a known mix of requests: allowed reads, a
 * cross-owner read (BOLA), a cross-tenant read, an anonymous call, a
 * member on the metrics route, an enumeration burst, and one request of a
 * verified test run. The JSON's numbers must equal what `decisions` and
 * `events` list for the same log, and the page, rendered by headless
 * chromium, must load without a console message and show the JSON's numbers.
 *
 * REPORT_SCREENSHOTS=DIR saves a PNG of the page there (to look at it).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import request from "supertest";
import { runCli } from "../inventory/cli-helper";
import { mintTestRunCredential } from "../../api/identity/test-run";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions, type DecisionEntry, type DecisionQuery } from "../../pdp/log/store/query";
import type { AuditSummary } from "../../report/audit";
import { ROUTES } from "../../api/registry/routes";
import { ISSUER, startHarness, type Harness } from "../api/harness";
import { loadPage, screenshot } from "../matrix/chromium";

let h: Harness;
let summary: AuditSummary;
let files: string[];

async function cli(...argv: string[]): Promise<{ code: number; out: string }> {
  const run = await runCli(argv);
  return { code: run.code, out: run.stdout.replace(/\n$/, "") };
}

function decisions(q: DecisionQuery): DecisionEntry[] {
  const db = openForRead(path.join(h.dir, "decisions.db"));
  try {
    return queryDecisions(db, { limit: 100_000, ...q });
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  h = await startHarness();
  const alice = await h.auth("u_alice");
  const bob = await h.auth("u_bob");
  const get = (p: string, headers: Record<string, string> = {}) => request(h.app).get(p).set(headers);
  expect((await get("/invoices/inv_alice_1", alice)).status).toBe(200);
  expect((await get("/invoices/inv_alice_2", alice)).status).toBe(200);
  expect((await get("/invoices/inv_bob_1", bob)).status).toBe(200);
  expect((await get("/invoices/inv_bob_1", alice)).status).toBe(404); // another member's row: cross_owner_id
  expect((await get("/invoices/inv_dave_1", alice)).status).toBe(404); // another tenant's row: cross_tenant_id
  expect((await get("/invoices/inv_alice_1")).status).toBe(401);
  expect((await get("/metrics", alice)).status).toBe(403); // admin_route_denied
  // An enumeration burst: distinct unknown ids.
  for (const id of ["inv_x1", "inv_x2", "inv_x3", "inv_x4", "inv_x5"]) expect((await get(`/invoices/${id}`, alice)).status).toBe(404);
  // A path no route matches, with markup an auditor's browser must not run (the page names unrouted paths).
  expect((await get('/nowhere/"><svg onload=alert(1)>')).status).toBe(404);
  const credential = await mintTestRunCredential({ keyFile: h.keyFile, issuer: ISSUER, runId: "matrix-audit-1", ttlSec: 600 });
  expect((await get("/invoices/inv_alice_1", { ...bob, "Portcullis-Test-Run": credential })).status).toBe(404);
  await h.log.flush();
  await h.events({ limit: 1 }); // writes the events held for write-behind (after the monitor's lookups)
  files = ["--decisions", path.join(h.dir, "decisions.db"), "--db", path.join(h.dir, "portcullis.db")];
  const r = await cli("audit", ...files, "--json");
  expect(r.code).toBe(0);
  summary = JSON.parse(r.out) as AuditSummary;
}, 120_000);

afterAll(() => h?.close());

test("the summary's numbers are what `decisions` and `events` list for the same log", async () => {
  const d = summary.decisions;
  // The service's start-up policy probe decides once per route, anonymously, for no request (route version
  // "startup-check", api/registry/check.ts): not traffic. Logged for every route but health.get, whose
  // allowed anonymous decisions the drop policy drops.
  const requests = (q: DecisionQuery) => decisions(q).filter((e) => (e.event?.input as { route?: { version?: string } }).route?.version !== "startup-check");
  expect(d.startup_checks_left_out).toBe(ROUTES.length - 1);
  expect(d.startup_checks_left_out).toBe(decisions({ excludeTestRuns: true }).length - requests({ excludeTestRuns: true }).length);
  expect(d.total).toBe(requests({ excludeTestRuns: true }).length);
  expect(d.denied).toBe(requests({ excludeTestRuns: true, denied: true }).length);
  expect(d.allowed).toBe(d.total - d.denied);
  expect(d.test_run_requests_left_out).toBe(decisions({ testRun: "matrix-audit-1" }).length);
  expect(d.test_run_requests_left_out).toBe(1);
  const events = await h.events({ excludeTestRuns: true, limit: 1000 });
  expect(summary.events.total).toBe(events.length);
  const byKind = Object.fromEntries(summary.events.by_kind.map((k) => [k.kind, k.count]));
  for (const kind of new Set(events.map((e) => e.kind))) expect(byKind[kind]).toBe(events.filter((e) => e.kind === kind).length);
  expect(summary.over_time.reduce((s, b) => s + b.allowed, 0)).toBe(d.allowed);
  expect(summary.over_time.reduce((s, b) => s + b.denied, 0)).toBe(d.denied);
});

test("the requests sent are counted where an auditor looks for them", () => {
  // Alice: bob's row, dave's row, the metrics route, five unknown ids; anonymous: an invoice, an unrouted path.
  expect(summary.denied_by_actor).toEqual([
    { actor: "u_alice", count: 8 },
    { actor: "anonymous", count: 2 },
  ]);
  expect(summary.denied_by_route[0]).toEqual({ route: "invoices.get", count: 8, reasons: { "not_found (no row in scope)": 7, authentication_required: 1 } });
  expect(summary.denied_by_route.map((r) => r.route)).toContain("GET /nowhere/%22%3E%3Csvg%20onload=alert(1)%3E (no route)");
  expect(summary.denial_reasons).toEqual([
    { reason: "not_found (no row in scope)", count: 7 },
    { reason: "authentication_required", count: 1 },
    { reason: "role_required", count: 1 },
    { reason: "route_not_found", count: 1 },
  ]);
  expect(summary.decisions).toMatchObject({ total: 13, allowed: 3, denied: 10 });
  expect(summary.decisions.no_row_in_scope).toBe(7);
  const bola = summary.bola.timeline.reduce(
    (s, b) => ({ t: s.t + b.cross_tenant_id, o: s.o + b.cross_owner_id, e: s.e + b.enumeration, n: s.n + b.no_row_in_scope }),
    { t: 0, o: 0, e: 0, n: 0 },
  );
  expect(bola).toEqual({ t: 1, o: 1, e: 1, n: 7 });
  expect(summary.events.by_kind).toEqual(
    expect.arrayContaining([
      { kind: "admin_route_denied", count: 1 },
      { kind: "enumeration", count: 1 },
    ]),
  );
  expect(summary.bola.recent.map((e) => e.kind).sort()).toEqual(["cross_owner_id", "cross_tenant_id", "enumeration"]);
  expect(summary.window.bucket).toBe("hour");
});

test("a window of days is drawn per day, every day listed, quiet ones as zero", async () => {
  const week = JSON.parse((await cli("audit", ...files, "--json", "--since", "5d")).out) as AuditSummary;
  expect(week.window.bucket).toBe("day");
  expect(week.over_time).toHaveLength(6);
  expect(week.over_time[5].start).toBe(new Date().toISOString().slice(0, 10));
  expect(week.over_time.slice(0, 5).every((b) => b.allowed + b.denied === 0)).toBe(true);
  expect(week.over_time[5]).toMatchObject({ allowed: summary.decisions.allowed, denied: summary.decisions.denied });
  expect(week.bola.timeline[5]).toMatchObject({ cross_owner_id: 1, cross_tenant_id: 1, enumeration: 1, no_row_in_scope: 7 });
});

test("--include-test-runs and --test-run ID count the runs' requests", async () => {
  const all = JSON.parse((await cli("audit", ...files, "--json", "--include-test-runs")).out) as AuditSummary;
  expect(all.decisions.total).toBe(summary.decisions.total + 1);
  const run = JSON.parse((await cli("audit", ...files, "--json", "--test-run", "matrix-audit-1")).out) as AuditSummary;
  expect(run.decisions).toMatchObject({ total: 1, denied: 1 });
  expect((await cli("audit", ...files, "--json", "--html", "x.html")).code).toBe(2);
  expect((await cli("audit", "--decisions", path.join(h.dir, "absent.db"), "--db", path.join(h.dir, "portcullis.db"))).code).toBe(2);
});

test("the page loads in chromium without a console message and shows the JSON's numbers", async () => {
  const file = path.join(h.dir, "reports", "audit.html");
  expect((await cli("audit", ...files, "--html", file)).code).toBe(0);
  const html = fs.readFileSync(file, "utf8");
  expect(html).not.toMatch(/<script|<link|\bsrc=|\bhref=|@import|url\(/i);
  expect(html).not.toContain("<svg onload");
  const { dom, console: messages } = loadPage(file);
  expect(messages).toEqual([]);
  const tile = (key: string) => Number(new RegExp(`data-tile="${key}"><b>(\\d+)</b>`).exec(dom)?.[1]);
  expect([tile("total"), tile("allowed"), tile("denied"), tile("events")]).toEqual([
    summary.decisions.total,
    summary.decisions.allowed,
    summary.decisions.denied,
    summary.events.total,
  ]);
  const values = (chart: string, series?: string) => {
    const svg = new RegExp(`<svg id="${chart}"[\\s\\S]*?</svg>`).exec(dom)?.[0] ?? "";
    const re = series ? new RegExp(`data-series="${series}" data-value="(\\d+)"`, "g") : /data-label="([^"]*)" data-value="(\d+)"/g;
    return [...svg.matchAll(re)].map((m) => (series ? Number(m[1]) : `${m[1]}=${m[2]}`));
  };
  const sum = (xs: Array<number | string>) => (xs as number[]).reduce((a, b) => a + b, 0);
  expect(sum(values("decisions-over-time", "allowed"))).toBe(summary.decisions.allowed);
  expect(sum(values("decisions-over-time", "denied"))).toBe(summary.decisions.denied);
  expect(values("decisions-over-time", "denied")).toHaveLength(summary.over_time.length);
  expect(values("denied-routes")).toEqual(summary.denied_by_route.map((r) => `${r.route}=${r.count}`));
  expect(values("denied-actors")).toEqual(summary.denied_by_actor.map((r) => `${r.actor}=${r.count}`));
  expect(values("events-by-kind")).toEqual(summary.events.by_kind.map((r) => `${r.kind}=${r.count}`));
  for (const kind of ["cross_tenant_id", "cross_owner_id", "enumeration", "no_row_in_scope"] as const) {
    expect(sum(values("bola-timeline", kind))).toBe(summary.bola.timeline.reduce((s, b) => s + b[kind], 0));
  }
  expect(dom.match(/<table id="bola-events">[\s\S]*?<\/table>/)?.[0].match(/<tr>/g)?.length).toBe(summary.bola.recent.length + 1);
  if (process.env.REPORT_SCREENSHOTS) screenshot(file, path.join(process.env.REPORT_SCREENSHOTS, "audit.png"), 1900);
});
