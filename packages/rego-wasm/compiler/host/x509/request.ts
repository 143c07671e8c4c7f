/** Certificate signing requests: x509.ParseCertificateRequest's fields. */
import { X509Error, asn1String, bitString, children, dotted, integer, oid, readTlv, sequence, type Tlv } from "./der";
import { generalNames, goUrl, parseExtension, parseName, publicKey, signatureAlgorithm } from "./fields";

/** x509.ParseCertificateRequest, as JSON. */
export function parseCertificateRequest(der: Buffer): Record<string, unknown> {
  const raw = readTlv(der);
  if (raw.raw.length !== der.length) throw new X509Error("x509: trailing data");
  const [info, sigAlg, sig] = sequence(raw, "certificate request");
  if (info === undefined || sigAlg === undefined || sig === undefined) throw new X509Error("x509: malformed certificate request");
  const [version, subject, spki, attrs] = sequence(info, "certificate request info");
  if (subject === undefined || spki === undefined) throw new X509Error("x509: malformed certificate request info");
  const { algorithm, key } = publicKey(spki);
  const csr: Record<string, unknown> = {
    Raw: Buffer.from(raw.raw),
    RawTBSCertificateRequest: Buffer.from(info.raw),
    RawSubjectPublicKeyInfo: Buffer.from(spki.raw),
    RawSubject: Buffer.from(subject.raw),
    Version: Number(integer(version)),
    Signature: Buffer.from(bitString(sig)),
    SignatureAlgorithm: signatureAlgorithm(sigAlg),
    PublicKeyAlgorithm: algorithm,
    PublicKey: key,
    Subject: parseName(subject),
    Attributes: [],
    Extensions: undefined,
    ExtraExtensions: undefined,
    DNSNames: undefined,
    EmailAddresses: undefined,
    IPAddresses: undefined,
    URIs: undefined,
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
