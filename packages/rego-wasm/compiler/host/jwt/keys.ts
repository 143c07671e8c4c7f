/**
 * Verification keys as OPA takes them (getKeysFromCertOrJWK): a PEM
 * certificate or public key, else a JWK or a JWK set (jwx's decoding).
 */
import { X509Certificate, createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { latin1, pemDecode } from "../x509/pem";
import { ALGORITHMS, JwtError } from "./token";

/** A verification key: a public key, or the bytes of a JWK "oct" key; alg and kid as a JWK set names them. */
export interface VerificationKey {
  key: KeyObject | Buffer;
  alg: string;
  kid: string;
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
export function verificationKeys(text: string): VerificationKey[] {
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
