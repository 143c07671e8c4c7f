/**
 * `portcullis serve`: the HTTP service.
 *
 *   portcullis serve [--config FILE] [--port 8080] [--host 127.0.0.1] [--db var/portcullis.db]
 *                    [--bundle var/bundle.tar.gz] [--decisions var/decisions.db]
 *
 * Reads the configuration once (config/: defaults, the JSON file --config or
 * PORTCULLIS_CONFIG names, PORT and PORTCULLIS_* variables, these flags) and
 * refuses to start on any invalid setting (ConfigError). Builds the service
 * (api/service.ts: opens and on first run seeds the SQLite database, loads
 * the policy bundle into the PDP with hot reload and the SQLite decision
 * log, refuses to start when registry, router and policy disagree), listens,
 * and resumes the export jobs a previous run left queued or interrupted.
 * SIGINT/SIGTERM: stop accepting, answer every request in flight or still
 * arriving with `Connection: close` and finish it (api/http/server.ts;
 * http.shutdownGraceMs, 10 s by default), then close the service in its one
 * shutdown order (exit 1 when something could not be written).
 *
 * The decision log's store keeps run markers: a start that finds an earlier
 * run without a clean stop says so (a warning line, and /metrics). Exit
 * code 0 after a clean shutdown, 3 (EXIT_EVENTS_LOST) when decision events
 * were lost (the store could not take them), 1 when shutting down failed.
 *
 * Once listening it prints, once, on stderr, where it listens and what to
 * try next (readyMessage); stdout stays one JSON log line per event, for
 * machines.
 */
import { jsonLogger } from "../api/deps";
import { createHttpServer } from "../api/http/server";
import { createService } from "../api/service";
import { reportLogClosed } from "../api/trail/report";
import { loadConfig, unknownVariables } from "../config";
import { flagsOf, one, parseArgs, UsageError } from "./args";

export const SERVE_USAGE = "serve [--config FILE] [--port 8080] [--host 127.0.0.1] [--db FILE] [--bundle FILE] [--decisions FILE]";

export async function serveCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: { "--config": "config", "--port": "port", "--host": "host", "--db": "db", "--bundle": "bundle", "--decisions": "decisions" },
  });
  if (args.positionals.length > 0) throw new UsageError(`serve takes no positional arguments (got ${args.positionals.join(" ")})`);
  const config = loadConfig({
    env: process.env,
    file: one(args, "config"),
    flags: flagsOf(args, { port: "http.port", host: "http.host", db: "database.file", bundle: "bundle.file", decisions: "decisionLog.file" }),
  });
  const ignored = unknownVariables(process.env);
  if (ignored.length > 0) jsonLogger({ level: "warn", event: "config.unknown_variables", variables: ignored });

  const service = await createService(config);
  const { http: settings, identity } = config;
  const { server, drain } = createHttpServer(service.app, { limits: settings, logger: jsonLogger });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.port, settings.host, resolve);
    });
  } catch (err) {
    await service.close();
    throw err;
  }
  // Only once the start-up check passed and the service is up.
  service.resume();
  const address = server.address();
  if (typeof address === "object" && address) process.stderr.write(readyMessage(address.address, address.port, identity.jwksUrl ? "jwks" : "dev-key"));
  jsonLogger({
    level: "info",
    event: "http.listening",
    address: typeof address === "object" && address ? `${address.address}:${address.port}` : String(address),
    issuer: identity.issuer,
    audience: identity.audience,
    keys: identity.jwksUrl ? "jwks" : "dev-key",
    bundle_revision: service.pdp.status().active?.revision ?? null,
  });

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
      drain()
        .then(() => service.close())
        .then(
          () => resolve(reportLogClosed(service.log, jsonLogger)),
          (err: unknown) => {
            console.error(err instanceof Error ? err.message : String(err));
            resolve(1);
          },
        );
    };
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
  });
}

/**
 * The human line a newcomer needs after `make run`: the URL, then the next
 * commands to try (a dev token and a curl). With a real IdP (JWKS) there is
 * no dev token to mint, so it says where tokens come from instead.
 *
 *   readyMessage("127.0.0.1", 8080, "dev-key")
 */
export function readyMessage(host: string, port: number, keys: "dev-key" | "jwks"): string {
  // A wildcard bind is reached through loopback from this machine.
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const base = `http://${reachable}:${port}`;
  const token = keys === "dev-key" ? "TOKEN=$(npx portcullis token u_alice)" : "TOKEN=<a bearer token from your identity provider (PORTCULLIS_JWKS_URL)>";
  return [
    "",
    `Portcullis is listening on ${base}  (JSON logs follow on stdout; Ctrl-C stops)`,
    "Next, in another terminal:",
    `  ${token}`,
    `  curl -H "Authorization: Bearer $TOKEN" ${base}/users/me`,
    `  curl ${base}/openapi.json`,
    "",
    "",
  ].join("\n");
}
