/**
 * Base64 and PEM exactly as Go's encoding/base64 and encoding/pem read them:
 * OPA hands the x509 builtins' inputs to those decoders, so what they accept,
 * skip or reject decides what a builtin returns.
 */
import { X509Error } from "./der";

/** Go's base64.StdEncoding.DecodeString: padded, CR and LF ignored, anything else an error. */
export function goBase64(s: string): Buffer {
  const t = s.replace(/[\r\n]/g, "");
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]={2}|[A-Za-z0-9+/]{2}=)?$/.test(t)) throw new X509Error("illegal base64 data");
  return Buffer.from(t, "base64");
}

/** Space, tab or CR: what getLine trims from a line's end. */
const isBlank = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d;

/** Go's getLine: up to the next LF, trailing spaces, tabs and CRs trimmed. */
function getLine(s: string): [string, string] {
  const i = s.indexOf("\n");
  const line = i < 0 ? s : s.slice(0, i);
  // A backwards scan, not /[ \t\r]+$/: that regex is quadratic on a long run of blanks.
  let end = line.length;
  while (end > 0 && isBlank(line.charCodeAt(end - 1))) end--;
  return [line.slice(0, end), i < 0 ? "" : s.slice(i + 1)];
}

export interface PemBlock {
  type: string;
  bytes: Buffer;
}

/** The first index of marker in data at or after a position; positions asked for never decrease. */
function markerFinder(data: string, marker: string): (from: number) => number {
  let at = -2; // not searched yet; -1: no marker from the last position on
  return (from) => {
    if (at !== -1 && at < from) at = data.indexOf(marker, from);
    return at;
  };
}

/**
 * Go's pem.Decode on a byte string (latin1): the next well-formed block and
 * what follows it, or null. Malformed candidates are skipped, as Go does.
 */
export function pemDecode(data: string): [PemBlock | null, string] {
  // Go's quadratic rescans (CVE-2025-61723) avoided: the scan only moves
  // forward, so each marker's next position is searched for once.
  const nextBegin = markerFinder(data, "\n-----BEGIN ");
  const nextEnd = markerFinder(data, "\n-----END ");
  let rest = data;
  for (;;) {
    if (rest.startsWith("-----BEGIN ")) {
      rest = rest.slice(11);
    } else {
      const i = nextBegin(data.length - rest.length);
      if (i < 0) return [null, data];
      rest = data.slice(i + 12);
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
    const base = data.length - rest.length;
    let endIndex: number;
    let trailerIndex: number;
    if (headers === 0 && rest.startsWith("-----END ")) {
      endIndex = 0;
      trailerIndex = 9;
    } else {
      const end = nextEnd(base);
      // No END line after this BEGIN means none after any later BEGIN either.
      if (end < 0) return [null, data];
      endIndex = end - base;
      trailerIndex = endIndex + 10;
    }
    // A body holding a later BEGIN line is not base64 (its '-'): Go rejects
    // it after decoding; skipping it now keeps the work linear.
    const begin = nextBegin(base);
    if (begin >= 0 && begin < base + endIndex) continue;
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

export const latin1 = (b: Buffer): string => b.toString("latin1");
