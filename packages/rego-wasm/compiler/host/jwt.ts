/**
 * JWT builtins the host computes with node:crypto (public-key cryptography
 * is out of reach of the AssemblyScript runtime; OPA's own Wasm target
 * leaves these to the host too): io.jwt.verify_rs256/384/512,
 * verify_ps256/384/512, verify_es256/384/512, verify_eddsa,
 * io.jwt.decode_verify, and the public-key signatures of
 * io.jwt.encode_sign(_raw). Semantics are OPA's (v1/topdown/tokens.go).
 *
 * Every error OPA raises (a malformed token or key, a bad constraint, a
 * non-numeric "exp") makes the call undefined: the function returns
 * `undefined`, which the SDK hands to the module as "no value". That is what
 * the native builtins do, as Wasm has no strict builtin-error mode.
 */
import {
  X509Certificate,
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  timingSafeEqual,
  verify as cryptoVerify,
  type JsonWebKey,
  type KeyObject,
} from "node:crypto";
import { JWS_SIGN_HOST_BUILTIN } from "../builtins/spec";
import { latin1, pemDecode } from "./x509/pem";

type HostFn = (...args: unknown[]) => unknown;

/** Thrown inside this module for any error OPA raises; callers turn it into undefined. */
class JwtError extends Error {}

/** A verification key: a public key, or the bytes of a JWK "oct" key; alg and kid as a JWK set names them. */
interface VerificationKey {
  key: KeyObject | Buffer;
  alg: string;
  kid: string;
}

/** The algorithms OPA knows (tokenAlgorithms). */
const ALGORITHMS = new Set(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "HS256", "HS384", "HS512", "EdDSA"]);

// ---------------------------------------------------------------- token parts

interface Token {
  header: string;
  payload: string;
  signature: string;
}

