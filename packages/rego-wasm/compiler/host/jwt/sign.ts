/** The public-key signatures of io.jwt.encode_sign(_raw). */
import { constants, createPrivateKey, sign as cryptoSign, type JsonWebKey, type KeyObject } from "node:crypto";
import { HASH } from "./token";

/**
 * The signature io.jwt.encode_sign(_raw) needs for a public-key alg (the
 * runtime prepared the signing input and signs HMAC itself), base64url
 * without padding; undefined when the key cannot sign with alg. The key is
 * a JWK or the first key of a JWK set, as OPA takes it, and must be a
 * private key of alg's family (RSA for RS and PS, EC for ES, Ed25519 for
 * EdDSA). PS* use a salt as long as the hash, as jwx does; ECDSA
 * signatures are r || s (RFC 7515 A.3).
 */
export function jwsSign(alg: unknown, input: unknown, keyText: unknown): string | undefined {
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
