/**
 * `portcullis serve`: the HTTP service.
 *
 *   portcullis serve [--port 8080] [--host 127.0.0.1] [--db var/portcullis.db]
 *                    [--bundle var/bundle.tar.gz] [--decisions var/decisions.db]
 *
 * Opens (and on first run seeds) the SQLite database, loads the policy
 * bundle into the PDP (hot reload on change) with the SQLite decision log,
 * checks the registry against the router and the policy (refuses to start on
 * a mismatch), listens, and resumes the export jobs a previous run left
 * queued or interrupted. SIGINT/SIGTERM: stop accepting, finish requests
 * in flight (10 s at most), stop the export runner (a job in progress is
 * queued again for the next start), flush and close the decision log, close
 * the database. PORT and PORTCULLIS_* environment variables configure the rest
 * (api/identity/config.ts).
 */
import * as http from "node:http";
import { createApp } from "../api/app";
import { jsonLogger } from "../api/deps";
import { createExportRunner } from "../api/exports/runner";
import { identityConfigFromEnv } from "../api/identity/config";
import { DEFAULT_DEV_KEY_FILE } from "../api/identity/keys";
import { createVerifier } from "../api/identity/verifier";
import { DEFAULT_RATE_LIMITS } from "../api/middleware/rate-limit";
import { loadVersions } from "../api/versions";
import { DEFAULT_DB_FILE, openDatabase } from "../db";
import { createPdp } from "../pdp";
import { createDecisionLog, DEFAULT_DECISIONS_DB } from "../pdp/log";
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
  const versions = loadVersions();
  const db = openDatabase(one(args, "db") ?? DEFAULT_DB_FILE, { seed: true });
  const log = createDecisionLog({ db: one(args, "decisions") ?? DEFAULT_DECISIONS_DB });
  const pdp = await createPdp({ bundle: { file: one(args, "bundle") ?? DEFAULT_BUNDLE_FILE }, log });
  const exportRunner = createExportRunner({ db, logger: jsonLogger });
  const shutdownStores = async () => {
    await exportRunner.stop(); // before the database closes under a running job
    await pdp.close();
    await log.close();
    db.close();
  };
  let server: http.Server;
  try {
    const verifyToken = await createVerifier(identity);
    const app = createApp({ pdp, db, verifyToken, versions, rateLimits: DEFAULT_RATE_LIMITS, logger: jsonLogger, exportRunner });
    server = http.createServer(app);
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, resolve);
    });
  } catch (err) {
    await shutdownStores();
    throw err;
  }
  // Only once the start-up check passed and the service is up.
  exportRunner.resume();
  const address = server.address();
  jsonLogger({ level: "info", event: "http.listening", address: typeof address === "object" && address ? `${address.address}:${address.port}` : String(address), issuer: identity.issuer, audience: identity.audience, keys: identity.jwksUrl ? "jwks" : "dev-key", bundle_revision: pdp.status().active?.revision ?? null });

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
        shutdownStores().then(
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
