/**
 * io.jwt.encode_sign(_raw) with HMAC keys and providers.aws.sign_req,
 * compiled natively into the runtime: results as OPA gives them (checked
 * against Node's crypto), undefined where OPA raises a (non-strict) builtin
 * error.
 */
import { createHash, createHmac } from "crypto";
import { resultSet } from "./evaluate-rego";

const evaluate = resultSet;

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
    for (const [alg, hash] of [
      ["HS256", "sha256"],
      ["HS384", "sha384"],
      ["HS512", "sha512"],
    ]) {
      const h = `{"alg":"${alg}",\r\n "typ":"JWT"}`;
      const pl = '{"iss": "joe", "n": 1}';
      expect(await p(rule, { h, p: pl, k })).toBe(hmacJws(h, pl, secret, hash));
    }
  });

  test("the key may be a JWK set (first key) and its k padded or in the standard alphabet", async () => {
    const h = '{"alg":"HS256"}';
    const odd = Buffer.from([0xfb, 0xef, 0xbe, 0xff]); // "++++/w==" in the standard alphabet
    const set = JSON.stringify({
      keys: [
        { kty: "oct", k: odd.toString("base64") },
        { kty: "oct", k: "AA" },
      ],
    });
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

describe("providers.aws.sign_req", () => {
  const rule = "p := providers.aws.sign_req(input.req, input.config, input.t)";
  const config = { aws_access_key: "AKID", aws_secret_access_key: "SECRET", aws_service: "s3", aws_region: "eu-west-1" };
  const t = 1451311705000000000; // 2015-12-28T14:08:25Z

  const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");
  const mac = (key: Buffer | string, s: string): Buffer => createHmac("sha256", key).update(s).digest();

  /** The Authorization header for a canonical request's parts, signed as SigV4 does. */
  function authorization(cfg: typeof config, signed: Record<string, string>, method: string, path: string, query: string, hash: string): string {
    const names = Object.keys(signed).sort();
    const canonical = [method, path, query, ...names.map((n) => `${n}:${signed[n]}`), "", names.join(";"), hash].join("\n");
    const scope = `20151228/${cfg.aws_region}/${cfg.aws_service}/aws4_request`;
    const toSign = ["AWS4-HMAC-SHA256", "20151228T140825Z", scope, sha256(canonical)].join("\n");
    let key = mac(`AWS4${cfg.aws_secret_access_key}`, "20151228");
    for (const part of [cfg.aws_region, cfg.aws_service, "aws4_request"]) key = mac(key, part);
    const signature = mac(key, toSign).toString("hex");
    return `AWS4-HMAC-SHA256 Credential=${cfg.aws_access_key}/${scope},SignedHeaders=${names.join(";")},Signature=${signature}`;
  }

  test("signs method, escaped path, query, headers and the JSON body; keeps the other request keys", async () => {
    const req = {
      method: "PUT",
      url: "https://u:p@example.com:8443/a%2Fb/c d?x=1&y=%20",
      headers: { "X-Foo": "bar", "User-Agent": "ua" },
      body: { b: [1], a: "<" },
      timeout: "5s",
    };
    const body = '{"a":"\\u003c","b":[1]}';
    const hash = sha256(body);
    const amz = { host: "example.com:8443", "x-amz-date": "20151228T140825Z", "x-amz-content-sha256": hash };
    const signed = { ...amz, "x-foo": "bar" };
    // Go's EscapedPath: a path written with a character that needs escaping
    // is re-escaped from its decoded form, so %2F becomes "/".
    expect(await p(rule, { req, config, t })).toEqual({
      ...req,
      headers: { "X-Foo": "bar", "User-Agent": "ua", ...amz, Authorization: authorization(config, signed, "PUT", "/a/b/c%20d", "x=1&y=%20", hash) },
    });
    // A validly escaped path is signed as written.
    const req2 = { method: "GET", url: "https://example.com/a%2Fb/%7Ec!" };
    const amz2 = { host: "example.com", "x-amz-date": "20151228T140825Z", "x-amz-content-sha256": sha256("") };
    expect(await p(rule, { req: req2, config, t })).toEqual({
      ...req2,
      headers: { ...amz2, Authorization: authorization(config, amz2, "GET", "/a%2Fb/%7Ec!", "", sha256("")) },
    });
  });

  test("raw_body wins over body; unsigned payload; session token; no content hash header outside s3 and glacier", async () => {
    const cfg = { ...config, aws_service: "execute-api", aws_session_token: "TOKEN", disable_payload_signing: true };
    const req = { method: "post", url: "http://example.com", raw_body: "hello", body: { a: 1 } };
    const amz = { host: "example.com", "x-amz-date": "20151228T140825Z", "x-amz-security-token": "TOKEN" };
    expect(await p(rule, { req, config: cfg, t })).toEqual({
      ...req,
      headers: { ...amz, Authorization: authorization(cfg, amz, "post", "", "", "UNSIGNED-PAYLOAD") },
    });
  });

  test("a request header named like an added one is signed with its own value, but the added value is returned", async () => {
    const req = { method: "GET", url: "https://example.com/", headers: { "x-amz-content-sha256": "mine" } };
    const hash = sha256("");
    const amz = { host: "example.com", "x-amz-date": "20151228T140825Z", "x-amz-content-sha256": hash };
    expect(await p(rule, { req, config, t })).toEqual({
      ...req,
      headers: { ...amz, Authorization: authorization(config, { ...amz, "x-amz-content-sha256": "mine" }, "GET", "/", "", hash) },
    });
  });

  test("errors are undefined: config keys, request keys, types, time, URL", async () => {
    const req = { method: "GET", url: "https://example.com/" };
    const { aws_region: _, ...noRegion } = config;
    for (const [r, c, time] of [
      [req, noRegion, t],
      [req, { ...config, aws_region: 1 }, t],
      [req, { ...config, disable_payload_signing: "yes" }, t],
      [{ ...req, nope: 1 }, config, t],
      [{ url: req.url }, config, t],
      [{ ...req, method: 1 }, config, t],
      [{ ...req, headers: [] }, config, t],
      [{ ...req, url: "http://exa mple.com/" }, config, t],
      [{ ...req, url: "http://example.com:80x/" }, config, t],
      [{ ...req, url: "http://example.com/%zz" }, config, t],
      [{ ...req, url: ":foo" }, config, t],
      [req, config, 1.5],
      [req, config, "1"],
      ["req", config, t],
    ] as const) {
      expect(await p(rule, { req: r, config: c, t: time })).toBeUndefined();
    }
  });
});
