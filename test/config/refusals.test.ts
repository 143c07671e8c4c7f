/**
 * Constructors check the options they are handed with the same rules and
 * the same ConfigError as the loader: the decision log's batching that
 * hung forever, the NaN rate limit that never answered 429, createApp's and
 * createService's options. And settings read from the environment reach the
 * running service; a bad one stops `portcullis serve` before it writes
 * anything.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import request from "supertest";
import { createApp } from "../../api/app";
import { MemoryRateLimitStore, rateLimit } from "../../api/middleware/rate-limit";
import { createService } from "../../api/service";
import { serveCommand } from "../../cli/serve";
import { ConfigError, loadConfig } from "../../config";
import { createDecisionLog } from "../../pdp/log";
import { expectProblem, policyBundle, startHarness } from "../api/harness";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-refusals-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const invalid = (code: string, setting: string) => expect.objectContaining({ name: "ConfigError", code, setting });

test("a decision log batch of 0 events (which never drained: flush and close waited forever) is refused", () => {
  const file = path.join(dir, "decisions.db");
  expect(() => createDecisionLog({ db: { file, batchSize: 0 } })).toThrow(invalid("CONFIG_INVALID_NUMBER", "db.batchSize"));
  expect(() => createDecisionLog({ db: { file, flushIntervalMs: NaN } })).toThrow(invalid("CONFIG_INVALID_NUMBER", "db.flushIntervalMs"));
  expect(() => createDecisionLog({ db: { file, bufferLimit: 1.5 }, worker: false })).toThrow(ConfigError);
  // Refused before anything was started: no decisions file.
  expect(fs.existsSync(file)).toBe(false);
});

test("a NaN rate limit (which failed open: count > NaN is never true) is refused at start", async () => {
  const nan = { limit: NaN, windowSec: 60 };
  expect(() => rateLimit({ default: nan, sensitive: nan, diagnostic: nan, authentication: nan }, new MemoryRateLimitStore())).toThrow(
    invalid("CONFIG_INVALID_NUMBER", "rateLimits.default.limit"),
  );
  await expect(startHarness({ rateLimits: { sensitive: nan } })).rejects.toThrow(invalid("CONFIG_INVALID_NUMBER", "rateLimits.sensitive.limit"));
});

test("createApp checks its dependencies and budgets", async () => {
  const h = await startHarness();
  try {
    expect(() => createApp({ ...h.deps, rateLimits: { ...h.deps.rateLimits, diagnostic: { limit: 10, windowSec: Infinity } } })).toThrow(
      invalid("CONFIG_INVALID_NUMBER", "deps.rateLimits.diagnostic.windowSec"),
    );
    const { authentication: _dropped, ...missingClass } = h.deps.rateLimits;
    expect(() => createApp({ ...h.deps, rateLimits: missingClass as typeof h.deps.rateLimits })).toThrow(
      invalid("CONFIG_MISSING", "deps.rateLimits.authentication"),
    );
    expect(() => createApp({ ...h.deps, bodyLimitBytes: 0 })).toThrow(invalid("CONFIG_INVALID_NUMBER", "deps.bodyLimitBytes"));
    expect(() => createApp({ ...h.deps, verifyToken: undefined as never })).toThrow(invalid("CONFIG_MISSING", "deps.verifyToken"));
    expect(() => createApp({ ...h.deps, enumeration: { threshold: 0, windowMs: 1000 } })).toThrow(
      invalid("CONFIG_INVALID_NUMBER", "deps.enumeration.threshold"),
    );
    expect(() => createApp({ ...h.deps, trustedProxies: ["10.0.0.300"] })).toThrow(invalid("CONFIG_INVALID_ADDRESS", "deps.trustedProxies"));
  } finally {
    await h.close();
  }
});

test("createService refuses an invalid configuration before opening anything", async () => {
  const file = path.join(dir, "p.db");
  await expect(createService({ database: { file }, http: { bodyLimitBytes: -1 } })).rejects.toThrow(invalid("CONFIG_INVALID_NUMBER", "http.bodyLimitBytes"));
  await expect(createService({ database: { file }, exports: { maxRow: 5 } } as never)).rejects.toThrow(invalid("CONFIG_UNKNOWN_SETTING", "exports.maxRow"));
  expect(fs.existsSync(file)).toBe(false);
});

test("budgets and the body limit set in the environment are what the service enforces", async () => {
  const bundle = path.join(dir, "bundle.tar.gz");
  fs.writeFileSync(bundle, policyBundle());
  const config = loadConfig({
    env: {
      PORTCULLIS_DB: path.join(dir, "p.db"),
      PORTCULLIS_BUNDLE: bundle,
      PORTCULLIS_BUNDLE_WATCH: "false",
      PORTCULLIS_DECISIONS_DB: path.join(dir, "decisions.db"),
      PORTCULLIS_DEV_KEY_FILE: path.join(dir, "key.json"),
      PORTCULLIS_RATE_LIMIT_DIAGNOSTIC_LIMIT: "2",
      PORTCULLIS_RATE_LIMIT_DIAGNOSTIC_WINDOW_SEC: "30",
      PORTCULLIS_BODY_LIMIT_BYTES: "64",
    },
  });
  const service = await createService(config, { logger: () => undefined, pdpLogger: () => undefined, decisionLogErrors: () => undefined });
  try {
    const first = await request(service.app).get("/health");
    expect(first.headers["ratelimit-policy"]).toBe('"diagnostic";q=2;w=30');
    await request(service.app).get("/health");
    expectProblem(await request(service.app).get("/health"), 429, "rate_limited");
    const big = await request(service.app)
      .patch("/api/v2/users/me")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ displayName: "x".repeat(100) }));
    expectProblem(big, 413, "payload_too_large");
  } finally {
    await service.close();
  }
});

test("serve refuses a bad variable before it writes anything", async () => {
  const cwd = process.cwd();
  const saved = process.env.PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT;
  process.chdir(dir);
  process.env.PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT = "six hundred";
  try {
    await expect(serveCommand(["--port", "0"])).rejects.toThrow(invalid("CONFIG_INVALID_NUMBER", "PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT"));
    delete process.env.PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT;
    await expect(serveCommand(["--port", "http"])).rejects.toThrow(invalid("CONFIG_INVALID_NUMBER", "--port"));
    await expect(serveCommand(["--config", "missing.json"])).rejects.toThrow(invalid("CONFIG_FILE_UNREADABLE", "missing.json"));
    expect(fs.readdirSync(dir)).toEqual([]);
  } finally {
    if (saved === undefined) delete process.env.PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT;
    else process.env.PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT = saved;
    process.chdir(cwd);
  }
});
