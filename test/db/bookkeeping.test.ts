/**
 * Per-request bookkeeping (traffic counts, security events) is written
 * behind, on timers: while another connection holds the write lock it is
 * held in memory (never dropped), written once the lock is gone; a full
 * buffer drops and counts; closing reports whatever could not be written.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { BookkeepingLostError, openDatabase, type PortcullisDb } from "../../db";

let dir: string;
let file: string;
let db: PortcullisDb;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-bookkeeping-"));
  file = path.join(dir, "portcullis.db");
  db = openDatabase(file, { seed: true, busyTimeoutMs: 0 });
});
afterEach(() => {
  try {
    db.close();
  } catch {
    // the test closed it, or meant to lose something
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

const hit = { method: "GET", template: "/health", version: "v2", status: 200, actorClass: "anonymous" as const };
const event = { kind: "forbidden_param", actorId: "u_bob", tenantId: "t_acme", routeId: "invoices.list", detail: { params: ["debug"] } };

function lockElsewhere(): Database.Database {
  const other = new Database(file);
  other.exec("BEGIN IMMEDIATE");
  return other;
}

test("a write lock held elsewhere: counts and events are held, not lost, and written once it is released", () => {
  const other = lockElsewhere();
  for (let i = 0; i < 3; i++) db.traffic.count(hit);
  db.securityEvents.recordLater(event);
  db.versionCallers.count({ version: "v1", actorId: "u_alice", tenantId: "t_acme", client: "cli/1" });
  expect(db.traffic.flushQuietly()).toBe(false);
  expect(db.versionCallers.flushQuietly()).toBe(false);
  expect(db.securityEvents.flushQuietly()).toBe(false);
  expect(() => db.traffic.flush()).toThrow(/locked|busy/i);
  expect(db.bookkeeping()).toMatchObject({
    traffic: { pending: 3, dropped: 0, lastError: expect.stringMatching(/locked|busy/i) },
    securityEvents: { pending: 1, dropped: 0, lastError: expect.stringMatching(/locked|busy/i) },
    versionCallers: { pending: 1, dropped: 0, lastError: expect.stringMatching(/locked|busy/i) },
  });
  // Reads go on (WAL), without the held rows.
  expect(other.prepare("SELECT count(*) AS n FROM security_events").get()).toEqual({ n: 0 });
  other.exec("COMMIT");
  other.close();

  expect(db.securityEvents.query({})).toHaveLength(1);
  expect(db.traffic.summary().find((r) => r.template === "/health")?.count).toBe(3);
  expect(db.versionCallers.summary()).toEqual([expect.objectContaining({ version: "v1", actor_id: "u_alice", client: "cli/1", count: 1 })]);
  expect(db.bookkeeping()).toMatchObject({
    traffic: { pending: 0, dropped: 0, lastError: null },
    securityEvents: { pending: 0, dropped: 0, lastError: null },
    versionCallers: { pending: 0, dropped: 0, lastError: null },
  });
});

test("a full buffer drops what it cannot hold, counts it, and close() reports it", () => {
  const other = lockElsewhere();
  try {
    for (let i = 0; i < 10_005; i++) db.securityEvents.recordLater(event);
    expect(db.bookkeeping().securityEvents).toMatchObject({ pending: 10_000, dropped: 5 });
  } finally {
    other.exec("COMMIT");
    other.close();
  }
  // Written once the lock is gone; the five dropped stay counted, and closing says so.
  expect(db.securityEvents.query({ limit: 1000 })).toHaveLength(1000);
  expect(() => db.close()).toThrow(BookkeepingLostError);
  const reopened = openDatabase(file);
  try {
    expect(reopened.securityEvents.query({ limit: 1000 })).toHaveLength(1000);
  } finally {
    reopened.close();
  }
});

test("close() writes what is held, and reports what it could not write", () => {
  db.traffic.count(hit);
  db.securityEvents.recordLater(event);
  const other = lockElsewhere();
  db.traffic.count(hit);
  let error: unknown;
  try {
    db.close(); // waits a bounded moment for the lock, then gives up
  } catch (err) {
    error = err;
  } finally {
    other.exec("COMMIT");
    other.close();
  }
  expect(error).toBeInstanceOf(BookkeepingLostError);
  expect((error as BookkeepingLostError).lost).toEqual({ trafficHits: 2, securityEvents: 1, versionCalls: 0 });

  db = openDatabase(file, { busyTimeoutMs: 0 });
  db.traffic.count(hit);
  db.close(); // nothing in the way: nothing lost, no error
  db = openDatabase(file);
  expect(db.traffic.summary().find((r) => r.template === "/health")?.count).toBe(1);
});
