/**
 * `portcullis rego replay`: the real app (test/api/harness.ts: the
 * project's compiled policy, SQLite files, signed tokens) answers a known
 * mix of requests, and its decision log is replayed against candidate
 * bundles built with the project's own compiler: the same policy under
 * another revision (no flip), a deny-all policy (every allowed decision
 * flips to deny), an allow-all policy (the denials flip to allow, which
 * --fail-on deny-to-allow turns into exit 1). Refusals made before the
 * policy are counted apart; a masked input is replayed and reported as masked.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import request from "supertest";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import { runCli } from "../inventory/cli-helper";
import type { ReplayReport } from "../../cli/rego/replay/replay";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions, type DecisionEntry } from "../../pdp/log/store/query";
import { ROUTES } from "../../api/registry/routes";
import { policyBundle, startHarness, type Harness } from "../api/harness";
import { loadPage, screenshot } from "../matrix/chromium";

let h: Harness;
let db: string;
let logged: DecisionEntry[];

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const run = await runCli(argv);
  return { code: run.code, out: run.stdout.replace(/\n$/, ""), err: run.stderr.replace(/\n$/, "") };
}

/** A candidate bundle compiled from one Rego module, as `rego build` writes it. */
function candidate(name: string, rego: string): string {
  const file = path.join(h.dir, `${name}.tar.gz`);
  const { wasm } = compile([{ file: `${name}.rego`, source: rego }], { entrypoints: ["portcullis/decision"] });
  fs.writeFileSync(
    file,
    writeBundle({
      wasm,
      data: {},
      sources: [{ path: `${name}.rego`, content: rego }],
      manifest: { revision: name, roots: [""], rego_version: 1, wasm: [{ entrypoint: "portcullis/decision", module: "/policy.wasm" }] },
    }),
  );
  return file;
}

async function replay(...argv: string[]): Promise<{ code: number; report: ReplayReport }> {
  const r = await cli("rego", "replay", "--db", db, "--json", ...argv);
  if (r.code === 2) throw new Error(r.err);
  return { code: r.code, report: JSON.parse(r.out) as ReplayReport };
}

const isRequest = (e: DecisionEntry) =>
  e.event !== null && e.event.custom?.policy_evaluated !== false && (e.event.input as { route?: { version?: string } }).route?.version !== "startup-check";

beforeAll(async () => {
  h = await startHarness();
  const alice = await h.auth("u_alice");
  const bob = await h.auth("u_bob");
  const get = (p: string, headers: Record<string, string> = {}) => request(h.app).get(p).set(headers);
  expect((await get("/invoices/inv_alice_1", alice)).status).toBe(200);
  expect((await get("/invoices/inv_alice_2", alice)).status).toBe(200);
  expect((await get("/invoices/inv_bob_1", bob)).status).toBe(200);
  expect((await get("/metrics", alice)).status).toBe(403); // the policy's deny: role_required
  expect((await get("/invoices/inv_alice_1")).status).toBe(401); // anonymous
  expect((await get("/invoices/inv_alice_1", { authorization: "Bearer not-a-token" })).status).toBe(401); // refused before the policy
  // A query parameter named like a secret: the mask policy overwrites its name in the logged input.
  expect((await get("/invoices?api_key=x", alice)).status).toBe(400);
  await h.log.flush();
  db = path.join(h.dir, "decisions.db");
  const store = openForRead(db);
  try {
    logged = queryDecisions(store, { limit: 100_000 });
  } finally {
    store.close();
  }
}, 120_000);

afterAll(() => h?.close());

const DENY_ALL = `package portcullis
decision := {"allow": false, "status": 403, "reason": "deny_all", "scope": {}, "fields": {"read": [], "write": []}}
`;

const ALLOW_ALL = `package portcullis
decision := {"allow": true, "status": 200, "reason": "allow_all", "scope": scope, "fields": {"read": [], "write": []}}
default scope := {}
scope := {"tenant_id": input.actor.tenant} if is_string(input.actor.tenant)
`;

test("the same policy under another revision: every request replayed, no flip, --fail-on any passes", async () => {
  const same = path.join(h.dir, "same.tar.gz");
  fs.writeFileSync(same, policyBundle("candidate-same"));
  const { code, report } = await replay("--bundle", same, "--fail-on", "any");
  expect(code).toBe(0);
  expect(report.candidate.revision).toBe("candidate-same");
  expect(report.read).toBe(logged.length);
  expect(report.replayed).toBe(logged.filter(isRequest).length);
  expect(report.replayed).toBe(6);
  expect(report).toMatchObject({ flips: 0, unchanged: 6, groups: [], fail_on: { kinds: ["any"], matched: 0, failed: false } });
  expect(report.recorded_revisions).toEqual({ "api-test": 6 });
  // The bad token: no policy input exists. The start-up probes: one per route (health.get's is dropped by the drop policy).
  expect(report.not_replayable).toEqual({ refused_before_policy: 1, not_logged: 0, startup_checks: ROUTES.length - 1, input_erased: 0 });
  // The list with ?api_key=: its parameter name was overwritten in the log, so it was replayed on "[REDACTED]".
  expect(report.masked).toEqual({ replayed: 1, flips: 0 });
});

