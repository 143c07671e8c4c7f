/**
 * `portcullis token <user-id>`: a development bearer token for a seeded
 * user, signed with the local dev key under var/ (created on first use),
 * accepted by the service `make run` / `portcullis serve` starts with the
 * same key file, issuer and audience.
 *
 *   portcullis token u_alice [--ttl 3600] [--db var/portcullis.db] [--key var/dev-jwt-key.json]
 *
 * Refuses when PORTCULLIS_JWKS_URL is set (tokens then come from the IdP),
 * and for ids that are no user (a token for nobody would only fail later).
 */
import { mintDevToken } from "../api/identity/mint";
import { ConfigError, loadConfig } from "../config";
import { openDatabase } from "../db";
import { flagsOf, one, parseArgs, UsageError } from "./args";

export const TOKEN_USAGE = "token <user-id> [--ttl SECONDS] [--db FILE] [--key FILE]";

export async function tokenCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: { "--ttl": "ttl", "--db": "db", "--key": "key" } });
  if (args.positionals.length !== 1) throw new UsageError("token takes exactly one user id");
  const subject = args.positionals[0];
  const ttlText = one(args, "ttl") ?? "3600";
  const ttlSec = Number(ttlText);
  if (!Number.isInteger(ttlSec) || ttlSec < 1 || ttlSec > 86_400) throw new UsageError(`--ttl must be 1 to 86400 seconds, got ${ttlText}`);
  // The service's own configuration (environment, PORTCULLIS_CONFIG): the token must match what it accepts.
  const config = loadConfig({ env: process.env, flags: flagsOf(args, { key: "identity.devKeyFile", db: "database.file" }) });
  const { identity } = config;
  if (identity.jwksUrl) throw new ConfigError("CONFIG_CONFLICT", "PORTCULLIS_JWKS_URL (identity.jwksUrl)", "is set: tokens come from that identity provider, not from the dev key");

  const db = openDatabase(config.database.file, { seed: true });
  try {
    const identity = db.users.findIdentity(subject);
    if (!identity) throw new Error(`no user ${JSON.stringify(subject)} in ${db.file}`);
    if (identity.status !== "active") console.error(`portcullis: warning: ${subject} is ${identity.status}; the service will answer 403 account_inactive`);
  } finally {
    db.close();
  }
  console.log(await mintDevToken({ subject, keyFile: identity.devKeyFile, issuer: identity.issuer, audience: identity.audience, ttlSec }));
  return 0;
}
