/**
 * The configuration loader: defaults are today's behaviour; file < environment
 * < flags; every bad value is one ConfigError with a stable code naming the
 * variable, file key or flag to fix; config/README.md documents every
 * setting and every code.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DEFAULT_RATE_LIMITS } from "../../api/middleware/rate-limit";
import { CONFIG_ERROR_CODES, ConfigError, DEFAULTS, loadConfig, resolveConfig, SETTINGS, unknownVariables } from "../../config";
import { maskUrlPassword } from "../../config/check";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-config-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function configFile(content: unknown): string {
  const file = path.join(dir, "portcullis.json");
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

/** The ConfigError thrown, for assertions on code and setting. */
function refusal(load: () => unknown): { code: string; setting: string } {
  try {
    load();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const { code, setting } = err as ConfigError;
    return { code, setting };
  }
  throw new Error("no ConfigError thrown");
}

test("no settings: today's behaviour", () => {
  const config = loadConfig({ env: {} });
  expect(config).toEqual(DEFAULTS);
  expect(config.http).toMatchObject({
    port: 8080,
    host: "127.0.0.1",
    keepAliveTimeoutMs: 5000,
    bodyLimitBytes: 16 * 1024,
    shutdownGraceMs: 10_000,
    trustedProxies: [],
  });
  expect(config.rateLimits).toEqual(DEFAULT_RATE_LIMITS);
  expect(config.identity).toMatchObject({
    issuer: "urn:portcullis:dev",
    audience: "portcullis-api",
    algorithms: ["ES256"],
    clockToleranceSec: 30,
    cacheTtlSec: 60,
  });
  expect(config.decisionLog).toMatchObject({ file: "var/decisions.db", batchSize: 500, flushIntervalMs: 100, bufferLimit: 10_000, console: false });
});

test("every operator tunable is read from the environment", () => {
  const config = loadConfig({
    env: {
      PORT: "9090",
      PORTCULLIS_RATE_LIMIT_SENSITIVE_LIMIT: "10",
      PORTCULLIS_RATE_LIMIT_SENSITIVE_WINDOW_SEC: "30",
      PORTCULLIS_BODY_LIMIT_BYTES: "4096",
      PORTCULLIS_MAX_HEADER_BYTES: "8192",
      PORTCULLIS_HEADERS_TIMEOUT_MS: "10000",
      PORTCULLIS_REQUEST_TIMEOUT_MS: "30000",
      PORTCULLIS_DECISION_LOG_BATCH_SIZE: "50",
      PORTCULLIS_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.7,fd00::/8",
      PORTCULLIS_JWKS_URL: "https://idp.example/.well-known/jwks.json",
      PORTCULLIS_JWT_ISSUER: "https://idp.example",
    },
  });
  expect(config.http).toMatchObject({
    port: 9090,
    bodyLimitBytes: 4096,
    maxHeaderBytes: 8192,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    trustedProxies: ["10.0.0.0/8", "192.168.1.7", "fd00::/8"],
  });
  expect(config.rateLimits.sensitive).toEqual({ limit: 10, windowSec: 30 });
  expect(config.rateLimits.default).toEqual(DEFAULT_RATE_LIMITS.default);
  expect(config.decisionLog.batchSize).toBe(50);
  // A JWKS without an explicit list: the IdP's usual algorithms.
  expect(config.identity).toMatchObject({
    jwksUrl: "https://idp.example/.well-known/jwks.json",
    issuer: "https://idp.example",
    algorithms: ["RS256", "ES256"],
  });
});

test("file < environment < flags; an empty variable is an unset one", () => {
  const file = configFile({ http: { port: 7000, host: "0.0.0.0" }, rateLimits: { default: { limit: 100 } }, database: { file: "/data/p.db" } });
  const config = loadConfig({
    env: { PORT: "7001", PORTCULLIS_HOST: "", PORTCULLIS_CONFIG: "/nonexistent.json" },
    file,
    flags: [{ path: "database.file", flag: "--db", value: "/flag/p.db" }],
  });
  expect(config.http.port).toBe(7001);
  expect(config.http.host).toBe("0.0.0.0");
  expect(config.rateLimits.default).toEqual({ limit: 100, windowSec: 60 });
  expect(config.database.file).toBe("/flag/p.db");
  // PORTCULLIS_CONFIG names the file when no --config is given.
  expect(loadConfig({ env: { PORTCULLIS_CONFIG: file } }).http.port).toBe(7000);
});

