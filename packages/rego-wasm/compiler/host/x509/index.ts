/**
 * crypto.x509.* and crypto.parse_private_keys, computed by the host
 * (public-key cryptography and ASN.1 are out of reach of the AssemblyScript
 * runtime). Semantics are OPA's (v1/topdown/crypto.go); results are Go's
 * x509.Certificate, x509.CertificateRequest, tls.Certificate and private key
 * structures as encoding/json renders them, read from the DER by ./der.ts;
 * node:crypto checks signatures and converts keys. Modules by concern:
 * ./pem.ts (base64 and PEM as Go decodes them), ./fields.ts (what
 * certificates and CSRs share), ./certificate.ts, ./request.ts (CSRs),
 * ./keys.ts (private keys and key pairs).
 *
 * Not reproduced: DSA public keys (null) and Go's validation of SAN and
 * name-constraint strings (accepted as written).
 *
 * As for every builtin here, OPA's errors make the call undefined.
 */
import { certificatesFromString, withUriStrings } from "./certificate";
import { X509Error, goJson } from "./der";
import { keyPair, parseRsaPrivateKey, privateKeyJson, privateKeysFromPem } from "./keys";
import { goBase64, latin1, pemDecode } from "./pem";
import { parseCertificateRequest } from "./request";

type HostFn = (...args: unknown[]) => unknown;

/**
 * Runs a builtin body on string operands; results go back as JSON text for
 * the SDK. Every failure is OPA's error, hence undefined: besides the
 * X509Errors raised on purpose, reading hostile DER can trip over a missing
 * element anywhere, and Go reports that as a parse error too.
 */
function builtin(body: (...args: string[]) => unknown, objectArgs: number[] = []): HostFn {
  return (...args) => {
    if (args.some((a, i) => !objectArgs.includes(i) && typeof a !== "string")) return undefined;
    try {
      return jsonBuffer(goJson(body(...(args as string[]))));
    } catch {
      return undefined;
    }
  };
}

/** JSON text as the SDK takes it verbatim (an ArrayBuffer is not re-serialised; big integers keep every digit). */
function jsonBuffer(text: string): ArrayBuffer {
  const bytes = new TextEncoder().encode(text);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The host x509 builtins, keyed by name. */
export function x509Builtins(): Record<string, HostFn> {
  return {
    "crypto.x509.parse_certificates": builtin((s) => certificatesFromString(s).map(withUriStrings)),
    "crypto.x509.parse_certificate_request": builtin((s) => {
      let der = s.startsWith("-----BEGIN CERTIFICATE REQUEST-----") ? Buffer.from(s, "utf8") : goBase64(s);
      const [block] = pemDecode(latin1(der));
      if (block !== null && block.type !== "CERTIFICATE REQUEST") throw new X509Error("invalid PEM-encoded certificate signing request");
      if (block !== null) der = block.bytes;
      return parseCertificateRequest(der);
    }),
    "crypto.x509.parse_keypair": builtin(keyPair),
    "crypto.x509.parse_rsa_private_key": builtin(parseRsaPrivateKey),
    "crypto.parse_private_keys": builtin((s) => (s === "" ? null : privateKeysFromPem(s).map(privateKeyJson))),
  };
}
