/**
 * The real policies under rego/, compiled by our own compiler and run through
 * @open-policy-agent/opa-wasm exactly as the PDP runs them: the key decisions
 * of data.portcullis.decision (route x role, tenancy, fields, workflow), and
 * the decision-log mask and drop rules. The exhaustive cases live in the Rego
 * unit tests (`portcullis rego test rego/`); this suite proves the same
 * policies hold once compiled to Wasm, with the bundle's data.
 */
import * as path from "node:path";
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "@portcullis/rego-wasm";
import { collectPolicyInputs } from "../../cli/files";
import type { Actor, Decision, DecisionInput } from "../../pdp/types";

const REGO = path.join(__dirname, "../../rego");
const DECISION = "portcullis/decision";

const actors: Record<string, Actor> = {
  anonymous: { id: "anonymous", tenant: null, roles: [] },
  member: { id: "u_alice", tenant: "t_acme", roles: ["member"] },
  support: { id: "u_sam", tenant: "t_acme", roles: ["support"] },
  admin: { id: "u_carol", tenant: "t_acme", roles: ["admin"] },
  foreignAdmin: { id: "u_dave", tenant: "t_globex", roles: ["admin"] },
};

/** route id -> [method, action, resource type]: the table the API maps HTTP routes to. */
const routes: Record<string, [string, string, string]> = {
  "health.get": ["GET", "read", "health"],
  "metrics.get": ["GET", "read", "metrics"],
  "openapi.get": ["GET", "read", "openapi"],
  "invoices.get": ["GET", "read", "invoice"],
  "invoices.list": ["GET", "list", "invoice"],
  "invoices.export": ["GET", "export", "invoice"],
  "invoices.batch": ["POST", "read", "invoice"],
  "invoices.approve": ["POST", "approve", "invoice"],
  "invoices.refund": ["POST", "refund", "invoice"],
  "invoices.publish": ["POST", "publish", "invoice"],
  "users.invite": ["POST", "invite", "user"],
  "admin.users.suspend": ["POST", "suspend", "user"],
  "admin.users.disable": ["POST", "disable", "user"],
  "admin.users.ban": ["POST", "ban", "user"],
  "admin.export": ["POST", "export", "export"],
  "admin.export.get": ["GET", "read", "export"],
  "users.me.get": ["GET", "read", "user"],
  "users.me.update": ["PATCH", "update", "user"],
  "search.get": ["GET", "search", "search"],
  "internal.reports.export": ["GET", "export", "report"],
};

function request(who: string, routeId: string, extra: Partial<DecisionInput> = {}): DecisionInput {
  const [method, action, type] = routes[routeId] ?? ["GET", "read", "unknown"];
  return {
    actor: actors[who],
    action,
    resource: { type },
    route: { id: routeId, method, version: "v2" },
    fields: { submitted: [] },
    params: [],
    ...extra,
  };
}

let policy: LoadedPolicy;

function evaluate(entrypoint: string, input: unknown): unknown {
  const rs = policy.evaluate(input, entrypoint) as Array<{ result: unknown }>;
  expect(rs).toHaveLength(1);
  return rs[0].result;
}

const decide = (input: unknown): Decision => evaluate(DECISION, input) as Decision;

beforeAll(async () => {
  const { sources, data } = collectPolicyInputs([REGO]);
  const { wasm } = compile(
    sources.filter((s) => !s.file.endsWith("_test.rego")),
    { entrypoints: [DECISION, "system/log/mask", "system/log/drop"] },
  );
  policy = await loadPolicy(wasm);
  policy.setData(data);
});

