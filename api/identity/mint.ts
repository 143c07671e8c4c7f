/**
 * Mints a development token for a user with the local dev key: only `sub`
 * (plus iss, aud, iat, exp). Tenant and roles are deliberately NOT claims:
 * the service reads them from the users table.
 *
 *   const token = await mintDevToken({ subject: "u_alice", keyFile, issuer, audience, ttlSec: 3600 });
 */
import { importJWK, SignJWT } from "jose";
import { DEV_ALGORITHM, loadOrCreateDevKeys } from "./keys";

export interface MintOptions {
  subject: string;
  keyFile: string;
  issuer: string;
  audience: string;
  ttlSec: number;
}

export async function mintDevToken(options: MintOptions): Promise<string> {
  const { privateJwk } = await loadOrCreateDevKeys(options.keyFile);
  const key = await importJWK(privateJwk, DEV_ALGORITHM);
  return new SignJWT({})
    .setProtectedHeader({ alg: DEV_ALGORITHM, kid: privateJwk.kid, typ: "JWT" })
    .setSubject(options.subject)
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + options.ttlSec)
    .sign(key);
}