test("the fail-open and hang values of the issue are refused, named by the variable to fix", () => {
  expect(refusal(() => loadConfig({ env: { PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT: "NaN" } }))).toEqual({
    code: "CONFIG_INVALID_NUMBER",
    setting: "PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT",
  });
  expect(refusal(() => loadConfig({ env: { PORTCULLIS_DECISION_LOG_BATCH_SIZE: "0" } }))).toEqual({
    code: "CONFIG_INVALID_NUMBER",
    setting: "PORTCULLIS_DECISION_LOG_BATCH_SIZE",
  });
  expect(refusal(() => resolveConfig({ rateLimits: { default: { limit: NaN } } }))).toEqual({
    code: "CONFIG_INVALID_NUMBER",
    setting: "rateLimits.default.limit",
  });
});

test.each([
  ["PORT", "80x"],
  ["PORT", "65536"],
  ["PORTCULLIS_BODY_LIMIT_BYTES", "1e3"],
  ["PORTCULLIS_BODY_LIMIT_BYTES", " 5"],
  ["PORTCULLIS_BODY_LIMIT_BYTES", "-1"],
  ["PORTCULLIS_KEEP_ALIVE_TIMEOUT_MS", "0x10"],
  ["PORTCULLIS_RATE_LIMIT_AUTHENTICATION_WINDOW_SEC", "0"],
  ["PORTCULLIS_JWT_CLOCK_TOLERANCE_SEC", "3601"],
])("numbers are read strictly: %s=%j", (name, value) => {
  expect(refusal(() => loadConfig({ env: { [name]: value } }))).toEqual({ code: "CONFIG_INVALID_NUMBER", setting: name });
});

test("every kind of bad value has its code", () => {
  const env = (vars: Record<string, string>) => () => loadConfig({ env: vars });
  expect(refusal(env({ PORTCULLIS_DECISION_LOG_CONSOLE: "yes" }))).toEqual({ code: "CONFIG_INVALID_BOOLEAN", setting: "PORTCULLIS_DECISION_LOG_CONSOLE" });
  expect(refusal(env({ PORTCULLIS_TRUSTED_PROXIES: "10.0.0.0/33" }))).toEqual({ code: "CONFIG_INVALID_ADDRESS", setting: "PORTCULLIS_TRUSTED_PROXIES" });
  expect(refusal(env({ PORTCULLIS_TRUSTED_PROXIES: "proxy.internal" }))).toEqual({ code: "CONFIG_INVALID_ADDRESS", setting: "PORTCULLIS_TRUSTED_PROXIES" });
  expect(refusal(env({ PORTCULLIS_JWT_ALGORITHMS: "HS256" }))).toEqual({ code: "CONFIG_INVALID_ALGORITHM", setting: "PORTCULLIS_JWT_ALGORITHMS" });
  expect(refusal(env({ PORTCULLIS_JWT_ALGORITHMS: "ES265" }))).toEqual({ code: "CONFIG_INVALID_ALGORITHM", setting: "PORTCULLIS_JWT_ALGORITHMS" });
  expect(refusal(env({ PORTCULLIS_JWT_ALGORITHMS: " , " }))).toEqual({ code: "CONFIG_MISSING", setting: "PORTCULLIS_JWT_ALGORITHMS" });
  expect(refusal(env({ PORTCULLIS_JWKS_URL: "not a url" }))).toEqual({ code: "CONFIG_INVALID_URL", setting: "PORTCULLIS_JWKS_URL" });
  // Keys and policies decide who gets in: never fetched in clear text, except from this host.
  expect(refusal(env({ PORTCULLIS_JWKS_URL: "http://idp.example/jwks" }))).toEqual({ code: "CONFIG_INVALID_URL", setting: "PORTCULLIS_JWKS_URL" });
  expect(refusal(env({ PORTCULLIS_BUNDLE_URL: "http://bundles.example/b.tar.gz" }))).toEqual({ code: "CONFIG_INVALID_URL", setting: "PORTCULLIS_BUNDLE_URL" });
  expect(loadConfig({ env: { PORTCULLIS_JWKS_URL: "http://127.0.0.1:9000/jwks" } }).identity.jwksUrl).toBe("http://127.0.0.1:9000/jwks");
  expect(refusal(env({ PORTCULLIS_BUNDLE: "b.tar.gz", PORTCULLIS_BUNDLE_URL: "https://bundles.example/b.tar.gz" }))).toEqual({
    code: "CONFIG_CONFLICT",
    setting: "PORTCULLIS_BUNDLE and PORTCULLIS_BUNDLE_URL",
  });
  expect(refusal(env({ PORTCULLIS_HEADERS_TIMEOUT_MS: "20000", PORTCULLIS_REQUEST_TIMEOUT_MS: "10000" }))).toEqual({
    code: "CONFIG_CONFLICT",
    setting: "PORTCULLIS_HEADERS_TIMEOUT_MS and PORTCULLIS_REQUEST_TIMEOUT_MS",
  });
});

