/**
 * Public-key JWT builtins dispatched to the host (compiler/host/jwt/,
 * supplied by EvaluationClock.builtins()): io.jwt.verify_rs/ps/es*,
 * verify_eddsa and io.jwt.decode_verify. Keys are generated and tokens
 * signed by node:crypto; the policy runs as real Wasm through the SDK.
 * OPA's builtin errors make the call undefined, as for native builtins.
 */
import { createHmac, generateKeyPairSync, sign, constants, type KeyObject } from "crypto";
import { hostValueOf } from "./evaluate-rego";

const p = hostValueOf;

const b64url = (s: string | Buffer): string => Buffer.from(s).toString("base64url");

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const rsa2 = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec256 = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ec384 = generateKeyPairSync("ec", { namedCurve: "P-384" });
const ec521 = generateKeyPairSync("ec", { namedCurve: "P-521" });
const ed = generateKeyPairSync("ed25519");
const ed2 = generateKeyPairSync("ed25519");

const pem = (k: KeyObject): string => k.export({ type: "spki", format: "pem" }) as string;
const jwk = (k: KeyObject, extra: Record<string, unknown> = {}): string => JSON.stringify({ ...k.export({ format: "jwk" }), ...extra });

/** A compact JWS of header and payload signed by node:crypto for alg. */
function token(alg: string, key: KeyObject, payload: object = { sub: "alice" }, header: object = {}): string {
  const input = `${b64url(JSON.stringify({ alg, typ: "JWT", ...header }))}.${b64url(JSON.stringify(payload))}`;
  const hash = alg === "EdDSA" ? null : `sha${alg.slice(2)}`;
  let sig: Buffer;
  if (alg.startsWith("PS")) sig = sign(hash, Buffer.from(input), { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 });
  else if (alg.startsWith("ES")) sig = sign(hash, Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
  else sig = sign(hash, Buffer.from(input), key);
  return `${input}.${b64url(sig)}`;
}

/** The token with one character of its signature changed. */
function tamper(t: string): string {
  const i = t.lastIndexOf(".") + 5;
  return t.slice(0, i) + (t[i] === "A" ? "B" : "A") + t.slice(i + 1);
}

const verify = (builtin: string) => `p := io.jwt.${builtin}(input.t, input.k)`;

describe("io.jwt.verify_* with public keys", () => {
  const cases: Array<[string, string, { privateKey: KeyObject; publicKey: KeyObject }, KeyObject]> = [
    ["verify_rs256", "RS256", rsa, rsa2.publicKey],
    ["verify_rs384", "RS384", rsa, rsa2.publicKey],
    ["verify_rs512", "RS512", rsa, rsa2.publicKey],
    ["verify_ps256", "PS256", rsa, rsa2.publicKey],
    ["verify_ps384", "PS384", rsa, rsa2.publicKey],
    ["verify_ps512", "PS512", rsa, rsa2.publicKey],
    ["verify_es256", "ES256", ec256, ec384.publicKey],
    ["verify_es384", "ES384", ec384, ec256.publicKey],
    ["verify_es512", "ES512", ec521, ec256.publicKey],
    ["verify_eddsa", "EdDSA", ed, ed2.publicKey],
  ];

  test.each(cases)("%s: PEM key and JWK verify; tampered token and wrong key do not", async (builtin, alg, pair, wrong) => {
    const t = token(alg, pair.privateKey);
    expect(await p(verify(builtin), { t, k: pem(pair.publicKey) })).toBe(true);
    expect(await p(verify(builtin), { t, k: jwk(pair.publicKey) })).toBe(true);
    expect(await p(verify(builtin), { t, k: JSON.stringify({ keys: [JSON.parse(jwk(wrong)), JSON.parse(jwk(pair.publicKey))] }) })).toBe(true);
    expect(await p(verify(builtin), { t: tamper(t), k: pem(pair.publicKey) })).toBe(false);
    expect(await p(verify(builtin), { t, k: pem(wrong) })).toBe(false);
  });

  test("a key of another family is false, not an error", async () => {
    const t = token("RS256", rsa.privateKey);
    expect(await p(verify("verify_rs256"), { t, k: pem(ec256.publicKey) })).toBe(false);
    expect(await p(verify("verify_es256"), { t: token("ES256", ec256.privateKey), k: pem(rsa.publicKey) })).toBe(false);
  });

  test("a JWK set key whose kid matches the header is the only one tried", async () => {
    const t = token("RS256", rsa.privateKey, {}, { kid: "k2" });
    const set = (kid1: string, kid2: string) =>
      JSON.stringify({ keys: [JSON.parse(jwk(rsa.publicKey, { kid: kid1 })), JSON.parse(jwk(rsa2.publicKey, { kid: kid2 }))] });
    expect(await p(verify("verify_rs256"), { t, k: set("k2", "k1") })).toBe(true);
    expect(await p(verify("verify_rs256"), { t, k: set("k1", "k2") })).toBe(false);
  });

  test("errors are undefined: malformed token, bad PEM, extra data after PEM, not a key", async () => {
    const k = pem(rsa.publicKey);
    const t = token("RS256", rsa.privateKey);
    expect(await p(verify("verify_rs256"), { t: "a.b", k })).toBeUndefined();
    expect(await p(verify("verify_rs256"), { t, k: k.replace("MII", "dea") })).toBeUndefined();
    expect(await p(verify("verify_rs256"), { t, k: `${k}\nextra` })).toBeUndefined();
    expect(await p(verify("verify_rs256"), { t, k: "not a key" })).toBeUndefined();
    expect(await p(verify("verify_rs256"), { t: `${t}!`, k })).toBeUndefined();
  });

  test("inputs that once took quadratic time give the same answers: long '=' runs, many BEGIN lines", async () => {
    const k = pem(rsa.publicKey);
    const t = token("RS256", rsa.privateKey);
    expect(await p(verify("verify_rs256"), { t: `${"=".repeat(40000)}a.b.c`, k })).toBeUndefined();
    expect(await p(verify("verify_rs256"), { t, k: "-----BEGIN A-----\n".repeat(20000) })).toBeUndefined();
    // Go's pem.Decode skips unterminated or mismatched blocks to reach a good one.
    expect(await p(verify("verify_rs256"), { t, k: `${"-----BEGIN A-----\n".repeat(20000)}${k}` })).toBe(true);
  });
});

describe("io.jwt.decode_verify", () => {
  const rule = "p := io.jwt.decode_verify(input.t, input.c)";
  const unverified = [false, {}, {}];

  test("valid with a PEM key: [true, header, payload], numbers kept to the digit", async () => {
    const payloadText = '{"iss":"xxx","big":12345678901234567890,"f":1.5}';
    const input = `${b64url('{"alg":"ES256"}')}.${b64url(payloadText)}`;
    const t = `${input}.${b64url(sign("sha256", Buffer.from(input), { key: ec256.privateKey, dsaEncoding: "ieee-p1363" }))}`;
    const got = await p(rule, { t, c: { cert: pem(ec256.publicKey) } });
    // eslint-disable-next-line no-loss-of-precision -- the number as JSON.parse reads OPA's answer
    expect(got).toEqual([true, { alg: "ES256" }, { iss: "xxx", big: 12345678901234567890, f: 1.5 }]);
    // The big integer survives: compare through Rego, not JS numbers.
    expect(
      await p("p := x if { [_, _, pl] := io.jwt.decode_verify(input.t, input.c); x := format_int(pl.big, 10) }", { t, c: { cert: pem(ec256.publicKey) } }),
    ).toBe("12345678901234567890");
  });

  test("RS/PS/EdDSA tokens with their keys; wrong key or tampered token is [false, {}, {}]", async () => {
    for (const [alg, pair] of [
      ["RS384", rsa],
      ["PS512", rsa],
      ["EdDSA", ed],
      ["ES512", ec521],
    ] as const) {
      const t = token(alg, pair.privateKey);
      expect(await p(rule, { t, c: { cert: pem(pair.publicKey) } })).toEqual([true, { alg, typ: "JWT" }, { sub: "alice" }]);
      expect(await p(rule, { t, c: { cert: jwk(pair.publicKey) } })).toEqual([true, { alg, typ: "JWT" }, { sub: "alice" }]);
      expect(await p(rule, { t: tamper(t), c: { cert: pem(pair.publicKey) } })).toEqual(unverified);
    }
    expect(await p(rule, { t: token("RS256", rsa.privateKey), c: { cert: pem(rsa2.publicKey) } })).toEqual(unverified);
  });

  test("HS256 with a secret", async () => {
    const input = `${b64url('{"alg":"HS256"}')}.${b64url('{"a":1}')}`;
    const t = `${input}.${createHmac("sha256", "s3cret").update(input).digest("base64url")}`;
    expect(await p(rule, { t, c: { secret: "s3cret" } })).toEqual([true, { alg: "HS256" }, { a: 1 }]);
    expect(await p(rule, { t, c: { secret: "other" } })).toEqual(unverified);
    // An RSA key does not verify an HMAC token.
    expect(await p(rule, { t, c: { cert: pem(rsa.publicKey) } })).toEqual(unverified);
  });

  test("oct JWK: k is decoded strictly; junk or empty key material is an error", async () => {
    const mac = (key: Buffer) => {
      const input = `${b64url('{"alg":"HS256"}')}.${b64url('{"a":1}')}`;
      return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`;
    };
    const secret = Buffer.from("s3cret-bytes");
    const ok = [true, { alg: "HS256" }, { a: 1 }];
    const oct = (k: string) => ({ cert: JSON.stringify({ kty: "oct", k }) });
    expect(await p(rule, { t: mac(secret), c: oct(secret.toString("base64url")) })).toEqual(ok);
    // jwx also takes padded and standard-alphabet base64.
    expect(await p(rule, { t: mac(secret), c: oct(secret.toString("base64")) })).toEqual(ok);
    const odd = Buffer.from([0xfb, 0xff]);
    expect(await p(rule, { t: mac(odd), c: oct(odd.toString("base64")) })).toEqual(ok);
    // Keys that Buffer's lenient decoder would read as zero bytes must never verify a token MAC'd with the empty key.
    for (const k of ["!!!!", "A", "=", "====", "A===", "-+", "AAA=A"]) {
      expect(await p(rule, { t: mac(Buffer.alloc(0)), c: oct(k) })).toBeUndefined();
    }
    expect(await p(rule, { t: mac(secret), c: oct(`${secret.toString("base64url")}=`) })).toBeUndefined();
  });

  test("alg, iss and aud constraints", async () => {
    const cert = pem(rsa.publicKey);
    const t = token("RS256", rsa.privateKey, { iss: "xxx", aud: ["a", "b"] });
    expect(await p(rule, { t, c: { cert, alg: "RS256", iss: "xxx", aud: "b" } })).toEqual([
      true,
      { alg: "RS256", typ: "JWT" },
      { iss: "xxx", aud: ["a", "b"] },
    ]);
    expect(await p(rule, { t, c: { cert, alg: "PS256", aud: "a" } })).toEqual(unverified);
    expect(await p(rule, { t, c: { cert, iss: "yyy", aud: "a" } })).toEqual(unverified);
    expect(await p(rule, { t, c: { cert, aud: "c" } })).toEqual(unverified);
    // A token with "aud" needs an "aud" constraint; one without needs none.
    expect(await p(rule, { t, c: { cert } })).toEqual(unverified);
    expect(await p(rule, { t: token("RS256", rsa.privateKey, { iss: "xxx" }), c: { cert, aud: "a" } })).toEqual(unverified);
  });

  test("exp and nbf against the time constraint, or the evaluation's time.now_ns", async () => {
    const cert = pem(rsa.publicKey);
    const t = token("RS256", rsa.privateKey, { nbf: 1000, exp: 2000 });
    const ok = [true, { alg: "RS256", typ: "JWT" }, { nbf: 1000, exp: 2000 }];
    expect(await p(rule, { t, c: { cert, time: 1500e9 } })).toEqual(ok);
    expect(await p(rule, { t, c: { cert, time: 1000e9 } })).toEqual(ok);
    expect(await p(rule, { t, c: { cert, time: 999e9 } })).toEqual(unverified);
    expect(await p(rule, { t, c: { cert, time: 2000e9 } })).toEqual(unverified);
    expect(await p(rule, { t, c: { cert } }, 1500e3)).toEqual(ok);
    expect(await p(rule, { t, c: { cert } }, 2500e3)).toEqual(unverified);
  });

  test("nested tokens (cty JWT) are verified at every level; the result is the innermost", async () => {
    const inner = token("ES256", ec256.privateKey, { sub: "inner" });
    const outerInput = `${b64url('{"alg":"ES256","cty":"JWT"}')}.${b64url(inner)}`;
    const outer = `${outerInput}.${b64url(sign("sha256", Buffer.from(outerInput), { key: ec256.privateKey, dsaEncoding: "ieee-p1363" }))}`;
    expect(await p(rule, { t: outer, c: { cert: pem(ec256.publicKey) } })).toEqual([true, { alg: "ES256", typ: "JWT" }, { sub: "inner" }]);
  });

  test("unrecognised critical header parameter is [false, {}, {}]", async () => {
    const t = token("RS256", rsa.privateKey, {}, { crit: ["junk"], junk: 1 });
    expect(await p(rule, { t, c: { cert: pem(rsa.publicKey) } })).toEqual(unverified);
  });

  test("errors are undefined: bad constraints, no or two keys, non-numeric exp", async () => {
    const cert = pem(rsa.publicKey);
    const t = token("RS256", rsa.privateKey);
    expect(await p(rule, { t, c: { cert, bogus: 1 } })).toBeUndefined();
    expect(await p(rule, { t, c: {} })).toBeUndefined();
    expect(await p(rule, { t, c: { cert, secret: "s" } })).toBeUndefined();
    expect(await p(rule, { t, c: { cert, time: -1 } })).toBeUndefined();
    expect(await p(rule, { t, c: { cert, time: "now" } })).toBeUndefined();
    expect(await p(rule, { t: "x.y", c: { cert } })).toBeUndefined();
    expect(await p(rule, { t: token("RS256", rsa.privateKey, { exp: "soon" }), c: { cert } })).toBeUndefined();
  });
});

describe("io.jwt.encode_sign(_raw) with public-key algorithms: the runtime prepares, the host signs", () => {
  const raw = "p := io.jwt.encode_sign_raw(input.h, input.p, input.k)";
  const header = (alg: string): string => JSON.stringify({ alg, typ: "JWT" });
  const payload = '{"iss":"joe","n":1}';
  /** Splits a token and checks its first two sections are the texts as given. */
  const parts = (t: unknown, h: string): { input: string; signature: Buffer } => {
    expect(typeof t).toBe("string");
    const [a, b, c] = (t as string).split(".");
    expect([a, b]).toEqual([b64url(h), b64url(payload)]);
    return { input: `${a}.${b}`, signature: Buffer.from(c!, "base64url") };
  };

  test("deterministic algorithms give node:crypto's signature exactly (RS*, EdDSA)", async () => {
    for (const [alg, hash] of [
      ["RS256", "sha256"],
      ["RS384", "sha384"],
      ["RS512", "sha512"],
    ] as const) {
      const t = await p(raw, { h: header(alg), p: payload, k: jwk(rsa.privateKey) });
      const { input, signature } = parts(t, header(alg));
      expect(signature).toEqual(sign(hash, Buffer.from(input), rsa.privateKey));
    }
    const t = await p(raw, { h: header("EdDSA"), p: payload, k: jwk(ed.privateKey) });
    const { input, signature } = parts(t, header("EdDSA"));
    expect(signature).toEqual(sign(null, Buffer.from(input), ed.privateKey));
  });

  test("randomised algorithms (PS*, ES*) verify with the verify_* builtins, and with no other key", async () => {
    const cases: Array<[string, KeyObject, KeyObject, KeyObject]> = [
      ["PS256", rsa.privateKey, rsa.publicKey, rsa2.publicKey],
      ["PS512", rsa.privateKey, rsa.publicKey, rsa2.publicKey],
      ["ES256", ec256.privateKey, ec256.publicKey, ec384.publicKey],
      ["ES384", ec384.privateKey, ec384.publicKey, ec256.publicKey],
      ["ES512", ec521.privateKey, ec521.publicKey, ec256.publicKey],
    ];
    for (const [alg, priv, pub, other] of cases) {
      const t = await p(raw, { h: header(alg), p: payload, k: jwk(priv) });
      parts(t, header(alg));
      const verify = `p := io.jwt.verify_${alg.toLowerCase()}(input.t, input.k)`;
      expect(await p(verify, { t, k: pem(pub) })).toBe(true);
      expect(await p(verify, { t, k: pem(other) })).toBe(false);
    }
  });

  test("encode_sign serialises the values first; a JWK set signs with its first key", async () => {
    const set = JSON.stringify({ keys: [JSON.parse(jwk(ed.privateKey)), JSON.parse(jwk(ed2.privateKey))] });
    const t = await p('p := io.jwt.encode_sign({"alg": "EdDSA"}, {"b": {2, 1}, "a": "<&>"}, json.unmarshal(input.k))', { k: set });
    const [h, pl, sig] = (t as string).split(".");
    expect(Buffer.from(h!, "base64url").toString()).toBe('{"alg":"EdDSA"}');
    expect(Buffer.from(pl!, "base64url").toString()).toBe('{"a":"\\u003c\\u0026\\u003e","b":[1,2]}');
    expect(Buffer.from(sig!, "base64url")).toEqual(sign(null, Buffer.from(`${h}.${pl}`), ed.privateKey));
  });

  test("undefined when the key cannot sign with the alg: wrong family, public key only, not a JWK", async () => {
    expect(await p(raw, { h: header("RS256"), p: payload, k: jwk(ec256.privateKey) })).toBeUndefined();
    expect(await p(raw, { h: header("ES256"), p: payload, k: jwk(rsa.privateKey) })).toBeUndefined();
    expect(await p(raw, { h: header("EdDSA"), p: payload, k: jwk(rsa.privateKey) })).toBeUndefined();
    expect(await p(raw, { h: header("RS256"), p: payload, k: jwk(rsa.publicKey) })).toBeUndefined();
    expect(await p(raw, { h: header("RS256"), p: payload, k: JSON.stringify({ kty: "oct", k: "c2VjcmV0" }) })).toBeUndefined();
    expect(await p(raw, { h: header("RS256"), p: payload, k: "not json" })).toBeUndefined();
    expect(await p(raw, { h: header("RS256"), p: payload, k: '{"keys": []}' })).toBeUndefined();
  });
});
