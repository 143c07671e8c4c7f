/**
 * io.jwt.encode_sign(_raw) with HMAC keys and providers.aws.sign_req,
 * compiled natively into the runtime: results as OPA gives them (checked
 * against Node's crypto), undefined where OPA raises a (non-strict) builtin
 * error.
 */
import { createHmac } from "crypto";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../pdp/compiler";

async function evaluate(source: string, input: unknown): Promise<unknown> {
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query: "x = data.t.p" }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q");
}

/** The value of p for input, or undefined when p is undefined. */
async function p(source: string, input: unknown = {}): Promise<unknown> {
  const r = (await evaluate(`package t\n${source}`, input)) as Array<{ x: unknown }>;
  return r.length === 0 ? undefined : r[0].x;
}

const b64url = (s: string | Buffer): string => Buffer.from(s).toString("base64url");

/** The compact JWS Node computes for the texts, as OPA signs them. */
function hmacJws(header: string, payload: string, secret: Buffer, hash: string): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${createHmac(hash, secret).update(input).digest("base64url")}`;
}

describe("io.jwt.encode_sign_raw", () => {
  const rule = "p := io.jwt.encode_sign_raw(input.h, input.p, input.k)";
  const secret = Buffer.from("a secret of some length \u00e9", "utf8");
  const k = JSON.stringify({ kty: "oct", k: secret.toString("base64url") });

  test("HS256, HS384 and HS512 sign the texts as given", async () => {
    for (const [alg, hash] of [["HS256", "sha256"], ["HS384", "sha384"], ["HS512", "sha512"]]) {
      const h = `{"alg":"${alg}",\r\n "typ":"JWT"}`;
      const pl = '{"iss": "joe", "n": 1}';
      expect(await p(rule, { h, p: pl, k })).toBe(hmacJws(h, pl, secret, hash));
    }
  });

  test("the key may be a JWK set (first key) and its k padded or in the standard alphabet", async () => {
    const h = '{"alg":"HS256"}';
    const odd = Buffer.from([0xfb, 0xef, 0xbe, 0xff]); // "++++/w==" in the standard alphabet
    const set = JSON.stringify({ keys: [{ kty: "oct", k: odd.toString("base64") }, { kty: "oct", k: "AA" }] });
    expect(await p(rule, { h, p: "{}", k: set })).toBe(hmacJws(h, "{}", odd, "sha256"));
  });

  test("a payload need not be JSON unless typ is JWT or absent", async () => {
    const h = '{"alg":"HS256","typ":"text/plain"}';
    expect(await p(rule, { h, p: "", k })).toBe(hmacJws(h, "", secret, "sha256"));
    expect(await p(rule, { h, p: "e", k })).toBe(hmacJws(h, "e", secret, "sha256"));
    expect(await p(rule, { h: '{"alg":"HS256"}', p: "e", k })).toBeUndefined();
    expect(await p(rule, { h: '{"alg":"HS256","typ":"JWT"}', p: '{"a":', k })).toBeUndefined();
  });

  test("bad headers, keys and operands are errors: undefined", async () => {
    for (const h of ["", "e", "{}", '{"typ:"JWT","alg":"HS256"}', '{"alg":"dummy"}', '{"alg":256}', '["HS256"]']) {
      expect(await p(rule, { h, p: "{}", k })).toBeUndefined();
    }
    const h = '{"alg":"HS256"}';
    for (const key of ["", "{}", '{"keys":[]}', '{"kty":"oct"}', '{"kty":"oct","k":""}', '{"kty":"oct","k":"A"}', '{"kty":"RSA","k":"AAAA"}']) {
      expect(await p(rule, { h, p: "{}", k: key })).toBeUndefined();
    }
    expect(await p(rule, { h: 1, p: "{}", k })).toBeUndefined();
    expect(await p(rule, { h, p: {}, k })).toBeUndefined();
  });

  test("RSA, ECDSA and EdDSA signing is not implemented: undefined", async () => {
    expect(await p(rule, { h: '{"alg":"RS256"}', p: "{}", k })).toBeUndefined();
  });
});

describe("io.jwt.encode_sign", () => {
  test("serialises the objects as Go's json.Marshal (sorted keys, sets as arrays) and signs", async () => {
    const secret = Buffer.from("0123456789abcdef");
    const src = `p := io.jwt.encode_sign({"typ": "JWT", "alg": "HS512"}, {"b": {3, 1}, "a": "<&>"}, {"kty": "oct", "k": "${secret.toString("base64url")}"})`;
    const h = '{"alg":"HS512","typ":"JWT"}';
    const pl = '{"a":"\\u003c\\u0026\\u003e","b":[1,3]}';
    expect(await p(src)).toBe(hmacJws(h, pl, secret, "sha512"));
  });

  test("a header without a known alg is undefined", async () => {
    expect(await p('p := io.jwt.encode_sign({"typ": "JWT"}, {}, {"kty": "oct", "k": "AAAA"})')).toBeUndefined();
  });
});
