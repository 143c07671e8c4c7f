/**
 * Private keys (crypto.parse_private_keys, crypto.x509.parse_rsa_private_key)
 * and key pairs (crypto.x509.parse_keypair): node:crypto reads and converts
 * the keys; results are Go's key structures or OPA's JWK.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { parseCertificate } from "./certificate";
import { X509Error, dotted, oid, readTlv, sequence, unsigned, type Tlv } from "./der";
import { goBase64, latin1, pemDecode } from "./pem";

const RSA = "1.2.840.113549.1.1.1";
const EC = "1.2.840.10045.2.1";
const ED25519 = "1.3.101.112";
/** The named curves crypto/x509 knows (P-224, P-256, P-384, P-521). */
const CURVES = new Set(["1.3.132.0.33", "1.2.840.10045.3.1.7", "1.3.132.0.34", "1.3.132.0.35"]);

/**
 * Refuses, before node:crypto sees it, a PKCS #8 or SEC 1 key that Go would
 * not parse: another algorithm (DSA or DH keys make OpenSSL compute g^x mod p,
 * seconds for a small crafted key) or an EC key without a named curve Go
 * knows (explicit curve parameters). An EC key's curve is the PKCS #8
 * parameters' OID, else the SEC 1 structure's; an explicit one in SEC 1 is
 * refused even when PKCS #8 names a curve, as node:crypto would read it.
 */
function checkKeyAlgorithm(format: "pkcs1" | "pkcs8" | "sec1", der: Buffer): void {
  if (format === "pkcs1") return;
  const top = sequence(readTlv(der), "private key");
  if (format === "sec1") return checkSec1Curve(top, false);
  const alg = sequence(top[1], "PKCS #8 algorithm");
  const algorithm = dotted(oid(alg[0]));
  if (algorithm === RSA || algorithm === ED25519) return;
  if (algorithm !== EC) throw new X509Error(`x509: PKCS#8 wrapping contained private key with unknown algorithm: ${algorithm}`);
  const named = alg[1]?.tag === 0x06;
  if (named && !CURVES.has(dotted(oid(alg[1])))) throw new X509Error("x509: unknown elliptic curve");
  if (top[2]?.tag !== 0x04) throw new X509Error("x509: malformed PKCS #8 private key");
  checkSec1Curve(sequence(readTlv(top[2].body), "EC private key"), named);
}

/** A SEC 1 ECPrivateKey's [0] parameters: a known named curve, or absent when the curve is named elsewhere. */
function checkSec1Curve(fields: Tlv[], named: boolean): void {
  const params = fields.find((f) => f.tag === 0xa0);
  if (params === undefined) {
    if (!named) throw new X509Error("x509: unknown elliptic curve");
    return;
  }
  const curve = readTlv(params.body);
  if (curve.tag !== 0x06 || !CURVES.has(dotted(oid(curve)))) throw new X509Error("x509: unknown elliptic curve");
}

/** A private key block as x509.ParsePKCS1PrivateKey, ParsePKCS8PrivateKey or ParseECPrivateKey reads it (RSA, ECDSA, Ed25519). */
function privateKey(type: string, der: Buffer): KeyObject {
  const format = { "RSA PRIVATE KEY": "pkcs1", "PRIVATE KEY": "pkcs8", "EC PRIVATE KEY": "sec1" }[type] as "pkcs1" | "pkcs8" | "sec1";
  let key: KeyObject;
  try {
    checkKeyAlgorithm(format, der);
    key = createPrivateKey({ key: der, format: "der", type: format });
  } catch (err) {
    throw new X509Error(`x509: failed to parse private key: ${String(err)}`);
  }
  const kind = key.asymmetricKeyType;
  if (kind !== "rsa" && kind !== "ec" && kind !== "ed25519") throw new X509Error("x509: unsupported private key type");
  if (format === "pkcs1" && kind !== "rsa") throw new X509Error("x509: not an RSA private key");
  return key;
}

const big = (b64url: string | undefined): bigint => unsigned(Buffer.from(b64url ?? "", "base64url"));

