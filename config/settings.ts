/**
 * Every setting of the service, in ONE table: its path in the config file,
 * its environment variable, its kind (how it is read and checked) and what
 * it does. The loader (config/load.ts), the unknown-variable report and the
 * README's table (config/README.md, kept equal by test/config) all come
 * from SETTINGS; the defaults are today's behaviour, mostly the constants of
 * the modules that use them.
 *
 * Scale-out plugs in here: `database.url` (postgres://) replaces
 * `database.file`, `redis.url` (redis://) holds the rate-limit budgets;
 * api/service.ts chooses the stores from them, in one place.
 */
import { MAX_MEMORY_PAGES } from "@portcullis/rego-wasm";
import { DEFAULT_BODY_LIMIT_BYTES } from "../api/app";
import { DEFAULT_HTTP_LIMITS } from "../api/http/limits";
import { DEFAULT_LOCK_WAIT_MS } from "../api/middleware/act";
import { DEFAULT_EXPORT_LEASE_MS, DEFAULT_EXPORT_POLL_INTERVAL_MS, DEFAULT_MAX_EXPORT_ROWS } from "../api/exports/runner";
import { DEFAULT_DEV_KEY_FILE } from "../api/identity/keys";
import { DEFAULT_RATE_LIMITS, type RateLimitConfig } from "../api/middleware/rate-limit";
import { REDIS_DEFAULTS, REDIS_FAILURE_STANCES, type RedisFailureStance } from "../api/middleware/rate-limit-redis";
import type { RateLimitClass } from "../api/registry/types";
import { DEFAULT_ENUMERATION } from "../api/security/monitor";
import { DEFAULT_DB_FILE, MAX_LEASE_MS } from "../db";
import { DEFAULT_DECISIONS_DB } from "../pdp/log/store/sqlite-store";
import { SQLITE_SINK_DEFAULTS } from "../pdp/log/sinks/sqlite-sink";
import { DEFAULT_COMMIT_TIMEOUT_MS } from "../pdp/log/pipelines/durable";
import { LOG_FAILURE_STANCES, type LogFailureStance } from "../api/trail/config";
import type { Kind } from "./check";

export const DEFAULT_BUNDLE_FILE = "var/bundle.tar.gz";
export const DEV_ISSUER = "urn:portcullis:dev";
export const DEV_AUDIENCE = "portcullis-api";

export interface HttpConfig {
  /** 0: any free port. */
  port: number;
  host: string;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Longest wait for a request's complete headers (slow-header clients). */
  headersTimeoutMs: number;
  /** Longest wait for a complete request, body included. */
  requestTimeoutMs: number;
  /** Largest request head (request line and headers) Node accepts; larger is 431. */
  maxHeaderBytes: number;
  /** Largest accepted JSON body; larger is 413. */
  bodyLimitBytes: number;
  /** On SIGINT/SIGTERM, how long requests in flight may finish before their connections are cut. */
  shutdownGraceMs: number;
  /** On SIGINT/SIGTERM, how long idle keep-alive connections may send a last request (answered `Connection: close`) before they are closed. */
  drainIdleGraceMs: number;
  /** No byte either way on a connection for this long closes it. */
  idleTimeoutMs: number;
  /** Connections served at once; more are closed on arrival. */
  maxConnections: number;
  /** Header fields per request; a request reaching it is 431 (node would drop the fields past it). */
  maxHeadersCount: number;
  /** Requests per keep-alive connection, then `Connection: close`. */
  maxRequestsPerSocket: number;
  /** Proxies (IP addresses or CIDR blocks) whose forwarded client address may be believed; empty: the socket address only. */
  trustedProxies: string[];
}

/** Which issuer, audience, algorithms and keys a token must match. */
export interface IdentityConfig {
  issuer: string;
  audience: string;
  algorithms: string[];
  /** The identity provider's key set; absent: the local dev key file. */
  jwksUrl?: string;
  devKeyFile: string;
  /** Allowed clock skew in seconds. */
  clockToleranceSec: number;
  /** How long a verified token is remembered (never beyond its exp); 0: not at all. */
  cacheTtlSec: number;
}

