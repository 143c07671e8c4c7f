/**
 * Certificates: x509.ParseCertificate's fields, the extensions Go's
 * processExtensions turns into fields, and OPA's ways of finding
 * certificates in a string.
 */
import { X509Certificate } from "node:crypto";
import { X509Error, asn1Time, bitString, children, dotted, integer, oid, readTlv, sequence, type Tlv } from "./der";
import { generalNames, goUrl, ipString, parseExtension, parseName, publicKey, signatureAlgorithm, type Extension } from "./fields";
import { goBase64, latin1, pemDecode } from "./pem";

const EXT_KEY_USAGE: Record<string, number> = {
  "2.5.29.37.0": 0,
  "1.3.6.1.5.5.7.3.1": 1,
  "1.3.6.1.5.5.7.3.2": 2,
  "1.3.6.1.5.5.7.3.3": 3,
  "1.3.6.1.5.5.7.3.4": 4,
  "1.3.6.1.5.5.7.3.5": 5,
  "1.3.6.1.5.5.7.3.6": 6,
  "1.3.6.1.5.5.7.3.7": 7,
  "1.3.6.1.5.5.7.3.8": 8,
  "1.3.6.1.5.5.7.3.9": 9,
  "1.3.6.1.4.1.311.10.3.3": 10,
  "2.16.840.1.113730.4.1": 11,
  "1.3.6.1.4.1.311.2.1.22": 12,
  "1.3.6.1.4.1.311.61.1.1": 13,
};

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

/** A certificate as Go's x509.ParseCertificate leaves it, plus the node object that verifies it. */
interface Certificate {
  json: Record<string, unknown>;
  node: X509Certificate;
  /** The URI SANs as written (OPA's URIStrings: Go's url.String gives them back). */
  uris: string[] | undefined;
}

export function parseCertificate(raw: Tlv): Certificate {
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
    Raw: Buffer.from(raw.raw),
    RawTBSCertificate: Buffer.from(tbs.raw),
    RawSubjectPublicKeyInfo: Buffer.from(spki.raw),
    RawSubject: Buffer.from(subject.raw),
    RawIssuer: Buffer.from(issuer.raw),
    Signature: Buffer.from(bitString(sig)),
    SignatureAlgorithm: signatureAlgorithm(sigAlg),
    PublicKeyAlgorithm: algorithm,
    PublicKey: key,
    Version: version + 1,
    SerialNumber: serial,
    Issuer: parseName(issuer),
    Subject: parseName(subject),
    NotBefore: asn1Time(notBefore),
    NotAfter: asn1Time(notAfter),
    KeyUsage: 0,
    Extensions: undefined,
    ExtraExtensions: undefined,
    UnhandledCriticalExtensions: undefined,
    ExtKeyUsage: undefined,
    UnknownExtKeyUsage: undefined,
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    SubjectKeyId: undefined,
    AuthorityKeyId: undefined,
    OCSPServer: undefined,
    IssuingCertificateURL: undefined,
    DNSNames: undefined,
    EmailAddresses: undefined,
    IPAddresses: undefined,
    URIs: undefined,
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: undefined,
    ExcludedDNSDomains: undefined,
    PermittedIPRanges: undefined,
    ExcludedIPRanges: undefined,
    PermittedEmailAddresses: undefined,
    ExcludedEmailAddresses: undefined,
    PermittedURIDomains: undefined,
    ExcludedURIDomains: undefined,
    CRLDistributionPoints: undefined,
    PolicyIdentifiers: undefined,
    Policies: undefined,
    InhibitAnyPolicy: 0,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: 0,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0,
    RequireExplicitPolicyZero: false,
    PolicyMappings: undefined,
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
  for (let pos = 0; pos < der.length;) {
    const t = readTlv(der, pos);
    certs.push(parseCertificate(t));
    pos += t.raw.length;
  }
  return certs;
}

/** OPA's getX509CertsFromString: PEM, or base64 of PEM or of DER. */
export function certificatesFromString(input: string): Certificate[] {
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
export function withUriStrings(c: Certificate): Record<string, unknown> {
  return { ...c.json, URIStrings: c.uris };
}