/** A private key as encoding/json renders Go's key structure. */
export function privateKeyJson(key: KeyObject): unknown {
  const j = key.export({ format: "jwk" });
  if (j.kty === "RSA") {
    return {
      N: big(j.n),
      E: Number(big(j.e)),
      D: big(j.d),
      Primes: [big(j.p), big(j.q)],
      Precomputed: { Dp: big(j.dp), Dq: big(j.dq), Qinv: big(j.qi), CRTValues: [] },
    };
  }
  if (j.kty === "EC") return { Curve: {}, X: big(j.x), Y: big(j.y), D: big(j.d) };
  return Buffer.concat([Buffer.from(j.d!, "base64url"), Buffer.from(j.x!, "base64url")]);
}

/** OPA's getPrivateKeysFromPEMData: every RSA, PKCS #8 and EC private key block (base64 of PEM accepted). */
export function privateKeysFromPem(input: string): KeyObject[] {
  let data = latin1(Buffer.from(input, "utf8"));
  try {
    data = latin1(goBase64(input));
  } catch {
    // not base64: PEM text as it is
  }
  const keys: KeyObject[] = [];
  while (data.length > 0) {
    const before = data.length;
    const [block, rest] = pemDecode(data);
    data = rest;
    if (block === null || before === data.length) break;
    if (block.type === "RSA PRIVATE KEY" || block.type === "PRIVATE KEY" || block.type === "EC PRIVATE KEY") keys.push(privateKey(block.type, block.bytes));
  }
  return keys;
}

/** crypto.x509.parse_rsa_private_key: the first private key as a JWK (OPA's jwk.New: RSA or EC only). */
export function parseRsaPrivateKey(input: string): unknown {
  if (input === "") throw new X509Error("input PEM data was empty");
  const text = input.startsWith("-----BEGIN") ? input : latin1(goBase64(input));
  const keys = privateKeysFromPem(text);
  if (keys.length === 0) return null;
  const j = keys[0]!.export({ format: "jwk" });
  if (j.kty !== "RSA" && j.kty !== "EC") throw new X509Error("invalid key type");
  return j;
}

/** tls.X509KeyPair: the certificate blocks, the first private key block, and their public keys must match. */
export function keyPair(certInput: string, keyInput: string): Record<string, unknown> {
  const text = (s: string, type: string): string => {
    const data = s.startsWith("-----BEGIN ") ? latin1(Buffer.from(s, "utf8")) : latin1(goBase64(s));
    if (data.startsWith("-----BEGIN ")) return data;
    // DER: OPA wraps it in a PEM block of the expected type.
    return `-----BEGIN ${type}-----\n${Buffer.from(data, "latin1").toString("base64")}\n-----END ${type}-----\n`;
  };
  let certData = text(certInput, "CERTIFICATE");
  const ders: Buffer[] = [];
  for (;;) {
    const [block, rest] = pemDecode(certData);
    if (block === null) break;
    if (block.type === "CERTIFICATE") ders.push(block.bytes);
    certData = rest;
  }
  if (ders.length === 0) throw new X509Error("tls: failed to find any PEM data in certificate input");
  let keyData = text(keyInput, "PRIVATE KEY");
  let key: KeyObject | undefined;
  for (;;) {
    const [block, rest] = pemDecode(keyData);
    if (block === null) throw new X509Error("tls: failed to find any PEM data in key input");
    if (block.type === "PRIVATE KEY" || block.type.endsWith(" PRIVATE KEY")) {
      key = tlsPrivateKey(block.bytes);
      break;
    }
    keyData = rest;
  }
  const leaf = parseCertificate(readTlv(ders[0]!));
  const certPublic = leaf.node.publicKey.export({ format: "der", type: "spki" });
  if (!createPublicKey(key).export({ format: "der", type: "spki" }).equals(certPublic)) {
    throw new X509Error("tls: private key does not match public key");
  }
  return {
    Certificate: ders,
    PrivateKey: privateKeyJson(key),
    SupportedSignatureAlgorithms: undefined,
    OCSPStaple: undefined,
    SignedCertificateTimestamps: undefined,
    Leaf: leaf.json,
  };
}

/** tls's parsePrivateKey: PKCS #1, then PKCS #8, then SEC 1, whatever the block's type. */
function tlsPrivateKey(der: Buffer): KeyObject {
  for (const type of ["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY"]) {
    try {
      return privateKey(type, der);
    } catch {
      // try the next encoding
    }
  }
  throw new X509Error("tls: failed to parse private key");
}