export interface Config {
  http: HttpConfig;
  /**
   * The data store: a SQLite file, created and seeded on first open. No statement sleeps on a lock another
   * connection holds; a write waits for it on timers for `lockWaitMs`, then is answered 503 database_busy.
   */
  database: {
    file: string;
    lockWaitMs: number;
    /** PostgreSQL instead of the SQLite file (postgres://, the service role: scale-out); unset: SQLite. */
    url?: string;
    /** Connections the PostgreSQL pool keeps at most. */
    poolMax: number;
    /** PostgreSQL: the longest wait to connect or for a pooled connection to come free (then 503 database_unavailable). */
    connectTimeoutMs: number;
    /** PostgreSQL: the longest a statement runs (statement_timeout; the client gives up a second later). */
    statementTimeoutMs: number;
  };
  /**
   * Redis for what instances must share (the rate-limit budgets); unset: in-process. While Redis cannot
   * count a hit (`commandTimeoutMs` at most), `onFailure` decides (api/middleware/rate-limit-redis.ts).
   */
  redis: { url?: string; onFailure: RedisFailureStance; commandTimeoutMs: number; connectTimeoutMs: number; keyPrefix: string };
  /** The policy bundle: a file watched for changes, or a bundle server polled (exactly one). */
  bundle: ({ file: string; url?: undefined } | { url: string; file?: undefined }) & {
    watch: boolean;
    pollIntervalMs: number;
    /** The most memory a bundle's policy module may use, in 64 KiB pages (unset: the 1 GiB ceiling); a bundle needing more is refused. */
    maxMemoryPages?: number;
  };
  /**
   * The decision log's SQLite file and batching; `console` adds one JSON line per decision on stdout;
   * `maxBytes` caps the file (unset: no cap); `commitTimeoutMs` bounds a write's wait for its decision's
   * commit; `onFailure` is what the API does while decisions cannot be stored (api/trail/config.ts).
   */
  decisionLog: {
    file: string;
    batchSize: number;
    flushIntervalMs: number;
    bufferLimit: number;
    maxBytes?: number;
    commitTimeoutMs: number;
    onFailure: LogFailureStance;
    console: boolean;
  };
  identity: IdentityConfig;
  rateLimits: RateLimitConfig;
  /** Distinct unknown ids within the window before an actor is reported for enumeration. */
  enumeration: { threshold: number; windowMs: number };
  /** Export jobs: the row ceiling, the lease a runner takes on a job, how often a runner looks for claimable jobs. */
  exports: { maxRows: number; leaseMs: number; pollIntervalMs: number };
}

/** A configuration given in code: any part of Config, the rest from the defaults. */
export type ConfigInput = DeepPartial<Config>;
type DeepPartial<T> = { [K in keyof T]?: T[K] extends readonly unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Today's behaviour. `identity.algorithms` unset with a JWKS set is RS256 and ES256 (ES256 is the dev key's). */
export const DEFAULTS: Config = {
  http: {
    port: 8080,
    host: "127.0.0.1",
    // Sized for an API (api/http/limits.ts): slow or idle clients are cut off in seconds, not minutes.
    keepAliveTimeoutMs: DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs,
    headersTimeoutMs: DEFAULT_HTTP_LIMITS.headersTimeoutMs,
    requestTimeoutMs: DEFAULT_HTTP_LIMITS.requestTimeoutMs,
    maxHeaderBytes: DEFAULT_HTTP_LIMITS.maxHeaderBytes,
    bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
    shutdownGraceMs: DEFAULT_HTTP_LIMITS.shutdownGraceMs,
    drainIdleGraceMs: DEFAULT_HTTP_LIMITS.drainIdleGraceMs,
    idleTimeoutMs: DEFAULT_HTTP_LIMITS.idleTimeoutMs,
    maxConnections: DEFAULT_HTTP_LIMITS.maxConnections,
    maxHeadersCount: DEFAULT_HTTP_LIMITS.maxHeadersCount,
    maxRequestsPerSocket: DEFAULT_HTTP_LIMITS.maxRequestsPerSocket,
    trustedProxies: [],
  },
  database: { file: DEFAULT_DB_FILE, lockWaitMs: DEFAULT_LOCK_WAIT_MS, poolMax: 10, connectTimeoutMs: 5000, statementTimeoutMs: 5000 },
  redis: { ...REDIS_DEFAULTS },
  bundle: { file: DEFAULT_BUNDLE_FILE, watch: true, pollIntervalMs: 2000 },
  decisionLog: { file: DEFAULT_DECISIONS_DB, ...SQLITE_SINK_DEFAULTS, commitTimeoutMs: DEFAULT_COMMIT_TIMEOUT_MS, onFailure: "refuse-writes", console: false },
  identity: { issuer: DEV_ISSUER, audience: DEV_AUDIENCE, algorithms: ["ES256"], devKeyFile: DEFAULT_DEV_KEY_FILE, clockToleranceSec: 30, cacheTtlSec: 60 },
  rateLimits: DEFAULT_RATE_LIMITS,
  enumeration: DEFAULT_ENUMERATION,
  exports: { maxRows: DEFAULT_MAX_EXPORT_ROWS, leaseMs: DEFAULT_EXPORT_LEASE_MS, pollIntervalMs: DEFAULT_EXPORT_POLL_INTERVAL_MS },
};

