/**
 * PostgreSQL lost under a running service (issue 20, scale-out clause): a
 * lost database connection is 503, never a hang. Real faults on this test's
 * own database of the shared private cluster (the cluster itself is never
 * stopped: other test files use it):
 *
 *   - the pool exhausted (every connection held): a request waits at most
 *     database.connectTimeoutMs for one, then 503 database_unavailable;
 *   - the service's connections cut (pg_terminate_backend, as the owner) while
 *     a write waits on a row lock: 503, the row unchanged;
 *   - the server gone (a TCP relay in front of it closed: cut connections,
 *     refused new ones) and back.
 *
 * Each answer is problem+json with Retry-After and a Decision-Id on the
 * record; /health is degraded while it lasts and ok once the store's probe
 * reaches the database again.
 */
import * as net from "node:net";
import * as path from "node:path";
import pg from "pg";
import request from "supertest";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions } from "../../pdp/log/store/query";
import { expectProblem, startHarness, type Harness } from "./harness";

const ACME = { tenant_id: "t_acme" };
const BOUNDS = { connectTimeoutMs: 500, statementTimeoutMs: 3000 };

async function decisionOf(h: Harness, id: string) {
  await h.log.flush();
  const db = openForRead(path.join(h.dir, "decisions.db"));
  try {
    return queryDecisions(db, { id })[0];
  } finally {
    db.close();
  }
}

/** Waits (bounded) until /health says `status`: the store probes the database once a second. */
async function healthBecomes(h: Harness, status: "ok" | "degraded"): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    body = (await request(h.app).get("/health")).body as Record<string, unknown>;
    if (body.status === status) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`health stayed ${JSON.stringify(body)}`);
}

function expectUnavailable(res: request.Response): void {
  expectProblem(res, 503, "database_unavailable");
  expect(res.headers["retry-after"]).toBe("5");
}

describe("the pool exhausted", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ backend: "postgres", poolMax: 2, pgTimeouts: BOUNDS });
  });
  afterAll(() => h?.close());

  test("a request waits at most connectTimeoutMs for a connection, then 503 on the record; health degraded, then ok", async () => {
    const alice = await h.auth("u_alice");
    expect(h.db.backend).toBe("postgres");
    expect((await request(h.app).get("/users/me").set(alice)).status).toBe(200);
    // Two transactions hold both pooled connections until released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holders = [0, 1].map(() =>
      h.db.transaction(async (tx) => {
        await tx.tenants.list();
        await released;
      }),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const res = await request(h.app).patch("/profile").set(alice).send({ displayName: "Starved" });
      expectUnavailable(res);
      const entry = await decisionOf(h, res.headers["decision-id"]);
      expect(entry.outcome).toMatchObject({ status: 503, problem: "database_unavailable" });
      expect(entry.event!.custom).toMatchObject({ policy_evaluated: false, refusal: { stage: "data-store", status: 503, problem: "database_unavailable" } });
      const health = await request(h.app).get("/health");
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: "degraded", reasons: [expect.objectContaining({ component: "database", code: "database_unavailable" })] });
    } finally {
      release();
      await Promise.all(holders);
    }
    await healthBecomes(h, "ok");
    expect((await h.db.users.getScoped("u_alice", ACME))?.display_name).toBe("Alice Archer");
    expect((await request(h.app).patch("/profile").set(alice).send({ displayName: "Fed" })).status).toBe(200);
  });
});