test("a deny-all candidate: every allowed decision flips allow -> deny, grouped by route, role and reason, the masked one marked", async () => {
  const { code, report } = await replay("--bundle", candidate("deny-all", DENY_ALL));
  expect(code).toBe(0); // no --fail-on: a report, not a gate
  const allowed = logged.filter((e) => isRequest(e) && e.allowed === true);
  expect(allowed).toHaveLength(4);
  expect(report.by_kind["allow-to-deny"]).toBe(allowed.length);
  expect(report.by_kind["deny-to-allow"]).toBe(0);
  // Every replayed decision flipped: the denials too, from their reason (and status) to deny_all.
  expect(report.flips).toBe(report.replayed);
  const examples = report.groups.filter((g) => g.kind === "allow-to-deny").flatMap((g) => g.examples.map((e) => e.decision_id));
  expect(examples.sort()).toEqual(allowed.map((e) => e.decision_id).sort());
  const groups = report.groups.map((g) => ({ kind: g.kind, route: g.route, roles: g.roles, reason: g.reason, count: g.count, masked: g.masked }));
  expect(groups).toEqual([
    { kind: "allow-to-deny", route: "invoices.get", roles: "member", reason: { before: "allowed", after: "deny_all" }, count: 3, masked: 0 },
    { kind: "allow-to-deny", route: "invoices.list", roles: "member", reason: { before: "allowed", after: "deny_all" }, count: 1, masked: 1 },
    { kind: "status", route: "invoices.get", roles: "(anonymous)", reason: { before: "authentication_required", after: "deny_all" }, count: 1, masked: 0 },
    { kind: "reason", route: "metrics.get", roles: "member", reason: { before: "role_required", after: "deny_all" }, count: 1, masked: 0 },
  ]);
  const list = report.groups[1].examples[0];
  expect(list.masked).toEqual(["/input/params/0"]);
  expect(list.before).toMatchObject({ allow: true, status: 200, scope: { tenant_id: "t_acme" } });
  expect(list.after).toEqual({ allow: false, status: 403, reason: "deny_all", scope: {}, fields: { read: [], write: [] } });
  expect(report.masked).toEqual({ replayed: 1, flips: 1 });

  expect((await replay("--bundle", candidate("deny-all", DENY_ALL), "--fail-on", "allow-to-deny")).code).toBe(1);
  expect((await replay("--bundle", candidate("deny-all", DENY_ALL), "--fail-on", "deny-to-allow")).code).toBe(0);
});

test("an allow-all candidate: the policy's denials flip deny -> allow and --fail-on deny-to-allow fails the pipeline", async () => {
  const { code, report } = await replay("--bundle", candidate("allow-all", ALLOW_ALL), "--fail-on", "deny-to-allow,status");
  expect(code).toBe(1);
  const denied = logged.filter((e) => isRequest(e) && e.allowed === false);
  expect(denied).toHaveLength(2);
  expect(report.by_kind["deny-to-allow"]).toBe(2);
  expect(report.fail_on).toEqual({ kinds: ["deny-to-allow", "status"], matched: 2, failed: true });
  // The opening ones come first.
  expect(report.groups.slice(0, 2).map((g) => g.kind)).toEqual(["deny-to-allow", "deny-to-allow"]);
  // The allowed reads keep allow but change reason and fields.
  expect(report.by_kind["allow-to-deny"]).toBe(0);
});

test("--since after every decision replays nothing; the terminal and HTML reports say what the JSON says", async () => {
  const later = await replay("--bundle", candidate("deny-all", DENY_ALL), "--since", "2999-01-01");
  expect(later.report).toMatchObject({ read: 0, replayed: 0, flips: 0 });

  const file = path.join(h.dir, "reports", "replay.html");
  const text = await cli("rego", "replay", "--db", db, "--bundle", candidate("deny-all", DENY_ALL), "--html", file);
  expect(text.code).toBe(0);
  expect(text.out).toContain("replayed 6: 0 unchanged, 6 flipped");
  expect(text.out).toContain("MASKED: 1 replayed on a masked input or result (1 of them flipped)");
  expect(text.out).toMatch(/ALLOW-TO-DENY x3 {2}route invoices\.get {2}roles member {2}reason allowed -> deny_all/);
  const html = fs.readFileSync(file, "utf8");
  expect(html).not.toMatch(/<script|<link|\bsrc=|\bhref=|@import|url\(/i);
  expect(html).toContain('data-tile="deny-to-allow"><b>0</b>');
  expect(html).toContain('data-tile="allow-to-deny"><b>4</b>');
  expect(html).toContain('data-tile="masked"><b>1</b>');
  // Rendered by headless chromium: no console message, and the groups table holds the JSON's groups.
  const json = (await replay("--bundle", candidate("deny-all", DENY_ALL))).report;
  const { dom, console: messages } = loadPage(file);
  expect(messages).toEqual([]);
  const rows = dom.match(/<table id="groups">[\s\S]*?<\/table>/)?.[0].match(/<tr>/g)?.length;
  expect(rows).toBe(json.groups.length + 1);
  if (process.env.REPORT_SCREENSHOTS) screenshot(file, path.join(process.env.REPORT_SCREENSHOTS, "replay.png"), 1400);
});

test("bad arguments are usage errors (exit 2), not a failed gate", async () => {
  expect((await cli("rego", "replay", "--db", db)).code).toBe(2);
  expect((await cli("rego", "replay", "--db", db, "--bundle", path.join(h.dir, "absent.tar.gz"))).code).toBe(2);
  expect((await cli("rego", "replay", "--db", db, "--bundle", db)).code).toBe(2); // not a bundle
  expect((await cli("rego", "replay", "--db", db, "--bundle", candidate("deny-all", DENY_ALL), "--fail-on", "allow-to-maybe")).code).toBe(2);
});
