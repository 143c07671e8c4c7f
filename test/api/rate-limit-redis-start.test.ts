/**
 * Opening the Redis store on a busy start: a first answer slower than
 * commandTimeoutMs (several instances starting at once on a loaded machine)
 * is not an unreachable Redis: the ready check and the proving PING may take
 * up to connectTimeoutMs; requests then get commandTimeoutMs. A Redis that
 * never answers still fails the start within connectTimeoutMs.
 *
 * A TCP relay in front of the real Redis holds its first `held` replies
 * back for `delayMs`, then relays at once.
 */
import * as net from "node:net";
import { openRedisRateLimitStore, RedisUnavailableError, REDIS_DEFAULTS } from "../../api/middleware/rate-limit-redis";
import { sharedRedis, uniquePrefix } from "./support/redis";

interface Relay {
  url: string;
  close(): Promise<void>;
}

async function slowRelay(target: string, held: number, delayMs: number): Promise<Relay> {
  const upstream = new URL(target);
  let replies = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const redis = net.connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(redis);
    client.on("data", (chunk) => redis.write(chunk));
    redis.on("data", (chunk) => {
      const late = replies++ < held;
      if (late) setTimeout(() => client.writable && client.write(chunk), delayMs);
      else client.write(chunk);
    });
    for (const s of [client, redis]) s.on("error", () => undefined).on("close", () => (client.destroy(), redis.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const options = (url: string, connectTimeoutMs: number) => ({
  ...REDIS_DEFAULTS,
  url,
  commandTimeoutMs: 100,
  connectTimeoutMs,
  keyPrefix: uniquePrefix("start"),
});

test("a first answer slower than commandTimeoutMs does not refuse the start; requests then get commandTimeoutMs", async () => {
  // The ready check's and the first PING's replies arrive 300 ms late (3x the command timeout).
  const relay = await slowRelay(sharedRedis(), 2, 300);
  try {
    const store = await openRedisRateLimitStore(options(relay.url, 5000));
    try {
      expect(store["client"].options.commandTimeout).toBe(100);
    } finally {
      store.close();
    }
  } finally {
    await relay.close();
  }
});

test("a Redis that never answers in time still refuses the start within connectTimeoutMs", async () => {
  const relay = await slowRelay(sharedRedis(), Number.MAX_SAFE_INTEGER, 60_000);
  try {
    await expect(openRedisRateLimitStore(options(relay.url, 1000))).rejects.toBeInstanceOf(RedisUnavailableError);
  } finally {
    await relay.close();
  }
});
