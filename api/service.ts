/**
 * The service, assembled in ONE place: data store, decision log, PDP, token
 * verifier, export runner and app, with ONE shutdown order. `portcullis
 * serve`, the inventory's in-process target, the API test harness and the
 * API benchmark all build the service here; only the HTTP listener is theirs.
 *
 *   const service = await createService(config);  // a Config from loadConfig, or any part of one (config/)
 *   const server = http.createServer(service.app).listen(8080);
 *   service.resume();                              // once up: the export runner claims and polls
 *   ...                                            // await drain(), then
 *   await service.close();
 *
 * close() stops, in this order: the export runner (a job in progress goes
 * back to `queued`, its lease released for any instance, before its
 * database closes), the PDP (bundle watchers and pollers), the decision
 * log (flushes the events of the last requests, then closes its own
 * database), the Redis connection of the rate-limit store
 * (when `redis.url` is set), the work started after answers (the security
 * monitor's lookups), the data store (writes its held bookkeeping; rejects
 * with BookkeepingLostError when some could not be). A failure while
 * creating closes what was already opened, in the same order.
 *
 * Scale-out: the stores are chosen here, from the configuration: the
 * rate-limit budgets in Redis with `redis.url` (else in process); the data
 * store (`openStore`) in PostgreSQL with `database.url` (else the SQLite
 * file); both data stores keep the same async contract (db/store.ts).
 */
import type { Express } from "express";
import { resolveConfig, type Config, type ConfigInput } from "../config";
import { openDatabase } from "../db";
import { openPgStore } from "../db/pg";
import { sqliteStore } from "../db/sqlite-store";
import type { DataStore } from "../db/store";
import { createPdp, type Pdp } from "../pdp";
import { openDecisionLog, type ManagedDecisionLog } from "../pdp/log";
import type { ErrorReporter } from "../pdp/log/sinks/sink";
import type { Logger } from "../pdp/logger";
import { createApp, type AppOptions } from "./app";
import { BackgroundWork, jsonLogger, type ApiDeps, type ApiLogger } from "./deps";
import { createExportRunner, type ExportRunner } from "./exports/runner";
import { createTestRunVerifier } from "./identity/test-run";
import { createVerifier } from "./identity/verifier";
import { openRedisRateLimitStore, type RedisRateLimitStore } from "./middleware/rate-limit-redis";
import { acceptBundles } from "./registry/check";
import { ROUTES } from "./registry/routes";
import { reportInterruptedRuns } from "./trail/report";
import { loadVersions, type VersionCatalog } from "./versions";

/** What is code rather than configuration: where operational logs go, and test seams. */
export interface ServiceHooks {
  /** Request and export-job log lines (default: JSON lines on stdout). */
  logger?: ApiLogger;
  /** The PDP's operational log (default: the PDP's console logger). */
  pdpLogger?: Logger;
  /** The decision log's failure reports (default: JSON lines on stderr). */
  decisionLogErrors?: ErrorReporter;
  /** The version catalogue served (default: api/versions/versions.json). */
  versions?: VersionCatalog;
  app?: AppOptions;
  /** The API's clock (version lifecycles; default Date.now): tests move time with it. */
  now?: () => number;
  /** Used instead of the decision log config.decisionLog describes (the benchmark's discarding log). */
  decisionLog?: ManagedDecisionLog;
}

export interface Service {
  /** The configuration the service runs with, checked and completed with the defaults. */
  config: Config;
  app: Express;
  pdp: Pdp;
  /** The data store: SQLite or PostgreSQL (db/store.ts). */
  db: DataStore;
  log: ManagedDecisionLog;
  exportRunner: ExportRunner;
  /** What the app was built from (tests build variants of the app from it). */
  deps: ApiDeps;
  /** Starts the export runner (claimable jobs now, then a poll: api/exports/runner.ts); call once the service is up. */
  resume(): void;
  /** Stops everything in the shutdown order above; call after the listener stopped. Idempotent. */
  close(): Promise<void>;
}

