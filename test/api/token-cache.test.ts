/**
 * The verified-token cache (api/identity/token-cache.ts) and how the
 * verifier uses it: keyed by a digest of the whole token, bounded in
 * entries and bytes, never past `exp`, flushed when a remote key set
 * changes, never vouching for a stale key set; and the account status is
 * still read from the users table on every request.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import request from "supertest";
import { createHash } from "node:crypto";
import { digestOf, entryBytes, VerifiedTokenCache } from "../../api/identity/token-cache";
import { createVerifier, type TokenError } from "../../api/identity/verifier";
import { expectProblem, startHarness } from "./harness";

const T0 = 1_800_000_000_000;

describe("VerifiedTokenCache", () => {
  const clock = () => {
    let t = T0;
    return { now: () => t, advance: (ms: number) => void (t += ms) };
  };
  const exp = (secondsFromT0: number) => T0 / 1000 + secondsFromT0;

  test("bounded in entries: the oldest goes first", () => {
    const cache = new VerifiedTokenCache({ ttlMs: 60_000, maxEntries: 3 }, clock().now);
    for (const t of ["a", "b", "c", "d", "e"]) cache.set(`token-${t}`, `u_${t}`, exp(600));
    expect(cache.size).toBe(3);
    expect(["a", "b", "c", "d", "e"].map((t) => cache.get(`token-${t}`))).toEqual([undefined, undefined, "u_c", "u_d", "u_e"]);
  });

  test("bounded in bytes: the oldest goes first, an entry larger than the budget is not kept", () => {
    const maxBytes = 3 * entryBytes("u_x");
    const cache = new VerifiedTokenCache({ ttlMs: 60_000, maxBytes }, clock().now);
    for (const t of ["a", "b", "c", "d"]) cache.set(`token-${t}`, `u_${t}`, exp(600));
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBe(maxBytes);
    expect(cache.get("token-a")).toBeUndefined();
    // A long subject pushes out as many entries as it needs room for.
    cache.set("token-long", "u_" + "l".repeat(40), exp(600));
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    expect(cache.get("token-long")).toBe("u_" + "l".repeat(40));
    cache.set("token-huge", "u_" + "h".repeat(maxBytes), exp(600));
    expect(cache.get("token-huge")).toBeUndefined();
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
  });

  test("keyed by a digest: a token's length costs nothing, and any other byte is a miss", () => {
    const cache = new VerifiedTokenCache({ ttlMs: 60_000 }, clock().now);
    const big = "h." + "p".repeat(8000) + ".sig";
    cache.set(big, "u_alice", exp(600));
    const oneEntry = cache.bytes;
    cache.set("h.p.sig", "u_alice", exp(600));
    expect(cache.bytes).toBe(2 * oneEntry);
    expect(cache.get(big)).toBe("u_alice");
    expect(cache.get(big.slice(0, -1) + "G")).toBeUndefined(); // another signature
    expect(cache.get(big + ".")).toBeUndefined();
  });

  test("the key is the SHA-256 of the whole token, base64url", () => {
    for (const token of ["a.b.c", "é.ü.€", "x".repeat(5000)]) {
      expect(digestOf(token)).toBe(createHash("sha256").update(token, "utf8").digest("base64url"));
    }
  });

  test("never past the token's exp, nor past the TTL", () => {
    const c = clock();
    const cache = new VerifiedTokenCache({ ttlMs: 60_000 }, c.now);
    cache.set("short-lived", "u_a", exp(10));
    cache.set("long-lived", "u_b", exp(3600));
    c.advance(9_999);
    expect([cache.get("short-lived"), cache.get("long-lived")]).toEqual(["u_a", "u_b"]);
    c.advance(1);
    expect(cache.get("short-lived")).toBeUndefined();
    c.advance(50_000);
    expect(cache.get("long-lived")).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
    // An already expired token is not kept at all; a TTL of 0 keeps nothing.
    cache.set("expired", "u_c", exp(0));
    expect(cache.get("expired")).toBeUndefined();
    const off = new VerifiedTokenCache({ ttlMs: 0 }, c.now);
    off.set("any", "u_d", exp(600));
    expect(off.size).toBe(0);
  });
});

/** A JWKS endpoint whose keys the test swaps, as an identity provider rotating its keys does. */
async function identityProvider(): Promise<{ url: string; serve(keys: JWK[]): void; fetches(): number; close(): void }> {
  let keys: JWK[] = [];
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    serve: (k) => void (keys = k),
    fetches: () => fetches,
    close: () => server.close(),
  };
}

