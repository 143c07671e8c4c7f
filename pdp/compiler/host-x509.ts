/**
 * crypto.x509.* and crypto.parse_private_keys, computed by the host
 * (public-key cryptography and ASN.1 are out of reach of the AssemblyScript
 * runtime). Semantics are OPA's (v1/topdown/crypto.go); results are Go's
 * x509.Certificate, x509.CertificateRequest, tls.Certificate and private key
 * structures as encoding/json renders them, read from the DER by
 * ./host-der.ts; node:crypto checks signatures and converts keys.
 *
 * Not reproduced: DSA public keys (null) and Go's validation of SAN and
 * name-constraint strings (accepted as written).
 *
 * As for every builtin here, OPA's errors make the call undefined.
 */
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { X509Error, asn1String, asn1Time, bitString, children, dotted, goJson, integer, oid, readTlv, sequence, unsigned, type Tlv } from "./host-der";

type HostFn = (...args: unknown[]) => unknown;

// ---------------------------------------------------------------- base64 and PEM

/** Go's base64.StdEncoding.DecodeString: padded, CR and LF ignored, anything else an error. */
function goBase64(s: string): Buffer {
  const t = s.replace(/[\r\n]/g, "");
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]={2}|[A-Za-z0-9+/]{2}=)?$/.test(t)) throw new X509Error("illegal base64 data");
  return Buffer.from(t, "base64");
}

/** Go's getLine: up to the next LF, trailing spaces, tabs and CRs trimmed. */
function getLine(s: string): [string, string] {
  const i = s.indexOf("\n");
  const line = i < 0 ? s : s.slice(0, i);
  return [line.replace(/[ \t\r]+$/, ""), i < 0 ? "" : s.slice(i + 1)];
}

interface PemBlock {
  type: string;
  bytes: Buffer;
}

/**
 * Go's pem.Decode on a byte string (latin1): the next well-formed block and
 * what follows it, or null. Malformed candidates are skipped, as Go does.
 */
function pemDecode(data: string): [PemBlock | null, string] {
  let rest = data;
  for (;;) {
    if (rest.startsWith("-----BEGIN ")) {
      rest = rest.slice(11);
    } else {
      const i = rest.indexOf("\n-----BEGIN ");
      if (i < 0) return [null, data];
      rest = rest.slice(i + 12);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith("-----")) continue;
    const type = typeLine.slice(0, -5);
    let headers = 0;
    for (;;) {
      if (rest.length === 0) return [null, data];
      const [line, next] = getLine(rest);
      if (!line.includes(":")) break;
      headers++;
      rest = next;
    }
    let endIndex: number;
    let trailerIndex: number;
    if (headers === 0 && rest.startsWith("-----END ")) {
      endIndex = 0;
      trailerIndex = 9;
    } else {
      endIndex = rest.indexOf("\n-----END ");
      trailerIndex = endIndex + 10;
    }
    if (endIndex < 0) continue;
    const trailer = rest.slice(trailerIndex);
    const trailerLen = type.length + 5;
    if (trailer.length < trailerLen || trailer.slice(0, trailerLen) !== `${type}-----`) continue;
    if (getLine(trailer.slice(trailerLen))[0].length !== 0) continue;
    let bytes: Buffer;
    try {
      bytes = goBase64(rest.slice(0, endIndex).replace(/[ \t]/g, ""));
    } catch {
      continue;
    }
    return [{ type, bytes }, getLine(rest.slice(endIndex + 9))[1]];
  }
}

const latin1 = (b: Buffer): string => b.toString("latin1");

// ---------------------------------------------------------------- names, keys, algorithms