describe("data.portcullis.decision", () => {
  // anonymous, member, support, admin
  const matrix: Record<string, [number, number, number, number]> = {
    "health.get": [200, 200, 200, 200],
    "metrics.get": [401, 403, 200, 200],
    "openapi.get": [200, 200, 200, 200],
    "invoices.get": [401, 200, 200, 200],
    "invoices.list": [401, 200, 200, 200],
    "invoices.export": [401, 200, 200, 200],
    "invoices.batch": [401, 200, 200, 200],
    // Without a located invoice owner, approve and refund are not found (separation of duties needs the owner).
    "invoices.approve": [401, 403, 403, 404],
    "invoices.refund": [401, 403, 404, 404],
    "invoices.publish": [401, 200, 403, 200],
    "users.invite": [401, 403, 403, 200],
    "admin.users.suspend": [401, 403, 403, 200],
    "admin.users.disable": [401, 403, 403, 200],
    "admin.users.ban": [401, 403, 403, 200],
    "admin.export": [401, 403, 403, 200],
    "admin.export.get": [401, 403, 403, 200],
    "users.me.get": [401, 200, 200, 200],
    "users.me.update": [401, 200, 200, 200],
    "search.get": [401, 200, 200, 200],
    "internal.reports.export": [401, 403, 403, 200],
  };

  it.each(Object.entries(matrix))("%s: status per role", (routeId, expected) => {
    const got = ["anonymous", "member", "support", "admin"].map((who) => decide(request(who, routeId)).status);
    expect(got).toEqual(expected);
  });

  it("answers in the Decision shape, allow or deny", () => {
    for (const routeId of Object.keys(routes)) {
      for (const who of Object.keys(actors)) {
        const d = decide(request(who, routeId));
        expect(Object.keys(d).sort()).toEqual(["allow", "fields", "reason", "scope", "status"]);
        expect(d.allow).toBe(d.status === 200);
        expect(d.reason).toEqual(d.allow ? "allowed" : expect.any(String));
        if (!d.allow) expect(d).toMatchObject({ scope: {}, fields: { read: [], write: [] } });
        for (const v of Object.values(d.scope)) expect(typeof v).toBe("string");
      }
    }
  });

  it("denies with a reason: no policy, method, anonymous, role", () => {
    expect(decide({})).toMatchObject({ allow: false, status: 403, reason: "no_policy" });
    expect(decide(request("admin", "invoices.delete"))).toMatchObject({ status: 403, reason: "no_policy" });
    const del = request("admin", "invoices.get");
    del.route.method = "DELETE";
    expect(decide(del)).toMatchObject({ status: 403, reason: "method_not_allowed" });
    expect(decide(request("anonymous", "internal.reports.export"))).toMatchObject({ status: 401, reason: "authentication_required" });
    expect(decide(request("member", "admin.users.ban"))).toMatchObject({ status: 403, reason: "role_required" });
  });

  it("scopes rows: members own invoices, staff the tenant, everyone their own profile", () => {
    expect(decide(request("member", "invoices.list")).scope).toEqual({ tenant_id: "t_acme", owner_id: "u_alice" });
    expect(decide(request("support", "invoices.list")).scope).toEqual({ tenant_id: "t_acme" });
    expect(decide(request("admin", "invoices.export")).scope).toEqual({ tenant_id: "t_acme" });
    expect(decide(request("admin", "users.me.get")).scope).toEqual({ tenant_id: "t_acme", owner_id: "u_carol" });
    expect(decide(request("foreignAdmin", "search.get")).scope).toEqual({ tenant_id: "t_globex" });
  });

  it("hides rows of another tenant or owner as 404", () => {
    const foreign = { type: "invoice", id: "inv_9", tenant: "t_globex", owner: "u_zed" };
    expect(decide(request("admin", "invoices.get", { resource: foreign }))).toMatchObject({ status: 404, reason: "not_found" });
    const bobs = { type: "invoice", id: "inv_2", tenant: "t_acme", owner: "u_bob" };
    expect(decide(request("member", "invoices.publish", { resource: bobs }))).toMatchObject({ status: 404, reason: "not_found" });
    expect(decide(request("admin", "invoices.publish", { resource: bobs })).allow).toBe(true);
  });

  it("gives the same invoice fields per role on get, list, export and batch", () => {
    for (const who of ["member", "support", "admin"]) {
      const sets = ["invoices.get", "invoices.list", "invoices.export", "invoices.batch"].map((r) => decide(request(who, r)).fields.read);
      for (const s of sets) expect(s).toEqual(sets[0]);
    }
    const admin = decide(request("admin", "invoices.get")).fields.read;
    const support = decide(request("support", "invoices.get")).fields.read;
    expect(support.length).toBeLessThan(admin.length);
    expect(support.every((f) => admin.includes(f))).toBe(true);
  });

  it("lets a profile update write displayName only, and read id, email, displayName", () => {
    const ok = decide(request("member", "users.me.update", { fields: { submitted: ["displayName"] } }));
    expect(ok).toMatchObject({ allow: true, fields: { read: ["id", "email", "displayName"], write: ["displayName"] } });
    for (const f of [
      "locale",
      "isAdmin",
      "owner_id",
      "tenant_id",
      "account_credit_cents",
      "support_priority",
      "role",
      "debug",
      "billingPlan",
      "internalNotes",
    ]) {
      for (const who of ["member", "admin"]) {
        const d = decide(request(who, "users.me.update", { fields: { submitted: ["displayName", f] } }));
        expect(d).toMatchObject({ allow: false, status: 403, reason: "field_not_writable" });
      }
    }
  });

  it("applies each workflow action's own rule", () => {
    const bobs = { type: "invoice", id: "inv_2", tenant: "t_acme", owner: "u_bob" };
    const refund = (who: string, submitted: string[], resource: DecisionInput["resource"] = bobs) =>
      decide(request(who, "invoices.refund", { resource, fields: { submitted } }));
    expect(decide(request("support", "invoices.approve", { resource: bobs })).reason).toBe("role_required");
    expect(refund("support", ["reason"]).allow).toBe(true);
    expect(refund("support", ["amount_cents"]).reason).toBe("refund_reason_required");
    expect(refund("support", ["reason"], { ...bobs, owner: "u_sam" }).reason).toBe("separation_of_duties");
    expect(refund("member", ["reason"]).reason).toBe("role_required");
    expect(refund("admin", []).allow).toBe(true);
    // Nobody approves or refunds an invoice they own, admins included (u_carol is the admin here).
    const carols = { ...bobs, owner: "u_carol" };
    expect(refund("admin", ["reason"], carols).reason).toBe("separation_of_duties");
    expect(decide(request("admin", "invoices.approve", { resource: carols })).reason).toBe("separation_of_duties");
    expect(decide(request("admin", "invoices.approve", { resource: bobs })).allow).toBe(true);
  });

  it("ignores query parameters", () => {
    for (const who of ["anonymous", "member", "admin"]) {
      const plain = decide(request(who, "internal.reports.export"));
      expect(decide(request(who, "internal.reports.export", { params: ["debug", "role", "admin"] }))).toEqual(plain);
    }
  });
});

