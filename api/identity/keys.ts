/**
 * Development signing keys: an ES256 key pair generated on first use under
 * var/ (private JWK mode 0600), so `npx portcullis token <user>` mints tokens
 * the local service accepts. Production configures a JWKS URL instead and
 * never touches these files.
 *
 *   const { privateJwk, publicJwks } = await loadOrCreateDevKeys("var/dev-jwt-key.json");
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { exportJWK, generateKeyPair, type JWK } from "jose";

export const DEFAULT_DEV_KEY_FILE = "var/dev-jwt-key.json";
export const DEV_ALGORITHM = "ES256";

export interface DevKeys {
  /** The signing key (private JWK, with kid and alg). */
  privateJwk: JWK;
  /** The verification key set: the public half only. */
  publicJwks: { keys: JWK[] };
}

export async function loadOrCreateDevKeys(file = DEFAULT_DEV_KEY_FILE): Promise<DevKeys> {
  if (fs.existsSync(file)) return fromPrivate(JSON.parse(fs.readFileSync(file, "utf8")) as JWK);
  const { privateKey } = await generateKeyPair(DEV_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  jwk.alg = DEV_ALGORITHM;
  jwk.use = "sig";
  jwk.kid = crypto.randomUUID();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Create exclusively: two processes starting at once must not overwrite each other's key.
  try {
    fs.writeFileSync(file, JSON.stringify(jwk), { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return fromPrivate(JSON.parse(fs.readFileSync(file, "utf8")) as JWK);
  }
  return fromPrivate(jwk);
}

function fromPrivate(jwk: JWK): DevKeys {
  const { d: _d, ...publicJwk } = jwk;
  return { privateJwk: jwk, publicJwks: { keys: [publicJwk] } };
}
