/**
 * Bearer token verification with jose: signature against the configured key
 * set, then issuer, audience, expiry and an allow-list of algorithms (so
 * `alg: none` and algorithm confusion never pass). Returns the subject only:
 * tenant and roles come from the users table, never from token claims.
 *
 *   const verify = await createVerifier(config);
 *   const sub = await verify(token); // throws TokenError
 *
 * Verified tokens are remembered (by their exact bytes) for at most
 * `cacheTtlSec` (default 60 s) and never beyond their own `exp`: an ECDSA
 * verification costs ~0.3 ms, more than the rest of a request. Identical
 * bytes verify identically; the only thing the cache delays is a key
 * removed from a JWKS (at most cacheTtlSec). Failures are never cached, and
 * account status is still read from the users table on every request.
 */
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { IdentityConfig } from "./config";
import { loadOrCreateDevKeys } from "./keys";

export class TokenError extends Error {
  /** jose's code (ERR_JWT_EXPIRED, ERR_JWS_SIGNATURE_VERIFICATION_FAILED, ...) or our own. */
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export type TokenVerifier = (token: string) => Promise<string>;

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

const MAX_CACHED = 10_000;

export async function createVerifier(config: IdentityConfig & { cacheTtlSec?: number }, now: () => number = Date.now): Promise<TokenVerifier> {
  const keys: JWTVerifyGetKey = config.jwksUrl
    ? createRemoteJWKSet(new URL(config.jwksUrl))
    : createLocalJWKSet((await loadOrCreateDevKeys(config.devKeyFile)).publicJwks);
  const ttlMs = (config.cacheTtlSec ?? 60) * 1000;
  const verified = new Map<string, { sub: string; until: number }>();

  return async (token) => {
    const hit = verified.get(token);
    if (hit) {
      if (now() < hit.until) return hit.sub;
      verified.delete(token);
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
      if (typeof payload.sub !== "string" || payload.sub === "") throw new TokenError("ERR_NO_SUBJECT", "token has no subject");
      if (ttlMs > 0) {
        // Oldest first out: Map iteration order is insertion order.
        if (verified.size >= MAX_CACHED) verified.delete(verified.keys().next().value as string);
        verified.set(token, { sub: payload.sub, until: Math.min(now() + ttlMs, (payload.exp as number) * 1000) });
      }
      return payload.sub;
    } catch (err) {
      if (err instanceof TokenError) throw err;
      const code = (err as { code?: unknown }).code;
      throw new TokenError(typeof code === "string" ? code : "ERR_TOKEN_INVALID", err instanceof Error ? err.message : String(err));
    }
  };
}
