/**
 * The parts certificates and CSRs share: names, public keys, signature
 * algorithms, subject alternative names (with Go's renderings of net.IP and
 * url.URL) and the extension envelope.
 */
import { X509Error, asn1String, bitString, children, dotted, integer, oid, readTlv, sequence, unsigned, type Tlv } from "./der";
import { latin1 } from "./pem";

/** pkix.Name filled from an RDNSequence, as Go's FillFromRDNSequence does. */
export function parseName(t: Tlv): Record<string, unknown> {
  const name: Record<string, unknown> = {
    Country: undefined,
    Organization: undefined,
    OrganizationalUnit: undefined,
    Locality: undefined,
    Province: undefined,
    StreetAddress: undefined,
    PostalCode: undefined,
    SerialNumber: "",
    CommonName: "",
    Names: [],
    ExtraNames: undefined,
  };
  const field: Record<string, string> = {
    "2.5.4.6": "Country",
    "2.5.4.10": "Organization",
    "2.5.4.11": "OrganizationalUnit",
    "2.5.4.7": "Locality",
    "2.5.4.8": "Province",
    "2.5.4.9": "StreetAddress",
    "2.5.4.17": "PostalCode",
  };
  for (const rdn of sequence(t, "name")) {
    if (rdn.tag !== 0x31) throw new X509Error("x509: invalid RDNSequence");
    for (const atv of children(rdn)) {
      const [type, value] = sequence(atv, "attribute");
      const arcs = oid(type);
      if (value === undefined) throw new X509Error("x509: malformed attribute");
      const v = asn1String(value);
      (name.Names as unknown[]).push({ Type: arcs, Value: v });
      const key = dotted(arcs);
      if (key === "2.5.4.3") name.CommonName = v;
      else if (key === "2.5.4.5") name.SerialNumber = v;
      else if (field[key] !== undefined) name[field[key]!] = [...((name[field[key]!] as string[] | undefined) ?? []), v];
    }
  }
  return name;
}

/** x509.SignatureAlgorithm for an AlgorithmIdentifier (RSA-PSS by its hash parameter). */
export function signatureAlgorithm(t: Tlv): number {
  const [id, params] = sequence(t, "algorithm identifier");
  const key = dotted(oid(id));
  const fixed: Record<string, number> = {
    "1.2.840.113549.1.1.2": 1,
    "1.2.840.113549.1.1.4": 2,
    "1.2.840.113549.1.1.5": 3,
    "1.3.14.3.2.29": 3,
    "1.2.840.113549.1.1.11": 4,
    "1.2.840.113549.1.1.12": 5,
    "1.2.840.113549.1.1.13": 6,
    "1.2.840.10040.4.3": 7,
    "2.16.840.1.101.3.4.3.2": 8,
    "1.2.840.10045.4.1": 9,
    "1.2.840.10045.4.3.2": 10,
    "1.2.840.10045.4.3.3": 11,
    "1.2.840.10045.4.3.4": 12,
    "1.3.101.112": 16,
  };
  if (fixed[key] !== undefined) return fixed[key]!;
  if (key === "1.2.840.113549.1.1.10" && params !== undefined) {
    const hex = params.raw.toString("hex");
    // The hash algorithm's OID (id-sha256/384/512) inside RSASSA-PSS-params.
    if (hex.includes("608648016503040201")) return 13;
    if (hex.includes("608648016503040202")) return 14;
    if (hex.includes("608648016503040203")) return 15;
  }
  return 0;
}

const CURVES: Record<string, number> = { "1.2.840.10045.3.1.7": 32, "1.3.132.0.34": 48, "1.3.132.0.35": 66, "1.3.132.0.33": 28 };

