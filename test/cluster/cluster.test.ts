/**
 * Three real instances (`portcullis serve` child processes) behind one
 * bundle server (the checkout's nginx, scripts/services/nginx.sh):
 *
 * - the bundle server speaks the bundle protocol: an ETag, and 304 to
 *   If-None-Match while the bundle is unchanged;
 * - one policy for all: a bundle published to nginx reaches every instance
 *   within the poll interval (polled for with a deadline, never timed), and
 *   every decision names the revision that made it.
 *
 * Each instance keeps its own SQLite files here; the suite publishes its
 * bundles under names of its own, so a `make cluster` running from the
 * same checkout is not disturbed.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../cli";
import { DEV_AUDIENCE, DEV_ISSUER } from "../../config/settings";
import { mintDevToken } from "../../api/identity/mint";
import { policyBundle } from "../api/harness";
import { eventually, startInstances, stopInstances, type Instance } from "./support/instances";
import { publishBundle, unpublishBundle } from "./support/services";

jest.setTimeout(120_000);

const POLL_INTERVAL_MS = 500;
/** Generous for a loaded 2-CPU machine; the poll interval is what a healthy cluster needs. */
const DEADLINE_MS = 30_000;

const name = `cluster-test-${randomBytes(6).toString("hex")}.tar.gz`;
let dir: string;
let bundleUrl: string;
let instances: Instance[] = [];
let token: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-cluster-"));
  bundleUrl = publishBundle(policyBundle("rev-one"), name);
  // One dev signing key for all (created here, before the instances could each create their own).
  const keyFile = path.join(dir, "dev-jwt-key.json");
  token = await mintDevToken({ subject: "u_alice", keyFile, issuer: DEV_ISSUER, audience: DEV_AUDIENCE, ttlSec: 600 });
  instances = await startInstances(3, {
    cwd: dir,
    env: { PORTCULLIS_BUNDLE_URL: bundleUrl, PORTCULLIS_BUNDLE_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS), PORTCULLIS_DEV_KEY_FILE: keyFile },
    args: (i) => ["--db", path.join(dir, `data-${i + 1}.db`), "--decisions", path.join(dir, `decisions-${i + 1}.db`)],
  });
});

afterAll(async () => {
  const codes = await stopInstances(instances);
  unpublishBundle(name);
  fs.rmSync(dir, { recursive: true, force: true });
  // Every instance shut down cleanly: its decisions were all written.
  expect(codes).toEqual(instances.map(() => 0));
});

async function revisionOf(instance: Instance): Promise<string | null> {
  const res = await fetch(`${instance.baseUrl}/health`);
  return ((await res.json()) as { revision: string | null }).revision;
}

/** `portcullis decisions --db FILE --id ID --json`: the entry, as an auditor gets it. */
async function decisionOnRecord(file: string, id: string): Promise<Record<string, unknown> | undefined> {
  const out: string[] = [];
  const log = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  try {
    expect(await main(["decisions", "--db", file, "--id", id, "--json"])).toBe(0);
  } finally {
    log.mockRestore();
  }
  return out.length === 1 ? (JSON.parse(out[0]) as Record<string, unknown>) : undefined;
}

test("the bundle server answers with an ETag, and 304 to If-None-Match while the bundle is unchanged", async () => {
  const first = await fetch(bundleUrl);
  expect(first.status).toBe(200);
  const etag = first.headers.get("etag");
  expect(etag).toMatch(/^"[^"]+"$/);
  expect(Buffer.from(await first.arrayBuffer()).equals(policyBundle("rev-one"))).toBe(true);
  const again = await fetch(bundleUrl, { headers: { "if-none-match": etag! } });
  expect(again.status).toBe(304);
  // Only reads: the bundle server takes no uploads.
  expect((await fetch(bundleUrl, { method: "PUT", body: "x" })).status).toBe(403);
});

test("a bundle published to the server reaches every instance, and their decisions name its revision", async () => {
  for (const instance of instances) expect(await revisionOf(instance)).toBe("rev-one");

  publishBundle(policyBundle("rev-two"), name);
  await Promise.all(
    instances.map((instance, i) =>
      eventually(`instance ${i + 1} runs rev-two`, DEADLINE_MS, async () => ((await revisionOf(instance)) === "rev-two" ? true : undefined)),
    ),
  );

  for (const [i, instance] of instances.entries()) {
    const res = await fetch(`${instance.baseUrl}/invoices/inv_alice_1`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const id = res.headers.get("decision-id")!;
    // The decision log writes in batches: the entry is there once its batch is.
    const entry = await eventually(`decision ${id} on instance ${i + 1}'s record`, DEADLINE_MS, () => decisionOnRecord(path.join(dir, `decisions-${i + 1}.db`), id));
    expect(entry.bundles).toEqual({ portcullis: { revision: "rev-two" } });
  }
});
