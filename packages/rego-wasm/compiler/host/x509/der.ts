/**
 * A small DER reader and the Go-flavoured JSON writer the x509 host builtins
 * (./index.ts and its neighbours) need: node:crypto exposes neither a
 * certificate's raw fields (TBS, names as attribute lists, extensions) nor
 * CSRs at all.
 */

/** Thrown for malformed DER or PEM; the builtins turn it into undefined. */
export class X509Error extends Error {}

/** One DER element: its tag byte, the whole encoding and its contents. */
export interface Tlv {
  tag: number;
  /** Tag, length and contents. */
  raw: Buffer;
  body: Buffer;
}

/** The DER element at the start of buf (definite lengths only, as DER demands). */
export function readTlv(buf: Buffer, pos = 0): Tlv {
  if (pos + 2 > buf.length) throw new X509Error("x509: malformed certificate");
  const tag = buf[pos]!;
  if ((tag & 0x1f) === 0x1f) throw new X509Error("asn1: high-tag-number form not supported");
  let len = buf[pos + 1]!;
  let hdr = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || pos + 2 + n > buf.length) throw new X509Error("x509: malformed length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[pos + 2 + i]!;
    hdr += n;
  }
  const end = pos + hdr + len;
  if (end > buf.length) throw new X509Error("x509: malformed certificate");
  return { tag, raw: buf.subarray(pos, end), body: buf.subarray(pos + hdr, end) };
}

/** The elements a constructed element holds, in order. */
export function children(t: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = 0; pos < t.body.length;) {
    const c = readTlv(t.body, pos);
    out.push(c);
    pos += c.raw.length;
  }
  return out;
}

/** A SEQUENCE's elements; anything else is malformed. */
export function sequence(t: Tlv | undefined, what: string): Tlv[] {
  if (t === undefined || t.tag !== 0x30) throw new X509Error(`x509: malformed ${what}`);
  return children(t);
}

/** An OBJECT IDENTIFIER as its arcs (asn1.ObjectIdentifier, a JSON array of ints). */
export function oid(t: Tlv | undefined): number[] {
  if (t === undefined || t.tag !== 0x06 || t.body.length === 0) throw new X509Error("x509: malformed OID");
  const arcs: number[] = [];
  let v = 0;
  for (const b of t.body) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      if (arcs.length === 0) {
        const first = v < 80 ? Math.floor(v / 40) : 2;
        arcs.push(first, v - first * 40);
      } else {
        arcs.push(v);
      }
      v = 0;
    }
  }
  return arcs;
}

export const dotted = (arcs: number[]): string => arcs.join(".");

/** An INTEGER as a signed bigint. */
export function integer(t: Tlv | undefined): bigint {
  if (t === undefined || t.tag !== 0x02 || t.body.length === 0) throw new X509Error("x509: malformed integer");
  let v = BigInt(`0x${t.body.toString("hex")}`);
  if (t.body[0]! & 0x80) v -= 1n << BigInt(t.body.length * 8);
  return v;
}

/** Unsigned big-endian bytes as a bigint. */
export const unsigned = (b: Buffer): bigint => (b.length === 0 ? 0n : BigInt(`0x${b.toString("hex")}`));

/** A BIT STRING's bytes (the unused-bits count dropped). */
export function bitString(t: Tlv | undefined): Buffer {
  if (t === undefined || t.tag !== 0x03 || t.body.length === 0) throw new X509Error("x509: malformed bit string");
  return t.body.subarray(1);
}

/** The ASN.1 string types Go's x509 accepts in names and SANs. */
export function asn1String(t: Tlv): string {
  switch (t.tag) {
    case 0x0c: // UTF8String
    case 0x13: // PrintableString
    case 0x16: // IA5String
    case 0x14: // T61String
    case 0x12: // NumericString
      return t.tag === 0x0c ? t.body.toString("utf8") : t.body.toString("latin1");
    case 0x1e: {
      // BMPString: UTF-16BE
      if (t.body.length % 2 !== 0) throw new X509Error("invalid BMPString");
      const swapped = Buffer.from(t.body);
      swapped.swap16();
      return swapped.toString("utf16le");
    }
    default:
      throw new X509Error("x509: unsupported string type");
  }
}

/** UTCTime or GeneralizedTime as Go's time.Time renders in JSON (RFC 3339, UTC). */
export function asn1Time(t: Tlv | undefined): string {
  if (t === undefined) throw new X509Error("x509: malformed validity");
  const s = t.body.toString("latin1");
  let m: RegExpMatchArray | null;
  let year: number;
  let rest: string;
  if (t.tag === 0x17 && (m = s.match(/^(\d\d)(\d{10})Z$/))) {
    const yy = Number(m[1]);
    year = yy < 50 ? 2000 + yy : 1900 + yy;
    rest = m[2]!;
  } else if (t.tag === 0x18 && (m = s.match(/^(\d{4})(\d{10})(\.\d*[1-9])?Z$/))) {
    year = Number(m[1]);
    rest = m[2]! + (m[3] ?? "");
  } else {
    throw new X509Error("x509: malformed time");
  }
  const [mo, d, h, mi, se] = [0, 2, 4, 6, 8].map((i) => rest.slice(i, i + 2));
  return `${String(year).padStart(4, "0")}-${mo}-${d}T${h}:${mi}:${se}${rest.slice(10)}Z`;
}

/**
 * JSON text as Go's encoding/json writes the x509 structures: bigint is a
 * *big.Int (a number of every digit), Buffer a []byte (base64), undefined a
 * nil slice or pointer (null).
 */
export function goJson(v: unknown): string {
  if (v === undefined || v === null) return "null";
  if (typeof v === "bigint") return v.toString();
  if (Buffer.isBuffer(v)) return JSON.stringify(v.toString("base64"));
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  if (typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}:${goJson(x)}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}
