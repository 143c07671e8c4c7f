/**
 * Step "rate limit": a fixed-window budget per (actor, version-free route
 * id), so /api/v1/users/me and /api/v2/users/me draw from ONE budget and a
 * caller cannot multiply its budget by hopping versions. Anonymous callers
 * are keyed by client address. Every answer carries the IETF RateLimit
 * headers (draft-ietf-httpapi-ratelimit-headers):
 *
 *   RateLimit-Policy: "default";q=120;w=60
 *   RateLimit: "default";r=119;t=60
 *
 * and an exhausted budget is 429 problem+json with Retry-After.
 *
 * The counters live in this process (MemoryRateLimitStore, the embedded
 * default) or, with `redis.url` set, in Redis, shared by every instance
 * (rate-limit-redis.ts), behind the same async `RateLimitStore`.
 */
import type { NextFunction, Request, Response } from "express";
import { checkInteger } from "../../config/check";
import { ConfigError } from "../../config/errors";
import { stateOf } from "../context";
import { Problem } from "../problems";
import type { RateLimitClass } from "../registry/types";
import type { RateLimitStoreStatus } from "./rate-limit-redis";

export interface RateLimitBudget {
  /** Requests per window. */
  limit: number;
  windowSec: number;
}

export type RateLimitConfig = Record<RateLimitClass, RateLimitBudget>;

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  default: { limit: 600, windowSec: 60 },
  sensitive: { limit: 60, windowSec: 60 },
  diagnostic: { limit: 1200, windowSec: 60 },
  authentication: { limit: 30, windowSec: 60 },
};

/** One hit counted: the count in the current window (this hit included) and the seconds until the window resets. */
export interface RateLimitHit {
  count: number;
  resetSec: number;
}

/**
 * Where the budgets are counted: in this process (MemoryRateLimitStore) or
 * shared by every instance (RedisRateLimitStore, rate-limit-redis.ts).
 */
export interface RateLimitStore {
  /**
   * Counts one hit on `key`, whose budget is `budget` (a shared store keeps
   * its window for `budget.windowSec`): at once (a store in this process),
   * or a promise of it (a shared store). Rejects (or throws) with
   * RateLimitUnavailable when the hit cannot be counted and the request
   * must not be served.
   */
  hit(key: string, budget: RateLimitBudget, options?: HitOptions): RateLimitHit | Promise<RateLimitHit>;
  /** A shared store's state for /health and /metrics (absent: counted in this process, nothing to report). */
  status?(): RateLimitStoreStatus;
}

export interface HitOptions {
  /**
   * A diagnostic request (/health, /metrics, /openapi.json, an unmatched
   * path): counted in-process while a shared store is out of reach, whatever
   * the stance, so that an outage can still be observed.
   */
  diagnostic?: boolean;
}

/** The budget could not be counted (the shared store is unreachable under the `refuse` stance): 503, retry later. */
export class RateLimitUnavailable extends Error {
  constructor(readonly retryAfterSec: number) {
    super("the rate-limit store cannot count this request");
    this.name = "RateLimitUnavailable";
  }
}

/**
 * Counts one hit for a step of the chain: the hit (at once from a store in
 * this process, else a promise), or the 503 problem (with Retry-After on
 * the response) when the store cannot count it. Shared by the rate-limit
 * step and authentication's failure budget.
 */
export function countHit(
  store: RateLimitStore,
  key: string,
  budget: RateLimitBudget,
  res: Response,
  options?: HitOptions,
): RateLimitHit | Promise<RateLimitHit> {
  let hit: RateLimitHit | Promise<RateLimitHit>;
  try {
    hit = store.hit(key, budget, options);
  } catch (err) {
    return uncounted(err, res);
  }
  return isPromise(hit) ? hit.catch((err: unknown) => uncounted(err, res)) : hit;
}

/** The store could not count the hit: 503 with Retry-After (RateLimitUnavailable), or the store's own error. */
function uncounted(err: unknown, res: Response): never {
  if (!(err instanceof RateLimitUnavailable)) throw err;
  res.setHeader("Retry-After", String(err.retryAfterSec));
  throw new Problem("rate_limit_unavailable");
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === "function";
}

const SWEEP_AT = 100_000;

