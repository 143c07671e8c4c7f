/**
 * The real thing, in process, for the API suites: the service as
 * `portcullis serve` builds it (api/service.ts) from the policy bundle
 * compiled from rego/ by our compiler, a seeded data store, the SQLite
 * decision log in a temp dir, and a test ES256 key set. Tokens are real
 * signed JWTs. Nothing is mocked.
 *
 *   const h = await startHarness();                          // SQLite: a seeded file in the temp dir
 *   const h = await startHarness({ backend: "postgres" });   // PostgreSQL: a database of its own
 *   await request(h.app).get("/invoices/inv_alice_1").set(await h.auth("u_alice"));
 *   await h.close();
 *
 * PostgreSQL: a database cloned from the migrated and seeded template of the
 * repository contract suite (test/db/contract/backends.ts: the private
 * cluster of scripts/services/postgres.sh, started when needed), reached by
 * the service through `database.url` as the service role, dropped by close().
 * Suites that run on both backends: `describe.each(BACKENDS)` below.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Express } from "express";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import type { AppOptions } from "../../api/app";
import type { ApiDeps } from "../../api/deps";
import type { ExportRunner } from "../../api/exports/runner";
import { mintDevToken } from "../../api/identity/mint";
import { DEFAULT_RATE_LIMITS, type RateLimitConfig } from "../../api/middleware/rate-limit";
import { createService } from "../../api/service";
import type { ConfigInput } from "../../config";
import type { LogFailureStance } from "../../api/trail/config";
import { collectPolicyInputs } from "../../cli/files";
import type { SecurityEventFilter, SecurityEventRow } from "../../db";
import type { DataStore } from "../../db/store";
import type { Pdp } from "../../pdp";
import { createDecisionLog, type ManagedDecisionLog } from "../../pdp/log";
import { clonePgDatabase, type PgUrls } from "../db/contract/backends";

/**
 * The data store the harness opens: `backend` in the options, else the
 * PORTCULLIS_TEST_BACKEND variable, which jest.config.js's `postgres`
 * project sets to run the API and matrix suites that touch data a second
 * time on PostgreSQL; else SQLite.
 */
export type BackendName = "sqlite" | "postgres";

export const ISSUER = "urn:portcullis:test";
export const AUDIENCE = "portcullis-test";
const REPO = path.resolve(__dirname, "../..");

let compiled: { wasm: Uint8Array; data: unknown; policies: ReturnType<typeof collectPolicyInputs>["sources"] } | undefined;
const bundles = new Map<string, Buffer>();

/**
 * The day the suites' API judges version lifecycles by (tokens keep the real
 * clock): before every sunset in api/versions/versions.json, so `old`, `beta`
 * and `v1` stay served whatever day the suites run. Suites about sunsets move
 * the clock themselves (test/api/version-sunset.test.ts).
 */
export const HARNESS_NOW = Date.parse("2026-11-15T00:00:00Z");

/** The entrypoints `make build` compiles (Makefile, var/bundle.tar.gz): the decision and the log's mask/drop policies. */
export const ENTRYPOINTS = ["portcullis/decision", "system/log/mask", "system/log/drop"];

/**
 * The project's policies compiled from rego/ as `make build` does, once per
 * test file; `revision` names the bundle in its manifest (the same policy
 * under two revisions shows which bundle made a decision).
 */
export function policyBundle(revision = "api-test"): Buffer {
  const cached = bundles.get(revision);
  if (cached) return cached;
  if (!compiled) {
    const { sources, data } = collectPolicyInputs([path.join(REPO, "rego")]);
    // Named as the bundle carries them (rego/...), so file:line in the decision trail is the bundle's.
    const policies = sources.filter((s) => !s.file.endsWith("_test.rego")).map((s) => ({ ...s, file: path.relative(REPO, s.file) }));
    compiled = { wasm: compile(policies, { entrypoints: ENTRYPOINTS }).wasm, data, policies };
  }
  const bytes = writeBundle({
    wasm: compiled.wasm,
    data: compiled.data,
    manifest: { revision, roots: [""], rego_version: 1, wasm: ENTRYPOINTS.map((entrypoint) => ({ entrypoint, module: "/policy.wasm" })) },
    sources: compiled.policies.map((s) => ({ path: s.file, content: s.source })),
  });
  bundles.set(revision, bytes);
  return bytes;
}

