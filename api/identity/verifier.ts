/**
 * Bearer token verification with jose: signature against the configured key
 * set, then issuer, audience, expiry and an allow-list of algorithms (so
 * `alg: none` and algorithm confusion never pass). Returns the subject only:
 * tenant and roles come from the users table, never from token claims.
 *
 *   const verify = await createVerifier(config);
 *   const sub = await verify(token); // throws TokenError; a cached token's subject comes back at once (no promise)
 *
 * Verified tokens are remembered (./token-cache.ts: by the SHA-256 of the
 * whole token, bounded in entries and bytes) for at most `cacheTtlSec`
 * (default 60 s) and never beyond their own `exp`: an ECDSA verification
 * costs ~0.3 ms, more than the rest of a request. Identical bytes verify
 * identically as long as the keys do, so the cache is flushed whenever the
 * key set changes (checked after every verification, which is when jose
 * refetches a remote set), and a remote set older than jose's cache max age
 * (10 min) is never vouched for from the cache: the next request verifies,
 * which refetches it. Account status is still read from the users table on
 * every request.
 *
 * What a forged token can cost (CPU is the resource an attacker with
 * invalid tokens can burn; api/middleware/authenticate.ts explains why no
 * valid token is ever refused for it):
 * - the claims are checked BEFORE any signature work, from the decoded
 *   header and payload (algorithm in the allow-list, issuer, audience, a
 *   subject, exp/nbf): a malformed, expired, foreign or `alg: none` token
 *   costs a base64 decode and a JSON parse;
 * - a token whose signature failed is remembered by its SHA-256 for
 *   `cacheTtlSec` (bounded, oldest out): sending the same forgery again
 *   costs a hash, not a verification. Only signature failures are
 *   remembered (deterministic for the same bytes and keys); a key-set fetch
 *   failure or an unknown key id is not, so a key rotation or an IdP
 *   hiccup never keeps refusing a valid token;
 * - so only a NEW, well-formed, unexpired, correctly addressed token reaches
 *   a signature check: at most one verification per such request.
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { IdentityConfig } from "../../config";
import { loadOrCreateDevKeys } from "./keys";
import { digestOf, VerifiedTokenCache } from "./token-cache";

export class TokenError extends Error {
  /** jose's code (ERR_JWT_EXPIRED, ERR_JWS_SIGNATURE_VERIFICATION_FAILED, ...) or our own. */
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The token's subject: at once for a token the cache vouches for (the
 * request goes on in the same turn, no promise), else a promise of it.
 * Refusals reject with TokenError (or throw it).
 */
export type TokenVerifier = (token: string) => string | Promise<string>;

/** jose's error codes, by the class of failure an auditor reads in security events. */
const FAILURE_CLASSES: Record<string, string> = {
  ERR_JWT_EXPIRED: "expired",
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: "bad_signature",
  ERR_JWKS_NO_MATCHING_KEY: "unknown_key",
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: "unknown_key",
  ERR_JOSE_ALG_NOT_ALLOWED: "algorithm_not_allowed",
  ERR_JOSE_NOT_SUPPORTED: "algorithm_not_allowed",
  ERR_JWT_CLAIM_VALIDATION_FAILED: "claims_invalid",
  ERR_NO_SUBJECT: "claims_invalid",
  ERR_JWS_INVALID: "malformed",
  ERR_JWT_INVALID: "malformed",
  ERR_JWKS_TIMEOUT: "key_set_unavailable",
  ERR_JWKS_INVALID: "key_set_unavailable",
};

/**
 * Why a token failed, as a class (`expired`, `bad_signature`, `malformed`,
 * `claims_invalid`, ...): what security events record, never the token.
 */
export function tokenFailureClass(err: unknown): string {
  const code = err instanceof TokenError ? err.code : (err as { code?: unknown } | null)?.code;
  return (typeof code === "string" && FAILURE_CLASSES[code]) || "invalid";
}

/** Forged-token digests remembered at most (each a fixed ~100 bytes, so entries bound bytes too). */
const MAX_FORGED = 10_000;

/** The identity settings; cacheTtlSec optional here (default 60 s) for callers outside the service. */
export type VerifierConfig = Omit<IdentityConfig, "cacheTtlSec"> & { cacheTtlSec?: number };

/** The key set a verifier checks signatures against; jose's remote sets also say whether they are fresh and what they hold. */
type KeySet = JWTVerifyGetKey & { fresh?: boolean; jwks?: () => JSONWebKeySet | undefined };