/** OPA's decodeJWT: a string with exactly three '.'-separated sections. */
function splitToken(jwt: unknown): Token {
  if (typeof jwt !== "string") throw new JwtError("operand 1 must be a string");
  const parts = jwt.split(".");
  if (parts.length !== 3) throw new JwtError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** base64url.decode as OPA reads it: padded or not; corrupt input is an error. */
function base64Url(section: string): Buffer {
  // A backwards scan, not /=+$/: that regex is quadratic on a long run of '='.
  let end = section.length;
  while (end > 0 && section.charCodeAt(end - 1) === 0x3d) end--;
  const bare = section.slice(0, end);
  if (!BASE64URL.test(section) || bare.length % 4 === 1) throw new JwtError("illegal base64 data");
  if (section.length !== bare.length && section.length % 4 !== 0) throw new JwtError("illegal base64 data");
  return Buffer.from(bare, "base64url");
}

/**
 * jwx's base64 decoding of JWK members: the alphabet is URL unless the text
 * holds '+' or '/', padded when it ends in '=', and then decoded as Go's
 * encoding/base64 does (CR and LF skipped, padding exact). Null when corrupt.
 */
function jwxBase64(text: string): Buffer | null {
  const t = text.replace(/[\r\n]/g, "");
  const url = !/[+/]/.test(t);
  let end = t.length;
  while (end > 0 && t.charCodeAt(end - 1) === 0x3d) end--;
  const body = t.slice(0, end);
  if (!(url ? /^[A-Za-z0-9_-]*$/ : /^[A-Za-z0-9+/]*$/).test(body) || body.length % 4 === 1) return null;
  // The guess looks at the raw text: "AA=\n" is read unpadded, where '=' is corrupt.
  const padded = text.endsWith("=");
  if (end < t.length && (!padded || t.length % 4 !== 0 || t.length - end > 2)) return null;
  return Buffer.from(body, url ? "base64url" : "base64");
}

/** A JSON object's text and its parsed value, or an error. */
function jsonObject(text: string): { text: string; value: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JwtError("invalid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new JwtError("decoded JSON type was not an Object");
  return { text, value: value as Record<string, unknown> };
}

/** The decoded header of a token; a JWE ("enc") is not supported. */
function decodeHeader(token: Token): { text: string; value: Record<string, unknown> } {
  const header = jsonObject(base64Url(token.header).toString("utf8"));
  if ("enc" in header.value) throw new JwtError("JWT is a JWE object, which is not supported");
  return header;
}

interface HeaderFields {
  alg: string;
  kid: string;
  cty: string;
  /** RFC 7515 4.1.1 and 4.1.11: "alg" present, no unrecognised critical parameter. */
  valid: boolean;
}

/** OPA's parseTokenHeader: alg, kid, typ and cty must be strings, crit a nonempty list of strings. */
function headerFields(header: Record<string, unknown>): HeaderFields {
  const str = (name: string): string => {
    const v = header[name];
    if (v === undefined) return "";
    if (typeof v !== "string") throw new JwtError(`${name}: must be a string`);
    return v;
  };
  const alg = str("alg");
  const kid = str("kid");
  str("typ");
  const cty = str("cty");
  let crit: Set<string> | undefined;
  if ("crit" in header) {
    if (!Array.isArray(header.crit)) throw new JwtError("crit: must be a list");
    crit = new Set(header.crit.filter((c): c is string => typeof c === "string"));
    if (crit.size === 0) throw new JwtError("crit: must be a nonempty list");
  }
  const known = new Set(["alg", "kid", "typ", "cty", "crit"]);
  const unknownCritical = Object.keys(header).some((k) => !known.has(k) && crit?.has(k));
  return { alg, kid, cty, valid: alg !== "" && !unknownCritical };
}

// ---------------------------------------------------------------- keys

/**
 * Go's pem.Decode (x509/pem.ts, linear in the text) on the key text's
 * UTF-8 bytes: the first well-formed block and what follows it, or null.
 */
function pemBlock(text: string): { type: string; der: Buffer; rest: string } | null {
  const [block, rest] = pemDecode(latin1(Buffer.from(text, "utf8")));
  return block === null ? null : { type: block.type, der: block.bytes, rest };
}

/**
 * OPA's getKeysFromCertOrJWK: a PEM certificate or public key, else a JWK
 * or JWK set. Keys of a set whose "alg" OPA does not know are skipped.
 */
function verificationKeys(text: string): VerificationKey[] {
  const block = pemBlock(text);
  if (block !== null) {
    if (block.rest.length > 0) throw new JwtError("extra data after a PEM certificate block");
    if (block.type === "CERTIFICATE") {
      try {
        return [{ key: new X509Certificate(block.der).publicKey, alg: "", kid: "" }];
      } catch (err) {
        throw new JwtError(`failed to parse a PEM certificate: ${String(err)}`);
      }
    }
    if (block.type === "PUBLIC KEY") {
      try {
        return [{ key: createPublicKey({ key: block.der, format: "der", type: "spki" }), alg: "", kid: "" }];
      } catch (err) {
        throw new JwtError(`failed to parse a PEM public key: ${String(err)}`);
      }
    }
    throw new JwtError("failed to extract a Key from the PEM certificate");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new JwtError("failed to parse a JWK key (set)");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new JwtError("failed to parse a JWK key (set)");
  const set = (parsed as { keys?: unknown }).keys;
  const jwks = set === undefined ? [parsed] : set;
  if (!Array.isArray(jwks)) throw new JwtError("failed to parse a JWK key (set)");
  const keys: VerificationKey[] = [];
  for (const jwk of jwks) {
    const k = jwkKey(jwk);
    if (k.alg !== "" && !ALGORITHMS.has(k.alg)) continue;
    keys.push(k);
  }
  return keys;
}

/** One JWK as a verification key: its public half (RSA, EC, OKP) or its secret bytes (oct). */
function jwkKey(jwk: unknown): VerificationKey {
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw new JwtError("failed to parse a JWK key (set)");
  const o = jwk as Record<string, unknown>;
  const alg = typeof o.alg === "string" ? o.alg : "";
  const kid = typeof o.kid === "string" ? o.kid : "";
  if (o.kty === "oct") {
    const secret = typeof o.k === "string" ? jwxBase64(o.k) : null;
    // An empty secret would let anyone MAC a token: no key at all, as jwx's import refuses it.
    if (secret === null || secret.length === 0) throw new JwtError("failed to parse a JWK key (set): invalid oct key material");
    return { key: secret, alg, kid };
  }
  try {
    // A private JWK yields its public key: only verification happens here.
    return { key: createPublicKey({ key: o as JsonWebKey, format: "jwk" }), alg, kid };
  } catch (err) {
    throw new JwtError(`failed to parse a JWK key (set): ${String(err)}`);
  }
}

// ---------------------------------------------------------------- signatures

const HASH: Record<string, string> = { "256": "sha256", "384": "sha384", "512": "sha512" };

/**
 * Whether `signature` is alg's signature of `input` under `key`, as jwx's
 * jwsbb.Verify decides (used by io.jwt.decode_verify): a key of the wrong
 * type, a malformed signature or an unknown alg is simply "not verified".
 */
function verifyAlg(key: KeyObject | Buffer, alg: string, input: Buffer, signature: Buffer): boolean {
  const family = alg.slice(0, 2);
  const hash = HASH[alg.slice(2)];
  try {
    if (Buffer.isBuffer(key)) {
      if (family !== "HS" || hash === undefined) return false;
      const mac = createHmac(hash, key).update(input).digest();
      return mac.length === signature.length && timingSafeEqual(mac, signature);
    }
    if (alg === "EdDSA") return key.asymmetricKeyType === "ed25519" && cryptoVerify(null, input, key, signature);
    if (hash === undefined) return false;
    if (family === "RS" || family === "PS") {
      if (key.asymmetricKeyType !== "rsa") return false;
      const padding = family === "RS" ? constants.RSA_PKCS1_PADDING : constants.RSA_PKCS1_PSS_PADDING;
      return cryptoVerify(hash, input, { key, padding, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
    }
    if (family === "ES") {
      return key.asymmetricKeyType === "ec" && cryptoVerify(hash, input, { key, dsaEncoding: "ieee-p1363" }, signature);
    }
    return false;
  } catch {
    return false;
  }
}

/** A DER INTEGER of the unsigned big-endian bytes. */
function derInteger(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  let v = bytes.subarray(i);
  if (v.length === 0) v = Buffer.from([0]);
  if (v[0]! & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return Buffer.concat([Buffer.from([0x02]), derLength(v.length), v]);
}

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let m = n; m > 0; m >>= 8) bytes.unshift(m & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/**
 * The verify_* builtins' own checks (OPA's verifyES, verifyEd25519,
 * rsa.VerifyPKCS1v15/VerifyPSS with PSS salt length detected): the key must
 * be of the family the builtin names. An ECDSA signature is split in two
 * halves, r and s, whatever the curve.
 */
type Verifier = (key: KeyObject | Buffer, input: Buffer, signature: Buffer) => boolean;

function rsaVerifier(hash: string, pss: boolean): Verifier {
  return (key, input, signature) => {
    if (Buffer.isBuffer(key) || key.asymmetricKeyType !== "rsa") return false;
    const padding = pss ? constants.RSA_PKCS1_PSS_PADDING : constants.RSA_PKCS1_PADDING;
    return cryptoVerify(hash, input, { key, padding, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
  };
}

function ecdsaVerifier(hash: string): Verifier {
  return (key, input, signature) => {
    if (Buffer.isBuffer(key) || key.asymmetricKeyType !== "ec") return false;
    const n = signature.length >> 1;
    const body = Buffer.concat([derInteger(signature.subarray(0, n)), derInteger(signature.subarray(n))]);
    const der = Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
    return cryptoVerify(hash, input, { key, dsaEncoding: "der" }, der);
  };
}

const ed25519Verifier: Verifier = (key, input, signature) =>
  !Buffer.isBuffer(key) && key.asymmetricKeyType === "ed25519" && cryptoVerify(null, input, key, signature);

/**
 * OPA's builtinJWTVerify: the token's signature checked with the key (PEM or
 * JWK set). A key whose "kid" is the header's is the only one tried;
 * otherwise every key without an "alg", or with the header's, is tried.
 */
function verifyWith(verifier: Verifier): HostFn {
  return (jwt, keyText) =>
    guarded(() => {
      const token = splitToken(jwt);
      if (typeof keyText !== "string") throw new JwtError("operand 2 must be a string");
      const keys = verificationKeys(keyText);
      const signature = base64Url(token.signature);
      const header = headerFields(decodeHeader(token).value);
      const input = Buffer.from(`${token.header}.${token.payload}`);
      const ok = (k: VerificationKey): boolean => {
        try {
          return verifier(k.key, input, signature);
        } catch {
          return false;
        }
      };
      const byKid = header.kid !== "" ? keys.find((k) => k.kid === header.kid) : undefined;
      if (byKid !== undefined) return ok(byKid);
      return keys.some((k) => (k.alg === "" || k.alg === header.alg) && ok(k));
    });
}

/** Runs a builtin body; OPA's errors become undefined (see the module comment). */
function guarded<T>(body: () => T): T | undefined {
  try {
    return body();
  } catch (err) {
    if (err instanceof JwtError) return undefined;
    throw err;
  }
}

// ---------------------------------------------------------------- decode_verify

interface Constraints {
  keys?: VerificationKey[];
  secret: string;
  alg: string;
  iss: string;
  aud: string;
  /** Nanoseconds since the epoch. */
  time: number;
}

function timeValue(v: unknown): number {
  if (typeof v !== "number") throw new JwtError("token time constraint: must be a number");
  if (v < 0) throw new JwtError("token time constraint: must not be negative");
  return v;
}

/** OPA's parseTokenConstraints and validate: unknown names, wrong types and a missing or doubled key are errors. */
function parseConstraints(o: unknown, nowNs: number): Constraints {
  if (typeof o !== "object" || o === null || Array.isArray(o)) throw new JwtError("operand 2 must be an object");
  const c: Constraints = { secret: "", alg: "", iss: "", aud: "", time: -1 };
  for (const [name, v] of Object.entries(o as Record<string, unknown>)) {
    if (name === "cert") {
      if (typeof v !== "string") throw new JwtError("cert constraint: must be a string");
      c.keys = verificationKeys(v);
    } else if (name === "secret" || name === "alg" || name === "iss" || name === "aud") {
      if (typeof v !== "string") throw new JwtError(`${name} constraint: must be a string`);
      c[name] = v;
    } else if (name === "time") {
      c.time = timeValue(v);
    } else {
      throw new JwtError(`unknown token validation constraint: ${name}`);
    }
  }
  if (c.time === -1) c.time = timeValue(nowNs);
  const keyConstraints = (c.keys !== undefined ? 1 : 0) + (c.secret !== "" ? 1 : 0);
  if (keyConstraints > 1) throw new JwtError("duplicate key constraints");
  if (keyConstraints < 1) throw new JwtError("no key constraint");
  return c;
}

/** Whether the token's signature verifies with the constraints' key(s) or secret, for the header's alg. */
function signatureVerifies(c: Constraints, header: HeaderFields, input: Buffer, signature: Buffer): boolean {
  if (c.keys !== undefined) {
    const byKid = header.kid !== "" ? c.keys.find((k) => k.kid === header.kid) : undefined;
    if (byKid !== undefined) return verifyAlg(byKid.key, header.alg, input, signature);
    return c.keys.some((k) => (k.alg === "" || k.alg === header.alg) && verifyAlg(k.key, header.alg, input, signature));
  }
  return verifyAlg(Buffer.from(c.secret, "utf8"), header.alg, input, signature);
}

/** "aud" is a string equal to the constraint, or an array holding such a string. */
function validAudience(aud: unknown, wanted: string): boolean {
  if (typeof aud === "string") return aud === wanted;
  return Array.isArray(aud) && aud.some((a) => typeof a === "string" && a === wanted);
}

const UNVERIFIED = [false, {}, {}];

/**
 * io.jwt.decode_verify(jwt, constraints): [valid, header, payload]. A nested
 * token (header "cty": "JWT") is verified at every level with the same
 * constraints; the result is the innermost one's. Header and payload are
 * handed back as the token's own JSON text, so numbers keep every digit.
 */
function decodeVerify(jwt: unknown, constraintsArg: unknown, nowNs: number): unknown {
  const c = parseConstraints(constraintsArg, nowNs);
  let current: unknown = jwt;
  let header: { text: string; value: Record<string, unknown> };
  let payloadText: string;
  for (;;) {
    const token = splitToken(current);
    header = decodeHeader(token);
    const fields = headerFields(header.value);
    if (!fields.valid) return UNVERIFIED;
    if (c.alg !== "" && c.alg !== fields.alg) return UNVERIFIED;
    const signature = base64Url(token.signature);
    if (!signatureVerifies(c, fields, Buffer.from(`${token.header}.${token.payload}`), signature)) return UNVERIFIED;
    payloadText = base64Url(token.payload).toString("utf8");
    if (fields.cty.toLowerCase() !== "jwt") break;
    current = payloadText;
  }
  const payload = jsonObject(payloadText);
  const claims = payload.value;
  if (c.iss !== "") {
    if (!("iss" in claims)) return UNVERIFIED;
    if (typeof claims.iss !== "string") throw new JwtError("iss value must be a string");
    if (claims.iss !== c.iss) return UNVERIFIED;
  }
  if ("aud" in claims) {
    if (!validAudience(claims.aud, c.aud)) return UNVERIFIED;
  } else if (c.aud !== "") {
    return UNVERIFIED;
  }
  const seconds = c.time / 1e9;
  if ("exp" in claims) {
    if (typeof claims.exp !== "number") throw new JwtError("exp value must be a number");
    if (!(seconds < claims.exp)) return UNVERIFIED;
  }
  if ("nbf" in claims) {
    if (typeof claims.nbf !== "number") throw new JwtError("nbf value must be a number");
    if (seconds < claims.nbf) return UNVERIFIED;
  }
  return jsonBuffer(`[true,${header.text},${payload.text}]`);
}

/** JSON text as the SDK takes it verbatim (an ArrayBuffer is not re-serialised). */
function jsonBuffer(text: string): ArrayBuffer {
  const bytes = new TextEncoder().encode(text);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

// ---------------------------------------------------------------- signing

/**
 * The signature io.jwt.encode_sign(_raw) needs for a public-key alg (the
 * runtime prepared the signing input and signs HMAC itself), base64url
 * without padding; undefined when the key cannot sign with alg. The key is
 * a JWK or the first key of a JWK set, as OPA takes it, and must be a
 * private key of alg's family (RSA for RS and PS, EC for ES, Ed25519 for
 * EdDSA). PS* use a salt as long as the hash, as jwx does; ECDSA
 * signatures are r || s (RFC 7515 A.3).
 */
function jwsSign(alg: unknown, input: unknown, keyText: unknown): string | undefined {
  if (typeof alg !== "string" || typeof input !== "string" || typeof keyText !== "string") return undefined;
  let key: KeyObject;
  try {
    const parsed = JSON.parse(keyText) as unknown;
    const set = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>).keys : undefined;
    const jwk = Array.isArray(set) ? set[0] : parsed;
    if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) return undefined;
    key = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
  } catch {
    return undefined; // not JSON, not a JWK, or a public key only
  }
  const family = alg.slice(0, 2);
  const hash = HASH[alg.slice(2)];
  const data = Buffer.from(input);
  try {
    if (alg === "EdDSA") return key.asymmetricKeyType === "ed25519" ? cryptoSign(null, data, key).toString("base64url") : undefined;
    if (hash === undefined) return undefined;
    if ((family === "RS" || family === "PS") && key.asymmetricKeyType === "rsa") {
      const padding = family === "RS" ? constants.RSA_PKCS1_PADDING : constants.RSA_PKCS1_PSS_PADDING;
      return cryptoSign(hash, data, { key, padding, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }).toString("base64url");
    }
    if (family === "ES" && key.asymmetricKeyType === "ec") return cryptoSign(hash, data, { key, dsaEncoding: "ieee-p1363" }).toString("base64url");
  } catch {
    return undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------- registry

/** The host JWT builtins; `now` gives the evaluation's time.now_ns, decode_verify's default "time". */
export function jwtBuiltins(now: () => number): Record<string, HostFn> {
  const fns: Record<string, HostFn> = {
    "io.jwt.verify_eddsa": verifyWith(ed25519Verifier),
    "io.jwt.decode_verify": (jwt, constraints) => guarded(() => decodeVerify(jwt, constraints, now())),
    [JWS_SIGN_HOST_BUILTIN]: jwsSign,
  };
  for (const bits of ["256", "384", "512"]) {
    fns[`io.jwt.verify_rs${bits}`] = verifyWith(rsaVerifier(HASH[bits]!, false));
    fns[`io.jwt.verify_ps${bits}`] = verifyWith(rsaVerifier(HASH[bits]!, true));
    fns[`io.jwt.verify_es${bits}`] = verifyWith(ecdsaVerifier(HASH[bits]!));
  }
  return fns;
}