export interface Harness {
  app: Express;
  backend: BackendName;
  /** The service's data store (db/store.ts), the same async contract on both backends. */
  db: DataStore;
  /** PostgreSQL: this harness's own database, as the service role and as the owner. */
  pgUrls?: PgUrls;
  /** Resolves once the work the app started after its answers (security-event lookups) is done: read events after it. */
  settled(): Promise<void>;
  /** The security events (newest first), once the app's work after its answers is done. */
  events(filter?: SecurityEventFilter): Promise<SecurityEventRow[]>;
  pdp: Pdp;
  deps: ApiDeps;
  /** The export runner the app hands jobs to (resumed at start, stopped by close). */
  exportRunner: ExportRunner;
  dir: string;
  /** The decision log (SQLite at dir/decisions.db): flush() before reading it. */
  log: ManagedDecisionLog;
  logs: Array<Record<string, unknown>>;
  keyFile: string;
  /** A valid token for a user. */
  token(user: string, overrides?: { ttlSec?: number; keyFile?: string; issuer?: string; audience?: string }): Promise<string>;
  /** `{ Authorization: "Bearer ..." }` for a user. */
  auth(user: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The data store (default sqlite). */
  backend?: BackendName;
  /** PostgreSQL pool size (database.poolMax). */
  poolMax?: number;
  /** PostgreSQL: the service's database URL from this harness's own (a relay in front of the server). */
  pgUrl?: (url: string) => Promise<string>;
  /** PostgreSQL waits (database.connectTimeoutMs, statementTimeoutMs). */
  pgTimeouts?: { connectTimeoutMs?: number; statementTimeoutMs?: number };
  rateLimits?: Partial<RateLimitConfig>;
  app?: AppOptions;
  enumeration?: { threshold: number; windowMs: number };
  /** The export runner's row ceiling (default: the runner's, 10 000). */
  exportMaxRows?: number;
  /** Proxies whose X-Forwarded-For names the client (default none). */
  trustedProxies?: string[];
  /** The API's clock (version lifecycles); default HARNESS_NOW, a fixed day. */
  now?: () => number;
  /** How long a write waits for a lock held elsewhere before 503 database_busy (default: the service's). */
  lockWaitMs?: number;
  /** Runs on the new database before the runner resumes: a previous run's leftovers (an interrupted job). */
  beforeStart?: (db: DataStore) => unknown;
  /** The decision log's settings (a small `maxBytes` fills its store; `onFailure` is the stance while it cannot be written). */
  decisionLog?: { maxBytes?: number; bufferLimit?: number; flushIntervalMs?: number; onFailure?: LogFailureStance };
  /** Redis for the rate-limit budgets (test/api/support/redis.ts); default none: counted in process. */
  redis?: ConfigInput["redis"];
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-api-"));
  const bundleFile = path.join(dir, "bundle.tar.gz");
  fs.writeFileSync(bundleFile, policyBundle());
  const keyFile = path.join(dir, "key.json");
  const logs: Array<Record<string, unknown>> = [];
  const backend = options.backend ?? (process.env.PORTCULLIS_TEST_BACKEND === "postgres" ? "postgres" : "sqlite");
  const pg = backend === "postgres" ? await clonePgDatabase() : undefined;
  const { onFailure: _stance, ...logStore } = options.decisionLog ?? {};
  // With database.url the service would keep its decisions in PostgreSQL too (pdp/log): the API suites read
  // the trail from dir/decisions.db, so on PostgreSQL the harness hands the service that SQLite log.
  const decisionLog = pg ? createDecisionLog({ db: { file: path.join(dir, "decisions.db"), ...logStore }, onError: () => undefined }) : undefined;
  const service = await createService(
    {
      database: {
        file: path.join(dir, "portcullis.db"),
        lockWaitMs: options.lockWaitMs,
        url: pg && options.pgUrl ? await options.pgUrl(pg.urls.app) : pg?.urls.app,
        poolMax: options.poolMax,
        ...options.pgTimeouts,
      },
      bundle: { file: bundleFile, watch: false, pollIntervalMs: 60_000 },
      decisionLog: { file: path.join(dir, "decisions.db"), ...options.decisionLog },
      identity: { issuer: ISSUER, audience: AUDIENCE, algorithms: ["ES256"], devKeyFile: keyFile, clockToleranceSec: 0 },
      // Suites send many forged tokens from one address: their own failed-authentication budget is generous.
      rateLimits: { ...DEFAULT_RATE_LIMITS, authentication: { limit: 1000, windowSec: 60 }, ...options.rateLimits },
      enumeration: options.enumeration,
      exports: { maxRows: options.exportMaxRows },
      http: { trustedProxies: options.trustedProxies },
      redis: options.redis,
    },
    {
      logger: (entry) => void logs.push(entry),
      pdpLogger: () => undefined,
      decisionLogErrors: () => undefined,
      app: options.app,
      now: options.now ?? (() => HARNESS_NOW),
      decisionLog,
    },
  );
  await options.beforeStart?.(service.db);
  // As `portcullis serve` does once the app passed its start-up check.
  service.resume();
  const settled = async (): Promise<void> => {
    await service.deps.background?.settled();
  };
  const token: Harness["token"] = (user, o = {}) =>
    mintDevToken({ subject: user, keyFile: o.keyFile ?? keyFile, issuer: o.issuer ?? ISSUER, audience: o.audience ?? AUDIENCE, ttlSec: o.ttlSec ?? 600 });
  return {
    app: service.app,
    backend,
    db: service.db,
    pgUrls: pg?.urls,
    settled,
    events: async (filter = {}) => {
      await settled();
      return service.db.securityEvents.query(filter);
    },
    pdp: service.pdp,
    deps: service.deps,
    exportRunner: service.exportRunner,
    dir,
    log: service.log,
    logs,
    keyFile,
    token,
    auth: async (user) => ({ Authorization: `Bearer ${await token(user)}` }),
    async close() {
      try {
        await service.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        await pg?.drop();
      }
    },
  };
}

/** The problem+json contract every error answer meets. */
export function expectProblem(res: { status: number; headers: Record<string, string>; body: Record<string, unknown> }, status: number, code: string): void {
  expect({ status: res.status, type: res.body.type }).toEqual({ status, type: `urn:portcullis:problem:${code}` });
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.decision_id).toBe("string");
  expect(res.headers["decision-id"]).toBe(res.body.decision_id);
}
