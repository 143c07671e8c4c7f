/**
 * The rate-limit budgets in Redis (`redis.url`): two services built as
 * `portcullis serve` builds them (two instances, each with its own data
 * file) sharing one real Redis spend ONE budget per actor (or client
 * address) and version-free route, and ONE failed-authentication budget
 * per address; the answers read exactly as with the in-process store.
 * Redis going away mid-run (a private server of this file's own, stopped
 * or paused) is handled by the documented stance, bounded in time, and
 * healed when Redis is back.
 */
import request from "supertest";
import { RedisUnavailableError } from "../../api/middleware/rate-limit-redis";
import { expectProblem, startHarness, type Harness, type HarnessOptions } from "./harness";
import { keysUnder, sharedRedis, startPrivateRedis, uniquePrefix, type PrivateRedis } from "./support/redis";

jest.setTimeout(180_000);

const LIMIT = 4;
const BUDGETS: HarnessOptions["rateLimits"] = { default: { limit: LIMIT, windowSec: 60 }, authentication: { limit: 3, windowSec: 60 } };

/** What the rate-limit answer of one request says. */
function budgetOf(res: request.Response) {
  return {
    status: res.status,
    policy: res.headers["ratelimit-policy"],
    remaining: /;r=(\d+);/.exec(res.headers["ratelimit"] ?? "")?.[1],
    reset: Number(/;t=(\d+)$/.exec(res.headers["ratelimit"] ?? "")?.[1]),
    retryAfter: res.headers["retry-after"],
  };
}

async function get(h: Harness, path: string, user?: string): Promise<request.Response> {
  const req = request(h.app).get(path);
  return user === undefined ? req : req.set(await h.auth(user));
}

describe("two instances sharing one Redis", () => {
  let url: string;
  let prefix: string;
  let a: Harness;
  let b: Harness;
  beforeEach(async () => {
    url = sharedRedis();
    prefix = uniquePrefix("shared");
    a = await startHarness({ rateLimits: BUDGETS, redis: { url, keyPrefix: prefix } });
    b = await startHarness({ rateLimits: BUDGETS, redis: { url, keyPrefix: prefix } });
  });
  afterEach(async () => {
    await a?.close();
    await b?.close();
  });

  test("spend ONE budget per actor and version-free route: exactly the limit across both, then 429 on both", async () => {
    const paths = ["/users/me", "/api/v1/users/me", "/api/v2/users/me"];
    const answers: request.Response[] = [];
    for (let i = 0; i < LIMIT + 2; i++) answers.push(await get(i % 2 === 0 ? a : b, paths[i % paths.length], "u_alice"));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(answers.map((r) => budgetOf(r).remaining)).toEqual(["3", "2", "1", "0", "0", "0"]);
    expectProblem(answers[4], 429, "rate_limited");
    // Another actor, another budget; another route, another budget.
    expect((await get(b, "/users/me", "u_bob")).status).toBe(200);
    expect((await get(a, "/invoices", "u_alice")).status).toBe(200);
  });

  test("anonymous callers are keyed by client address across instances", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push((await get(i % 2 === 0 ? a : b, "/invoices")).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });

  test("the failed-authentication budget of an address is shared too", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await request((i % 2 === 0 ? a : b).app)
            .get("/users/me")
            .set("Authorization", "Bearer x.y.z")
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // A valid token still passes on either instance.
    expect((await get(b, "/users/me", "u_carol")).status).toBe(200);
  });

  test("the answers read as the in-process store's: same headers, same 429 problem", async () => {
    const memory = await startHarness({ rateLimits: BUDGETS });
    try {
      for (let i = 0; i < LIMIT + 1; i++) {
        const shared = budgetOf(await get(i % 2 === 0 ? a : b, "/users/me", "u_dave"));
        const local = budgetOf(await get(memory, "/users/me", "u_dave"));
        // The seconds to the window's end (t, Retry-After) tick with the clock: the same range, the rest identical.
        expect({ ...shared, reset: undefined, retryAfter: typeof shared.retryAfter }).toEqual({
          ...local,
          reset: undefined,
          retryAfter: typeof local.retryAfter,
        });
        for (const answer of [shared, local]) {
          expect(answer.reset).toBeGreaterThanOrEqual(1);
          expect(answer.reset).toBeLessThanOrEqual(60);
          if (answer.status === 429) expect(answer.retryAfter).toBe(String(answer.reset));
        }
      }
      const [shared, local] = [await get(a, "/users/me", "u_dave"), await get(memory, "/users/me", "u_dave")];
      expect({ ...shared.body, decision_id: undefined }).toEqual({ ...local.body, decision_id: undefined });
    } finally {
      await memory.close();
    }
  });

  test("keys are namespaced by the prefix and hold actor or address and route, never a token", async () => {
    const token = await a.token("u_erin");
    await request(a.app).get("/users/me").set("Authorization", `Bearer ${token}`);
    await request(b.app).get("/users/me").set("Authorization", "Bearer x.y.z");
    await request(b.app).get("/no/such/route");
    const keys = await keysUnder(url, prefix);
    expect(keys).toEqual([`${prefix}:actor:u_erin|users.me.get`, `${prefix}:addr:127.0.0.1|authentication_failures`, `${prefix}:addr:127.0.0.1|unmatched`]);
    for (const key of keys) for (const part of [...token.split("."), "x.y.z"]) expect(key).not.toContain(part);
  });

  test("/health is ok and /metrics names the shared store", async () => {
    expect((await get(a, "/health")).body).toMatchObject({ status: "ok", reasons: [] });
    const metrics = await get(b, "/metrics", "u_frank");
    expect(metrics.body.metrics.rate_limit_store).toEqual({
      shared: true,
      on_failure: "insurance",
      failing_since: null,
      error: null,
      insured_hits: 0,
      refused_hits: 0,
    });
  });
});

