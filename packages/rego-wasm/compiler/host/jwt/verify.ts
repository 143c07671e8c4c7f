/**
 * io.jwt.verify_rs256/384/512, verify_ps256/384/512, verify_es256/384/512
 * and verify_eddsa: a token's signature checked with a PEM or JWK key (OPA's
 * builtinJWTVerify).
 */
import { constants, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { verificationKeys, type VerificationKey } from "./keys";
import { base64Url, decodeHeader, guarded, HASH, headerFields, JwtError, splitToken, type HostFn } from "./token";

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

/** The verify_* builtins by name. */
export function verifyBuiltins(): Record<string, HostFn> {
  const fns: Record<string, HostFn> = { "io.jwt.verify_eddsa": verifyWith(ed25519Verifier) };
  for (const bits of ["256", "384", "512"]) {
    fns[`io.jwt.verify_rs${bits}`] = verifyWith(rsaVerifier(HASH[bits]!, false));
    fns[`io.jwt.verify_ps${bits}`] = verifyWith(rsaVerifier(HASH[bits]!, true));
    fns[`io.jwt.verify_es${bits}`] = verifyWith(ecdsaVerifier(HASH[bits]!));
  }
  return fns;
}