describe("the service's connections cut", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ backend: "postgres", pgTimeouts: BOUNDS });
  });
  afterAll(() => h?.close());

  test("a write waiting on a row lock when its connection is terminated: 503, the row unchanged, then normal", async () => {
    const alice = await h.auth("u_alice");
    expect((await request(h.app).get("/users/me").set(alice)).status).toBe(200);
    const owner = new pg.Client({ connectionString: h.pgUrls!.owner });
    await owner.connect();
    try {
      // The owner holds alice's row: the service's UPDATE waits for it.
      await owner.query("BEGIN");
      await owner.query("SELECT set_config('portcullis.tenant', 't_acme', true)");
      await owner.query("SELECT 1 FROM users WHERE id = 'u_alice' FOR UPDATE");
      const patch = request(h.app)
        .patch("/profile")
        .set(alice)
        .send({ displayName: "Cut Off" })
        .then((r) => r);
      let waiting = 0;
      for (let i = 0; i < 100 && waiting === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const { rows } = await owner.query<{ n: number }>(
          // pg_locks, not pg_stat_activity: another role's wait events are hidden from the owner.
          // (a row lock is waited for on its transaction id: no database column; the waiter's pid is this database's)
          "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())",
        );
        waiting = rows[0].n;
      }
      expect(waiting).toBe(1);
      const { rows: killed } = await owner.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND usename = 'portcullis_app') t",
      );
      expect(killed[0].n).toBeGreaterThanOrEqual(1);
      const res = await patch;
      expectUnavailable(res);
      expect((await decisionOf(h, res.headers["decision-id"])).outcome).toMatchObject({ status: 503, problem: "database_unavailable" });
      await owner.query("ROLLBACK");
    } finally {
      await owner.end();
    }
    expect((await h.db.users.getScoped("u_alice", ACME))?.display_name).toBe("Alice Archer");
    await healthBecomes(h, "ok");
    expect((await request(h.app).patch("/profile").set(alice).send({ displayName: "Back Again" })).status).toBe(200);
  });
});

/** A TCP relay to the PostgreSQL server; stop() is the server going away for whoever connects through it. */
class Relay {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

describe("the server gone, then back", () => {
  let h: Harness;
  let relay: Relay;
  beforeAll(async () => {
    h = await startHarness({
      backend: "postgres",
      pgTimeouts: BOUNDS,
      // The service reaches its database through the relay.
      pgUrl: async (url) => {
        const u = new URL(url);
        relay = new Relay({ host: u.hostname, port: Number(u.port) });
        await relay.start();
        u.port = String(relay.port);
        return u.toString();
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await relay?.stop();
  });

  test("every request that needs the database is 503 while it is gone (none hangs); health degraded; all normal once it is back", async () => {
    const alice = await h.auth("u_alice");
    expect((await request(h.app).get("/invoices/inv_alice_1").set(alice)).status).toBe(200);
    await relay.stop();
    for (const res of [
      await request(h.app).get("/invoices/inv_alice_1").set(alice),
      await request(h.app).patch("/profile").set(alice).send({ displayName: "Nobody Home" }),
      await request(h.app)
        .post("/users/invite")
        .set(await h.auth("u_carol"))
        .send({ email: "gone@acme.example", displayName: "Gone" }),
    ]) {
      expectUnavailable(res);
      expect((await decisionOf(h, res.headers["decision-id"])).outcome).toMatchObject({ status: 503, problem: "database_unavailable" });
    }
    const degraded = await healthBecomes(h, "degraded");
    expect(degraded.reasons).toEqual([expect.objectContaining({ component: "database", code: "database_unavailable", since: expect.any(String) })]);
    // A public route that needs no data still answers.
    expect((await request(h.app).get("/openapi.json")).status).toBe(200);

    await relay.start();
    await healthBecomes(h, "ok");
    expect((await request(h.app).get("/invoices/inv_alice_1").set(alice)).status).toBe(200);
    expect((await h.db.users.getScoped("u_alice", ACME))?.display_name).toBe("Alice Archer");
    expect(await h.db.users.searchScoped(ACME, "gone@acme.example", 10)).toEqual([]);
    const metrics = await request(h.app)
      .get("/metrics")
      .set(await h.auth("u_frank"));
    expect(metrics.body.metrics.database).toEqual({ backend: "postgres", available: true, failing_since: null, error: null });
  });
});
