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
 * Failed verifications are budgeted per client address (rate-limit class
 * `authentication`): once spent, requests carrying a token get 429 without
 * being verified, so forged tokens can neither be tried at length nor burn
 * CPU on signature checks.
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf } from "../context";
import type { ApiDeps } from "../deps";
import { tokenFailureClass } from "../identity/verifier";
import { Problem } from "../problems";
import type { RateLimitStore } from "./rate-limit";

// The scheme is case-insensitive (RFC 9110); the token must look like a compact JWS.
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/i;

export function authenticate(deps: ApiDeps, store: RateLimitStore) {
  const budget = deps.rateLimits.authentication;
  return async function authenticate(req: Request, res: Response, next: NextFunction): Promise<void> {
    const header = req.headers.authorization;
    if (header === undefined) return next();
    const key = `addr:${stateOf(res).address}|authentication_failures`;
    const spent = store.peek(key, budget.windowSec);
    if (spent.count >= budget.limit) {
      res.setHeader("Retry-After", String(spent.resetSec));
      throw new Problem("rate_limited", { detail: "Too many failed authentications from this address; retry later." });
    }
    const fail = (why: string): Problem => {
      stateOf(res).tokenFailure = why;
      store.hit(key, budget.windowSec);
      res.setHeader("WWW-Authenticate", 'Bearer error="invalid_token"');
      return new Problem("invalid_token");
    };
    const match = BEARER.exec(header.trim());
    if (!match) throw fail("malformed");
    let subject: string;
    try {
      subject = await deps.verifyToken(match[1]);
    } catch (err) {
      throw fail(tokenFailureClass(err));
    }
    const identity = deps.db.users.findIdentity(subject);
    if (!identity) throw fail("unknown_subject");
    const state = stateOf(res);
    if (identity.status !== "active") {
      // Recorded as who tried, so the log and security events show the account.
      state.actor = { id: identity.id, tenant: identity.tenant_id, roles: [] };
      throw new Problem("account_inactive");
    }
    state.actor = { id: identity.id, tenant: identity.tenant_id, roles: [identity.role] };
    next();
  };
}