describe("data.system.log.mask and data.system.log.drop", () => {
  const event = (input: unknown, result: unknown = { allow: true, status: 200 }) => ({
    decision_id: "d1",
    labels: { id: "i1", version: "0.1.0" },
    timestamp: "2026-11-21T14:00:00Z",
    path: DECISION,
    input,
    result,
  });

  it("masks nothing in an ordinary decision input", () => {
    expect(evaluate("system/log/mask", event(request("member", "users.me.update", { fields: { submitted: ["displayName"] } })))).toEqual([]);
  });

  it("erases secret-named keys and redacts credential values", () => {
    const input = {
      ...request("member", "users.me.update", { fields: { submitted: ["displayName", "password"] } }),
      actor: { ...actors.member, token: "t0k" },
      headers: { authorization: "Bearer abc", "x-trace": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln" },
      password: "hunter2",
    };
    const mask = evaluate("system/log/mask", event(input)) as unknown[];
    expect(mask).toEqual(
      expect.arrayContaining([
        "/input/actor/token",
        "/input/headers/authorization",
        "/input/password",
        { op: "upsert", path: "/input/headers/x-trace", value: "[REDACTED]" },
        { op: "upsert", path: "/input/fields/submitted/1", value: "[REDACTED]" },
      ]),
    );
    expect(mask).toHaveLength(5);
  });

  it("drops allowed anonymous health checks only, never a deny", () => {
    const health = request("anonymous", "health.get");
    expect(evaluate("system/log/drop", event(health))).toBe(true);
    expect(evaluate("system/log/drop", event(health, { allow: false, status: 403 }))).toBe(false);
    expect(evaluate("system/log/drop", event(request("member", "health.get")))).toBe(false);
    expect(evaluate("system/log/drop", event(request("anonymous", "invoices.get"), { allow: false, status: 401 }))).toBe(false);
  });
});
