/**
 * `portcullis token`: the dev token it prints is accepted by the service's
 * verifier with the same key file and default issuer/audience, carries only
 * the subject, and is refused for ids that are no user.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { createVerifier } from "../../api/identity/verifier";
import { tokenCommand } from "../../cli/token";
import { loadConfig } from "../../config";

let dir: string;
let printed: string[];
let spy: jest.SpyInstance;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-token-"));
  printed = [];
  spy = jest.spyOn(console, "log").mockImplementation((line: string) => void printed.push(line));
});
afterEach(() => {
  spy.mockRestore();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("mints a token the service accepts", async () => {
  const key = path.join(dir, "key.json");
  const code = await tokenCommand(["u_alice", "--db", path.join(dir, "p.db"), "--key", key, "--ttl", "120"]);
  expect(code).toBe(0);
  const token = printed[0];
  expect(decodeProtectedHeader(token).alg).toBe("ES256");
  const claims = decodeJwt(token);
  expect(Object.keys(claims).sort()).toEqual(["aud", "exp", "iat", "iss", "sub"]);
  expect(fs.statSync(key).mode & 0o777).toBe(0o600);
  const verify = await createVerifier(loadConfig({ env: {}, flags: [{ path: "identity.devKeyFile", flag: "--key", value: key }] }).identity);
  await expect(verify(token)).resolves.toBe("u_alice");
});

test("refuses to mint dev tokens when the service takes its keys from an identity provider", async () => {
  const saved = process.env.PORTCULLIS_JWKS_URL;
  process.env.PORTCULLIS_JWKS_URL = "https://idp.example/jwks";
  try {
    await expect(tokenCommand(["u_alice", "--db", path.join(dir, "p.db"), "--key", path.join(dir, "k.json")])).rejects.toThrow(
      expect.objectContaining({ name: "ConfigError", code: "CONFIG_CONFLICT", setting: "PORTCULLIS_JWKS_URL (identity.jwksUrl)" }),
    );
  } finally {
    if (saved === undefined) delete process.env.PORTCULLIS_JWKS_URL;
    else process.env.PORTCULLIS_JWKS_URL = saved;
  }
  expect(printed).toEqual([]);
});

test("refuses ids that are no user", async () => {
  await expect(tokenCommand(["u_mallory", "--db", path.join(dir, "p.db"), "--key", path.join(dir, "k.json")])).rejects.toThrow(/no user/);
  expect(printed).toEqual([]);
});

test("identity configuration never accepts alg none", () => {
  expect(() => loadConfig({ env: { PORTCULLIS_JWT_ALGORITHMS: "ES256,none" } })).toThrow(
    expect.objectContaining({ code: "CONFIG_INVALID_ALGORITHM", setting: "PORTCULLIS_JWT_ALGORITHMS" }),
  );
});
