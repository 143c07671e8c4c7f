/**
 * The engines the cluster suites share, from the project's own scripts
 * (scripts/services/): `make test` starts them before jest and stops them
 * after; run alone, a suite starts them itself (the scripts are idempotent:
 * a running server is reused and left running). A server that cannot start
 * FAILS the suite: a cluster nobody checked is not a cluster.
 *
 *   const nginx = nginxServer();
 *   const url = publishBundle(bytes, "my-suite.tar.gz");   // served at nginx.baseUrl + name
 *   const redisUrl = redisServer();                        // share it under a key prefix of your own
 *
 * PostgreSQL: test/db/contract/backends.ts (clonePgDatabase: a seeded database per suite).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
const NGINX = path.join(ROOT, "scripts/services/nginx.sh");
const REDIS = path.join(ROOT, "scripts/services/redis.sh");

/** `KEY=value` lines of an env file the service scripts write under var/. */
export function readEnvFile(file: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

let nginx: { baseUrl: string; dir: string } | undefined;

/** Starts (or finds running) the checkout's nginx bundle server. */
export function nginxServer(): { baseUrl: string; dir: string } {
  if (nginx) return nginx;
  execFileSync(NGINX, ["start"], { stdio: ["ignore", "ignore", "inherit"], timeout: 180_000 });
  const env = readEnvFile(path.join(ROOT, "var/nginx.env"));
  if (!env.NGINX_BUNDLE_BASE_URL || !env.NGINX_BUNDLE_DIR) throw new Error("var/nginx.env lacks the bundle server's URL or directory");
  nginx = { baseUrl: env.NGINX_BUNDLE_BASE_URL, dir: env.NGINX_BUNDLE_DIR };
  return nginx;
}

/** Publishes bundle bytes under `name` (nginx.sh publish: atomic, a new ETag each time); returns its URL. */
export function publishBundle(bytes: Buffer, name: string): string {
  nginxServer();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-publish-")), "bundle.tar.gz");
  fs.writeFileSync(file, bytes);
  try {
    return execFileSync(NGINX, ["publish", file, name], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/** Removes a published bundle (a suite cleans up after itself; the server stays). */
export function unpublishBundle(name: string): void {
  fs.rmSync(path.join(nginxServer().dir, name), { force: true });
}

let redisUrl: string | undefined;

/** Starts (or finds running) the checkout's Redis; its URL (with the password: never print it). */
export function redisServer(): string {
  if (redisUrl) return redisUrl;
  execFileSync(REDIS, ["start"], { stdio: ["ignore", "ignore", "inherit"], timeout: 180_000 });
  const url = readEnvFile(path.join(ROOT, "var/redis.env")).PORTCULLIS_REDIS_URL;
  if (!url) throw new Error("var/redis.env lacks PORTCULLIS_REDIS_URL");
  return (redisUrl = url);
}
