/**
 * The security events store: recorded and queried by kind, actor and time;
 * append-only at the engine (UPDATE, DELETE and REPLACE refused, even on a
 * raw connection); oversized or hostile detail kept harmless.
 */
import Database from "better-sqlite3";
import { DbInputError } from "../../db";
import { MAX_DETAIL_BYTES } from "../../db/security-events";
import { closeTempDb, openTempDb, type TempDb } from "./helpers";

let t: TempDb;
beforeEach(() => (t = openTempDb()));
afterEach(() => closeTempDb(t));

function recordSome(): void {
  const ev = t.db.securityEvents;
  ev.record({
    kind: "cross_tenant_read",
    actorId: "u_alice",
    tenantId: "t_acme",
    routeId: "invoices.get",
    detail: { target: "inv_dave_1" },
    decisionId: "d-1",
  });
  ev.record({ kind: "forbidden_param", actorId: "u_bob", tenantId: "t_acme", routeId: "users.list", detail: { param: "debug" } });
  ev.record({ kind: "cross_tenant_read", actorId: "anonymous", tenantId: null, routeId: "invoices.get", detail: {} });
}

test("records and reads back, newest first, detail parsed", () => {
  recordSome();
  const events = t.db.securityEvents.query({});
  expect(events.map((e) => e.actor_id)).toEqual(["anonymous", "u_bob", "u_alice"]);
  expect(events[2]).toMatchObject({
    kind: "cross_tenant_read",
    tenant_id: "t_acme",
    route_id: "invoices.get",
    decision_id: "d-1",
    detail: { target: "inv_dave_1" },
  });
  expect(events[2].at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  expect(events[0]).toMatchObject({ tenant_id: null, decision_id: null });
});

test("filters by kind, actor, since and limit", () => {
  recordSome();
  const q = t.db.securityEvents.query.bind(t.db.securityEvents);
  expect(q({ kind: "cross_tenant_read" })).toHaveLength(2);
  expect(q({ actorId: "u_bob" }).map((e) => e.kind)).toEqual(["forbidden_param"]);
  expect(q({ kind: "cross_tenant_read", actorId: "u_alice" })).toHaveLength(1);
  expect(q({ limit: 1 })).toHaveLength(1);
  expect(q({ since: "2000-01-01" })).toHaveLength(3);
  expect(q({ since: "2999-01-01T00:00:00Z" })).toHaveLength(0);
  expect(q({ kind: "' OR '1'='1" })).toHaveLength(0);
  expect(() => q({ since: "yesterday" })).toThrow(DbInputError);
  expect(() => q({ since: "0 OR 1=1" })).toThrow(DbInputError);
  expect(() => q({ limit: 0 })).toThrow(DbInputError);
});

test("refuses malformed events", () => {
  const ok = { kind: "k", actorId: "a", tenantId: null, routeId: "r", detail: {} };
  for (const bad of [
    { ...ok, kind: "" },
    { ...ok, actorId: 5 },
    { ...ok, routeId: undefined },
    { ...ok, detail: [] },
    { ...ok, detail: null },
  ]) {
    expect(() => t.db.securityEvents.record(bad as never)).toThrow(DbInputError);
  }
  expect(t.db.securityEvents.query({})).toEqual([]);
});

test("over-long text is clipped, empty optional ids are null: the evidence is kept", () => {
  t.db.securityEvents.record({ kind: "k".repeat(150), actorId: "a".repeat(500), tenantId: "", routeId: "r", detail: {}, decisionId: "" });
  const [row] = t.db.securityEvents.query({});
  expect(row.kind).toBe("k".repeat(99) + "…");
  expect(row.actor_id).toHaveLength(200);
  expect(row).toMatchObject({ tenant_id: null, decision_id: null });
  expect(() => t.db.securityEvents.query({ kind: ["k"] as never })).toThrow(DbInputError);
});

test("oversized or unserializable detail is replaced by a marker", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.db.securityEvents.record({ kind: "big", actorId: "a", tenantId: null, routeId: "r", detail: { blob: "x".repeat(MAX_DETAIL_BYTES) } });
  t.db.securityEvents.record({ kind: "cyclic", actorId: "a", tenantId: null, routeId: "r", detail: cyclic });
  expect(t.db.securityEvents.query({ kind: "big" })[0].detail).toEqual({ truncated: true, bytes: MAX_DETAIL_BYTES + 11 });
  expect(t.db.securityEvents.query({ kind: "cyclic" })[0].detail).toEqual({ unserializable: true });
});

test("hostile text in detail is stored verbatim, as data", () => {
  const detail = { q: "'); DROP TABLE security_events; --", esc: "\u001b[2J" };
  t.db.securityEvents.record({ kind: "probe", actorId: "u_bob", tenantId: "t_acme", routeId: "users.search", detail });
  expect(t.db.securityEvents.query({})[0].detail).toEqual(detail);
});

describe("append-only at the engine", () => {
  let raw: Database.Database;
  beforeEach(() => {
    recordSome();
    raw = new Database(t.file);
    raw.pragma("recursive_triggers = ON");
  });
  afterEach(() => raw.close());

  test.each([
    ["UPDATE", "UPDATE security_events SET kind = 'nothing' WHERE id = 1"],
    ["DELETE", "DELETE FROM security_events WHERE actor_id = 'u_alice'"],
    ["DELETE all", "DELETE FROM security_events"],
    [
      "REPLACE (recursive triggers on)",
      "INSERT OR REPLACE INTO security_events (id, at, kind, actor_id, route_id, detail) VALUES (1, 'x', 'k', 'a', 'r', '{}')",
    ],
  ])("refuses %s", (_name, sql) => {
    expect(() => raw.exec(sql)).toThrow(/append-only/);
    expect(t.db.securityEvents.query({})).toHaveLength(3);
    expect(t.db.securityEvents.query({ actorId: "u_alice" })[0].kind).toBe("cross_tenant_read");
  });

  test("refuses REPLACE even on a connection without recursive triggers", () => {
    raw.pragma("recursive_triggers = OFF");
    expect(() => raw.exec("REPLACE INTO security_events (id, at, kind, actor_id, route_id, detail) VALUES (2, 'x', 'k', 'a', 'r', '{}')")).toThrow(
      /append-only/,
    );
    expect(t.db.securityEvents.query({ actorId: "u_bob" })[0].kind).toBe("forbidden_param");
  });

  test("refuses a detail that is not a JSON object", () => {
    expect(() => raw.exec("INSERT INTO security_events (at, kind, actor_id, route_id, detail) VALUES ('x', 'k', 'a', 'r', 'not json')")).toThrow(/CHECK/);
  });
});
