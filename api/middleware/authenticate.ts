/**
 * Step "authenticate": the actor from a verified Bearer JWT plus the users
 * table. The token proves WHO (its `sub`); tenant, role and account status
 * come from `users.findIdentity(sub)` only — no header, query parameter or
 * body field can set them, and token claims other than sub are ignored.
 *
 * - no Authorization header: the anonymous actor (the policy answers 401 on
 *   routes that are not public);
 * - a header that is not `Bearer <token>`, a token that fails verification
 *   (signature, alg none, issuer, audience, expiry), or a subject that is no
 *   user: 401 invalid_token, never a fallback to anonymous;
 * - a genuine token of a suspended, disabled or banned account (or one only
 *   invited): 403 account_inactive. The identity is proven, so 401 (which
 *   asks the client to authenticate again) would be wrong: no new token can
 *   help until an admin reactivates the account.
 *
 * Failed tokens never cost anyone else a valid login. Behind a gateway
 * (or a NAT) many users share one client address; a budget that refused
 * every token from an address once it had seen N bad ones would let one
 * client lock out all the others. So the budget counts FAILURES only and is
 * consulted only after a token failed:
 *
 * - a valid token is always verified and always passes, whatever its
 *   address sent before (a token seen valid is not even re-verified: the
 *   verifier's cache);
 * - a failed token spends its address's `authentication` budget (the
 *   client address, api/middleware/client-address.ts: X-Forwarded-For only
 *   through configured trusted proxies, so nobody picks a fresh budget by
 *   header); past the budget its answer is 429 with Retry-After instead of
 *   401: a client that keeps failing is told to stop, and the failures stay
 *   on the record (security events, decision log).
 *
 * As an attacker: a forged ES256/RS256 token cannot be "guessed" by trying
 * (the signature is the secret), so what trying at length can buy is CPU.
 * The verifier bounds it (api/identity/verifier.ts): malformed, expired,
 * foreign, `alg: none` tokens are refused from their decoded claims before
 * any signature work; a forgery already refused is remembered by its hash;
 * only a new, well-formed, correctly addressed token costs one signature
 * check, i.e. no more than the request itself. Refusing unverified tokens
 * from a busy address would save that one check only by refusing the valid
 * tokens that arrive from the same address: the trade this design refuses.
 *
 * Every 401 carries a `WWW-Authenticate: Bearer` challenge (problems.ts).
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf, type RequestState } from "../context";
import type { ApiDeps } from "../deps";
import { tokenFailureClass } from "../identity/verifier";
import { Problem } from "../problems";
import { countHit, type RateLimitStore } from "./rate-limit";

// The scheme is case-insensitive (RFC 9110); the token must look like a compact JWS.
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/i;

export function authenticate(deps: ApiDeps, store: RateLimitStore) {
  const budget = deps.rateLimits.authentication;
  /** A refused token: its class on the record, then the address's failure budget says 401 or 429. */
  const fail = async (state: RequestState, res: Response, why: string): Promise<Problem> => {
    state.tokenFailure = why;
    const { count, resetSec } = await countHit(store, `addr:${state.address}|authentication_failures`, budget, res);
    if (count > budget.limit) {
      res.setHeader("Retry-After", String(resetSec));
      return new Problem("rate_limited", { detail: "Too many failed authentications from this address; retry later." });
    }
    return new Problem("invalid_token");
  };
  return async function authenticate(req: Request, res: Response, next: NextFunction): Promise<void> {
    const header = req.headers.authorization;
    if (header === undefined) return next();
    const state = stateOf(res);
    const match = BEARER.exec(header.trim());
    if (!match) throw await fail(state, res, "malformed");
    let subject: string;
    try {
      // A token the verifier's cache vouches for comes back at once: no turn of the event loop waits for it.
      const verified = deps.verifyToken(match[1]);
      subject = typeof verified === "string" ? verified : await verified;
    } catch (err) {
      throw await fail(state, res, tokenFailureClass(err));
    }
    const identity = await deps.db.users.findIdentity(subject);
    if (!identity) throw await fail(state, res, "unknown_subject");
    if (identity.status !== "active") {
      // Recorded as who tried, so the log and security events show the account.
      state.actor = { id: identity.id, tenant: identity.tenant_id, roles: [] };
      throw new Problem("account_inactive");
    }
    state.actor = { id: identity.id, tenant: identity.tenant_id, roles: [identity.role] };
    next();
  };
}