export async function createVerifier(config: VerifierConfig, now: () => number = Date.now): Promise<TokenVerifier> {
  const keys: KeySet = config.jwksUrl
    ? createRemoteJWKSet(new URL(config.jwksUrl))
    : createLocalJWKSet((await loadOrCreateDevKeys(config.devKeyFile)).publicJwks);
  const ttlMs = (config.cacheTtlSec ?? 60) * 1000;
  const verified = new VerifiedTokenCache({ ttlMs }, now);
  /** SHA-256 of tokens whose signature failed -> until when the failure is remembered. */
  const forged = new Map<string, number>();
  /** The key set both caches were filled under (its JSON text); "" before a remote set is first fetched. */
  let keySetSeen = keySetText(keys);

  /** Both caches vouch for what the keys said: when the keys change, they start over (only a remote set ever changes). */
  const noticeKeySet = () => {
    if (!config.jwksUrl) return;
    const current = keySetText(keys);
    if (current === keySetSeen) return;
    keySetSeen = current;
    verified.clear();
    forged.clear();
  };

  return (token) => {
    // A remote set past its max age is refetched by the next verification: until then, the cache does not vouch.
    if (keys.fresh !== false) {
      const sub = verified.get(token);
      if (sub !== undefined) return sub;
    }
    return verify(token);
  };

  async function verify(token: string): Promise<string> {
    precheck(token, config, now());
    const digest = digestOf(token);
    const failedUntil = forged.get(digest);
    if (failedUntil !== undefined) {
      if (now() < failedUntil) throw new TokenError("ERR_JWS_SIGNATURE_VERIFICATION_FAILED", "signature verification failed (remembered)");
      forged.delete(digest);
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: config.algorithms,
        clockTolerance: config.clockToleranceSec,
        requiredClaims: ["sub", "exp"],
        currentDate: new Date(now()),
      });
      noticeKeySet();
      if (typeof payload.sub !== "string" || payload.sub === "") throw new TokenError("ERR_NO_SUBJECT", "token has no subject");
      verified.set(token, payload.sub, payload.exp as number);
      return payload.sub;
    } catch (err) {
      if (err instanceof TokenError) throw err;
      noticeKeySet();
      const code = (err as { code?: unknown }).code;
      if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" && ttlMs > 0) {
        if (forged.size >= MAX_FORGED) forged.delete(forged.keys().next().value as string);
        forged.set(digest, now() + ttlMs);
      }
      throw new TokenError(typeof code === "string" ? code : "ERR_TOKEN_INVALID", err instanceof Error ? err.message : String(err));
    }
  }
}

/** What a key set holds, as text ("" for a remote set not fetched yet): compared to notice a rotation. */
function keySetText(keys: KeySet): string {
  const set = keys.jwks?.();
  return set === undefined ? "" : JSON.stringify(set);
}

/**
 * The checks that need no key: what jwtVerify checks after the signature,
 * done first so a token that would fail them anyway costs no signature
 * work. Throws TokenError with jose's codes; jwtVerify repeats them all.
 */
function precheck(token: string, config: VerifierConfig, nowMs: number): void {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let payload: ReturnType<typeof decodeJwt>;
  try {
    header = decodeProtectedHeader(token);
    payload = decodeJwt(token);
  } catch (err) {
    throw new TokenError("ERR_JWT_INVALID", err instanceof Error ? err.message : String(err));
  }
  if (typeof header.alg !== "string" || !config.algorithms.includes(header.alg)) throw new TokenError("ERR_JOSE_ALG_NOT_ALLOWED", "algorithm not allowed");
  const claim = (why: string) => new TokenError("ERR_JWT_CLAIM_VALIDATION_FAILED", why);
  if (payload.iss !== config.issuer) throw claim("unexpected iss");
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(config.audience)) throw claim("unexpected aud");
  if (typeof payload.sub !== "string" || payload.sub === "") throw new TokenError("ERR_NO_SUBJECT", "token has no subject");
  const nowSec = nowMs / 1000;
  const tolerance = config.clockToleranceSec;
  if (typeof payload.exp !== "number") throw claim("missing exp");
  if (payload.exp <= nowSec - tolerance) throw new TokenError("ERR_JWT_EXPIRED", "token expired");
  if (typeof payload.nbf === "number" && payload.nbf > nowSec + tolerance) throw claim("not yet valid (nbf)");
}
