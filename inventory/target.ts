/**
 * The service the inventory probes: a running one (`--base-url`), or the
 * real app started in process on an ephemeral 127.0.0.1 port with its own
 * temp SQLite file, the real policy bundle (var/bundle.tar.gz), a temp
 * decision log and a dev signing key, so CI can run the inventory without a
 * server.
 *
 *   const t = await startInProcess({ bundleFile: "var/bundle.tar.gz" });
 *   await fetch(`${t.baseUrl}/health`); ... await t.close();
 *
 * Personas are seeded users: member u_alice, admin u_carol, support u_frank
 * (all tenant t_acme). Tokens are real signed JWTs.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import type { Express } from "express";
import type { AppOptions } from "../api/app";
import { mintDevToken } from "../api/identity/mint";
import { mintTestRunCredential, newRunId } from "../api/identity/test-run";
import { DEFAULT_RATE_LIMITS } from "../api/middleware/rate-limit";
import { createService, type Service } from "../api/service";
import type { VersionCatalog } from "../api/versions";
import { ConfigError, DEV_AUDIENCE, DEV_ISSUER, loadConfig } from "../config";

export type Persona = "anonymous" | "member" | "admin" | "support";
export const PERSONAS: readonly Persona[] = ["anonymous", "member", "admin", "support"];
export const PERSONA_USERS: Record<Exclude<Persona, "anonymous">, string> = { member: "u_alice", admin: "u_carol", support: "u_frank" };

export interface Target {
  baseUrl: string;
  label: string;
  tokens: Record<Exclude<Persona, "anonymous">, string>;
  /** The Express app when it runs in this process (router introspection); undefined for --base-url. */
  app?: Express;
  /** The in-process service's database file (its traffic counts). */
  dbFile?: string;
  /** The signing key the personas' tokens come from (pass to `--key` to probe this target remotely). */
  keyFile?: string;
  /** The probes' test-run credential (api/identity/test-run.ts): every probe is marked as this run's. */
  testRun: { id: string; credential: string };
  close(): Promise<void>;
}

export interface InProcessOptions {
  bundleFile: string;
  /** The catalogue the app serves (default: api/versions/versions.json). Tests plant drift with it. */
  versions?: VersionCatalog;
  app?: AppOptions;
  /** Wraps the app (tests plant response drift in front of it). */
  wrap?: (app: Express) => Express;
  /** The app's clock for version lifecycles (default Date.now): tests serve the versions as on a given day. */
  now?: () => number;
}

/** The inventory run's credential, signed with the key the personas' tokens come from. */
async function testRunFor(keyFile: string, issuer: string): Promise<Target["testRun"]> {
  const id = newRunId("inventory");
  return { id, credential: await mintTestRunCredential({ keyFile, issuer, runId: id, ttlSec: 3600 }) };
}

async function tokensFor(keyFile: string, issuer: string, audience: string): Promise<Target["tokens"]> {
  const mint = (subject: string) => mintDevToken({ subject, keyFile, issuer, audience, ttlSec: 900 });
  return { member: await mint(PERSONA_USERS.member), admin: await mint(PERSONA_USERS.admin), support: await mint(PERSONA_USERS.support) };
}

export async function startInProcess(options: InProcessOptions): Promise<Target> {
  if (!fs.existsSync(options.bundleFile)) throw new Error(`no policy bundle at ${options.bundleFile}: run \`make build\` first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-inventory-"));
  const dbFile = path.join(dir, "portcullis.db");
  const keyFile = path.join(dir, "dev-jwt-key.json");
  let service: Service | undefined;
  let server: http.Server | undefined;
  const close = async () => {
    if (server) await new Promise<void>((resolve) => server?.close(() => resolve()));
    await service?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Probes may start export jobs: they run in process and stop before the database closes.
    service = await createService(
      {
        database: { file: dbFile },
        bundle: { file: options.bundleFile, watch: false, pollIntervalMs: 60_000 },
        decisionLog: { file: path.join(dir, "decisions.db") },
        identity: { issuer: DEV_ISSUER, audience: DEV_AUDIENCE, algorithms: ["ES256"], devKeyFile: keyFile, clockToleranceSec: 0 },
        rateLimits: DEFAULT_RATE_LIMITS,
      },
      {
        logger: () => undefined,
        pdpLogger: () => undefined,
        decisionLogErrors: () => undefined,
        versions: options.versions,
        app: options.app,
        now: options.now,
      },
    );
    const app = service.app;
    const handler = options.wrap ? options.wrap(app) : app;
    const s = http.createServer(handler);
    server = s;
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(0, "127.0.0.1", resolve);
    });
    const address = s.address();
    if (!address || typeof address !== "object") throw new Error("in-process server has no address");
    const baseUrl = `http://127.0.0.1:${address.port}`;
    return {
      baseUrl,
      label: `in-process ${baseUrl} (temp database, ${options.bundleFile})`,
      tokens: await tokensFor(keyFile, DEV_ISSUER, DEV_AUDIENCE),
      testRun: await testRunFor(keyFile, DEV_ISSUER),
      app,
      dbFile,
      keyFile,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A running service; tokens from the dev key `portcullis serve` uses (default var/dev-jwt-key.json) and the configured issuer/audience. */
export async function remoteTarget(baseUrl: string, keyFile?: string): Promise<Target> {
  const config = loadConfig({
    env: process.env,
    flags: keyFile === undefined ? [] : [{ path: "identity.devKeyFile", flag: "--key", value: keyFile }],
  }).identity;
  if (config.jwksUrl)
    throw new ConfigError(
      "CONFIG_CONFLICT",
      "PORTCULLIS_JWKS_URL (identity.jwksUrl)",
      "is set: the inventory cannot mint persona tokens for an external identity provider",
    );
  if (!fs.existsSync(config.devKeyFile)) throw new Error(`no dev key at ${config.devKeyFile}: the service at ${baseUrl} must run with the dev key (make run)`);
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    label: baseUrl,
    tokens: await tokensFor(config.devKeyFile, config.issuer, config.audience),
    testRun: await testRunFor(config.devKeyFile, config.issuer),
    close: async () => undefined,
  };
}
