/**
 * The trail recorded IN every decision (pdp/trail.ts, event `custom.trail`)
 * and `decisions --id ID --explain` WITHOUT --bundle, which prints it from
 * the log: for an allow and for every kind of deny rego/portcullis
 * produces (decision.rego's outcome chain, each reason), the rule that
 * decided is named with its file:line, found by reading the policy files
 * themselves (not hard-coded lines), with the body that gave the reason
 * and the input values it read. Refusals the API makes before asking the
 * policy (api/middleware/log.ts REFUSED_BY: authenticate, resolve-route,
 * guard, rate-limit, router) and the PDP's own deny (no bundle) say that no
 * rule decided. The page (--html) shows the same trail in chromium.
 *
 * Decisions come from the real app (test/api/harness.ts: compiled policy,
 * SQLite decision log, signed tokens); the deny kinds the API's own
 * consistent inputs cannot reach (a route id missing from the table, a
 * method or action the table does not list...) are asked of the same PDP
 * directly, and logged by the same log.
 *
 * REPORT_SCREENSHOTS=DIR saves a PNG of the page there (to look at it).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import request from "supertest";
import { DEFAULT_BODY_LIMIT_BYTES } from "../../api/app";
import { decide } from "../../pdp/decide";
import type { DecisionInput } from "../../pdp/types";
import { startHarness, type Harness } from "../api/harness";
import { runCli } from "../inventory/cli-helper";
import { member } from "../pdp/fixtures";
import { loadPage, screenshot } from "../matrix/chromium";

let h: Harness;
const ids: Record<string, string> = {};
const REGO = path.join(__dirname, "../../rego/portcullis");
const lines = (file: string) => fs.readFileSync(path.join(REGO, file), "utf8").split("\n");
const files: Record<string, string[]> = Object.fromEntries(
  ["decision.rego", "routes.rego", "tenancy.rego", "fields.rego", "workflow.rego"].map((f) => [f, lines(f)]),
);
/** `rego/portcullis/<file>:<row>` of the first line matching (and the line after it, when given). */
function at(file: string, line: RegExp, next?: RegExp): string {
  const src = files[file];
  const i = src.findIndex((l, n) => line.test(l) && (next === undefined || next.test(src[n + 1] ?? "")));
  if (i < 0) throw new Error(`no line ${line} in ${file}`);
  return `rego/portcullis/${file}:${i + 1}`;
}
const DENY = at("decision.rego", /^decision := \{/, /"allow": false/);
const ALLOW = at("decision.rego", /^decision := \{/, /"allow": true/);
/** The outcome branch giving `reason`, whose condition's first line matches `condition`. */
const branch = (reason: string, condition?: RegExp) => at("decision.rego", new RegExp(`"reason": "?${reason}"?\\}`), condition);

/** `decisions --explain` in process: the CLI entry point, its stdout and stderr captured (test/inventory/cli-helper.ts). */
const explain = (id: string, ...more: string[]) => runCli(["decisions", "--db", path.join(h.dir, "decisions.db"), "--id", id, "--explain", ...more]);

/** A member of t_acme reading one of its invoices: each deny case changes one thing. */
const MEMBER: DecisionInput = member();
const DIRECT: Record<string, DecisionInput> = {
  noPolicy: { ...MEMBER, route: { ...MEMBER.route, id: "invoices.nope" } },
  method: { ...MEMBER, route: { ...MEMBER.route, method: "DELETE" } },
  action: { ...MEMBER, action: "delete" },
  resourceType: { ...MEMBER, resource: { type: "user", id: "inv_1" } },
  tenantRequired: { ...MEMBER, actor: { ...MEMBER.actor, tenant: null } },
  foreignTenant: { ...MEMBER, resource: { type: "invoice", id: "inv_1", tenant: "t_other" } },
  foreignOwner: { ...MEMBER, resource: { type: "invoice", id: "inv_1", tenant: "t_acme", owner: "u_bob" } },
  rowNotLocated: {
    ...MEMBER,
    actor: { id: "u_ada", tenant: "t_acme", roles: ["admin"] },
    action: "approve",
    route: { id: "invoices.approve", method: "POST", version: "v2" },
  },
  separation: {
    ...MEMBER,
    actor: { id: "u_ada", tenant: "t_acme", roles: ["admin"] },
    action: "approve",
    resource: { type: "invoice", id: "inv_1", tenant: "t_acme", owner: "u_ada" },
    route: { id: "invoices.approve", method: "POST", version: "v2" },
  },
  refundReason: {
    ...MEMBER,
    actor: { id: "u_sam", tenant: "t_acme", roles: ["support"] },
    action: "refund",
    resource: { type: "invoice", id: "inv_1", tenant: "t_acme", owner: "u_alice" },
    route: { id: "invoices.refund", method: "POST", version: "v2" },
    fields: { submitted: ["amount_cents"] },
  },
  fieldNotWritable: {
    ...MEMBER,
    action: "update",
    resource: { type: "user", id: "u_alice" },
    route: { id: "users.me.update", method: "PATCH", version: "v2" },
    fields: { submitted: ["displayName", "isAdmin"] },
  },
};

beforeAll(async () => {
  // Source lines come from the bundle the service runs (PORTCULLIS_BUNDLE) when it is the decision's revision.
  h = await startHarness({ rateLimits: { sensitive: { limit: 2, windowSec: 600 } } });
  process.env.PORTCULLIS_BUNDLE = path.join(h.dir, "bundle.tar.gz");
  const alice = await h.auth("u_alice");
  const get = async (name: string, p: string, headers: Record<string, string>, status: number) => {
    const res = await request(h.app).get(p).set(headers);
    expect(res.status).toBe(status);
    ids[name] = res.headers["decision-id"];
  };
  await get("allow", "/invoices/inv_alice_1", alice, 200);
  await get("role", "/metrics", alice, 403);
  await get("anonymous", "/invoices/inv_alice_1", {}, 401);
  await get("badToken", "/invoices/inv_alice_1", { authorization: "Bearer not-a-token" }, 401);
  await get("unknownVersion", "/api/v9/users/me", alice, 404);
  // A body over the API's limit is refused before the policy is asked (guard); an unreadable one after it allowed.
  const big = await request(h.app)
    .patch("/profile")
    .set(alice)
    .set("content-type", "application/json")
    .send(`{"displayName":"${"x".repeat(DEFAULT_BODY_LIMIT_BYTES)}"}`);
  expect(big.status).toBe(413);
  ids.bigBody = big.headers["decision-id"];
  // A security-relevant parameter is refused after the policy allowed: the decision is an allow, the client got 400.
  await get("securityParam", "/invoices/inv_alice_1?debug=1", alice, 400);
  await get("noRoute", "/no/such/route", alice, 404);
  await get("export1", "/invoices/export", alice, 200);
  await get("export2", "/invoices/export", alice, 200);
  await get("rateLimited", "/invoices/export", alice, 429);
  for (const [name, input] of Object.entries(DIRECT)) ids[name] = h.pdp.decide(input).decisionId;
  // A submitted name shaped like a token: the log's mask policy rewrites it (rego/system/log/mask.rego).
  ids.maskedRead = h.pdp.decide({
    ...DIRECT.fieldNotWritable,
    fields: { submitted: ["displayName", `eyJhbGciOiJIUzI1NiJ9.${"eyJzdWIiOiIxIn0"}.c2lnbmF0dXJl`] },
  }).decisionId;
  ids.noBundle = decide(null, { entrypoint: "portcullis/decision", log: h.log, logger: () => undefined }, MEMBER).decisionId;
  await h.log.flush();
}, 180_000);

afterAll(async () => {
  delete process.env.PORTCULLIS_BUNDLE;
  await h?.close();
});

test("an allow: the allow body of the decision, then the outcome branch and the rules it read, with their source lines and inputs", async () => {
  const r = await explain(ids.allow);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("recorded: allow 200 allowed");
  const [, row] = ALLOW.split(":");
  expect(r.stdout).toContain(`decided by:\n  data.portcullis.decision  ${ALLOW}\n    ${row} | decision := {`);
  // The last branch of the chain ("allowed") was taken, and the allow body read the grant that holds.
  expect(r.stdout).toContain(`  data.portcullis.outcome  ${at("decision.rego", /^\} else := \{"status": 200, "reason": "allowed"\}/)}  (else branch)`);
  expect(r.stdout).toMatch(
    new RegExp(`  data\\.portcullis\\.grant  ${at("routes.rego", /^grant := /)}\\n    \\d+ \\| grant := route_policy\\.grants\\[grant_role\\]`),
  );
  expect(r.stdout).toContain(`  data.portcullis.route_policy  ${at("routes.rego", /^route_policy := /)}`);
  expect(r.stdout).toContain('    reads input.route.id = "invoices.get"');
  expect(r.stdout).not.toContain("evaluated again");
});

describe("each kind of deny names the deny body and the branch that gave the reason", () => {
  const cases: Array<[string, string, string, string[]]> = [
    // [decision, recorded answer, the outcome branch, more lines the trail must show]
    ["noPolicy", "deny 403 no_policy", branch("no_policy"), ["    no body of data.portcullis.route_policy succeeded"]],
    ["method", "deny 403 method_not_allowed", branch("method_not_allowed"), ["    no body of data.portcullis.method_listed succeeded"]],
    ["action", "deny 403 action_not_allowed", branch("action_not_allowed"), ["    no body of data.portcullis.action_matches succeeded"]],
    [
      "resourceType",
      "deny 403 resource_mismatch",
      branch("resource_mismatch"),
      [`  data.portcullis.resource_mismatch  ${at("routes.rego", /^resource_mismatch if/)}`, '    reads input.resource.type = "user"'],
    ],
    [
      "anonymous",
      "deny 401 authentication_required",
      branch("authentication_required"),
      [`  data.portcullis.anonymous  ${at("routes.rego", /^anonymous if/)}`],
    ],
    ["role", "deny 403 role_required", branch("role_required"), ["    no body of data.portcullis.grant succeeded"]],
    [
      "tenantRequired",
      "deny 403 tenant_required",
      branch("tenant_required"),
      [`  data.portcullis.tenant_missing  ${at("tenancy.rego", /^tenant_missing if/)}`, "    no body of data.portcullis.actor_tenant succeeded"],
    ],
    [
      "foreignTenant",
      "deny 404 not_found",
      branch("not_found", /foreign_tenant/),
      [`  data.portcullis.foreign_tenant  ${at("tenancy.rego", /^foreign_tenant if/)}`, '    reads input.resource.tenant = "t_other"'],
    ],
    [
      "foreignOwner",
      "deny 404 not_found",
      branch("not_found", /foreign_owner/),
      [`  data.portcullis.foreign_owner  ${at("tenancy.rego", /^foreign_owner if/)}`, '    reads input.resource.owner = "u_bob"'],
    ],
    [
      "rowNotLocated",
      "deny 404 not_found",
      branch("not_found", /workflow_row_not_located/),
      [`  data.portcullis.workflow_row_not_located  ${at("workflow.rego", /^workflow_row_not_located if/)}`, "    reads input.resource.owner = undefined"],
    ],
    [
      "separation",
      "deny 403 separation_of_duties",
      branch("workflow_denial"),
      [`  data.portcullis.workflow_denials  ${at("workflow.rego", /^workflow_denials contains "separation_of_duties"/)}`],
    ],
    [
      "refundReason",
      "deny 403 refund_reason_required",
      branch("workflow_denial"),
      [
        `  data.portcullis.workflow_denials  ${at("workflow.rego", /^workflow_denials contains "refund_reason_required"/)}`,
        "    no body of data.portcullis.refund_reason_submitted succeeded",
      ],
    ],
    [
      "fieldNotWritable",
      "deny 403 field_not_writable",
      branch("field_not_writable"),
      [`  data.portcullis.field_not_writable  ${at("fields.rego", /^field_not_writable if/)}`, '    reads input.fields.submitted = ["displayName","isAdmin"]'],
    ],
  ];
  test.each(cases)("%s: %s", async (name, answer, outcomeAt, more) => {
    const r = await explain(ids[name]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`recorded: ${answer}`);
    expect(r.stdout).toContain(`decided by:\n  data.portcullis.decision  ${DENY}\n`);
    // The first branch is the outcome rule's own body; every later one is an else branch.
    const kind = outcomeAt === branch("no_policy") ? "" : "  (else branch)";
    expect(r.stdout).toContain(`depends on (rule bodies that succeeded, each read by one above it):\n  data.portcullis.outcome  ${outcomeAt}${kind}\n`);
    for (const line of more) expect(r.stdout).toContain(line);
  });

  test("the trail is in the logged event itself (custom.trail, OPA's extras), as rule and file:line", async () => {
    const r = await runCli(["decisions", "--db", path.join(h.dir, "decisions.db"), "--id", ids.role, "--json"]);
    const event = JSON.parse(r.stdout) as { custom?: { trail?: Array<{ rule: string; at: string; kind?: string; failed?: string[] }> } };
    expect(event.custom?.trail?.slice(0, 2)).toEqual([
      { rule: "portcullis.decision", at: DENY },
      { rule: "portcullis.outcome", at: branch("role_required"), kind: "else", failed: ["portcullis.grant"] },
    ]);
  });
});

test("refusals made before the policy was asked, and the PDP's own deny, say that no rule decided", async () => {
  for (const [name, stage] of [
    ["badToken", "authenticate"],
    ["unknownVersion", "resolve-route"],
    ["bigBody", "guard"],
    ["rateLimited", "rate-limit"],
    ["noRoute", "router"],
  ]) {
    const r = await explain(ids[name]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`refused before the policy was asked, no rule decided: .*"stage":"${stage}"`));
  }
  const param = await explain(ids.securityParam);
  expect(param.stdout).toContain("recorded: allow 200 allowed\nthe client got: GET /invoices/inv_alice_1 -> 400 invalid_param");
  const r = await explain(ids.noBundle);
  expect(r.stdout).toContain("recorded: deny - policy_unavailable");
  expect(r.stdout).toContain("the PDP denied on its own (policy_unavailable: no policy bundle is active): no rule decided");
});

test("an input value the log's mask rewrote is shown as logged, and flagged", async () => {
  const r = await explain(ids.maskedRead);
  expect(r.stdout).toContain("recorded: deny 403 field_not_writable");
  expect(r.stdout).toContain('    reads input.fields.submitted = ["displayName","[REDACTED]"]  (masked in the log)');
});

test("without the bundle that decided at hand, the trail is still named, without source lines", async () => {
  process.env.PORTCULLIS_BUNDLE = path.join(h.dir, "absent.tar.gz");
  try {
    const r = await explain(ids.role);
    expect(r.stdout).toContain(`source lines not shown: no bundle at ${path.join(h.dir, "absent.tar.gz")}`);
    expect(r.stdout).toContain(`decided by:\n  data.portcullis.decision  ${DENY}\ndepends on`);
  } finally {
    process.env.PORTCULLIS_BUNDLE = path.join(h.dir, "bundle.tar.gz");
  }
});

test("--html: the same trail as a self-contained page, rendered by chromium", async () => {
  const file = path.join(h.dir, "explain.html");
  const r = await explain(ids.foreignTenant, "--html", file);
  expect(r.code).toBe(0);
  const html = fs.readFileSync(file, "utf8");
  expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
  const { dom, console: messages } = loadPage(file);
  expect(messages).toEqual([]);
  expect(dom).toContain("deny 404 not_found");
  const shown = [...dom.matchAll(/<li[^>]*data-rule="([^"]+)" data-at="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
  const printed = [...r.stdout.matchAll(/^ {2}data\.(\S+) {2}(\S+)/gm)].map((m) => `${m[1]} ${m[2]}`);
  expect(shown).toEqual(printed);
  expect(shown).toContain(`portcullis.foreign_tenant ${at("tenancy.rego", /^foreign_tenant if/)}`);
  expect(dom).toMatch(/data-read="input.resource.tenant"><td><code>input.resource.tenant<\/code><\/td><td><code>"t_other"<\/code>/);
  if (process.env.REPORT_SCREENSHOTS) screenshot(file, path.join(process.env.REPORT_SCREENSHOTS, "explain.png"), 1400);
});