/** Throws ConfigError before opening anything when the configuration is invalid; StartupCheckError, ... */
export async function createService(input: ConfigInput, hooks: ServiceHooks = {}): Promise<Service> {
  const config = resolveConfig(input);
  const logger = hooks.logger ?? jsonLogger;
  const db = await openStore(config);
  const background = new BackgroundWork();
  let log: ManagedDecisionLog | undefined;
  let pdp: Pdp | undefined;
  let exportRunner: ExportRunner | undefined;
  let rateLimitStore: RedisRateLimitStore | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= shutDown([
      () => exportRunner?.stop(),
      () => pdp?.close(),
      () => log?.close(),
      () => rateLimitStore?.close(),
      () => background.settled(),
      () => db.close(),
    ]));
  try {
    const { file, batchSize, flushIntervalMs, bufferLimit, maxBytes, console, commitTimeoutMs } = config.decisionLog;
    // With database.url the decision log is PostgreSQL's too: one trail for every instance.
    const batching = { batchSize, flushIntervalMs, bufferLimit };
    const store = config.database.url !== undefined ? { postgres: { url: config.database.url, ...batching } } : { db: { file, ...batching, maxBytes } };
    log = hooks.decisionLog ?? (await openDecisionLog({ ...store, console, commitTimeoutMs, onError: hooks.decisionLogErrors }));
    reportInterruptedRuns(log, logger);
    const { watch, pollIntervalMs } = config.bundle;
    // A bundle server is polled after a random delay between half the interval and the interval
    // (OPA's min/max delay): a fleet spreads its polls, and a new bundle reaches every instance within one interval.
    const bundle =
      config.bundle.url !== undefined
        ? { url: config.bundle.url, minDelayMs: Math.ceil(pollIntervalMs / 2), maxDelayMs: pollIntervalMs }
        : { file: config.bundle.file, watch, pollIntervalMs };
    // Every bundle, the first and each hot reload, must pass the start-up check's policy probe before it decides.
    pdp = await createPdp({
      bundle,
      log,
      logger: hooks.pdpLogger,
      check: acceptBundles(hooks.app?.routes ?? ROUTES),
      maxMemoryPages: config.bundle.maxMemoryPages,
    });
    // Redis when configured (budgets shared by every instance); unset, the app counts in process.
    const { url: redisUrl, ...redis } = config.redis;
    if (redisUrl !== undefined) rateLimitStore = await openRedisRateLimitStore({ url: redisUrl, ...redis, logger });
    // Every instance's runner claims from the one job table: leases keep a job to one runner at a time.
    exportRunner = createExportRunner({ db, logger, ...config.exports });
    const deps: ApiDeps = {
      pdp,
      db,
      verifyToken: await createVerifier(config.identity),
      verifyTestRun: await createTestRunVerifier(config.identity),
      versions: hooks.versions ?? loadVersions(),
      rateLimits: config.rateLimits,
      rateLimitStore,
      logger,
      exportRunner,
      decisionLog: log,
      logFailure: config.decisionLog.onFailure,
      bodyLimitBytes: config.http.bodyLimitBytes,
      enumeration: config.enumeration,
      now: hooks.now,
      trustedProxies: config.http.trustedProxies,
      lockWaitMs: config.database.lockWaitMs,
      maxHeadersCount: config.http.maxHeadersCount,
      background,
    };
    const app = createApp(deps, hooks.app);
    const runner = exportRunner;
    return { config, app, pdp, db, log, exportRunner, deps, resume: () => runner.resume(), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The data store, the one place a backend is chosen: PostgreSQL when
 * `database.url` is set (the service role; a pool of `database.poolMax`
 * connections with bounded waits), else the SQLite file, created and seeded
 * on first use, whose connection never sleeps on a lock (db/busy.ts).
 */
async function openStore(config: Config): Promise<DataStore> {
  const { url, poolMax, connectTimeoutMs, statementTimeoutMs, file } = config.database;
  if (url !== undefined) return openPgStore({ url, poolOptions: { max: poolMax, connectTimeoutMs, statementTimeoutMs } });
  return sqliteStore(openDatabase(file, { seed: true, busyTimeoutMs: 0 }));
}

/** Runs every step even when one fails (the database still closes), then throws the first failure. */
async function shutDown(steps: Array<() => unknown>): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length > 0) throw failures[0];
}
