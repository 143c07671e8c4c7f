/**
 * Contract: security events (append-only, filtered, newest first, detail
 * capped) and traffic counts (summed, flushed, one row per day and key), the
 * same tests on SQLite and PostgreSQL (backends.ts).
 */
import { DbInputError } from "../../../db";
import { MAX_DETAIL_BYTES } from "../../../db/security-events";
import { MAX_CLIENTS, OTHER_CLIENT } from "../../../db/version-callers";
import { BACKENDS, useBackend } from "./backends";

describe.each(BACKENDS)("security events and traffic on $name", (backend) => {
  const t = useBackend(backend);

  test("record then query: newest first, filtered by kind, actor and time; detail kept as given", async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    await t.store.securityEvents.record({
      kind: "cross_tenant_id",
      actorId: "u_alice",
      tenantId: "t_acme",
      routeId: "invoices.get",
      decisionId: "d-1",
      detail: { id: "inv_dave_1", n: 1 },
    });
    await t.store.securityEvents.record({
      kind: "forbidden_param",
      actorId: "anonymous",
      tenantId: null,
      routeId: "users.me",
      detail: { param: "debug'; DROP TABLE security_events; --" },
    });
    const all = await t.store.securityEvents.query({});
    expect(all.map((e) => e.kind)).toEqual(["forbidden_param", "cross_tenant_id"]);
    expect(all[1]).toEqual({
      id: 1,
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      kind: "cross_tenant_id",
      actor_id: "u_alice",
      tenant_id: "t_acme",
      route_id: "invoices.get",
      decision_id: "d-1",
      test_run: null,
      detail: { id: "inv_dave_1", n: 1 },
    });
    expect(all[0]).toMatchObject({ tenant_id: null, decision_id: null, detail: { param: "debug'; DROP TABLE security_events; --" } });
    expect((await t.store.securityEvents.query({ actorId: "u_alice" })).map((e) => e.id)).toEqual([1]);
    expect(await t.store.securityEvents.query({ kind: "' OR '1'='1" })).toEqual([]);
    expect(await t.store.securityEvents.query({ since: before })).toHaveLength(2);
    expect(await t.store.securityEvents.query({ since: "2999-01-01T00:00:00Z" })).toEqual([]);
    expect(await t.store.securityEvents.query({ limit: 1 })).toHaveLength(1);
    await expect(t.store.securityEvents.query({ since: "yesterday" })).rejects.toThrow(DbInputError);
  });

  test("an event of a verified test run carries its run id; queries select or leave out test runs", async () => {
    await t.store.securityEvents.record({
      kind: "cross_owner_id",
      actorId: "u_bob",
      tenantId: "t_acme",
      routeId: "invoices.get",
      decisionId: "d-1",
      testRun: "matrix-1",
      detail: {},
    });
    await t.store.securityEvents.record({
      kind: "cross_owner_id",
      actorId: "u_bob",
      tenantId: "t_acme",
      routeId: "invoices.get",
      decisionId: "d-2",
      detail: {},
    });
    expect((await t.store.securityEvents.query({ testRun: "matrix-1" })).map((e) => [e.decision_id, e.test_run])).toEqual([["d-1", "matrix-1"]]);
    expect((await t.store.securityEvents.query({ excludeTestRuns: true })).map((e) => [e.decision_id, e.test_run])).toEqual([["d-2", null]]);
    expect(await t.store.securityEvents.query({ testRun: "' OR '1'='1" })).toEqual([]);
  });

  test("an oversized detail is replaced by a marker; a missing kind is refused", async () => {
    await t.store.securityEvents.record({ kind: "big", actorId: "u_bob", tenantId: "t_acme", routeId: "r", detail: { blob: "x".repeat(MAX_DETAIL_BYTES) } });
    expect((await t.store.securityEvents.query({ kind: "big" }))[0].detail).toEqual({ truncated: true, bytes: expect.any(Number) });
    await expect(t.store.securityEvents.record({ kind: "", actorId: "u_bob", tenantId: null, routeId: "r", detail: {} })).rejects.toThrow(DbInputError);
    expect(await t.store.securityEvents.query({})).toHaveLength(1);
  });

  test("traffic: counts summed per day and key, flushed, summarised in order", async () => {
    const at = new Date("2026-11-20T10:00:00.000Z");
    t.store.traffic.count({ method: "GET", template: "/api/{version}/users/me", version: "v1", status: 200, actorClass: "member", at });
    t.store.traffic.count({
      method: "GET",
      template: "/api/{version}/users/me",
      version: "v1",
      status: 200,
      actorClass: "member",
      at: new Date("2026-11-20T11:00:00.000Z"),
      n: 4,
    });
    t.store.traffic.count({
      method: "GET",
      template: "/api/{version}/users/me",
      version: "v2",
      status: 403,
      actorClass: "anonymous",
      probe: true,
      at: new Date("2026-11-21T09:00:00.000Z"),
    });
    await t.store.traffic.flush();
    t.store.traffic.count({ method: "GET", template: "/api/{version}/users/me", version: "v1", status: 200, actorClass: "member", at });
    expect(await t.store.traffic.summary()).toEqual([
      {
        day: "2026-11-20",
        method: "GET",
        template: "/api/{version}/users/me",
        version: "v1",
        status: 200,
        actor_class: "member",
        probe: 0,
        count: 6,
        last_seen: "2026-11-20T11:00:00.000Z",
      },
      {
        day: "2026-11-21",
        method: "GET",
        template: "/api/{version}/users/me",
        version: "v2",
        status: 403,
        actor_class: "anonymous",
        probe: 1,
        count: 1,
        last_seen: "2026-11-21T09:00:00.000Z",
      },
    ]);
    expect((await t.store.traffic.summary({ since: "2026-11-21" })).map((r) => r.version)).toEqual(["v2"]);
    expect(() => t.store.traffic.count({ method: "GET", template: "/x", version: "", status: 200, actorClass: "root" as never })).toThrow(DbInputError);
  });

  test("version callers: summed per day, version, actor and client; an actor's clients capped, the rest under (other)", async () => {
    const at = new Date("2026-11-20T10:00:00.000Z");
    t.store.versionCallers.count({ version: "v1", actorId: "u_alice", tenantId: "t_acme", client: "mobile-app/3.2", at });
    t.store.versionCallers.count({ version: "v1", actorId: "u_alice", tenantId: "t_acme", client: "mobile-app/3.2", at: new Date("2026-11-20T12:00:00.000Z") });
    for (let i = 0; i < MAX_CLIENTS + 2; i++)
      t.store.versionCallers.count({ version: "v0", actorId: "u_bob", tenantId: "t_acme", client: `bot/${String(i).padStart(2, "0")}`, at });
    const rows = await t.store.versionCallers.summary();
    expect(rows.filter((r) => r.version === "v1")).toEqual([
      { day: "2026-11-20", version: "v1", actor_id: "u_alice", tenant_id: "t_acme", client: "mobile-app/3.2", count: 2, last_seen: "2026-11-20T12:00:00.000Z" },
    ]);
    const bob = rows.filter((r) => r.actor_id === "u_bob");
    expect(bob).toHaveLength(MAX_CLIENTS + 1);
    expect(bob.find((r) => r.client === OTHER_CLIENT)?.count).toBe(2);
    expect(await t.store.versionCallers.summary({ since: "2026-11-21" })).toEqual([]);
  });

  test("recordLater holds an event (checked at once) until a write; query writes what is held first; bookkeeping counts it", async () => {
    expect(() => t.store.securityEvents.recordLater({ kind: "", actorId: "u_alice", tenantId: null, routeId: "r", detail: {} })).toThrow(DbInputError);
    t.store.securityEvents.recordLater({
      kind: "forbidden_param",
      actorId: "u_alice",
      tenantId: "t_acme",
      routeId: "invoices.get",
      decisionId: "d-9",
      detail: { params: ["debug"] },
    });
    t.store.traffic.count({ method: "GET", template: "/health", version: "", status: 200, actorClass: "anonymous", n: 3 });
    expect(t.store.bookkeeping()).toMatchObject({
      securityEvents: { pending: 1, dropped: 0, lastError: null },
      traffic: { pending: 3, dropped: 0, lastError: null },
      versionCallers: { pending: 0, dropped: 0 },
    });
    const [event] = await t.store.securityEvents.query({ kind: "forbidden_param" });
    expect(event).toMatchObject({ actor_id: "u_alice", decision_id: "d-9", detail: { params: ["debug"] } });
    await t.store.traffic.flush();
    expect(t.store.bookkeeping()).toMatchObject({ securityEvents: { pending: 0 }, traffic: { pending: 0 } });
    expect(t.store.health()).toEqual({ available: true });
  });

  test("close() writes what is still held", async () => {
    t.store.securityEvents.recordLater({ kind: "enumeration", actorId: "u_bob", tenantId: "t_acme", routeId: "invoices.get", detail: {} });
    t.store.traffic.count({ method: "GET", template: "/health", version: "", status: 200, actorClass: "anonymous" });
    await t.store.close();
    const reopened = await t.reopen();
    expect((await reopened.securityEvents.query({ kind: "enumeration" })).map((e) => e.actor_id)).toEqual(["u_bob"]);
    expect((await reopened.traffic.summary()).filter((r) => r.template === "/health")).toHaveLength(1);
  });

  test("tenants.list names both seed tenants", async () => {
    expect(await t.store.tenants.list()).toEqual([
      { id: "t_acme", name: "Acme" },
      { id: "t_globex", name: "Globex" },
    ]);
  });
});
