/**
 * Authentication through real HTTP: real signed JWTs (and forged ones), the
 * actor from the verified subject plus the users table only, account states,
 * and a real JWKS endpoint (a local HTTP server: the one true external edge).
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import request from "supertest";
import { createApp } from "../../api/app";
import { createVerifier } from "../../api/identity/verifier";
import { AUDIENCE, expectProblem, ISSUER, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("tokens", () => {
  test("no token on a protected route: 401 from the policy", async () => {
    const res = await request(h.app).get("/invoices/inv_alice_1");
    expectProblem(res, 401, "authentication_required");
  });

  test("a valid token: the actor comes from the users table", async () => {
    const res = await request(h.app)
      .get("/users/me")
      .set(await h.auth("u_alice"));
    expect(res.status).toBe(200);
    expect(res.body.id).toBe("u_alice");
  });

  test.each([
    ["expired", () => h.token("u_alice", { ttlSec: -120 })],
    ["wrong audience", () => h.token("u_alice", { audience: "someone-else" })],
    ["wrong issuer", () => h.token("u_alice", { issuer: "https://evil.example" })],
    ["signed by another key", () => h.token("u_alice", { keyFile: path.join(h.dir, "other-key.json") })],
    ["alg none", async () => new UnsecuredJWT({}).setSubject("u_carol").setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime("10m").encode()],
    [
      "HS256 with the public key as secret (algorithm confusion)",
      async () => {
        const jwk = JSON.parse(fs.readFileSync(h.keyFile, "utf8"));
        return new SignJWT({})
          .setProtectedHeader({ alg: "HS256" })
          .setSubject("u_carol")
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime("10m")
          .sign(new TextEncoder().encode(JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y })));
      },
    ],
    ["a subject that is no user", () => h.token("u_nobody")],
    [
      "a tampered payload",
      async () => {
        const [head, , sig] = (await h.token("u_alice")).split(".");
        const payload = Buffer.from(JSON.stringify({ sub: "u_carol", iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 })).toString(
          "base64url",
        );
        return `${head}.${payload}.${sig}`;
      },
    ],
  ])("%s: 401 invalid_token, never anonymous", async (_name, make) => {
    const token = await make();
    for (const path of ["/users/me", "/health"]) {
      const res = await request(h.app).get(path).set(bearer(token));
      expectProblem(res, 401, "invalid_token");
      expect(res.headers["www-authenticate"]).toBe('Bearer realm="portcullis", error="invalid_token"');
    }
  });

  test("an Authorization header that is not a Bearer token is 401", async () => {
    const res = await request(h.app).get("/users/me").set("Authorization", "Basic dTphOmI=");
    expectProblem(res, 401, "invalid_token");
  });
});

describe("role and tenant never come from the request", () => {
  test("headers, query and body cannot make a member an admin", async () => {
    const alice = await h.auth("u_alice");
    const headers = { ...alice, "X-Role": "admin", "X-Tenant": "t_globex", "X-User-Id": "u_carol", "X-Forwarded-User": "u_carol" };
    const res = await request(h.app).post("/invoices/inv_alice_2/approve").set(headers);
    expectProblem(res, 403, "forbidden");
    expect(res.body.reason).toBe("role_required");
    const byQuery = await request(h.app).post("/invoices/inv_alice_2/approve?role=admin").set(alice);
    expectProblem(byQuery, 403, "forbidden");
    expect((await h.db.invoices.getScoped("inv_alice_2", { tenant_id: "t_acme" }))?.status).toBe("pending");
  });

  test("token claims other than sub are ignored", async () => {
    const jwk = JSON.parse(fs.readFileSync(h.keyFile, "utf8"));
    const { importJWK } = await import("jose");
    const key = await importJWK(jwk, "ES256");
    const token = await new SignJWT({ role: "admin", roles: ["admin"], tenant: "t_globex", isAdmin: true })
      .setProtectedHeader({ alg: "ES256", kid: jwk.kid })
      .setSubject("u_alice")
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime("10m")
      .sign(key);
    const res = await request(h.app).get("/metrics").set(bearer(token));
    expectProblem(res, 403, "forbidden");
    const inv = await request(h.app).get("/invoices/inv_dave_1").set(bearer(token));
    expectProblem(inv, 404, "not_found");
  });
});

describe("account states", () => {
  test.each(["suspended", "disabled", "banned"] as const)("a %s account is 403 account_inactive with a genuine token", async (status) => {
    const token = await h.token("u_ivan");
    await h.db.users.setStatusScoped("u_ivan", { tenant_id: "t_globex" }, status);
    try {
      const res = await request(h.app).get("/users/me").set(bearer(token));
      expectProblem(res, 403, "account_inactive");
    } finally {
      await h.db.users.setStatusScoped("u_ivan", { tenant_id: "t_globex" }, "active");
    }
    expect((await request(h.app).get("/users/me").set(bearer(token))).status).toBe(200);
    expect((await h.events({ kind: "inactive_account", actorId: "u_ivan" })).length).toBeGreaterThan(0);
  });
});

describe("a JWKS identity provider", () => {
  test("tokens verified against a remote key set (RS256)", async () => {
    const { publicKey, privateKey } = await generateKeyPair("RS256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "idp-1", alg: "RS256", use: "sig" };
    const server = http.createServer((_req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
      const verifyToken = await createVerifier({
        issuer: "https://idp.example",
        audience: "portcullis",
        algorithms: ["RS256"],
        jwksUrl: url,
        devKeyFile: "/nonexistent",
        clockToleranceSec: 0,
      });
      const app = createApp({ ...h.deps, verifyToken });
      const sign = (iss: string) =>
        new SignJWT({})
          .setProtectedHeader({ alg: "RS256", kid: "idp-1" })
          .setSubject("u_carol")
          .setIssuer(iss)
          .setAudience("portcullis")
          .setExpirationTime("5m")
          .sign(privateKey);
      const ok = await request(app)
        .get("/users/me")
        .set(bearer(await sign("https://idp.example")));
      expect(ok.status).toBe(200);
      expect(ok.body.id).toBe("u_carol");
      const wrongIss = await request(app)
        .get("/users/me")
        .set(bearer(await sign("https://other.example")));
      expectProblem(wrongIss, 401, "invalid_token");
      // The dev key is not trusted when a JWKS is configured.
      const dev = await request(app)
        .get("/users/me")
        .set(await h.auth("u_carol"));
      expectProblem(dev, 401, "invalid_token");
    } finally {
      server.close();
    }
  });
});