/** pkix.Name filled from an RDNSequence, as Go's FillFromRDNSequence does. */
function parseName(t: Tlv): Record<string, unknown> {
  const name: Record<string, unknown> = {
    Country: undefined, Organization: undefined, OrganizationalUnit: undefined, Locality: undefined, Province: undefined,
    StreetAddress: undefined, PostalCode: undefined, SerialNumber: "", CommonName: "", Names: [], ExtraNames: undefined,
  };
  const field: Record<string, string> = {
    "2.5.4.6": "Country", "2.5.4.10": "Organization", "2.5.4.11": "OrganizationalUnit", "2.5.4.7": "Locality",
    "2.5.4.8": "Province", "2.5.4.9": "StreetAddress", "2.5.4.17": "PostalCode",
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
function signatureAlgorithm(t: Tlv): number {
  const [id, params] = sequence(t, "algorithm identifier");
  const key = dotted(oid(id));
  const fixed: Record<string, number> = {
    "1.2.840.113549.1.1.2": 1, "1.2.840.113549.1.1.4": 2, "1.2.840.113549.1.1.5": 3, "1.3.14.3.2.29": 3,
    "1.2.840.113549.1.1.11": 4, "1.2.840.113549.1.1.12": 5, "1.2.840.113549.1.1.13": 6,
    "1.2.840.10040.4.3": 7, "2.16.840.1.101.3.4.3.2": 8,
    "1.2.840.10045.4.1": 9, "1.2.840.10045.4.3.2": 10, "1.2.840.10045.4.3.3": 11, "1.2.840.10045.4.3.4": 12,
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
function publicKey(spki: Tlv): { algorithm: number; key: unknown } {
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

// ---------------------------------------------------------------- extensions

/** net.IP as it marshals: dotted IPv4 (also for v4-mapped v6), else RFC 5952 IPv6. */
function ipString(b: Buffer): string {
  if (b.length === 4) return [...b].join(".");
  if (b.length !== 16) throw new X509Error("x509: invalid IP length");
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return [...b.subarray(12)].join(".");
  const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (gs: number[]): string => gs.map((g) => g.toString(16)).join(":");
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

/** url.URL as encoding/json renders Go's parse of a URI SAN; a bad escape makes the certificate malformed, as in Go. */
function goUrl(s: string): Record<string, unknown> {
  try {
    return parseUrl(s);
  } catch {
    throw new X509Error(`x509: cannot parse URI ${JSON.stringify(s)}`);
  }
}

function parseUrl(s: string): Record<string, unknown> {
  const u: Record<string, unknown> = {
    Scheme: "", Opaque: "", User: undefined, Host: "", Path: "", RawPath: "", OmitHost: false, ForceQuery: false, RawQuery: "", Fragment: "", RawFragment: "",
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
function generalNames(der: Buffer, into: Record<string, unknown[] | undefined>): void {
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

const EXT_KEY_USAGE: Record<string, number> = {
  "2.5.29.37.0": 0, "1.3.6.1.5.5.7.3.1": 1, "1.3.6.1.5.5.7.3.2": 2, "1.3.6.1.5.5.7.3.3": 3, "1.3.6.1.5.5.7.3.4": 4,
  "1.3.6.1.5.5.7.3.5": 5, "1.3.6.1.5.5.7.3.6": 6, "1.3.6.1.5.5.7.3.7": 7, "1.3.6.1.5.5.7.3.8": 8, "1.3.6.1.5.5.7.3.9": 9,
  "1.3.6.1.4.1.311.10.3.3": 10, "2.16.840.1.113730.4.1": 11, "1.3.6.1.4.1.311.2.1.22": 12, "1.3.6.1.4.1.311.61.1.1": 13,
};

interface Extension {
  id: number[];
  critical: boolean;
  value: Buffer;
}

function parseExtension(t: Tlv): Extension {
  const parts = sequence(t, "extension");
  const id = oid(parts[0]);
  let i = 1;
  let critical = false;
  if (parts[i]?.tag === 0x01) critical = parts[i++]!.body[0] !== 0;
  const value = parts[i];
  if (value === undefined || value.tag !== 0x04) throw new X509Error("x509: malformed extension value");
  return { id, critical, value: value.body };
}

/** Go's processExtensions: the certificate fields each known extension sets. */
function applyExtensions(cert: Record<string, unknown>, exts: Extension[]): void {
  const unhandled: number[][] = [];
  const lists = cert as Record<string, unknown[] | undefined>;
  for (const e of exts) {
    const key = dotted(e.id);
    const value = readTlv(e.value);
    switch (key) {
      case "2.5.29.15": {
        const bits = bitString(value);
        let usage = 0;
        for (let i = 0; i < 9; i++) if ((bits[i >> 3] ?? 0) & (0x80 >> (i & 7))) usage |= 1 << i;
        cert.KeyUsage = usage;
        break;
      }
      case "2.5.29.19": {
        const parts = sequence(value, "basic constraints");
        let i = 0;
        const isCA = parts[i]?.tag === 0x01 ? parts[i++]!.body[0] !== 0 : false;
        const maxPathLen = parts[i] !== undefined ? Number(integer(parts[i])) : -1;
        Object.assign(cert, { BasicConstraintsValid: true, IsCA: isCA, MaxPathLen: maxPathLen, MaxPathLenZero: maxPathLen === 0 });
        break;
      }
      case "2.5.29.17":
        generalNames(e.value, lists);
        break;
      case "2.5.29.31":
        for (const dp of sequence(value, "CRL distribution points")) {
          const name = children(dp).find((c) => c.tag === 0xa0);
          const full = name && children(name).find((c) => c.tag === 0xa0);
          for (const gn of full ? children(full) : []) if (gn.tag === 0x86) (lists.CRLDistributionPoints ??= []).push(latin1(gn.body));
        }
        break;
      case "2.5.29.35": {
        const id = sequence(value, "authority key identifier").find((c) => c.tag === 0x80);
        if (id !== undefined) cert.AuthorityKeyId = Buffer.from(id.body);
        break;
      }
      case "2.5.29.37":
        for (const u of sequence(value, "extended key usage")) {
          const arcs = oid(u);
          const known = EXT_KEY_USAGE[dotted(arcs)];
          if (known !== undefined) (lists.ExtKeyUsage ??= []).push(known);
          else (lists.UnknownExtKeyUsage ??= []).push(arcs);
        }
        break;
      case "2.5.29.14":
        if (value.tag !== 0x04) throw new X509Error("x509: invalid subject key identifier");
        cert.SubjectKeyId = Buffer.from(value.body);
        break;
      case "2.5.29.32":
        for (const info of sequence(value, "certificate policies")) {
          const arcs = oid(sequence(info, "policy information")[0]);
          (lists.PolicyIdentifiers ??= []).push(arcs);
          (lists.Policies ??= []).push(dotted(arcs));
        }
        break;
      case "2.5.29.30":
        if (nameConstraints(cert, value, e.critical) && e.critical) unhandled.push(e.id);
        break;
      case "2.5.29.36":
        // PolicyConstraints: [0] requireExplicitPolicy, [1] inhibitPolicyMapping (implicit INTEGERs).
        for (const c of sequence(value, "policy constraints")) {
          const v = Number(integer({ ...c, tag: 0x02 }));
          if (c.tag === 0x80) Object.assign(cert, { RequireExplicitPolicy: v, RequireExplicitPolicyZero: v === 0 });
          else if (c.tag === 0x81) Object.assign(cert, { InhibitPolicyMapping: v, InhibitPolicyMappingZero: v === 0 });
        }
        break;
      case "2.5.29.54": {
        const v = Number(integer(value));
        Object.assign(cert, { InhibitAnyPolicy: v, InhibitAnyPolicyZero: v === 0 });
        break;
      }
      case "2.5.29.33":
        for (const m of sequence(value, "policy mappings")) {
          const [issuer, subject] = sequence(m, "policy mapping");
          (lists.PolicyMappings ??= []).push({ IssuerDomainPolicy: dotted(oid(issuer)), SubjectDomainPolicy: dotted(oid(subject)) });
        }
        break;
      case "1.3.6.1.5.5.7.1.1":
        for (const ad of sequence(value, "authority info access")) {
          const [method, location] = sequence(ad, "access description");
          if (location?.tag !== 0x86) continue;
          const m = dotted(oid(method));
          if (m === "1.3.6.1.5.5.7.48.1") (lists.OCSPServer ??= []).push(latin1(location.body));
          else if (m === "1.3.6.1.5.5.7.48.2") (lists.IssuingCertificateURL ??= []).push(latin1(location.body));
        }
        break;
      default:
        if (e.critical) unhandled.push(e.id);
    }
  }
  if (unhandled.length > 0) cert.UnhandledCriticalExtensions = unhandled;
}

/** net.IPNet as it marshals: {IP, Mask}, the mask a []byte (base64); Go rejects a non-canonical mask. */
function ipNet(b: Buffer): Record<string, unknown> {
  if (b.length !== 8 && b.length !== 32) throw new X509Error("x509: invalid IP/mask length in name constraints");
  const ip = b.subarray(0, b.length / 2);
  const mask = b.subarray(b.length / 2);
  const bits = [...mask].map((x) => x.toString(2).padStart(8, "0")).join("");
  if (!/^1*0*$/.test(bits)) throw new X509Error("x509: IP constraint contained invalid mask");
  return { IP: ipString(Buffer.from(ip)), Mask: Buffer.from(mask) };
}

/**
 * Go's parseNameConstraintsExtension: permitted ([0]) and excluded ([1])
 * subtrees by name type. True when it holds a type Go does not handle
 * (which, if the extension is critical, leaves it unhandled).
 */
function nameConstraints(cert: Record<string, unknown>, value: Tlv, critical: boolean): boolean {
  const lists = cert as Record<string, unknown[] | undefined>;
  let unhandled = false;
  for (const subtrees of sequence(value, "name constraints")) {
    const prefix = subtrees.tag === 0xa0 ? "Permitted" : subtrees.tag === 0xa1 ? "Excluded" : null;
    if (prefix === null) throw new X509Error("x509: invalid NameConstraints extension");
    for (const subtree of children(subtrees)) {
      const base = sequence(subtree, "GeneralSubtree")[0];
      if (base === undefined) throw new X509Error("x509: invalid NameConstraints extension");
      if (base.tag === 0x82) (lists[`${prefix}DNSDomains`] ??= []).push(latin1(base.body));
      else if (base.tag === 0x87) (lists[`${prefix}IPRanges`] ??= []).push(ipNet(base.body));
      else if (base.tag === 0x81) (lists[`${prefix}EmailAddresses`] ??= []).push(latin1(base.body));
      else if (base.tag === 0x86) (lists[`${prefix}URIDomains`] ??= []).push(latin1(base.body));
      else unhandled = true;
    }
  }
  cert.PermittedDNSDomainsCritical = critical;
  return unhandled;
}

// ---------------------------------------------------------------- certificates

/** A certificate as Go's x509.ParseCertificate leaves it, plus the node object that verifies it. */
interface Certificate {
  json: Record<string, unknown>;
  node: X509Certificate;
  /** The URI SANs as written (OPA's URIStrings: Go's url.String gives them back). */
  uris: string[] | undefined;
}

function parseCertificate(raw: Tlv): Certificate {
  const [tbs, sigAlg, sig] = sequence(raw, "certificate");
  if (tbs === undefined || sigAlg === undefined || sig === undefined) throw new X509Error("x509: malformed certificate");
  const fields = sequence(tbs, "tbs certificate");
  let i = 0;
  let version = 0;
  if (fields[0]?.tag === 0xa0) version = Number(integer(readTlv(fields[i++]!.body)));
  if (version < 0 || version > 2) throw new X509Error("x509: invalid version");
  const serial = integer(fields[i++]);
  const innerAlg = fields[i++]!;
  if (!innerAlg.raw.equals(sigAlg.raw)) throw new X509Error("x509: inner and outer signature algorithm identifiers don't match");
  const [issuer, validity, subject, spki] = [fields[i++], fields[i++], fields[i++], fields[i++]];
  if (issuer === undefined || validity === undefined || subject === undefined || spki === undefined) throw new X509Error("x509: malformed tbs certificate");
  const [notBefore, notAfter] = sequence(validity, "validity");
  const { algorithm, key } = publicKey(spki);
  const cert: Record<string, unknown> = {
    Raw: Buffer.from(raw.raw), RawTBSCertificate: Buffer.from(tbs.raw), RawSubjectPublicKeyInfo: Buffer.from(spki.raw),
    RawSubject: Buffer.from(subject.raw), RawIssuer: Buffer.from(issuer.raw), Signature: Buffer.from(bitString(sig)),
    SignatureAlgorithm: signatureAlgorithm(sigAlg), PublicKeyAlgorithm: algorithm, PublicKey: key,
    Version: version + 1, SerialNumber: serial, Issuer: parseName(issuer), Subject: parseName(subject),
    NotBefore: asn1Time(notBefore), NotAfter: asn1Time(notAfter), KeyUsage: 0,
    Extensions: undefined, ExtraExtensions: undefined, UnhandledCriticalExtensions: undefined,
    ExtKeyUsage: undefined, UnknownExtKeyUsage: undefined,
    BasicConstraintsValid: false, IsCA: false, MaxPathLen: 0, MaxPathLenZero: false,
    SubjectKeyId: undefined, AuthorityKeyId: undefined, OCSPServer: undefined, IssuingCertificateURL: undefined,
    DNSNames: undefined, EmailAddresses: undefined, IPAddresses: undefined, URIs: undefined,
    PermittedDNSDomainsCritical: false, PermittedDNSDomains: undefined, ExcludedDNSDomains: undefined,
    PermittedIPRanges: undefined, ExcludedIPRanges: undefined, PermittedEmailAddresses: undefined,
    ExcludedEmailAddresses: undefined, PermittedURIDomains: undefined, ExcludedURIDomains: undefined,
    CRLDistributionPoints: undefined, PolicyIdentifiers: undefined, Policies: undefined,
    InhibitAnyPolicy: 0, InhibitAnyPolicyZero: false, InhibitPolicyMapping: 0, InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0, RequireExplicitPolicyZero: false, PolicyMappings: undefined,
  };
  const extensions = fields.slice(i).find((f) => f.tag === 0xa3);
  if (extensions !== undefined) {
    if (version !== 2) throw new X509Error("x509: extensions present in non-v3 certificate");
    const exts = sequence(readTlv(extensions.body), "extensions").map(parseExtension);
    cert.Extensions = exts.map((e) => ({ Id: e.id, Critical: e.critical, Value: e.value }));
    applyExtensions(cert, exts);
  }
  const uris = cert.URIs as string[] | undefined;
  if (uris !== undefined) cert.URIs = uris.map(goUrl);
  let node: X509Certificate;
  try {
    node = new X509Certificate(raw.raw);
  } catch (err) {
    throw new X509Error(`x509: malformed certificate: ${String(err)}`);
  }
  return { json: cert, node, uris };
}

/** x509.ParseCertificates: concatenated DER certificates. */
function parseDerCertificates(der: Buffer): Certificate[] {
  const certs: Certificate[] = [];
  for (let pos = 0; pos < der.length; ) {
    const t = readTlv(der, pos);
    certs.push(parseCertificate(t));
    pos += t.raw.length;
  }
  return certs;
}

/** OPA's getX509CertsFromString: PEM, or base64 of PEM or of DER. */
function certificatesFromString(input: string): Certificate[] {
  let data = input;
  if (!data.startsWith("-----BEGIN")) {
    const decoded = goBase64(data);
    if (!latin1(decoded).startsWith("-----BEGIN")) return parseDerCertificates(decoded);
    data = latin1(decoded);
  } else {
    data = latin1(Buffer.from(data, "utf8"));
  }
  const ders: Buffer[] = [];
  while (data.length > 0) {
    const [block, rest] = pemDecode(data);
    if (block === null) break;
    if (block.type !== "CERTIFICATE") throw new X509Error(`PEM block type is '${block.type}', expected CERTIFICATE`);
    ders.push(block.bytes);
    data = rest;
  }
  return parseDerCertificates(Buffer.concat(ders));
}

/** OPA's extendedCert: the certificate plus its URIs as strings. */
function withUriStrings(c: Certificate): Record<string, unknown> {
  return { ...c.json, URIStrings: c.uris };
}

// ---------------------------------------------------------------- CSRs

/** x509.ParseCertificateRequest, as JSON. */
function parseCertificateRequest(der: Buffer): Record<string, unknown> {
  const raw = readTlv(der);
  if (raw.raw.length !== der.length) throw new X509Error("x509: trailing data");
  const [info, sigAlg, sig] = sequence(raw, "certificate request");
  if (info === undefined || sigAlg === undefined || sig === undefined) throw new X509Error("x509: malformed certificate request");
  const [version, subject, spki, attrs] = sequence(info, "certificate request info");
  if (subject === undefined || spki === undefined) throw new X509Error("x509: malformed certificate request info");
  const { algorithm, key } = publicKey(spki);
  const csr: Record<string, unknown> = {
    Raw: Buffer.from(raw.raw), RawTBSCertificateRequest: Buffer.from(info.raw), RawSubjectPublicKeyInfo: Buffer.from(spki.raw),
    RawSubject: Buffer.from(subject.raw), Version: Number(integer(version)), Signature: Buffer.from(bitString(sig)),
    SignatureAlgorithm: signatureAlgorithm(sigAlg), PublicKeyAlgorithm: algorithm, PublicKey: key,
    Subject: parseName(subject), Attributes: [], Extensions: undefined, ExtraExtensions: undefined,
    DNSNames: undefined, EmailAddresses: undefined, IPAddresses: undefined, URIs: undefined,
  };
  for (const attr of attrs?.tag === 0xa0 ? children(attrs) : []) {
    const [type, values] = sequence(attr, "attribute");
    const arcs = oid(type);
    if (values?.tag !== 0x31) throw new X509Error("x509: malformed attribute");
    if (dotted(arcs) === "1.2.840.113549.1.9.14" && children(values)[0] !== undefined) {
      const exts = sequence(children(values)[0], "extension request").map(parseExtension);
      csr.Extensions = exts.map((e) => ({ Id: e.id, Critical: e.critical, Value: e.value }));
      for (const e of exts) if (dotted(e.id) === "2.5.29.17") generalNames(e.value, csr as Record<string, unknown[] | undefined>);
      if (csr.URIs !== undefined) csr.URIs = (csr.URIs as string[]).map(goUrl);
    }
    const legacy = legacyAttribute(arcs, values);
    if (legacy !== null) (csr.Attributes as unknown[]).push(legacy);
  }
  return csr;
}

/** The deprecated Attributes entry (pkix.AttributeTypeAndValueSET) Go keeps for an attribute it can read as one. */
function legacyAttribute(type: number[], values: Tlv): unknown {
  try {
    const sets = children(values).map((seq) =>
      sequence(seq, "attribute value").map((atv) => {
        const parts = sequence(atv, "attribute type and value");
        if (parts.length !== 2) throw new X509Error("trailing data");
        return { Type: oid(parts[0]), Value: anyValue(parts[1]!) };
      }),
    );
    return { Type: type, Value: sets };
  } catch {
    return null;
  }
}

/** An ASN.1 value as Go's asn1.Unmarshal into interface{} gives it. */
function anyValue(t: Tlv): unknown {
  if (t.tag === 0x01) return t.body[0] !== 0;
  if (t.tag === 0x02) return integer(t);
  if (t.tag === 0x04) return Buffer.from(t.body);
  if (t.tag === 0x06) return oid(t);
  return asn1String(t);
}

// ---------------------------------------------------------------- private keys

/** A private key block as x509.ParsePKCS1PrivateKey, ParsePKCS8PrivateKey or ParseECPrivateKey reads it (RSA, ECDSA, Ed25519). */
function privateKey(type: string, der: Buffer): KeyObject {
  const format = { "RSA PRIVATE KEY": "pkcs1", "PRIVATE KEY": "pkcs8", "EC PRIVATE KEY": "sec1" }[type] as "pkcs1" | "pkcs8" | "sec1";
  let key: KeyObject;
  try {
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
function privateKeyJson(key: KeyObject): unknown {
  const j = key.export({ format: "jwk" });
  if (j.kty === "RSA") {
    return {
      N: big(j.n), E: Number(big(j.e)), D: big(j.d), Primes: [big(j.p), big(j.q)],
      Precomputed: { Dp: big(j.dp), Dq: big(j.dq), Qinv: big(j.qi), CRTValues: [] },
    };
  }
  if (j.kty === "EC") return { Curve: {}, X: big(j.x), Y: big(j.y), D: big(j.d) };
  return Buffer.concat([Buffer.from(j.d!, "base64url"), Buffer.from(j.x!, "base64url")]);
}

/** OPA's getPrivateKeysFromPEMData: every RSA, PKCS #8 and EC private key block (base64 of PEM accepted). */
function privateKeysFromPem(input: string): KeyObject[] {
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
function parseRsaPrivateKey(input: string): unknown {
  if (input === "") throw new X509Error("input PEM data was empty");
  const text = input.startsWith("-----BEGIN") ? input : latin1(goBase64(input));
  const keys = privateKeysFromPem(text);
  if (keys.length === 0) return null;
  const j = keys[0]!.export({ format: "jwk" });
  if (j.kty !== "RSA" && j.kty !== "EC") throw new X509Error("invalid key type");
  return j;
}

// ---------------------------------------------------------------- key pairs

/** tls.X509KeyPair: the certificate blocks, the first private key block, and their public keys must match. */
function keyPair(certInput: string, keyInput: string): Record<string, unknown> {
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
    Certificate: ders, PrivateKey: privateKeyJson(key), SupportedSignatureAlgorithms: undefined,
    OCSPStaple: undefined, SignedCertificateTimestamps: undefined, Leaf: leaf.json,
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

// ---------------------------------------------------------------- registry

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
