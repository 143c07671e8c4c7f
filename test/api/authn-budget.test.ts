/**
 * Authentication that cannot be turned against users: failed tokens spend
 * a per-client budget, but a valid token is always verified and always
 * passes, whoever sent bad ones from the same address. The client address
 * comes from X-Forwarded-For only when the socket peer is a trusted proxy
 * (the test client's peer is 127.0.0.1). Every 401 carries a Bearer
 * challenge.
 */
import * as path from "node:path";
import { UnsecuredJWT } from "jose";
import request from "supertest";
import { createVerifier, TokenError } from "../../api/identity/verifier";
import { clientAddressResolver } from "../../api/middleware/client-address";
import { ROUTES } from "../../api/registry/routes";
import { AUDIENCE, expectProblem, ISSUER, startHarness, type Harness } from "./harness";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const BUDGET = { authentication: { limit: 3, windowSec: 60 } };

async function forged(h: Harness, sub = "u_carol"): Promise<string> {
  return h.token(sub, { keyFile: path.join(h.dir, "attacker-key.json") });
}

describe("one address (no trusted proxy): a flood of bad tokens", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimits: BUDGET });
  });
  afterAll(async () => h?.close());

  test("spends the budget of failures: 401 until it is spent, then 429 with Retry-After", async () => {
    const bad = await forged(h);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await request(h.app).get("/users/me").set(bearer(bad))).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    const last = await request(h.app)
      .get("/users/me")
      .set(bearer(await forged(h, "u_bob")));
    expectProblem(last, 429, "rate_limited");
    expect(Number(last.headers["retry-after"])).toBeGreaterThan(0);
    // Garbage and alg none count the same.
    expectProblem(await request(h.app).get("/users/me").set("Authorization", "Bearer x.y.z"), 429, "rate_limited");
  });

  test("never turns a valid token into 429: fresh and already-seen valid tokens from the same address pass", async () => {
    for (let i = 0; i < 10; i++)
      await request(h.app)
        .get("/users/me")
        .set(bearer(await forged(h)));
    for (const user of ["u_alice", "u_bob", "u_carol", "u_frank"]) {
      const fresh = await h.token(user);
      for (let i = 0; i < 3; i++) {
        const res = await request(h.app).get("/users/me").set(bearer(fresh));
        expect({ user, status: res.status }).toEqual({ user, status: 200 });
        expect(res.body.id).toBe(user);
      }
      // Interleaved with more forgeries: still 200.
      await request(h.app)
        .get("/users/me")
        .set(bearer(await forged(h, user)));
      expect(
        (
          await request(h.app)
            .get("/invoices")
            .set(bearer(await h.token(user)))
        ).status,
      ).toBe(200);
    }
  });

  test("a spoofed X-Forwarded-For from an untrusted peer buys no fresh budget", async () => {
    const bad = await forged(h);
    for (let i = 0; i < 5; i++) {
      const res = await request(h.app)
        .get("/users/me")
        .set(bearer(bad))
        .set("X-Forwarded-For", `203.0.113.${i + 1}`);
      expectProblem(res, 429, "rate_limited");
    }
  });
});

describe("behind a trusted proxy (the edge gateway)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimits: BUDGET, trustedProxies: ["127.0.0.1", "::1"] });
  });
  afterAll(async () => h?.close());

  test("each client behind the gateway has its own budget; the attacker's is spent, nobody else's", async () => {
    const attacker = "198.51.100.66";
    for (let i = 0; i < 5; i++)
      await request(h.app)
        .get("/users/me")
        .set(bearer(await forged(h)))
        .set("X-Forwarded-For", attacker);
    expectProblem(
      await request(h.app)
        .get("/users/me")
        .set(bearer(await forged(h)))
        .set("X-Forwarded-For", attacker),
      429,
      "rate_limited",
    );
    // Another client's mistyped token is a plain 401 (its own budget), and its valid one passes.
    const other = await request(h.app)
      .get("/users/me")
      .set(bearer(await forged(h, "u_alice")))
      .set("X-Forwarded-For", "198.51.100.7");
    expectProblem(other, 401, "invalid_token");
    expect(
      (
        await request(h.app)
          .get("/users/me")
          .set(await h.auth("u_alice"))
          .set("X-Forwarded-For", "198.51.100.7")
      ).status,
    ).toBe(200);
    // And the attacker's own valid token passes too.
    expect(
      (
        await request(h.app)
          .get("/users/me")
          .set(await h.auth("u_bob"))
          .set("X-Forwarded-For", attacker)
      ).status,
    ).toBe(200);
  });

  test("what the client writes to the left of the gateway's entry is never read", async () => {
    const attacker = "198.51.100.99";
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) {
      // The client sends its own X-Forwarded-For; the gateway appends the address it saw.
      const res = await request(h.app)
        .get("/users/me")
        .set(bearer(await forged(h)))
        .set("X-Forwarded-For", `10.9.9.${i}, ${attacker}`);
      answers.push(res.status);
    }
    expect(answers).toEqual([401, 401, 401, 429, 429, 429]);
  });

  test("the log names the forwarded client and the proxy it came through", async () => {
    h.logs.length = 0;
    await request(h.app).get("/health").set("X-Forwarded-For", "192.0.2.44");
    const line = h.logs.find((l) => l.event === "http.request");
    expect(line?.client).toMatch(/^192\.0\.2\.44 \(via (::ffff:)?127\.0\.0\.1:\d+\)$/);
  });
});

