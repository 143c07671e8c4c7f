/**
 * The API while its decision log cannot store decisions, through real HTTP
 * on the real chain: a decisions database capped with PRAGMA max_page_count
 * (`maxBytes`: a full disk without filling one) or locked by a second
 * connection. /health turns degraded (reason decision_log_unavailable: 200
 * while reads are served, 503 under refuse-all)
 * and back to ok, writes are refused with 503 problem+json and Retry-After
 * and change nothing, reads go on, the log's buffer stays within its bound
 * and counts what it drops; the other stances do what they say. With a
 * healthy log, an acknowledged write's decision is in the store when the
 * client gets the answer.
 */
import * as path from "node:path";
import Database from "better-sqlite3";
import request from "supertest";
import { STORE_PAGE_SIZE } from "../../pdp/log/store/sqlite-store";
import { expectProblem, startHarness, type Harness } from "./harness";

/** The store after start-up (schema, run marker, start-up probes) takes ~13 pages; reads fill the rest within a few dozen requests. */
const SMALL_STORE = { maxBytes: 20 * STORE_PAGE_SIZE, bufferLimit: 100 };

async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 20));
}

function storedIds(h: Harness): Set<string> {
  const db = new Database(path.join(h.dir, "decisions.db"), { readonly: true });
  try {
    return new Set((db.prepare("SELECT decision_id FROM decisions").all() as Array<{ decision_id: string }>).map((r) => r.decision_id));
  } finally {
    db.close();
  }
}

/**
 * Reads until the log says it cannot persist; every read answers 200
 * meanwhile, except (under `refuse-all`) one that arrives once the store
 * has failed.
 */
async function fillTheStore(h: Harness): Promise<void> {
  const auth = await h.auth("u_alice");
  while (h.log.health().persisting) {
    const res = await request(h.app).get("/invoices/inv_alice_1").set(auth);
    if (h.deps.logFailure === "refuse-all") expect(res.status === 200 || (res.status === 503 && !h.log.health().persisting)).toBe(true);
    else expect(res.status).toBe(200);
  }
}

test("a healthy log: an acknowledged write's decision is already in the store when the client has the answer", async () => {
  // A batch window far longer than the test: only the write's own commit can have put it there.
  const h = await startHarness({ decisionLog: { flushIntervalMs: 60_000 } });
  try {
    const alice = await h.auth("u_alice");
    const carol = await h.auth("u_carol");
    const writes = [
      await request(h.app).patch("/profile").set(alice).send({ displayName: "Alice D." }),
      await request(h.app).post("/users/invite").set(carol).send({ email: "new.member@acme.example", displayName: "New" }),
      await request(h.app)
        .post("/admin/users/u_bob/suspend")
        .set(await h.auth("u_heidi"))
        .send({ reason: "test" }),
    ];
    expect(writes.map((w) => w.status)).toEqual([200, 201, 200]);
    const stored = storedIds(h);
    for (const w of writes) expect(stored.has(w.headers["decision-id"])).toBe(true);
    const read = await request(h.app).get("/invoices/inv_alice_1").set(alice);
    expect(read.status).toBe(200);
    expect((await request(h.app).get("/health")).body).toMatchObject({ status: "ok", reasons: [] });
  } finally {
    await h.close();
  }
});