test("the decision log's stance and bounds: defaults, read from the environment, refused when malformed", () => {
  expect(loadConfig({ env: {} }).decisionLog).toEqual(expect.objectContaining({ onFailure: "refuse-writes", bufferLimit: 10_000, commitTimeoutMs: 5000 }));
  expect(loadConfig({ env: {} }).decisionLog.maxBytes).toBeUndefined();
  const set = loadConfig({
    env: { PORTCULLIS_DECISION_LOG_ON_FAILURE: "refuse-all", PORTCULLIS_DECISION_LOG_MAX_BYTES: "2097152", PORTCULLIS_DECISION_LOG_COMMIT_TIMEOUT_MS: "800" },
  });
  expect(set.decisionLog).toEqual(expect.objectContaining({ onFailure: "refuse-all", maxBytes: 2_097_152, commitTimeoutMs: 800 }));
  const env = (vars: Record<string, string>) => () => loadConfig({ env: vars });
  expect(refusal(env({ PORTCULLIS_DECISION_LOG_ON_FAILURE: "ignore" }))).toEqual({
    code: "CONFIG_INVALID_CHOICE",
    setting: "PORTCULLIS_DECISION_LOG_ON_FAILURE",
  });
  expect(refusal(env({ PORTCULLIS_DECISION_LOG_MAX_BYTES: "100" }))).toEqual({ code: "CONFIG_INVALID_NUMBER", setting: "PORTCULLIS_DECISION_LOG_MAX_BYTES" });
  expect(refusal(env({ PORTCULLIS_DECISION_LOG_COMMIT_TIMEOUT_MS: "0" }))).toEqual({
    code: "CONFIG_INVALID_NUMBER",
    setting: "PORTCULLIS_DECISION_LOG_COMMIT_TIMEOUT_MS",
  });
});

test("the config file: unreadable, not JSON, unknown keys and wrong types are refused", () => {
  expect(refusal(() => loadConfig({ env: {}, file: path.join(dir, "missing.json") }))).toEqual({
    code: "CONFIG_FILE_UNREADABLE",
    setting: path.join(dir, "missing.json"),
  });
  const broken = configFile("{ port: 1 }");
  expect(refusal(() => loadConfig({ env: {}, file: broken }))).toEqual({ code: "CONFIG_FILE_INVALID", setting: broken });
  expect(refusal(() => loadConfig({ env: {}, file: configFile([1]) }))).toMatchObject({ code: "CONFIG_FILE_INVALID" });
  const typo = configFile({ rateLimits: { defualt: { limit: 5 } } });
  expect(refusal(() => loadConfig({ env: {}, file: typo }))).toEqual({ code: "CONFIG_UNKNOWN_SETTING", setting: `rateLimits.defualt (in ${typo})` });
  const proto = configFile('{"__proto__": {"http": {"port": 1}}}');
  expect(refusal(() => loadConfig({ env: {}, file: proto }))).toMatchObject({ code: "CONFIG_UNKNOWN_SETTING" });
  const quoted = configFile({ http: { port: "8080" } });
  expect(refusal(() => loadConfig({ env: {}, file: quoted }))).toEqual({ code: "CONFIG_INVALID_NUMBER", setting: `http.port (in ${quoted})` });
  const list = configFile({ http: { trustedProxies: "10.0.0.1" } });
  expect(refusal(() => loadConfig({ env: {}, file: list }))).toMatchObject({ code: "CONFIG_INVALID_TYPE" });
  expect(refusal(() => resolveConfig({ http: "fast" } as never))).toEqual({ code: "CONFIG_INVALID_TYPE", setting: "http" });
});

test("unknown PORTCULLIS_* variables are reported, not fatal (platforms set their own)", () => {
  const env = { PORTCULLIS_RATE_LIMIT_DEFUALT_LIMIT: "5", PORTCULLIS_SERVICE_HOST: "10.0.0.1", PORTCULLIS_JWT_ISSUER: "x", HOME: "/root" };
  expect(unknownVariables(env)).toEqual(["PORTCULLIS_RATE_LIMIT_DEFUALT_LIMIT", "PORTCULLIS_SERVICE_HOST"]);
  expect(() => loadConfig({ env })).not.toThrow();
});