async function signingKey(kid: string): Promise<{ jwk: JWK; sign(sub: string): Promise<string> }> {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  const sign = (sub: string) =>
    new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid })
      .setSubject(sub)
      .setIssuer("https://idp.example")
      .setAudience("portcullis")
      .setExpirationTime("2h")
      .sign(privateKey as CryptoKey);
  return { jwk, sign };
}

describe("the verifier's cache and a rotating remote key set", () => {
  const codeOf = (p: unknown) =>
    Promise.resolve(p).then(
      () => "ok",
      (e: TokenError) => e.code,
    );
  let idp: Awaited<ReturnType<typeof identityProvider>>;
  let clock: jest.SpyInstance<number, []>;
  let t: number;
  beforeEach(async () => {
    idp = await identityProvider();
    t = Date.now();
    // jose times its key-set refetches with Date.now: the test moves it.
    clock = jest.spyOn(Date, "now").mockImplementation(() => t);
  });
  afterEach(() => {
    clock.mockRestore();
    idp.close();
  });
  const verifier = (cacheTtlSec: number) =>
    createVerifier({
      issuer: "https://idp.example",
      audience: "portcullis",
      algorithms: ["ES256"],
      jwksUrl: idp.url,
      devKeyFile: "/nonexistent",
      clockToleranceSec: 0,
      cacheTtlSec,
    });

  test("a key removed from the set stops vouching for cached tokens once the new set is fetched", async () => {
    const [a, b] = [await signingKey("a"), await signingKey("b")];
    idp.serve([a.jwk]);
    const verify = await verifier(60);
    const tokenA = await a.sign("u_alice");
    expect(await verify(tokenA)).toBe("u_alice");
    expect(verify(tokenA)).toBe("u_alice"); // from the cache: at once, no promise (the request goes on in the same turn)
    expect(idp.fetches()).toBe(1);

    // Rotation: key a is gone. A token of key b makes jose refetch (past its 30 s cooldown).
    idp.serve([b.jwk]);
    t += 31_000;
    expect(await verify(await b.sign("u_bob"))).toBe("u_bob");
    expect(idp.fetches()).toBe(2);
    expect(await codeOf(verify(tokenA))).toBe("ERR_JWKS_NO_MATCHING_KEY");
  });

  test("a key set past its max age is refetched before the cache vouches again", async () => {
    const [a, b] = [await signingKey("a"), await signingKey("b")];
    idp.serve([a.jwk]);
    const verify = await verifier(3600);
    const tokenA = await a.sign("u_alice");
    expect(await verify(tokenA)).toBe("u_alice");
    idp.serve([b.jwk]);
    t += 11 * 60_000; // jose's cache max age is 10 minutes; the entry's TTL is an hour
    expect(await codeOf(verify(tokenA))).toBe("ERR_JWKS_NO_MATCHING_KEY");
    expect(idp.fetches()).toBe(2);
  });

  test("the same key set refetched keeps the cache", async () => {
    const a = await signingKey("a");
    idp.serve([a.jwk]);
    const verify = await verifier(3600);
    const tokenA = await a.sign("u_alice");
    expect(await verify(tokenA)).toBe("u_alice");
    t += 11 * 60_000;
    expect(await verify(await a.sign("u_bob"))).toBe("u_bob"); // refetches: same keys
    expect(idp.fetches()).toBe(2);
    expect(await verify(tokenA)).toBe("u_alice");
    expect(idp.fetches()).toBe(2);
  });
});

describe("a cached token and the users table", () => {
  test.each(["suspended", "disabled"] as const)("a token verified (and cached) before the account was %s is refused at the next request", async (status) => {
    const h = await startHarness();
    try {
      const auth = { Authorization: `Bearer ${await h.token("u_ivan")}` };
      expect((await request(h.app).get("/users/me").set(auth)).status).toBe(200);
      h.db.users.setStatusScoped("u_ivan", { tenant_id: "t_globex" }, status);
      expectProblem(await request(h.app).get("/users/me").set(auth), 403, "account_inactive");
      h.db.users.setStatusScoped("u_ivan", { tenant_id: "t_globex" }, "active");
      expect((await request(h.app).get("/users/me").set(auth)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
