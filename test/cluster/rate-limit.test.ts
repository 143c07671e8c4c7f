/**
 * Three real instances (`portcullis serve` child processes) with
 * PORTCULLIS_REDIS_URL set to the checkout's Redis (scripts/services/redis.sh)
 * spend ONE rate-limit budget: exactly the limit across the three, then 429
 * on every one. And an instance whose Redis cannot be reached does not
 * start, saying why without the password.
 *
 * The suite's keys live under a prefix of its own, so other suites and a
 * `make cluster` on the same Redis keep their budgets.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { mintDevToken } from "../../api/identity/mint";
import { DEV_AUDIENCE, DEV_ISSUER } from "../../config/settings";
import { policyBundle } from "../api/harness";
import { sharedRedis, uniquePrefix } from "../api/support/redis";
import { startInstances, stopInstances, type Instance } from "./support/instances";

jest.setTimeout(120_000);

const LIMIT = 5;
let dir: string;
let env: Record<string, string>;
let instances: Instance[] = [];
let token: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-cluster-rl-"));
  const bundle = path.join(dir, "bundle.tar.gz");
  fs.writeFileSync(bundle, policyBundle("rate-limit-cluster"));
  // One dev signing key for all (created here, before the instances could each create their own).
  const keyFile = path.join(dir, "dev-jwt-key.json");
  token = await mintDevToken({ subject: "u_alice", keyFile, issuer: DEV_ISSUER, audience: DEV_AUDIENCE, ttlSec: 600 });
  env = {
    PORTCULLIS_BUNDLE: bundle,
    PORTCULLIS_DEV_KEY_FILE: keyFile,
    PORTCULLIS_REDIS_URL: sharedRedis(),
    PORTCULLIS_REDIS_KEY_PREFIX: uniquePrefix("cluster"),
    PORTCULLIS_RATE_LIMIT_DEFAULT_LIMIT: String(LIMIT),
  };
  instances = await startInstances(3, {
    cwd: dir,
    env,
    args: (i) => ["--db", path.join(dir, `data-${i + 1}.db`), "--decisions", path.join(dir, `decisions-${i + 1}.db`)],
  });
});

afterAll(async () => {
  const codes = await stopInstances(instances);
  fs.rmSync(dir, { recursive: true, force: true });
  expect(codes).toEqual(instances.map(() => 0));
});

test("one budget across three instances: exactly the limit, then 429 on each", async () => {
  const answers: Array<{ instance: number; status: number; ratelimit: string | null }> = [];
  for (let i = 0; i < LIMIT + 3; i++) {
    const instance = i % 3;
    const res = await fetch(`${instances[instance].baseUrl}/users/me`, { headers: { Authorization: `Bearer ${token}` } });
    answers.push({ instance, status: res.status, ratelimit: res.headers.get("ratelimit")?.replace(/;t=\d+$/, "") ?? null });
  }
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  expect(answers.map((a) => a.ratelimit)).toEqual([
    '"default";r=4',
    '"default";r=3',
    '"default";r=2',
    '"default";r=1',
    '"default";r=0',
    '"default";r=0',
    '"default";r=0',
    '"default";r=0',
  ]);
  // The 429s came from all three instances.
  expect(new Set(answers.filter((a) => a.status === 429).map((a) => a.instance))).toEqual(new Set([0, 1, 2]));
});

test("an instance whose Redis cannot be reached does not start, and says why without the password", async () => {
  const refused = startInstances(1, {
    cwd: dir,
    env: { ...env, PORTCULLIS_REDIS_URL: "redis://default:s3cret-pw@127.0.0.1:1", PORTCULLIS_REDIS_CONNECT_TIMEOUT_MS: "2000" },
    args: () => ["--db", path.join(dir, "data-x.db"), "--decisions", path.join(dir, "decisions-x.db")],
  });
  const err = (await refused.catch((e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(Error);
  expect(err.message).toMatch(/Redis \(redis\.url\) cannot be reached at start/);
  expect(err.message).not.toContain("s3cret-pw");
});
