/**
 * `portcullis serve`: the HTTP service.
 *
 *   portcullis serve [--port 8080] [--host 127.0.0.1] [--db var/portcullis.db]
 *                    [--bundle var/bundle.tar.gz] [--decisions var/decisions.db]
 *
 * Builds the service (api/service.ts: opens and on first run seeds the
 * SQLite database, loads the policy bundle into the PDP with hot reload and
 * the SQLite decision log, refuses to start when registry, router and policy
 * disagree), listens, and resumes the export jobs a previous run left queued
 * or interrupted. SIGINT/SIGTERM: stop accepting, finish requests in flight
 * (10 s at most), then close the service in its one shutdown order. PORT and PORTCULLIS_* environment variables configure the rest
 * (api/identity/config.ts).
 */
import * as http from "node:http";
import { jsonLogger } from "../api/deps";
import { identityConfigFromEnv } from "../api/identity/config";
import { DEFAULT_DEV_KEY_FILE } from "../api/identity/keys";
import { trustedProxiesFromEnv } from "../api/middleware/client-address";
import { DEFAULT_RATE_LIMITS } from "../api/middleware/rate-limit";
import { createService } from "../api/service";
import { DEFAULT_DB_FILE } from "../db";
import { DEFAULT_DECISIONS_DB } from "../pdp/log";
import { one, parseArgs, UsageError } from "./args";

export const SERVE_USAGE = "serve [--port 8080] [--host 127.0.0.1] [--db FILE] [--bundle FILE] [--decisions FILE]";
export const DEFAULT_BUNDLE_FILE = "var/bundle.tar.gz";

export async function serveCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: { "--port": "port", "--host": "host", "--db": "db", "--bundle": "bundle", "--decisions": "decisions" } });
  if (args.positionals.length > 0) throw new UsageError(`serve takes no positional arguments (got ${args.positionals.join(" ")})`);
  const portText = one(args, "port") ?? process.env.PORT ?? "8080";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got ${portText}`);
  const host = one(args, "host") ?? "127.0.0.1";

  const identity = identityConfigFromEnv(process.env, DEFAULT_DEV_KEY_FILE);
  const service = await createService({
    database: { file: one(args, "db") ?? DEFAULT_DB_FILE },
    bundle: { file: one(args, "bundle") ?? DEFAULT_BUNDLE_FILE },
    decisionLog: { db: one(args, "decisions") ?? DEFAULT_DECISIONS_DB },
    identity,
    rateLimits: DEFAULT_RATE_LIMITS,
    trustedProxies: trustedProxiesFromEnv(process.env),
  });
  const server = http.createServer(service.app);
  server.keepAliveTimeout = 5000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, resolve);
    });
  } catch (err) {
    await service.close();
    throw err;
  }
  // Only once the start-up check passed and the service is up.
  service.resume();
  const address = server.address();
  jsonLogger({ level: "info", event: "http.listening", address: typeof address === "object" && address ? `${address.address}:${address.port}` : String(address), issuer: identity.issuer, audience: identity.audience, keys: identity.jwksUrl ? "jwks" : "dev-key", bundle_revision: service.pdp.status().active?.revision ?? null });

  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSigint = () => stop("SIGINT");
    const onSigterm = () => stop("SIGTERM");
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.removeListener("SIGINT", onSigint);
      process.removeListener("SIGTERM", onSigterm);
      jsonLogger({ level: "info", event: "http.shutdown", signal });
      const force = setTimeout(() => server.closeAllConnections(), 10_000);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        service.close().then(
          () => resolve(0),
          (err) => {
            console.error(err instanceof Error ? err.message : String(err));
            resolve(1);
          },
        );
      });
      server.closeIdleConnections();
    };
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
  });
}
