/**
 * The service's configuration: one typed Config, read from defaults, a JSON
 * config file, the environment and command-line flags, validated once at
 * start with one error class (ConfigError, stable codes). See README.md
 * beside this file for every setting and every code.
 *
 *   const config = loadConfig({ env: process.env });
 *   const service = await createService(config);
 */
export { checkInteger, checkValue, JWT_ALGORITHMS } from "./check";
export { CONFIG_ERROR_CODES, ConfigError, type ConfigErrorCode } from "./errors";
export { loadConfig, resolveConfig, unknownVariables, type ConfigSources } from "./load";
export {
  CONFIG_FILE_ENV,
  DEFAULT_BUNDLE_FILE,
  DEFAULTS,
  DEV_AUDIENCE,
  DEV_ISSUER,
  SETTINGS,
  type Config,
  type ConfigInput,
  type HttpConfig,
  type IdentityConfig,
  type Setting,
} from "./settings";
