/**
 * The one error of a misconfiguration, whoever finds it: the configuration
 * loader (environment, config file, command line) or a constructor checking
 * the options it was handed (createService, createApp, createDecisionLog,
 * rateLimit). Callers branch on `code`, never on the message; `setting`
 * names what to fix (`PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT`,
 * `rateLimits.default.limit`, ...). The README's table says, per code, the
 * cause and the fix (config/README.md).
 *
 *   try { loadConfig({ env: process.env }) }
 *   catch (err) { if (err instanceof ConfigError && err.code === "CONFIG_INVALID_NUMBER") ... }
 */
export const CONFIG_ERROR_CODES = [
  /** The config file cannot be read (missing, a directory, no permission). */
  "CONFIG_FILE_UNREADABLE",
  /** The config file is not one JSON object. */
  "CONFIG_FILE_INVALID",
  /** A key in the config file, or a PORTCULLIS_* variable, that no setting has (a typo would otherwise be ignored). */
  "CONFIG_UNKNOWN_SETTING",
  /** A required setting is absent or empty. */
  "CONFIG_MISSING",
  /** Not an integer, or outside the setting's range (NaN, 0 where at least 1 is needed, "1e3", "10 "). */
  "CONFIG_INVALID_NUMBER",
  /** Not `true` or `false`. */
  "CONFIG_INVALID_BOOLEAN",
  /** Not a string where one is expected, or a list that is not a list of strings. */
  "CONFIG_INVALID_TYPE",
  /** Not an absolute http(s) URL. */
  "CONFIG_INVALID_URL",
  /** Not an IP address or CIDR block. */
  "CONFIG_INVALID_ADDRESS",
  /** A JWT algorithm that is not an asymmetric JWS algorithm (`none`, HS256, a typo). */
  "CONFIG_INVALID_ALGORITHM",
  /** Not one of the words a setting takes (decisionLog.onFailure). */
  "CONFIG_INVALID_CHOICE",
  /** Two settings contradict each other (a bundle file and a bundle URL, a minimum above its maximum). */
  "CONFIG_CONFLICT",
] as const;

export type ConfigErrorCode = (typeof CONFIG_ERROR_CODES)[number];

export class ConfigError extends Error {
  constructor(
    readonly code: ConfigErrorCode,
    /** The setting to fix, as the operator wrote it: an environment variable, a config-file path, a flag, or an option name. */
    readonly setting: string,
    message: string,
  ) {
    super(`${code}: ${setting}: ${message}`);
    this.name = "ConfigError";
  }
}