test("a full decision store: /health degraded, writes 503 with Retry-After and nothing changed, reads 200, the buffer bounded and every loss counted", async () => {
  const h = await startHarness({ decisionLog: SMALL_STORE });
  try {
    expect((await request(h.app).get("/health")).body.status).toBe("ok");
    await fillTheStore(h);
    // Degraded, still 200: the instance serves reads (a load balancer keeps it; writes are refused below).
    const health = await request(h.app).get("/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: "degraded",
      revision: "api-test",
      reasons: [
        {
          component: "decision_log",
          code: "decision_log_unavailable",
          detail: expect.stringMatching(/state-changing requests are refused/),
          since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ],
    });

    const before = (await h.db.users.getScoped("u_alice", { tenant_id: "t_acme" }))?.display_name;
    const write = await request(h.app)
      .patch("/profile")
      .set(await h.auth("u_alice"))
      .send({ displayName: "Never Stored" });
    expectProblem(write, 503, "decision_log_unavailable");
    expect(write.headers["retry-after"]).toBe("10");
    expect((await h.db.users.getScoped("u_alice", { tenant_id: "t_acme" }))?.display_name).toBe(before);

    // Reads keep answering; their decisions pile up only to the buffer's bound, the rest are counted as lost.
    const auth = await h.auth("u_bob");
    for (let i = 0; i < 300; i++) expect((await request(h.app).get("/users/me").set(auth)).status).toBe(200);
    await h.log.flush(); // the worker has taken every event recorded so far (the store still refuses them)
    const sqlite = h.log.stats().sinks.sqlite;
    expect(sqlite.pending).toBeLessThanOrEqual(SMALL_STORE.bufferLimit);
    expect(sqlite.dropped).toBeGreaterThanOrEqual(300 - SMALL_STORE.bufferLimit);
    expect(h.log.lost()).toBe(sqlite.dropped);

    const metrics = await request(h.app)
      .get("/metrics")
      .set(await h.auth("u_carol"));
    expect(metrics.status).toBe(200);
    expect(metrics.body.metrics.decision_log).toEqual({
      persisting: false,
      failing_since: health.body.reasons[0].since,
      error: expect.stringMatching(/database or disk is full/),
      events_lost: expect.any(Number),
      interrupted_runs_found: 0,
    });
    expect(metrics.body.metrics.decision_log.events_lost).toBeGreaterThanOrEqual(sqlite.dropped);
  } finally {
    await h.close();
  }
});

test("stances: fail-open serves writes and only reports; refuse-all refuses reads too but still answers /health", async () => {
  const open = await startHarness({ decisionLog: { ...SMALL_STORE, onFailure: "fail-open" } });
  try {
    await fillTheStore(open);
    const write = await request(open.app)
      .patch("/profile")
      .set(await open.auth("u_alice"))
      .send({ displayName: "Open" });
    expect(write.status).toBe(200);
    expect((await request(open.app).get("/health")).body).toMatchObject({
      status: "degraded",
      reasons: [{ code: "decision_log_unavailable", detail: expect.stringMatching(/decisions lost/) }],
    });
  } finally {
    await open.close();
  }
  const closed = await startHarness({ decisionLog: { ...SMALL_STORE, onFailure: "refuse-all" } });
  try {
    await fillTheStore(closed);
    const read = await request(closed.app)
      .get("/invoices/inv_alice_1")
      .set(await closed.auth("u_alice"));
    expectProblem(read, 503, "decision_log_unavailable");
    // Nothing but /health and /metrics is served: unavailable, 503, so a load balancer takes the instance out.
    const health = await request(closed.app).get("/health");
    expect({ status: health.status, body: health.body.status }).toEqual({ status: 503, body: "degraded" });
  } finally {
    await closed.close();
  }
});

test("a locked decision store: degraded while locked, ok again once released, and writes go through again", async () => {
  const h = await startHarness({ decisionLog: { flushIntervalMs: 20 } });
  const holder = new Database(path.join(h.dir, "decisions.db"));
  try {
    holder.exec("BEGIN IMMEDIATE");
    const auth = await h.auth("u_alice");
    await until(async () => {
      expect((await request(h.app).get("/invoices/inv_alice_1").set(auth)).status).toBe(200);
      return !h.log.health().persisting;
    });
    expect((await request(h.app).get("/health")).body).toMatchObject({ status: "degraded", reasons: [{ code: "decision_log_unavailable" }] });
    expectProblem(await request(h.app).patch("/profile").set(auth).send({ displayName: "Locked Out" }), 503, "decision_log_unavailable");
    holder.exec("ROLLBACK");
    await until(() => h.log.health().persisting);
    expect((await request(h.app).get("/health")).body).toMatchObject({ status: "ok", reasons: [] });
    const write = await request(h.app).patch("/profile").set(auth).send({ displayName: "Back" });
    expect(write.status).toBe(200);
    expect(storedIds(h).has(write.headers["decision-id"])).toBe(true);
    expect(h.log.lost()).toBe(0);
  } finally {
    holder.close();
    await h.close();
  }
});