export interface Setting {
  /** Dotted path in Config and in the config file. */
  path: string;
  env: string;
  kind: Kind;
  doc: string;
}

/** Milliseconds, counts, bytes: integers from `min` up. */
const atLeast = (min: number): Kind => ({ type: "integer", min });

const RATE_LIMIT_CLASSES = Object.keys(DEFAULT_RATE_LIMITS) as RateLimitClass[];

export const SETTINGS: readonly Setting[] = [
  { path: "http.port", env: "PORT", kind: { type: "integer", min: 0, max: 65535 }, doc: "TCP port (0: any free port)" },
  { path: "http.host", env: "PORTCULLIS_HOST", kind: { type: "string" }, doc: "address to listen on" },
  { path: "http.keepAliveTimeoutMs", env: "PORTCULLIS_KEEP_ALIVE_TIMEOUT_MS", kind: atLeast(1), doc: "idle keep-alive connection lifetime" },
  { path: "http.headersTimeoutMs", env: "PORTCULLIS_HEADERS_TIMEOUT_MS", kind: atLeast(1), doc: "longest wait for complete request headers" },
  { path: "http.requestTimeoutMs", env: "PORTCULLIS_REQUEST_TIMEOUT_MS", kind: atLeast(1), doc: "longest wait for a complete request" },
  { path: "http.maxHeaderBytes", env: "PORTCULLIS_MAX_HEADER_BYTES", kind: { type: "integer", min: 1024 }, doc: "largest request head (431 beyond)" },
  { path: "http.bodyLimitBytes", env: "PORTCULLIS_BODY_LIMIT_BYTES", kind: atLeast(1), doc: "largest JSON body (413 beyond)" },
  { path: "http.shutdownGraceMs", env: "PORTCULLIS_SHUTDOWN_GRACE_MS", kind: atLeast(0), doc: "time requests in flight get on SIGINT/SIGTERM" },
  {
    path: "http.drainIdleGraceMs",
    env: "PORTCULLIS_DRAIN_IDLE_GRACE_MS",
    kind: atLeast(0),
    doc: "on SIGINT/SIGTERM, time idle keep-alive connections get for a last request",
  },
  { path: "http.idleTimeoutMs", env: "PORTCULLIS_IDLE_TIMEOUT_MS", kind: atLeast(1), doc: "a connection with no byte either way this long is closed" },
  { path: "http.maxConnections", env: "PORTCULLIS_MAX_CONNECTIONS", kind: atLeast(1), doc: "connections served at once (more are closed on arrival)" },
  {
    path: "http.maxHeadersCount",
    env: "PORTCULLIS_MAX_HEADERS_COUNT",
    kind: { type: "integer", min: 10, max: 2000 },
    doc: "header fields per request (431 when reached)",
  },
  { path: "http.maxRequestsPerSocket", env: "PORTCULLIS_MAX_REQUESTS_PER_SOCKET", kind: atLeast(1), doc: "requests per keep-alive connection" },
  {
    path: "http.trustedProxies",
    env: "PORTCULLIS_TRUSTED_PROXIES",
    kind: { type: "addresses" },
    doc: "proxies (IPs, CIDRs; comma-separated) whose forwarded client address is believed",
  },
  { path: "database.file", env: "PORTCULLIS_DB", kind: { type: "string" }, doc: "SQLite data file (created and seeded on first run)" },
  {
    path: "database.lockWaitMs",
    env: "PORTCULLIS_DB_LOCK_WAIT_MS",
    kind: atLeast(0),
    doc: "how long a write waits for another connection's lock before 503 database_busy",
  },
  {
    path: "database.url",
    env: "PORTCULLIS_DATABASE_URL",
    kind: { type: "service-url", schemes: ["postgres:", "postgresql:"] },
    doc: "PostgreSQL (postgres://, the service role) instead of the SQLite file; unset: SQLite",
  },
  {
    path: "database.poolMax",
    env: "PORTCULLIS_DATABASE_POOL_MAX",
    kind: { type: "integer", min: 1, max: 1000 },
    doc: "connections the PostgreSQL pool keeps at most",
  },
  {
    path: "database.connectTimeoutMs",
    env: "PORTCULLIS_DATABASE_CONNECT_TIMEOUT_MS",
    kind: { type: "integer", min: 1, max: 600_000 },
    doc: "PostgreSQL: the longest wait to connect or for a pooled connection, then 503 database_unavailable",
  },
  {
    path: "database.statementTimeoutMs",
    env: "PORTCULLIS_DATABASE_STATEMENT_TIMEOUT_MS",
    kind: { type: "integer", min: 1, max: 600_000 },
    doc: "PostgreSQL: the longest a statement runs (statement_timeout), then 503 database_unavailable",
  },
  {
    path: "redis.url",
    env: "PORTCULLIS_REDIS_URL",
    kind: { type: "service-url", schemes: ["redis:", "rediss:"] },
    doc: "Redis (redis://) for the rate-limit budgets shared by all instances; unset: in-process",
  },
  {
    path: "redis.onFailure",
    env: "PORTCULLIS_REDIS_ON_FAILURE",
    kind: { type: "choice", values: REDIS_FAILURE_STANCES },
    doc: "while Redis cannot count a hit: insurance (budgets counted per instance) or refuse (503)",
  },
  {
    path: "redis.commandTimeoutMs",
    env: "PORTCULLIS_REDIS_COMMAND_TIMEOUT_MS",
    kind: { type: "integer", min: 1, max: 60_000 },
    doc: "longest wait for one Redis command (then onFailure decides)",
  },
  {
    path: "redis.connectTimeoutMs",
    env: "PORTCULLIS_REDIS_CONNECT_TIMEOUT_MS",
    kind: { type: "integer", min: 1, max: 600_000 },
    doc: "longest wait for a Redis connection (at start: then the service does not start)",
  },
  { path: "redis.keyPrefix", env: "PORTCULLIS_REDIS_KEY_PREFIX", kind: { type: "string" }, doc: "namespace of the budgets' keys in Redis" },
  { path: "bundle.file", env: "PORTCULLIS_BUNDLE", kind: { type: "string" }, doc: "policy bundle file (reloaded when it changes)" },
  {
    path: "bundle.url",
    env: "PORTCULLIS_BUNDLE_URL",
    kind: { type: "url", secure: true },
    doc: "bundle server URL instead of a file (https, or http to a loopback host)",
  },
  { path: "bundle.watch", env: "PORTCULLIS_BUNDLE_WATCH", kind: { type: "boolean" }, doc: "watch the bundle file besides polling it" },
  {
    path: "bundle.pollIntervalMs",
    env: "PORTCULLIS_BUNDLE_POLL_INTERVAL_MS",
    kind: atLeast(1),
    doc: "bundle file poll interval; bundle server: longest wait between two polls (each a random wait from half of it)",
  },
  {
    path: "bundle.maxMemoryPages",
    env: "PORTCULLIS_BUNDLE_MAX_MEMORY_PAGES",
    kind: { type: "integer", min: 1, max: MAX_MEMORY_PAGES },
    doc: "most memory a bundle's policy may use, in 64 KiB pages (a bundle needing more is refused: memory_limit_exceeded)",
  },
  { path: "decisionLog.file", env: "PORTCULLIS_DECISIONS_DB", kind: { type: "string" }, doc: "decision log SQLite file" },
  { path: "decisionLog.batchSize", env: "PORTCULLIS_DECISION_LOG_BATCH_SIZE", kind: atLeast(1), doc: "events per write transaction" },
  {
    path: "decisionLog.flushIntervalMs",
    env: "PORTCULLIS_DECISION_LOG_FLUSH_INTERVAL_MS",
    kind: atLeast(1),
    doc: "longest wait of an event before its batch is written",
  },
  {
    path: "decisionLog.bufferLimit",
    env: "PORTCULLIS_DECISION_LOG_BUFFER_LIMIT",
    kind: atLeast(1),
    doc: "events held in memory while the disk fails (then the oldest are dropped and counted)",
  },
  {
    path: "decisionLog.maxBytes",
    env: "PORTCULLIS_DECISION_LOG_MAX_BYTES",
    kind: atLeast(4096),
    doc: "largest size of the decision log file (then it fails like a full disk)",
  },
  {
    path: "decisionLog.commitTimeoutMs",
    env: "PORTCULLIS_DECISION_LOG_COMMIT_TIMEOUT_MS",
    kind: atLeast(1),
    doc: "longest wait of a write for its decision's commit (then 503)",
  },
  {
    path: "decisionLog.onFailure",
    env: "PORTCULLIS_DECISION_LOG_ON_FAILURE",
    kind: { type: "choice", values: LOG_FAILURE_STANCES },
    doc: "while decisions cannot be stored: refuse-writes (503), refuse-all, or fail-open",
  },
  { path: "decisionLog.console", env: "PORTCULLIS_DECISION_LOG_CONSOLE", kind: { type: "boolean" }, doc: "also one JSON line per decision on stdout" },
  { path: "identity.issuer", env: "PORTCULLIS_JWT_ISSUER", kind: { type: "string" }, doc: "expected `iss`" },
  { path: "identity.audience", env: "PORTCULLIS_JWT_AUDIENCE", kind: { type: "string" }, doc: "expected `aud`" },
  {
    path: "identity.jwksUrl",
    env: "PORTCULLIS_JWKS_URL",
    kind: { type: "url", secure: true },
    doc: "the identity provider's key set (https); unset: the dev key",
  },
  { path: "identity.algorithms", env: "PORTCULLIS_JWT_ALGORITHMS", kind: { type: "algorithms" }, doc: "accepted signature algorithms (comma-separated)" },
  {
    path: "identity.clockToleranceSec",
    env: "PORTCULLIS_JWT_CLOCK_TOLERANCE_SEC",
    kind: { type: "integer", min: 0, max: 300 },
    doc: "allowed clock skew for exp/nbf",
  },
  {
    path: "identity.cacheTtlSec",
    env: "PORTCULLIS_JWT_CACHE_TTL_SEC",
    kind: { type: "integer", min: 0, max: 3600 },
    doc: "how long a verified token is remembered (0: never)",
  },
  { path: "identity.devKeyFile", env: "PORTCULLIS_DEV_KEY_FILE", kind: { type: "string" }, doc: "dev signing key (created on first run) when no JWKS is set" },
  ...RATE_LIMIT_CLASSES.flatMap((cls): Setting[] => [
    { path: `rateLimits.${cls}.limit`, env: `PORTCULLIS_RATE_LIMIT_${cls.toUpperCase()}_LIMIT`, kind: atLeast(1), doc: `requests per window, class ${cls}` },
    {
      path: `rateLimits.${cls}.windowSec`,
      env: `PORTCULLIS_RATE_LIMIT_${cls.toUpperCase()}_WINDOW_SEC`,
      kind: { type: "integer", min: 1, max: 86_400 },
      doc: `window length, class ${cls}`,
    },
  ]),
  { path: "enumeration.threshold", env: "PORTCULLIS_ENUMERATION_THRESHOLD", kind: atLeast(1), doc: "distinct unknown ids that report an enumeration" },
  { path: "enumeration.windowMs", env: "PORTCULLIS_ENUMERATION_WINDOW_MS", kind: atLeast(1), doc: "window of the enumeration count" },
  { path: "exports.maxRows", env: "PORTCULLIS_EXPORT_MAX_ROWS", kind: atLeast(1), doc: "most rows one export job may hold" },
  {
    path: "exports.leaseMs",
    env: "PORTCULLIS_EXPORT_LEASE_MS",
    kind: { type: "integer", min: 1000, max: MAX_LEASE_MS },
    doc: "lease an instance takes on the export job it runs (renewed while it works); a job whose instance died runs elsewhere once it expires",
  },
  {
    path: "exports.pollIntervalMs",
    env: "PORTCULLIS_EXPORT_POLL_INTERVAL_MS",
    kind: { type: "integer", min: 100, max: 3_600_000 },
    doc: "how often each instance looks for claimable export jobs (queued elsewhere, or left by a dead instance)",
  },
];

/** The variable naming the config file (the `--config` flag wins over it). */
export const CONFIG_FILE_ENV = "PORTCULLIS_CONFIG";
