/**
 * `portcullis token <user-id>`: a development bearer token for a seeded
 * user, signed with the local dev key under var/ (created on first use),
 * accepted by the service `make run` / `portcullis serve` starts with the
 * same key file, issuer and audience.
 *
 *   portcullis token u_alice [--ttl 3600] [--db var/portcullis.db] [--key var/dev-jwt-key.json]
 *
 * Refuses when PORTCULLIS_JWKS_URL is set (tokens then come from the IdP),
 * and for ids that are no user of the service's store (PostgreSQL when
 * PORTCULLIS_DATABASE_URL is set, else the SQLite file): a token for nobody would only fail later.
 */
import { mintDevToken } from "../api/identity/mint";
import { ConfigError, loadConfig } from "../config";
import { openDatabase } from "../db";
import { openPgStore } from "../db/pg";
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
  if (identity.jwksUrl)
    throw new ConfigError("CONFIG_CONFLICT", "PORTCULLIS_JWKS_URL (identity.jwksUrl)", "is set: tokens come from that identity provider, not from the dev key");

  // The users the service itself reads: PostgreSQL when database.url is set (a cluster's), else the SQLite file.
  const user = config.database.url !== undefined ? await pgIdentity(config.database.url, subject) : sqliteIdentity(config.database.file, subject);
  if (!user.identity) throw new Error(`no user ${JSON.stringify(subject)} in ${user.where}`);
  if (user.identity.status !== "active")
    console.error(`portcullis: warning: ${subject} is ${user.identity.status}; the service will answer 403 account_inactive`);
  console.log(await mintDevToken({ subject, keyFile: identity.devKeyFile, issuer: identity.issuer, audience: identity.audience, ttlSec }));
  return 0;
}

type Found = { identity: { status: string } | undefined; where: string };

function sqliteIdentity(file: string, subject: string): Found {
  const db = openDatabase(file, { seed: true });
  try {
    return { identity: db.users.findIdentity(subject), where: db.file };
  } finally {
    db.close();
  }
}

async function pgIdentity(url: string, subject: string): Promise<Found> {
  const store = await openPgStore({ url });
  try {
    const u = new URL(url);
    // Named without its credentials.
    return { identity: await store.users.findIdentity(subject), where: `${u.protocol}//${u.host}${u.pathname}` };
  } finally {
    await store.close();
  }
}
