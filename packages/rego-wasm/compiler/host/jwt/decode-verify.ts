/**
 * io.jwt.decode_verify(jwt, constraints): OPA's builtinJWTDecodeVerify, the
 * constraints (cert or secret, alg, iss, aud, time) checked on the token and
 * every token nested in it.
 */
import { constants, createHmac, timingSafeEqual, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { verificationKeys, type VerificationKey } from "./keys";
import { base64Url, decodeHeader, HASH, headerFields, jsonObject, JwtError, splitToken, type HeaderFields } from "./token";

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
export function decodeVerify(jwt: unknown, constraintsArg: unknown, nowNs: number): unknown {
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
