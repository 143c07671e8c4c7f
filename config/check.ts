/**
 * Checks of single setting values, one per kind, each throwing ConfigError
 * with the setting's name. The configuration loader uses them on every
 * setting (config/load.ts), and constructors that take options directly use
 * them on theirs (createDecisionLog, rateLimit, createApp), so a value is
 * judged by the same rule whichever way it came in.
 *
 *   checkInteger(options.batchSize, "db.batchSize", { min: 1 });
 */
import * as net from "node:net";
import { ConfigError } from "./errors";

export type Kind =
  | { type: "integer"; min: number; max?: number }
  | { type: "boolean" }
  | { type: "string" }
  /** `secure`: https, or http to a loopback host only (keys and policies must not travel in clear text). */
  | { type: "url"; secure?: boolean }
  /**
   * A server's connection URL (postgres://, redis://), which may carry a
   * password: a message about it never repeats what was given.
   */
  | { type: "service-url"; schemes: readonly string[] }
  | { type: "addresses" }
  | { type: "algorithms" }
  /** One of a fixed list of words. */
  | { type: "choice"; values: readonly string[] };

/**
 * Asymmetric JWS algorithms only: `none` never, and HS* never (a shared
 * secret next to a public key set is the algorithm-confusion attack).
 */
export const JWT_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;

export function checkInteger(value: unknown, setting: string, range: { min: number; max?: number }, shown: unknown = value): number {
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (typeof value !== "number" || !Number.isInteger(value) || value < range.min || value > max) {
    const expected = range.max === undefined ? `an integer >= ${range.min}` : `an integer from ${range.min} to ${range.max}`;
    throw new ConfigError("CONFIG_INVALID_NUMBER", setting, `must be ${expected}, got ${describe(shown)}`);
  }
  return value;
}

/** Checks a value of the given kind (typed already: from a config file or code). */
export function checkValue(kind: Kind, value: unknown, setting: string): unknown {
  switch (kind.type) {
    case "integer":
      return checkInteger(value, setting, kind);
    case "boolean":
      if (typeof value !== "boolean") throw new ConfigError("CONFIG_INVALID_BOOLEAN", setting, `must be true or false, got ${describe(value)}`);
      return value;
    case "string":
      return checkString(value, setting);
    case "url":
      return checkUrl(checkString(value, setting), setting, kind.secure ?? false);
    case "service-url":
      return checkServiceUrl(checkString(value, setting), setting, kind.schemes);
    case "addresses":
      return checkList(value, setting).map((entry) => checkAddress(entry, setting));
    case "choice":
      if (typeof value !== "string" || !kind.values.includes(value)) {
        throw new ConfigError("CONFIG_INVALID_CHOICE", setting, `must be one of ${kind.values.join(", ")}, got ${describe(value)}`);
      }
      return value;
    case "algorithms": {
      const list = checkList(value, setting);
      if (list.length === 0) throw new ConfigError("CONFIG_MISSING", setting, "must list at least one signature algorithm");
      for (const alg of list) {
        if (!(JWT_ALGORITHMS as readonly string[]).includes(alg)) {
          throw new ConfigError("CONFIG_INVALID_ALGORITHM", setting, `${describe(alg)} is not one of ${JWT_ALGORITHMS.join(", ")} (never none, never HS*)`);
        }
      }
      return list;
    }
  }
}

/**
 * Reads a value of the given kind from text (an environment variable or a
 * command-line flag), strictly: "1e3", "0x10", " 5" and "" are not integers.
 */
export function fromText(kind: Kind, text: string, setting: string): unknown {
  switch (kind.type) {
    case "integer":
      return checkInteger(/^[0-9]{1,15}$/.test(text) ? Number(text) : NaN, setting, kind, text);
    case "boolean":
      if (text !== "true" && text !== "false") throw new ConfigError("CONFIG_INVALID_BOOLEAN", setting, `must be true or false, got ${describe(text)}`);
      return text === "true";
    case "addresses":
    case "algorithms":
      return checkValue(
        kind,
        text
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== ""),
        setting,
      );
    default:
      return checkValue(kind, text, setting);
  }
}

function checkString(value: unknown, setting: string): string {
  if (typeof value !== "string") throw new ConfigError("CONFIG_INVALID_TYPE", setting, `must be a string, got ${describe(value)}`);
  if (value.trim() === "") throw new ConfigError("CONFIG_MISSING", setting, "must not be empty");
  return value;
}

function checkList(value: unknown, setting: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new ConfigError("CONFIG_INVALID_TYPE", setting, `must be a list of strings, got ${describe(value)}`);
  }
  return value as string[];
}

function checkUrl(text: string, setting: string, secure: boolean): string {
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new ConfigError("CONFIG_INVALID_URL", setting, `must be an absolute http(s) URL, got ${describe(text)}`);
  }
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || url.hostname.startsWith("127.");
  if (secure && url.protocol === "http:" && !loopback) {
    throw new ConfigError("CONFIG_INVALID_URL", setting, "must be https (plain http only to a loopback host): what it fetches decides who gets in");
  }
  return text;
}

function checkServiceUrl(text: string, setting: string, schemes: readonly string[]): string {
  const url = URL.canParse(text) ? new URL(text) : null;
  const expected = schemes.map((s) => `${s}//`).join(" or ");
  // Only the scheme is ever shown: the rest may hold a password.
  if (!url) throw new ConfigError("CONFIG_INVALID_URL", setting, `must be a ${expected} URL (the value is not shown: it may hold a password)`);
  if (!schemes.includes(url.protocol)) throw new ConfigError("CONFIG_INVALID_URL", setting, `must be a ${expected} URL, got a ${url.protocol}// one`);
  if (url.hostname === "") throw new ConfigError("CONFIG_INVALID_URL", setting, `must name a host (${expected}user:password@host:port/...)`);
  return text;
}

/** The URL with its password replaced by `***`, for logs and messages. */
export function maskUrlPassword(text: string): string {
  if (!URL.canParse(text)) return "***";
  const url = new URL(text);
  if (url.password !== "") url.password = "***";
  return url.toString();
}

/** An IP address, or a CIDR block `address/prefix` (e.g. 10.0.0.0/8, fd00::/8). */
function checkAddress(entry: string, setting: string): string {
  const slash = entry.indexOf("/");
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const family = net.isIP(address);
  const prefix = slash === -1 ? null : entry.slice(slash + 1);
  const maxPrefix = family === 6 ? 128 : 32;
  if (family === 0 || (prefix !== null && !(/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix))) {
    throw new ConfigError("CONFIG_INVALID_ADDRESS", setting, `${describe(entry)} is not an IP address or CIDR block`);
  }
  return entry;
}

/** A value for a message: short, and never more than 40 characters of what was given. */
function describe(value: unknown): string {
  if (typeof value === "number") return String(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}