describe("the client address", () => {
  const resolve = clientAddressResolver(["10.0.0.0/8", "2001:db8::/32", "192.0.2.1"]);
  test.each([
    ["an untrusted peer: the header is ignored", "203.0.113.9", "1.2.3.4", "203.0.113.9"],
    ["a trusted peer: the first untrusted address from the right", "10.1.1.1", "1.2.3.4, 198.51.100.7, 10.2.2.2", "198.51.100.7"],
    ["an IPv4-mapped trusted peer", "::ffff:10.1.1.1", "198.51.100.7", "198.51.100.7"],
    ["an IPv6 trusted peer", "2001:db8::5", "2001:db8::6, 198.51.100.8", "198.51.100.8"],
    ["a trusted peer without the header", "192.0.2.1", undefined, "192.0.2.1"],
    ["garbage stops the walk at the last trusted hop", "10.1.1.1", "evil, not-an-ip", "10.1.1.1"],
    ["only trusted hops: the leftmost", "10.1.1.1", "10.3.3.3, 10.2.2.2", "10.3.3.3"],
  ])("%s", (_name, peer, xff, expected) => {
    expect(resolve(peer, xff)).toBe(expected);
  });

  test("a misconfigured entry is refused at start-up", () => {
    for (const bad of ["10.0.0.0/33", "kong", "10.0.0.1/8/1", "::1/129", "10.0.0.0/"])
      expect(() => clientAddressResolver([bad])).toThrow(
        expect.objectContaining({ code: "CONFIG_INVALID_ADDRESS", message: expect.stringMatching(/trusted proxy/) }),
      );
  });
});

describe("the verifier spends no signature work on tokens that fail anyway", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  const verifier = () => createVerifier({ issuer: ISSUER, audience: AUDIENCE, algorithms: ["ES256"], devKeyFile: h.keyFile, clockToleranceSec: 0 });
  const codeOf = async (p: unknown) =>
    Promise.resolve(p).then(
      () => "ok",
      (e: TokenError) => e.code,
    );

  test("claims are checked before the signature: an expired forgery is refused as expired", async () => {
    const verify = await verifier();
    const expiredForgery = await h.token("u_alice", { ttlSec: -120, keyFile: path.join(h.dir, "attacker-key.json") });
    expect(await codeOf(verify(expiredForgery))).toBe("ERR_JWT_EXPIRED");
    const foreign = await h.token("u_alice", { audience: "elsewhere", keyFile: path.join(h.dir, "attacker-key.json") });
    expect(await codeOf(verify(foreign))).toBe("ERR_JWT_CLAIM_VALIDATION_FAILED");
    const none = new UnsecuredJWT({}).setSubject("u_carol").setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime("10m").encode();
    expect(await codeOf(verify(none))).toBe("ERR_JOSE_ALG_NOT_ALLOWED");
  });

  test("a forgery already refused is remembered, not verified again; valid tokens are unaffected", async () => {
    const verify = await verifier();
    // The real key id, a payload of the attacker's choosing: only the signature check can refuse it.
    const [head, , sig] = (await h.token("u_alice")).split(".");
    const payload = Buffer.from(JSON.stringify({ sub: "u_carol", iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 })).toString("base64url");
    const bad = `${head}.${payload}.${sig}`;
    await expect(verify(bad)).rejects.toMatchObject({ code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" });
    await expect(verify(bad)).rejects.toThrow(/remembered/);
    expect(await verify(await h.token("u_carol"))).toBe("u_carol");
  });
});

describe("every 401 carries a Bearer challenge (RFC 6750)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  const protectedGets = ROUTES.filter((r) => r.method === "GET" && !["health.get", "openapi.get"].includes(r.id)).map((r) =>
    r.paths[0].replace("{version}", "v2").replace(/\{[a-z_]+\}/g, "x1"),
  );

  test.each(protectedGets)("GET %s without a token: realm, no error code", async (p) => {
    const res = await request(h.app).get(p);
    expectProblem(res, 401, "authentication_required");
    expect(res.headers["www-authenticate"]).toBe('Bearer realm="portcullis"');
  });

  test('a refused token: error="invalid_token"', async () => {
    const res = await request(h.app).get("/users/me").set("Authorization", "Basic dTphOmI=");
    expectProblem(res, 401, "invalid_token");
    expect(res.headers["www-authenticate"]).toBe('Bearer realm="portcullis", error="invalid_token"');
  });

  test("answers that are not 401 carry no challenge", async () => {
    const res = await request(h.app)
      .get("/metrics")
      .set(await h.auth("u_alice"));
    expect(res.status).toBe(403);
    expect(res.headers["www-authenticate"]).toBeUndefined();
  });
});