/**
 * In-process fixed windows; expired windows are swept as the map grows.
 * Each window keeps its own end: budgets of different lengths share the
 * map, and a sweep must not drop a long window that is still running.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { end: number; count: number }>();
  /**
   * Size that triggers the next sweep. After a sweep it is twice what stayed
   * live: with many live keys (many callers in one window) a sweep per new
   * key would make every request scan the whole map.
   */
  private sweepAt = SWEEP_AT;
  constructor(private readonly now: () => number = Date.now) {}

  hit(key: string, budget: RateLimitBudget): RateLimitHit {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w) {
      if (this.windows.size > this.sweepAt) this.sweep(now);
      w = { end: now + budget.windowSec * 1000, count: 0 };
      this.windows.set(key, w);
    } else if (now >= w.end) {
      // A new window for a known key: reset in place (no new entry, nothing to sweep for).
      w.end = now + budget.windowSec * 1000;
      w.count = 0;
    }
    w.count++;
    return { count: w.count, resetSec: Math.max(1, Math.ceil((w.end - now) / 1000)) };
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (now >= w.end) this.windows.delete(key);
    this.sweepAt = Math.max(SWEEP_AT, this.windows.size * 2);
  }
}

/** Budget key for requests that matched no route: probing for routes costs budget too. */
export const UNMATCHED = { id: "unmatched", rateLimit: "diagnostic" as RateLimitClass };

/**
 * A budget of whole numbers for every class, and no other class: a NaN or
 * missing limit would fail open (`count > NaN` is false, so never a 429).
 */
export function checkRateLimits(config: RateLimitConfig, setting = "rateLimits"): void {
  if (typeof config !== "object" || config === null) throw new ConfigError("CONFIG_MISSING", setting, "must give a budget per class");
  for (const cls of Object.keys(config)) {
    if (!(cls in DEFAULT_RATE_LIMITS)) throw new ConfigError("CONFIG_UNKNOWN_SETTING", `${setting}.${cls}`, `no rate-limit class ${cls}`);
  }
  for (const cls of Object.keys(DEFAULT_RATE_LIMITS) as RateLimitClass[]) {
    const budget = config[cls];
    if (typeof budget !== "object" || budget === null) throw new ConfigError("CONFIG_MISSING", `${setting}.${cls}`, "needs a limit and a windowSec");
    checkInteger(budget.limit, `${setting}.${cls}.limit`, { min: 1 });
    checkInteger(budget.windowSec, `${setting}.${cls}.windowSec`, { min: 1, max: 86_400 });
  }
}

export function rateLimit(config: RateLimitConfig, store: RateLimitStore) {
  checkRateLimits(config);
  // The policy header depends on the class only: built once, not per request.
  const policies = new Map(Object.entries(config).map(([cls, b]) => [cls, `"${cls}";q=${b.limit};w=${b.windowSec}`]));
  const diagnostic: HitOptions = { diagnostic: true };
  const ordinary: HitOptions = { diagnostic: false };

  /** The headers of a counted hit, and the 429 past the budget. */
  function answer(hit: RateLimitHit, cls: RateLimitClass, budget: RateLimitBudget, res: Response, next: NextFunction): void {
    const { count, resetSec } = hit;
    const remaining = Math.max(0, budget.limit - count);
    res.setHeader("RateLimit-Policy", policies.get(cls) ?? `"${cls}";q=${budget.limit};w=${budget.windowSec}`);
    res.setHeader("RateLimit", `"${cls}";r=${remaining};t=${resetSec}`);
    if (count > budget.limit) {
      res.setHeader("Retry-After", String(resetSec));
      throw new Problem("rate_limited");
    }
    next();
  }

  // Not async: a hit counted in this process goes on in the same turn, without a promise.
  return function rateLimit(_req: Request, res: Response, next: NextFunction): void | Promise<void> {
    const state = stateOf(res);
    const route = state.route ?? UNMATCHED;
    const cls = route.rateLimit;
    const budget = config[cls];
    // The client address: X-Forwarded-For only through trusted proxies (client-address.ts), or anyone could pick a fresh budget.
    const who = state.actor.id === "anonymous" ? `addr:${state.address}` : `actor:${state.actor.id}`;
    const hit = countHit(store, `${who}|${route.id}`, budget, res, cls === "diagnostic" ? diagnostic : ordinary);
    if (isPromise(hit)) return hit.then((counted) => answer(counted, cls, budget, res, next));
    answer(hit, cls, budget, res, next);
  };
}