test("a resolved configuration resolves to itself (createService re-checks what loadConfig gave it)", () => {
  const config = loadConfig({ env: { PORTCULLIS_BUNDLE_URL: "https://bundles.example/b.tar.gz", PORTCULLIS_JWKS_URL: "https://idp.example/jwks" } });
  expect(config.bundle.file).toBeUndefined();
  expect(resolveConfig(config)).toEqual(config);
});

test("config/README.md documents every setting and every error code", () => {
  const readme = fs.readFileSync(path.join(__dirname, "../../config/README.md"), "utf8");
  for (const setting of SETTINGS) {
    expect(readme).toContain(`\`${setting.env}\``);
    expect(readme).toContain(`\`${setting.path}\``);
  }
  for (const code of CONFIG_ERROR_CODES) expect(readme).toContain(`\`${code}\``);
});

test("the scale-out stores: PostgreSQL and Redis URLs, checked without ever repeating their passwords", () => {
  const defaults = loadConfig({ env: {} });
  expect(defaults.database.url).toBeUndefined();
  expect(defaults.redis.url).toBeUndefined();
  const set = loadConfig({
    env: {
      PORTCULLIS_DATABASE_URL: "postgres://portcullis_app:s3cret@127.0.0.1:5432/portcullis",
      PORTCULLIS_REDIS_URL: "redis://:s3cret@127.0.0.1:6379/0",
      PORTCULLIS_DATABASE_POOL_MAX: "4",
    },
  });
  expect(set.database).toEqual(expect.objectContaining({ url: "postgres://portcullis_app:s3cret@127.0.0.1:5432/portcullis", poolMax: 4 }));
  expect(set.redis.url).toBe("redis://:s3cret@127.0.0.1:6379/0");
  const refused = (vars: Record<string, string>): ConfigError => {
    try {
      loadConfig({ env: vars });
    } catch (err) {
      return err as ConfigError;
    }
    throw new Error("not refused");
  };
  for (const [name, value] of [
    ["PORTCULLIS_DATABASE_URL", "mysql://u:s3cret@db.internal/portcullis"],
    ["PORTCULLIS_DATABASE_URL", "postgres//u:s3cret@db.internal"],
    ["PORTCULLIS_REDIS_URL", "http://u:s3cret@cache.internal"],
  ]) {
    const err = refused({ [name]: value });
    expect({ code: err.code, setting: err.setting }).toEqual({ code: "CONFIG_INVALID_URL", setting: name });
    expect(err.message).not.toContain("s3cret");
  }
  expect(maskUrlPassword("postgres://portcullis_app:s3cret@127.0.0.1:5432/portcullis")).toBe("postgres://portcullis_app:***@127.0.0.1:5432/portcullis");
});

test("Redis' stance and bounds: insurance, 250 ms per command, 5 s to connect by default; anything else named", () => {
  expect(loadConfig({ env: {} }).redis).toEqual({ onFailure: "insurance", commandTimeoutMs: 250, connectTimeoutMs: 5000, keyPrefix: "portcullis:rl" });
  const set = loadConfig({
    env: {
      PORTCULLIS_REDIS_ON_FAILURE: "refuse",
      PORTCULLIS_REDIS_COMMAND_TIMEOUT_MS: "50",
      PORTCULLIS_REDIS_CONNECT_TIMEOUT_MS: "1000",
      PORTCULLIS_REDIS_KEY_PREFIX: "staging:rl",
    },
  });
  expect(set.redis).toEqual({ onFailure: "refuse", commandTimeoutMs: 50, connectTimeoutMs: 1000, keyPrefix: "staging:rl" });
  for (const [name, value, code] of [
    ["PORTCULLIS_REDIS_ON_FAILURE", "fail-open", "CONFIG_INVALID_CHOICE"],
    ["PORTCULLIS_REDIS_COMMAND_TIMEOUT_MS", "0", "CONFIG_INVALID_NUMBER"],
    ["PORTCULLIS_REDIS_CONNECT_TIMEOUT_MS", "5s", "CONFIG_INVALID_NUMBER"],
  ]) {
    expect(() => loadConfig({ env: { [name]: value } })).toThrow(expect.objectContaining({ code, setting: name }));
  }
  // An empty prefix would put the budgets among other applications' keys.
  expect(() => resolveConfig({ redis: { keyPrefix: "" } })).toThrow(expect.objectContaining({ code: "CONFIG_MISSING", setting: "redis.keyPrefix" }));
});