test("without redis.url the budgets stay in process (/metrics: not shared)", async () => {
  const h = await startHarness();
  try {
    expect((await get(h, "/metrics", "u_frank")).body.metrics.rate_limit_store).toEqual({ shared: false });
  } finally {
    await h.close();
  }
});

describe("Redis unreachable at start", () => {
  test.each([
    ["nothing listens", async () => `redis://default:s3cret-pw@127.0.0.1:1`],
    ["a wrong password", async () => sharedRedis().replace(/:[^:@/]+@/, ":s3cret-pw@")],
  ])("%s: the service does not start, and the message holds no password", async (_, urlOf) => {
    const err = await startHarness({ redis: { url: await urlOf(), connectTimeoutMs: 3000 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(err).toMatchObject({ code: "REDIS_UNAVAILABLE" });
    expect(String((err as Error).message)).not.toContain("s3cret-pw");
  });
});

describe("Redis going away mid-run", () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => redis?.close());

  /** Polls /health until it reads `status`: recovery waits for ioredis' reconnection (at most every 2 s). */
  async function healthBecomes(h: Harness, status: string): Promise<request.Response> {
    for (;;) {
      const res = await get(h, "/health");
      if (res.body.status === status) return res;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  describe("stance insurance (default): budgets counted per instance while Redis is down", () => {
    let a: Harness;
    let b: Harness;
    beforeAll(async () => {
      const redisConfig = { url: redis.url, keyPrefix: uniquePrefix("insurance"), commandTimeoutMs: 200 };
      a = await startHarness({ rateLimits: BUDGETS, redis: redisConfig });
      b = await startHarness({ rateLimits: BUDGETS, redis: redisConfig });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    test("stopped: requests are served within each instance's budget, /health degraded, /metrics counts; back: shared again", async () => {
      expect((await get(a, "/users/me", "u_alice")).status).toBe(200);
      expect((await get(b, "/users/me", "u_alice")).status).toBe(200);
      await redis.stop();

      // Each instance now holds the budget on its own: LIMIT answers, then 429, on each.
      for (const h of [a, b]) {
        const statuses: number[] = [];
        for (let i = 0; i < LIMIT + 1; i++) statuses.push((await get(h, "/users/me", "u_alice")).status);
        expect(statuses).toEqual([200, 200, 200, 200, 429]);
      }
      const health = await get(a, "/health");
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        status: "degraded",
        reasons: [
          {
            component: "rate_limits",
            code: "rate_limit_store_unavailable",
            detail: expect.stringMatching(/counted per instance/),
            since: expect.stringMatching(/^\d{4}-/),
          },
        ],
      });
      const metrics = (await get(a, "/metrics", "u_frank")).body.metrics.rate_limit_store;
      expect(metrics).toMatchObject({ shared: true, on_failure: "insurance", failing_since: expect.any(String), error: expect.any(String) });
      expect(metrics.insured_hits).toBeGreaterThanOrEqual(LIMIT + 1);
      expect(metrics.error).not.toContain(new URL(redis.url).password);

      await redis.start();
      await healthBecomes(a, "ok");
      await healthBecomes(b, "ok");
      // A restarted Redis holds no counts (persistence off): one fresh budget, shared again.
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 1; i++) statuses.push((await get(i % 2 === 0 ? a : b, "/users/me", "u_alice")).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      expect(a.logs.map((l) => l.event)).toEqual(expect.arrayContaining(["rate_limit_store_unavailable", "rate_limit_store_recovered"]));
    });

    test("paused (answers nothing): no request hangs, each is counted in process after commandTimeoutMs; resumed: the shared count is intact", async () => {
      expect((await get(a, "/invoices", "u_bob")).status).toBe(200);
      redis.pause();
      try {
        const res = await get(b, "/invoices", "u_bob");
        expect(res.status).toBe(200);
        // Counted by b's insurance, not by Redis: a first hit there.
        expect(budgetOf(res).remaining).toBe(String(LIMIT - 1));
        expect((await get(b, "/health")).body.status).toBe("degraded");
      } finally {
        redis.resume();
      }
      await healthBecomes(b, "ok");
      // Redis kept its count of 1 (a) and counted b's timed-out hit once it resumed: 2, now 3.
      expect(budgetOf(await get(a, "/invoices", "u_bob")).remaining).toBe(String(LIMIT - 3));
    });
  });

  describe("stance refuse: no request served without the shared budget", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ rateLimits: BUDGETS, redis: { url: redis.url, keyPrefix: uniquePrefix("refuse"), onFailure: "refuse", commandTimeoutMs: 200 } });
    });
    afterAll(async () => h?.close());

    test("stopped: 503 rate_limit_unavailable with Retry-After; /health 503 and /metrics still served; back: served", async () => {
      expect((await get(h, "/users/me", "u_alice")).status).toBe(200);
      await redis.stop();
      try {
        const refused = await get(h, "/users/me", "u_alice");
        expectProblem(refused, 503, "rate_limit_unavailable");
        expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
        // A failed token cannot be counted either: refused the same way, not a free 401.
        expectProblem(await request(h.app).get("/users/me").set("Authorization", "Bearer x.y.z"), 503, "rate_limit_unavailable");
        const health = await get(h, "/health");
        expect(health.status).toBe(503);
        expect(health.body).toMatchObject({
          status: "degraded",
          reasons: [{ component: "rate_limits", code: "rate_limit_store_unavailable", detail: expect.stringMatching(/requests are refused/) }],
        });
        const metrics = await get(h, "/metrics", "u_frank");
        expect(metrics.status).toBe(200);
        expect(metrics.body.metrics.rate_limit_store).toMatchObject({ on_failure: "refuse", refused_hits: 2, failing_since: expect.any(String) });
      } finally {
        await redis.start();
      }
      await healthBecomes(h, "ok");
      expect((await get(h, "/users/me", "u_alice")).status).toBe(200);
    });
  });
});
