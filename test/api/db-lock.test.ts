/**
 * Another connection holds the data database's write lock (`BEGIN
 * IMMEDIATE` on the same file, as another process would): reads and
 * /health keep answering (WAL), writes are 503 database_busy with
 * Retry-After and change nothing, the per-request bookkeeping (traffic
 * counts, security events) waits in memory, and once the lock is released
 * everything is normal and nothing was lost. Real HTTP over a socket.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import Database from "better-sqlite3";
import request from "supertest";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
let server: http.Server;
let base: string;
beforeAll(async () => {
  h = await startHarness({ lockWaitMs: 150 });
  server = http.createServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h?.close();
});

/** A second connection to the same file, holding the write lock until released. */
function holdWriteLock(): { release(): void } {
  const other = new Database(path.join(h.dir, "portcullis.db"));
  other.exec("BEGIN IMMEDIATE");
  return {
    release() {
      other.exec("COMMIT");
      other.close();
    },
  };
}

const ACME = { tenant_id: "t_acme" };
const invoicesGetHits = async () =>
  (await h.db.traffic.summary()).filter((r) => r.template === "/invoices/{invoice_id}" && r.method === "GET").reduce((n, r) => n + r.count, 0);

test("under another connection's write lock: reads and /health answer, writes are 503 with nothing written, bookkeeping waits", async () => {
  const alice = await h.auth("u_alice");
  const carol = await h.auth("u_carol");
  const hitsBefore = await invoicesGetHits();
  const lock = holdWriteLock();
  try {
    const reads = 20;
    for (let i = 0; i < reads; i++) {
      const res = await request(base).get("/invoices/inv_alice_1").set(alice);
      expect(res.status).toBe(200);
    }
    expect((await request(base).get("/health")).status).toBe(200);
    expect((await request(base).get("/users/me").set(alice)).status).toBe(200);
    // A cross-tenant read: answered 404, its security event held until the lock is gone.
    expect((await request(base).get("/invoices/inv_dave_1").set(alice)).status).toBe(404);

    const patch = await request(base).patch("/profile").set(alice).send({ displayName: "Locked Out" });
    expectProblem(patch, 503, "database_busy");
    expect(patch.headers["retry-after"]).toBe("1");
    // A write in a transaction (invite: insert, then update) is refused whole.
    const invite = await request(base).post("/users/invite").set(carol).send({ email: "locked@acme.example", displayName: "Nobody" });
    expectProblem(invite, 503, "database_busy");
    expect(invite.headers["retry-after"]).toBe("1");

    // The bookkeeping could not be written, and is held, not dropped.
    await h.settled();
    // (SQLite's errors come from another realm than jest's: matched by their message.)
    await expect(h.db.traffic.flush()).rejects.toMatchObject({ message: expect.stringMatching(/locked|busy/i) });
    await expect(h.db.securityEvents.flush()).rejects.toMatchObject({ message: expect.stringMatching(/locked|busy/i) });
    const held = h.db.bookkeeping();
    expect(held.traffic).toMatchObject({ dropped: 0 });
    expect(held.traffic.pending).toBeGreaterThanOrEqual(reads + 4);
    expect(held.traffic.lastError).toMatch(/locked|busy/i);
    expect(held.securityEvents).toMatchObject({ pending: 1, dropped: 0 });
    // /metrics shows it to staff while it lasts.
    const metrics = await request(base)
      .get("/metrics")
      .set(await h.auth("u_frank"));
    expect(metrics.status).toBe(200);
    expect(metrics.body.metrics.bookkeeping.traffic.pending).toBeGreaterThan(0);
  } finally {
    lock.release();
  }

  // Nothing was half-written.
  expect((await h.db.users.getScoped("u_alice", ACME))?.display_name).not.toBe("Locked Out");
  expect(await h.db.users.searchScoped(ACME, "locked@acme.example", 10)).toEqual([]);

  // Released: writes go through, and every held count and event is written.
  const patch = await request(base).patch("/profile").set(alice).send({ displayName: "Alice Again" });
  expect(patch.status).toBe(200);
  expect((await h.db.users.getScoped("u_alice", ACME))?.display_name).toBe("Alice Again");
  expect(await invoicesGetHits()).toBe(hitsBefore + 21);
  expect(await h.events({ kind: "cross_tenant_id", actorId: "u_alice" })).toHaveLength(1);
  expect(h.db.bookkeeping().traffic).toMatchObject({ dropped: 0, lastError: null });
  expect(h.db.bookkeeping().securityEvents).toMatchObject({ pending: 0, dropped: 0, lastError: null });
});

test("a write whose lock is released within the bound waits for it on timers and succeeds", async () => {
  const alice = await h.auth("u_alice");
  h.deps.lockWaitMs = 30_000; // a bound the release below always beats
  const lock = holdWriteLock();
  // Released from a timer: the event loop must be free while the write waits, or this never runs.
  setTimeout(() => lock.release(), 20);
  const res = await request(base).patch("/profile").set(alice).send({ displayName: "Patient Alice" });
  expect(res.status).toBe(200);
  expect((await h.db.users.getScoped("u_alice", ACME))?.display_name).toBe("Patient Alice");
});
