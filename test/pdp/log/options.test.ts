/**
 * createDecisionLog checks its options once, before any thread or file is
 * started, with the configuration's own rules and error (ConfigError,
 * config/check.ts): the same answer on both pipelines. Before, a SQLite
 * size cap of 0 was accepted by the worker pipeline, whose worker then
 * failed to open its sink, and close() waited forever; a bad remote setting
 * threw an error of another kind (log_config_invalid) than a bad batch.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createDecisionLog, openDecisionLog, type DecisionLogOptions } from "../../../pdp/log";
import { ConfigError, type ConfigErrorCode } from "../../../config/errors";
import { PIPELINES, tempDir } from "./fixtures";

function refusal(code: ConfigErrorCode, setting: string) {
  return expect.objectContaining({ name: "ConfigError", code, setting });
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** Options naming the store file `file`, each with what refuses it. */
const INVALID: Array<[string, (file: string) => DecisionLogOptions, ConfigErrorCode, string]> = [
  ["a size cap of 0", (file) => ({ db: { file, maxBytes: 0 } }), "CONFIG_INVALID_NUMBER", "db.maxBytes"],
  ["a fractional size cap", (file) => ({ db: { file, maxBytes: 1.5 } }), "CONFIG_INVALID_NUMBER", "db.maxBytes"],
  ["a batch of 0", (file) => ({ db: { file, batchSize: 0 } }), "CONFIG_INVALID_NUMBER", "db.batchSize"],
  ["an empty file name", () => ({ db: { file: "" } }), "CONFIG_MISSING", "db.file"],
  ["a commit timeout of 0", (file) => ({ db: file, commitTimeoutMs: 0 }), "CONFIG_INVALID_NUMBER", "commitTimeoutMs"],
  ["a NaN commit timeout", (file) => ({ db: file, commitTimeoutMs: NaN }), "CONFIG_INVALID_NUMBER", "commitTimeoutMs"],
  ["a remote that is not http(s)", (file) => ({ db: file, remote: { url: "ftp://127.0.0.1" } }), "CONFIG_INVALID_URL", "remote.url"],
  ["a remote that is not a URL", (file) => ({ db: file, remote: { url: "not a url" } }), "CONFIG_INVALID_URL", "remote.url"],
  ["a resource that breaks the URL", (file) => ({ db: file, remote: { url: "http://127.0.0.1", resource: "[logs" } }), "CONFIG_INVALID_URL", "remote.resource"],
  [
    "a remote buffer of 0",
    (file) => ({ db: file, remote: { url: "http://127.0.0.1", bufferSizeLimitEvents: 0 } }),
    "CONFIG_INVALID_NUMBER",
    "remote.bufferSizeLimitEvents",
  ],
  [
    "an upload limit below 64 bytes",
    (file) => ({ db: file, remote: { url: "http://127.0.0.1", uploadSizeLimitBytes: 10 } }),
    "CONFIG_INVALID_NUMBER",
    "remote.uploadSizeLimitBytes",
  ],
  ["no flush attempt", (file) => ({ db: file, remote: { url: "http://127.0.0.1", flushMaxAttempts: 0 } }), "CONFIG_INVALID_NUMBER", "remote.flushMaxAttempts"],
  ["a negative upload timeout", (file) => ({ db: file, remote: { url: "http://127.0.0.1", timeoutMs: -1 } }), "CONFIG_INVALID_NUMBER", "remote.timeoutMs"],
  ["a NaN upload delay", (file) => ({ db: file, remote: { url: "http://127.0.0.1", minDelayMs: NaN } }), "CONFIG_INVALID_NUMBER", "remote.minDelayMs"],
  [
    "an unknown trigger",
    (file) => ({ db: file, remote: { url: "http://127.0.0.1", trigger: "sometimes" as "immediate" } }),
    "CONFIG_INVALID_CHOICE",
    "remote.trigger",
  ],
  ["two stores", (file) => ({ db: file, postgres: { url: "postgres://127.0.0.1/portcullis" } }), "CONFIG_CONFLICT", "postgres"],
];

describe.each(PIPELINES)("$name", ({ worker }) => {
  let file = "";
  beforeEach(() => {
    file = path.join(tempDir(), "decisions.db");
  });
  const refused = (options: DecisionLogOptions) => thrownBy(() => createDecisionLog({ ...options, worker }));

  test.each(INVALID)("%s is refused", (_what, options, code, setting) => {
    const err = refused(options(file));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toEqual(refusal(code, setting));
    // Refused before anything started: no store file was created.
    expect(fs.existsSync(file)).toBe(false);
  });

  test("a remote URL's credentials are not repeated in the refusal", () => {
    const err = refused({ remote: { url: "ftp://user:s3cret@logs.example" } }) as Error;
    expect(err).toEqual(refusal("CONFIG_INVALID_URL", "remote.url"));
    expect(err.message).not.toContain("s3cret");
  });

  test("openDecisionLog refuses both stores at once, before connecting", async () => {
    await expect(openDecisionLog({ db: file, postgres: { url: "postgres://127.0.0.1:1/none" }, worker })).rejects.toEqual(
      refusal("CONFIG_CONFLICT", "postgres"),
    );
  });
});
