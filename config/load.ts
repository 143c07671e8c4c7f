/**
 * Reading the configuration, validated once, before anything starts:
 *
 *   defaults  <  config file (--config FILE or PORTCULLIS_CONFIG, JSON)
 *             <  environment (PORT, PORTCULLIS_*)  <  command-line flags
 *
 *   const config = loadConfig({ env: process.env, flags: [{ path: "http.port", flag: "--port", value: "0" }] });
 *   const config = resolveConfig({ database: { file: "/tmp/x.db" } });   // in code: the rest from the defaults
 *
 * Any bad value throws ConfigError naming the variable, file key or flag to
 * fix; an unknown key in the file or in code is an error too (a typo would
 * silently keep a default). Unknown PORTCULLIS_* variables are only
 * reported (unknownVariables): platforms set some of their own (Kubernetes
 * sets PORTCULLIS_SERVICE_HOST for a service named portcullis).
 */
import * as fs from "node:fs";
import { checkValue, fromText } from "./check";
import { ConfigError } from "./errors";
import { CONFIG_FILE_ENV, DEFAULTS, SETTINGS, type Config, type ConfigInput, type Setting } from "./settings";

export interface ConfigSources {
  env: NodeJS.ProcessEnv;
  /** The config file; default: the file PORTCULLIS_CONFIG names, if any. */
  file?: string;
  /** Command-line values, read like environment variables. */
  flags?: Array<{ path: string; flag: string; value: string }>;
}

/** A checked value and the name the operator gave it (for messages). */
type Given = Map<string, { value: unknown; name: string }>;

const BY_PATH = new Map(SETTINGS.map((s) => [s.path, s]));
const KNOWN_ENV = new Set([CONFIG_FILE_ENV, ...SETTINGS.map((s) => s.env)]);

export function loadConfig(sources: ConfigSources): Config {
  const given: Given = new Map();
  const file = sources.file ?? (sources.env[CONFIG_FILE_ENV] || undefined);
  if (file !== undefined) readObject(readFile(file), (path) => `${path} (in ${file})`, given);
  for (const setting of SETTINGS) {
    const text = sources.env[setting.env];
    // An empty variable is an unset one (`PORTCULLIS_X=` in a compose file).
    if (text !== undefined && text !== "") given.set(setting.path, { value: fromText(setting.kind, text, setting.env), name: setting.env });
  }
  for (const { path, flag, value } of sources.flags ?? []) {
    given.set(path, { value: fromText(settingAt(path, flag).kind, value, flag), name: flag });
  }
  return assemble(given);
}

/** A configuration given in code (tests, tools): checked by the same rules; what is absent is the default. */
export function resolveConfig(input: ConfigInput): Config {
  const given: Given = new Map();
  readObject(input, (path) => path, given);
  return assemble(given);
}

/** PORTCULLIS_* variables no setting reads: logged at start-up (likely typos). */
export function unknownVariables(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith("PORTCULLIS_") && !KNOWN_ENV.has(name))
    .sort();
}

function readFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError("CONFIG_FILE_UNREADABLE", file, (err as NodeJS.ErrnoException).code ?? "cannot be read");
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError("CONFIG_FILE_INVALID", file, `not JSON: ${(err as Error).message}`);
  }
}

/** Walks a nested object: every leaf must be a setting (undefined leaves are absent ones). */
function readObject(input: unknown, nameOf: (path: string) => string, given: Given, at = ""): void {
  if (!isPlainObject(input)) throw new ConfigError(at ? "CONFIG_INVALID_TYPE" : "CONFIG_FILE_INVALID", nameOf(at || "(top level)"), "must be an object");
  for (const [key, value] of Object.entries(input)) {
    const path = at ? `${at}.${key}` : key;
    if (value === undefined) continue;
    const setting = BY_PATH.get(path);
    if (setting) given.set(path, { value: checkValue(setting.kind, value, nameOf(path)), name: nameOf(path) });
    else if (SETTINGS.some((s) => s.path.startsWith(`${path}.`))) readObject(value, nameOf, given, path);
    else throw new ConfigError("CONFIG_UNKNOWN_SETTING", nameOf(path), "no such setting (config/README.md lists them)");
  }
}

function settingAt(path: string, name: string): Setting {
  const setting = BY_PATH.get(path);
  if (!setting) throw new ConfigError("CONFIG_UNKNOWN_SETTING", name, `no setting ${path}`);
  return setting;
}

/** The defaults, overlaid with what was given, then the checks that involve several settings. */
function assemble(given: Given): Config {
  const config = structuredClone(DEFAULTS) as Config;
  for (const [path, { value }] of given) setAt(config, path, value);
  const bundleFile = given.get("bundle.file");
  const bundleUrl = given.get("bundle.url");
  if (bundleUrl && bundleFile)
    throw new ConfigError("CONFIG_CONFLICT", `${bundleFile.name} and ${bundleUrl.name}`, "give a bundle file or a bundle URL, not both");
  if (bundleUrl) delete config.bundle.file;
  if (config.identity.jwksUrl !== undefined && !given.has("identity.algorithms")) config.identity.algorithms = ["RS256", "ES256"];
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    const names = ["http.headersTimeoutMs", "http.requestTimeoutMs"].map((p) => given.get(p)?.name ?? p);
    throw new ConfigError("CONFIG_CONFLICT", names.join(" and "), "the headers timeout must not exceed the request timeout");
  }
  return config;
}

function setAt(target: object, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
