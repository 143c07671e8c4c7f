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
 * The counters live in this process (the embedded default); several
 * instances need a shared store (Redis) behind the same `RateLimitStore`.
 */
import type { NextFunction, Request, Response } from "express";
import { checkInteger } from "../../config/check";
import { ConfigError } from "../../config/errors";
import { stateOf } from "../context";
import { Problem } from "../problems";
import type { RateLimitClass } from "../registry/types";

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

export interface RateLimitStore {
  /** Counts one hit; returns the count in the current window and the seconds until it resets. */
  hit(key: string, windowSec: number): { count: number; resetSec: number };
  /** The count in the current window without counting (0 when none). */
  peek(key: string, windowSec: number): { count: number; resetSec: number };
}

const SWEEP_AT = 100_000;

/** In-process fixed windows; expired windows are swept as the map grows. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; count: number }>();
  /**
   * Size that triggers the next sweep. After a sweep it is twice what stayed
   * live: with many live keys (many callers in one window) a sweep per new
   * key would make every request scan the whole map.
   */
  private sweepAt = SWEEP_AT;
  constructor(private readonly now: () => number = Date.now) {}

  hit(key: string, windowSec: number): { count: number; resetSec: number } {
    const now = this.now();
    const windowMs = windowSec * 1000;
    let w = this.windows.get(key);
    if (!w) {
      if (this.windows.size > this.sweepAt) this.sweep(now, windowMs);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    } else if (now - w.start >= windowMs) {
      // A new window for a known key: reset in place (no new entry, nothing to sweep for).
      w.start = now;
      w.count = 0;
    }
    w.count++;
    return { count: w.count, resetSec: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)) };
  }

  peek(key: string, windowSec: number): { count: number; resetSec: number } {
    const now = this.now();
    const w = this.windows.get(key);
    if (!w || now - w.start >= windowSec * 1000) return { count: 0, resetSec: 0 };
    return { count: w.count, resetSec: Math.max(1, Math.ceil((w.start + windowSec * 1000 - now) / 1000)) };
  }

  private sweep(now: number, windowMs: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= windowMs) this.windows.delete(key);
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
  return function rateLimit(_req: Request, res: Response, next: NextFunction): void {
    const state = stateOf(res);
    const route = state.route ?? UNMATCHED;
    const cls = route.rateLimit;
    const budget = config[cls];
    // The client address: X-Forwarded-For only through trusted proxies (client-address.ts), or anyone could pick a fresh budget.
    const who = state.actor.id === "anonymous" ? `addr:${state.address}` : `actor:${state.actor.id}`;
    const { count, resetSec } = store.hit(`${who}|${route.id}`, budget.windowSec);
    const remaining = Math.max(0, budget.limit - count);
    res.setHeader("RateLimit-Policy", policies.get(cls) ?? `"${cls}";q=${budget.limit};w=${budget.windowSec}`);
    res.setHeader("RateLimit", `"${cls}";r=${remaining};t=${resetSec}`);
    if (count > budget.limit) {
      res.setHeader("Retry-After", String(resetSec));
      throw new Problem("rate_limited");
    }
    next();
  };
}
