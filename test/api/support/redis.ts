/**
 * Real Redis servers for the rate-limit suites.
 *
 * - sharedRedis(): the checkout's private server (scripts/services/redis.sh;
 *   `make test` starts it before jest and stops it after; run alone, the
 *   suite starts it itself and leaves it running). Suites share it, so each
 *   test gives its services a key prefix of its own (uniquePrefix()).
 * - startPrivateRedis(): a server of the test's own (redis-server from
 *   Debian's package, a temp directory, a random password, persistence off)
 *   that the test may stop, restart on the same port with the same
 *   password, pause (SIGSTOP: a server that accepts but never answers) and
 *   resume, without touching anybody else's budgets.
 *
 * If Redis cannot start, the suite FAILS: a shared budget nobody checked is
 * not kept.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { Redis } from "ioredis";

const ROOT = path.resolve(__dirname, "../../..");

let sharedUrl: string | undefined;

/** The URL of the checkout's Redis (started when not running). */
export function sharedRedis(): string {
  if (sharedUrl) return sharedUrl;
  execFileSync(path.join(ROOT, "scripts/services/redis.sh"), ["start"], { stdio: ["ignore", "ignore", "inherit"], timeout: 180_000 });
  const line = fs
    .readFileSync(path.join(ROOT, "var/redis.env"), "utf8")
    .split("\n")
    .find((l) => l.startsWith("PORTCULLIS_REDIS_URL="));
  if (!line) throw new Error("var/redis.env holds no PORTCULLIS_REDIS_URL");
  sharedUrl = line.slice("PORTCULLIS_REDIS_URL=".length);
  return sharedUrl;
}

/** A key prefix no other test uses, so tests sharing one Redis never share a budget. */
export function uniquePrefix(name: string): string {
  return `portcullis-test:${name}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

/** The keys under a prefix (SCAN, not KEYS: the shared server may hold many). */
export async function keysUnder(url: string, prefix: string): Promise<string[]> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== "0");
    return keys.sort();
  } finally {
    client.disconnect();
  }
}

export interface PrivateRedis {
  url: string;
  /** Shuts the server down (SIGTERM); its keys are gone (no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same password. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  execFileSync(path.join(ROOT, "scripts/services/install.sh"), { stdio: ["ignore", "ignore", "inherit"], timeout: 600_000 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-redis-test-"));
  const port = await freePort();
  const password = randomBytes(16).toString("hex");
  const conf = path.join(dir, "redis.conf");
  fs.writeFileSync(
    conf,
    [`bind 127.0.0.1`, `port ${port}`, `requirepass ${password}`, `dir ${dir}`, `save ""`, `appendonly no`, `logfile ${path.join(dir, "server.log")}`, ""].join(
      "\n",
    ),
    { mode: 0o600 },
  );
  const url = `redis://default:${password}@127.0.0.1:${port}`;
  let server: ChildProcess | undefined;

  const start = async () => {
    const child = spawn("redis-server", [conf], { stdio: "ignore" });
    server = child;
    await answers(url, () => child.exitCode === null && child.signalCode === null);
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode}); see ${dir}/server.log`);
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGCONT");
    child.kill("SIGTERM");
    await exited;
  };
  await start();
  return {
    url,
    start,
    stop,
    pause: () => void server?.kill("SIGSTOP"),
    resume: () => void server?.kill("SIGCONT"),
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the server answers PING with the password (retries while it starts), or once it is no longer alive. */
async function answers(url: string, alive: () => boolean): Promise<void> {
  while (alive()) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on("error", () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === "PONG") return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}
