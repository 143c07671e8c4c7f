/**
 * What the API is built from: every dependency is passed in (no globals), so
 * tests build the real thing with a temp database and a test key set.
 */
import { checkInteger, checkValue } from "../config/check";
import { ConfigError } from "../config/errors";
import type { DataStore } from "../db/store";
import type { Pdp } from "../pdp";
import type { ExportRunner } from "./exports/runner";
import type { TestRunVerifier } from "./identity/test-run";
import type { TokenVerifier } from "./identity/verifier";
import { checkRateLimits, type RateLimitConfig, type RateLimitStore } from "./middleware/rate-limit";
import type { DecisionLogHealth, InterruptedRun } from "../pdp/log";
import type { LogFailureStance } from "./trail/config";
import type { VersionCatalog } from "./versions";

/** What the API needs of the decision log (pdp/log's ManagedDecisionLog): the audit trail's state. */
export interface DecisionTrail {
  /** Every decision recorded so far is committed to the store (rejects when that cannot be confirmed). */
  durable(): Promise<void>;
  health(): DecisionLogHealth;
  /** Events the log could not keep, since it started. */
  lost(): number;
  /** Earlier runs found interrupted when the log opened its store. */
  readonly interruptedRuns: readonly InterruptedRun[];
}

/** One structured log line (JSON); never given secrets. */
export type ApiLogger = (entry: Record<string, unknown>) => void;

export interface ApiDeps {
  pdp: Pick<Pdp, "decide" | "refuse" | "outcome" | "status">;
  /** The data store (db/store.ts): SQLite or PostgreSQL, the same async contract. */
  db: DataStore;
  verifyToken: TokenVerifier;
  /** Verifies a `Portcullis-Test-Run` credential, returning its run id (api/identity/test-run.ts). */
  verifyTestRun: TestRunVerifier;
  versions: VersionCatalog;
  rateLimits: RateLimitConfig;
  /** Where the budgets are counted (default: in this process); Redis, shared by every instance, when `redis.url` is set (middleware/rate-limit-redis.ts). */
  rateLimitStore?: RateLimitStore;
  logger: ApiLogger;
  /** Runs the export jobs POST /api/admin/export stores; its owner resumes it at start-up and stops it before closing the database. */
  exportRunner: Pick<ExportRunner, "enqueue">;
  /** The PDP's decision log: state-changing requests wait for their decision's commit; /health and /metrics report it. */
  decisionLog: DecisionTrail;
  /** What to do while the decision log cannot store decisions (default refuse-writes: api/trail/config.ts). */
  logFailure?: LogFailureStance;
  /**
   * How long a write waits, on timers, for a write lock another connection holds before it is
   * answered 503 database_busy (default 1000 ms). The database must be opened with busyTimeoutMs 0.
   */
  lockWaitMs?: number;
  /** The server's maxHeadersCount (api/http/limits.ts): a request reaching it is refused 431, since node drops the fields past it. */
  maxHeadersCount?: number;
  /** Largest accepted JSON body in bytes (default 16 KiB). */
  bodyLimitBytes?: number;
  /** Proxies (IP addresses, CIDR ranges) whose X-Forwarded-For names the client (middleware/client-address.ts); default none. */
  trustedProxies?: string[];
  /** The clock version lifecycles are judged by (ms since the epoch; default Date.now): tests move time with it. */
  now?: () => number;
  /** Distinct unknown ids within the window before an actor is reported for enumeration (default 5 in 60 s). */
  enumeration?: { threshold: number; windowMs: number };
  /** Work the app does after an answer (the security monitor's lookups): its owner waits for it before closing the store. */
  background?: BackgroundWork;
}

/** Promises started after a response, tracked so that shutdown (and a test) can wait for them. */
export class BackgroundWork {
  private readonly running = new Set<Promise<unknown>>();

  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
  }

  /** Resolves once everything tracked so far (and anything it started) has settled. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }
}

/** What createApp refuses before building anything: a missing dependency, a NaN budget, a zero body limit. */
export function checkDeps(deps: ApiDeps): void {
  const needs = (value: unknown, setting: string, what: string) => {
    if (!value) throw new ConfigError("CONFIG_MISSING", `deps.${setting}`, `must be ${what}`);
  };
  needs(typeof deps?.pdp?.decide === "function" && typeof deps.pdp.status === "function", "pdp", "a PDP (decide, status)");
  needs(typeof deps.db === "object" && deps.db !== null, "db", "the data store");
  needs(typeof deps.verifyToken === "function", "verifyToken", "a token verifier");
  needs(typeof deps.versions === "object" && deps.versions !== null, "versions", "the version catalogue");
  needs(typeof deps.logger === "function", "logger", "a logger");
  needs(typeof deps.exportRunner?.enqueue === "function", "exportRunner", "an export runner (enqueue)");
  checkRateLimits(deps.rateLimits, "deps.rateLimits");
  if (deps.bodyLimitBytes !== undefined) checkInteger(deps.bodyLimitBytes, "deps.bodyLimitBytes", { min: 1 });
  if (deps.enumeration !== undefined) {
    checkInteger(deps.enumeration?.threshold, "deps.enumeration.threshold", { min: 1 });
    checkInteger(deps.enumeration?.windowMs, "deps.enumeration.windowMs", { min: 1 });
  }
  if (deps.trustedProxies !== undefined) checkValue({ type: "addresses" }, deps.trustedProxies, "deps.trustedProxies");
}

export const jsonLogger: ApiLogger = (entry) => {
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), ...entry }) + "\n");
};
