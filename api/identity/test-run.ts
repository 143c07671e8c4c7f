/**
 * Test-run credentials: how the matrix runner and the inventory's probes
 * mark their requests as a test run, so auditors can tell a run's
 * thousands of deliberate denials from real traffic, without giving an
 * attacker a header to hide behind.
 *
 * The credential is a JWS the operator's key signs (the instance's signing
 * key: the dev key under var/, or the IdP's key set when one is configured),
 * sent in its own header, `Portcullis-Test-Run`, so anonymous requests of a
 * run are marked too. It is told apart from a bearer token three ways, so
 * neither can stand in for the other: its audience (`portcullis-test-run`),
 * its `typ` (`portcullis-test-run+jwt`) and its claims (`run`, and no `sub`).
 * It carries a run id and expires (24 h at most).
 *
 *   const credential = await mintTestRunCredential({ keyFile, issuer, runId: "matrix-...", ttlSec: 3600 });
 *   const verify = await createTestRunVerifier(identity);
 *   const runId = await verify(credential);   // throws TokenError
 *
 * Only a verified credential marks a request (api/middleware/test-run.ts);
 * one that does not verify is refused and recorded as a security event.
 */
import { randomUUID } from "node:crypto";
import { createLocalJWKSet, createRemoteJWKSet, importJWK, jwtVerify, SignJWT, type JWTVerifyGetKey } from "jose";
import type { IdentityConfig } from "../../config";
import { DEV_ALGORITHM, loadOrCreateDevKeys } from "./keys";
import { TokenError } from "./verifier";

export const TEST_RUN_HEADER = "portcullis-test-run";
export const TEST_RUN_AUDIENCE = "portcullis-test-run";
export const TEST_RUN_TYPE = "portcullis-test-run+jwt";
/** The longest a credential may live: a run is hours, not a standing pass. */
export const MAX_TEST_RUN_TTL_SEC = 24 * 3600;
/** A run id is a label an auditor filters on: short, printable, no spaces. */
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

export type TestRunVerifier = (credential: string) => Promise<string>;

/** A new run id: the tool's name, the UTC time, a random suffix (`matrix-20261127T130501Z-1a2b3c`). */
export function newRunId(tool: string): string {
  const time = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  return `${tool}-${time}-${randomUUID().slice(0, 6)}`;
}

export async function mintTestRunCredential(options: { keyFile: string; issuer: string; runId: string; ttlSec: number }): Promise<string> {
  if (!RUN_ID.test(options.runId)) throw new Error(`run id ${JSON.stringify(options.runId)}: letters, digits and . _ : - only, at most 64`);
  if (!(options.ttlSec > 0 && options.ttlSec <= MAX_TEST_RUN_TTL_SEC)) throw new Error(`a test-run credential lives 1 s to ${MAX_TEST_RUN_TTL_SEC} s`);
  const { privateJwk } = await loadOrCreateDevKeys(options.keyFile);
  const key = await importJWK(privateJwk, DEV_ALGORITHM);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ run: options.runId })
    .setProtectedHeader({ alg: DEV_ALGORITHM, kid: privateJwk.kid, typ: TEST_RUN_TYPE })
    .setIssuer(options.issuer)
    .setAudience(TEST_RUN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + options.ttlSec)
    .sign(key);
}

/** Verifies against the same key set, issuer and algorithms as bearer tokens; returns the run id. */
export async function createTestRunVerifier(config: IdentityConfig, now: () => number = Date.now): Promise<TestRunVerifier> {
  const keys: JWTVerifyGetKey = config.jwksUrl
    ? createRemoteJWKSet(new URL(config.jwksUrl))
    : createLocalJWKSet((await loadOrCreateDevKeys(config.devKeyFile)).publicJwks);
  return async (credential) => {
    let payload;
    try {
      ({ payload } = await jwtVerify(credential, keys, {
        issuer: config.issuer,
        audience: TEST_RUN_AUDIENCE,
        algorithms: config.algorithms,
        typ: TEST_RUN_TYPE,
        clockTolerance: config.clockToleranceSec,
        requiredClaims: ["exp", "iat", "run"],
        currentDate: new Date(now()),
      }));
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new TokenError(typeof code === "string" ? code : "ERR_TOKEN_INVALID", err instanceof Error ? err.message : String(err));
    }
    if (payload.sub !== undefined) throw new TokenError("ERR_JWT_CLAIM_VALIDATION_FAILED", "a test-run credential names no subject");
    if ((payload.exp as number) - (payload.iat as number) > MAX_TEST_RUN_TTL_SEC)
      throw new TokenError("ERR_JWT_CLAIM_VALIDATION_FAILED", "lives longer than a test run may");
    if (typeof payload.run !== "string" || !RUN_ID.test(payload.run)) throw new TokenError("ERR_JWT_CLAIM_VALIDATION_FAILED", "run id missing or malformed");
    return payload.run;
  };
}
