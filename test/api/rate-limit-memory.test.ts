/**
 * The in-process store (the default without `redis.url`): a fixed window
 * per key that opens at the key's first hit, counts every hit, says when it
 * resets, and starts over once it has passed. The Redis store keeps the
 * same semantics (test/api/rate-limit-redis.test.ts).
 */
import { MemoryRateLimitStore } from "../../api/middleware/rate-limit";

const BUDGET = { limit: 3, windowSec: 10 };

test("counts hits per key within one window and says when it resets", async () => {
  let now = 1_000_000;
  const store = new MemoryRateLimitStore(() => now);
  expect(await store.hit("actor:u_alice|users.me", BUDGET)).toEqual({ count: 1, resetSec: 10 });
  now += 2_500;
  expect(await store.hit("actor:u_alice|users.me", BUDGET)).toEqual({ count: 2, resetSec: 8 });
  // Another key, another budget.
  expect(await store.hit("actor:u_bob|users.me", BUDGET)).toEqual({ count: 1, resetSec: 10 });
  now += 7_000;
  expect(await store.hit("actor:u_alice|users.me", BUDGET)).toEqual({ count: 3, resetSec: 1 });
  expect(await store.hit("actor:u_alice|users.me", BUDGET)).toEqual({ count: 4, resetSec: 1 });
});

test("a window that has passed starts over at the next hit", async () => {
  let now = 0;
  const store = new MemoryRateLimitStore(() => now);
  for (let i = 0; i < 5; i++) await store.hit("addr:203.0.113.9|unmatched", BUDGET);
  now += 10_000;
  expect(await store.hit("addr:203.0.113.9|unmatched", BUDGET)).toEqual({ count: 1, resetSec: 10 });
});

test("expired windows are swept as the map grows, live ones kept", async () => {
  let now = 0;
  const store = new MemoryRateLimitStore(() => now);
  await store.hit("live", { limit: 1, windowSec: 86_400 });
  for (let i = 0; i < 100_000; i++) await store.hit(`k${i}`, BUDGET);
  now += 10_000;
  // The map holds more than 100 000 windows: this new key sweeps the 100 000 expired ones; the day-long one stays counted.
  await store.hit("new", BUDGET);
  expect(await store.hit("live", { limit: 1, windowSec: 86_400 })).toEqual({ count: 2, resetSec: 86_390 });
});
