/**
 * The rate-limit budgets in Redis (`redis.url`), shared by every instance:
 * ONE budget per key (actor or client address, and version-free route id)
 * whichever instance a request reaches. Counting is rate-limiter-flexible's
 * RateLimiterRedis over ioredis: one Lua script per hit (SET NX EX, INCRBY,
 * PTTL), i.e. the same fixed window as MemoryRateLimitStore, opened by a
 * key's first hit anywhere and closed by Redis' expiry, so the RateLimit
 * headers and the 429 read the same as with the in-process store.
 *
 *   const store = await openRedisRateLimitStore({ url, onFailure: "insurance", ... });  // throws RedisUnavailableError
 *   createApp({ ...deps, rateLimitStore: store });
 *   ...
 *   store.close();
 *
 * Keys are `<keyPrefix>:actor:<user id>|<route id>` or
 * `<keyPrefix>:addr:<client address>|<route id>`: never a token, never a
 * tenant's data.
 *
 * No request waits on Redis for long: a command gets `commandTimeoutMs`,
 * and while the connection is down (ioredis reconnects in the background)
 * hits do not queue, they fail at once (no offline queue). A hit Redis
 * cannot count is handled by the stance `onFailure`:
 *
 * - `insurance` (default): counted in this process instead, with the same
 *   budgets (MemoryRateLimitStore): the service stays up and every budget
 *   still holds per instance, so the cluster admits at most N x the limit
 *   (N instances) while the outage lasts.
 * - `refuse`: the request is answered 503 `rate_limit_unavailable` with
 *   Retry-After (fail closed: no request is served without the shared
 *   budget). Diagnostic requests (/health, /metrics, ...) are still counted
 *   in process, so the outage can be observed.
 *
 * Either way /health reports the outage (degraded; unavailable under
 * `refuse`), /metrics counts the hits counted in process or refused, and
 * the first hit Redis counts again ends the outage.
 *
 * At start the store insists on Redis: a wrong URL or password is found at
 * deploy time (RedisUnavailableError), not in a degraded /health.
 */
import { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { ApiLogger } from "../deps";
import { MemoryRateLimitStore, RateLimitUnavailable, type HitOptions, type RateLimitBudget, type RateLimitHit, type RateLimitStore } from "./rate-limit";

export const REDIS_FAILURE_STANCES = ["insurance", "refuse"] as const;
export type RedisFailureStance = (typeof REDIS_FAILURE_STANCES)[number];

export interface RedisRateLimitOptions {
  /** redis:// or rediss://, with the password (never logged). */
  url: string;
  onFailure: RedisFailureStance;
  /** Longest wait for one Redis command; then the hit is handled by the stance. */
  commandTimeoutMs: number;
  /** Longest wait for a connection (at start, and at each reconnection attempt). */
  connectTimeoutMs: number;
  /** Namespace of the keys in Redis (several deployments may share one Redis). */
  keyPrefix: string;
  /** Where an outage's start and end are reported (no URL, no key). */
  logger?: ApiLogger;
}

export const REDIS_DEFAULTS = { onFailure: "insurance", commandTimeoutMs: 250, connectTimeoutMs: 5000, keyPrefix: "portcullis:rl" } as const;

/** What /health and /metrics report of a shared store. */
export interface RateLimitStoreStatus {
  onFailure: RedisFailureStance;
  /** RFC 3339: since when hits cannot be counted in Redis; null while they can. */
  failingSince: string | null;
  /** The last failure's message (staff only: /metrics). */
  lastError: string | null;
  /** Hits counted in process because Redis could not count them, since start. */
  insuredHits: number;
  /** Requests refused (503) because Redis could not count them, since start. */
  refusedHits: number;
}

/** Seconds a refused client is told to wait: about the time ioredis takes to retry a connection. */
export const REFUSED_RETRY_AFTER_SEC = 2;

/** Redis could not be reached (or refused the credentials) at start. */
export class RedisUnavailableError extends Error {
  readonly code = "REDIS_UNAVAILABLE";
  constructor(reason: string) {
    super(`Redis (redis.url) cannot be reached at start: ${reason}`);
    this.name = "RedisUnavailableError";
  }
}

export class RedisRateLimitStore implements RateLimitStore {
  /** One limiter per budget (a limiter has fixed points and duration); few budgets exist. */
  private readonly limiters = new Map<string, RateLimiterRedis>();
  /** Counts the hits Redis cannot count: the insurance stance, and diagnostic requests under `refuse`. */
  private readonly insurance = new MemoryRateLimitStore();
  private failingSince: string | null = null;
  private lastError: string | null = null;
  private insuredHits = 0;
  private refusedHits = 0;

  constructor(
    private readonly client: Redis,
    private readonly options: Omit<RedisRateLimitOptions, "url">,
  ) {
    // Connection errors arrive as events while ioredis reconnects: an outage starts with the first one.
    client.on("error", (err: Error) => this.failed(err));
  }

  async hit(key: string, budget: RateLimitBudget, options?: HitOptions): Promise<RateLimitHit> {
    let counted: RateLimiterRes;
    try {
      counted = await this.limiterFor(budget).consume(key);
    } catch (err) {
      // Over the limit: the library rejects with the count (ours to turn into 429, as the in-process store's).
      if (!(err instanceof RateLimiterRes)) return this.uncounted(key, budget, err, options);
      counted = err;
    }
    this.recovered();
    return { count: counted.consumedPoints, resetSec: Math.max(1, Math.ceil(counted.msBeforeNext / 1000)) };
  }

  status(): RateLimitStoreStatus {
    const { failingSince, lastError, insuredHits, refusedHits } = this;
    return { onFailure: this.options.onFailure, failingSince, lastError, insuredHits, refusedHits };
  }

  /** Closes the connection at once (a hit still in flight is answered by the stance); idempotent. */
  close(): void {
    this.client.removeAllListeners("error");
    this.client.on("error", () => undefined);
    this.client.disconnect();
  }

  private limiterFor(budget: RateLimitBudget): RateLimiterRedis {
    const id = `${budget.limit}/${budget.windowSec}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.client,
        points: budget.limit,
        duration: budget.windowSec,
        keyPrefix: this.options.keyPrefix,
        // Not connected (reconnecting): fail at once rather than send into a dead socket.
        rejectIfRedisNotReady: true,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private async uncounted(key: string, budget: RateLimitBudget, err: unknown, options?: HitOptions): Promise<RateLimitHit> {
    this.failed(err);
    if (this.options.onFailure === "refuse" && options?.diagnostic !== true) {
      this.refusedHits++;
      throw new RateLimitUnavailable(REFUSED_RETRY_AFTER_SEC);
    }
    this.insuredHits++;
    return this.insurance.hit(key, budget);
  }

  private failed(err: unknown): void {
    this.lastError = err instanceof Error ? err.message : String(err);
    if (this.failingSince !== null) return;
    this.failingSince = new Date().toISOString();
    this.options.logger?.({ event: "rate_limit_store_unavailable", stance: this.options.onFailure, error: this.lastError });
  }

  private recovered(): void {
    if (this.failingSince === null) return;
    this.options.logger?.({
      event: "rate_limit_store_recovered",
      failing_since: this.failingSince,
      insured_hits: this.insuredHits,
      refused_hits: this.refusedHits,
    });
    this.failingSince = null;
  }
}

/** Connects (bounded by connectTimeoutMs) and proves the connection with a PING; throws RedisUnavailableError. */
export async function openRedisRateLimitStore(options: RedisRateLimitOptions): Promise<RedisRateLimitStore> {
  const { url, ...rest } = options;
  const client = new Redis(url, {
    lazyConnect: true,
    // A hit while disconnected fails at once instead of waiting for a reconnection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // While starting, the ready check and the PING may take up to the connect deadline: several
    // instances starting at once on a busy machine answer slowly, which is not an unreachable Redis.
    // Requests get commandTimeoutMs (set below, once proven; ioredis reads it per command).
    commandTimeout: options.connectTimeoutMs,
    connectTimeout: options.connectTimeoutMs,
    // Reconnect for ever, at most every 2 s: recovery comes without a restart.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  let firstError: string | undefined;
  client.on("error", (err: Error) => void (firstError ??= err.message));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no connection within ${options.connectTimeoutMs} ms`)), options.connectTimeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), deadline]);
  } catch (err) {
    client.disconnect();
    throw new RedisUnavailableError(firstError ?? (err instanceof Error ? err.message : String(err)));
  } finally {
    clearTimeout(timer);
  }
  client.removeAllListeners("error");
  client.options.commandTimeout = options.commandTimeoutMs;
  return new RedisRateLimitStore(client, rest);
}