/** x509.PublicKeyAlgorithm and the public key as Go marshals it (rsa.PublicKey, ecdsa.PublicKey, ed25519.PublicKey). */
export function publicKey(spki: Tlv): { algorithm: number; key: unknown } {
  const [algId, keyBits] = sequence(spki, "public key info");
  const [id, params] = sequence(algId, "public key algorithm");
  const key = bitString(keyBits);
  switch (dotted(oid(id))) {
    case "1.2.840.113549.1.1.1": {
      const [n, e] = sequence(readTlv(key), "RSA public key");
      const N = integer(n);
      const E = integer(e);
      if (N <= 0n || E <= 0n || E > 0x7fffffffn) throw new X509Error("x509: invalid RSA public key");
      return { algorithm: 1, key: { N, E: Number(E) } };
    }
    case "1.2.840.10045.2.1": {
      const size = CURVES[dotted(oid(params))];
      if (size === undefined) throw new X509Error("x509: unsupported elliptic curve");
      if (key.length !== 1 + 2 * size || key[0] !== 4) throw new X509Error("x509: failed to unmarshal elliptic curve point");
      // elliptic.Curve's implementations have only unexported fields: {}.
      return { algorithm: 3, key: { Curve: {}, X: unsigned(key.subarray(1, 1 + size)), Y: unsigned(key.subarray(1 + size)) } };
    }
    case "1.3.101.112":
      if (key.length !== 32) throw new X509Error("x509: wrong Ed25519 public key size");
      return { algorithm: 4, key };
    case "1.2.840.10040.4.1":
      return { algorithm: 2, key: undefined };
    default:
      return { algorithm: 0, key: undefined };
  }
}

/** net.IP as it marshals: dotted IPv4 (also for v4-mapped v6), else RFC 5952 IPv6. */
export function ipString(b: Buffer): string {
  if (b.length === 4) return [...b].join(".");
  if (b.length !== 16) throw new X509Error("x509: invalid IP length");
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return [...b.subarray(12)].join(".");
  const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (gs: number[]): string => gs.map((g) => g.toString(16)).join(":");
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

/** url.URL as encoding/json renders Go's parse of a URI SAN; a bad escape makes the certificate malformed, as in Go. */
export function goUrl(s: string): Record<string, unknown> {
  try {
    return parseUrl(s);
  } catch {
    throw new X509Error(`x509: cannot parse URI ${JSON.stringify(s)}`);
  }
}

function parseUrl(s: string): Record<string, unknown> {
  const u: Record<string, unknown> = {
    Scheme: "",
    Opaque: "",
    User: undefined,
    Host: "",
    Path: "",
    RawPath: "",
    OmitHost: false,
    ForceQuery: false,
    RawQuery: "",
    Fragment: "",
    RawFragment: "",
  };
  let rest = s;
  const hash = rest.indexOf("#");
  if (hash >= 0) [rest, u.Fragment] = [rest.slice(0, hash), decodeURIComponent(rest.slice(hash + 1))];
  const scheme = rest.match(/^([A-Za-z][A-Za-z0-9+.-]*):/);
  if (scheme) [u.Scheme, rest] = [scheme[1]!.toLowerCase(), rest.slice(scheme[0].length)];
  const q = rest.indexOf("?");
  if (q >= 0) [rest, u.RawQuery, u.ForceQuery] = [rest.slice(0, q), rest.slice(q + 1), q === rest.length - 1];
  if (scheme && !rest.startsWith("/")) {
    u.Opaque = rest;
    return u;
  }
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    let authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? "" : rest.slice(slash);
    const at = authority.lastIndexOf("@");
    if (at >= 0) [u.User, authority] = [{}, authority.slice(at + 1)];
    u.Host = authority;
  }
  u.Path = decodeURIComponent(rest);
  return u;
}

/** GeneralNames into the four SAN lists Go keeps. */
export function generalNames(der: Buffer, into: Record<string, unknown[] | undefined>): void {
  for (const gn of sequence(readTlv(der), "SAN extension")) {
    const push = (field: string, v: unknown): void => {
      (into[field] ??= []).push(v);
    };
    if (gn.tag === 0x81) push("EmailAddresses", latin1(gn.body));
    else if (gn.tag === 0x82) push("DNSNames", latin1(gn.body));
    else if (gn.tag === 0x86) push("URIs", latin1(gn.body));
    else if (gn.tag === 0x87) push("IPAddresses", ipString(gn.body));
  }
}

export interface Extension {
  id: number[];
  critical: boolean;
  value: Buffer;
}

export function parseExtension(t: Tlv): Extension {
  const parts = sequence(t, "extension");
  const id = oid(parts[0]);
  let i = 1;
  let critical = false;
  if (parts[i]?.tag === 0x01) critical = parts[i++]!.body[0] !== 0;
  const value = parts[i];
  if (value === undefined || value.tag !== 0x04) throw new X509Error("x509: malformed extension value");
  return { id, critical, value: value.body };
}
