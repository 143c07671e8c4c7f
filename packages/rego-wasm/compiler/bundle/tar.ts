/**
 * Tar archives (uncompressed), enough for OPA bundles.
 *
 * Writing: POSIX ustar with regular files only, mode 0644, mtime 0 (so equal
 * inputs give equal bytes); a name too long for ustar's name/prefix fields
 * gets a pax `path` record.
 *
 * Reading: ustar, old-style v7, GNU (`L` long names, base-256 sizes) and pax
 * (`x` per-file `path`/`size`, `g` global headers ignored), as Go's
 * archive/tar writes them for `opa build`. Directories are skipped; links,
 * devices and anything else are rejected. Every header checksum and bound is
 * checked, and any error throws before a result is returned.
 */

export class TarError extends Error {
  constructor(message: string) {
    super(`malformed tar archive: ${message}`);
    this.name = "TarError";
  }
}

export interface TarEntry {
  /** Entry name exactly as stored (OPA bundles use `/policy.wasm`). */
  name: string;
  data: Uint8Array;
}

const BLOCK = 512;
const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder("utf-8", { fatal: true });

export function writeTar(entries: TarEntry[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const name = utf8.encode(e.name);
    const split = splitUstarName(name);
    if (!split) {
      const record = paxRecord("path", e.name);
      parts.push(header({ name: utf8.encode("PaxHeaders/entry"), size: record.length, type: "x" }), padded(record));
    }
    parts.push(header({ name: split?.name ?? name.subarray(0, 100), prefix: split?.prefix, size: e.data.length, type: "0" }), padded(e.data));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(parts);
}

/** ustar stores up to 100 bytes of name plus a 155-byte prefix joined by `/`. */
function splitUstarName(name: Uint8Array): { name: Uint8Array; prefix?: Uint8Array } | undefined {
  if (name.length <= 100) return { name };
  for (let i = name.length - 1; i > 0; i--) {
    if (name[i] !== 0x2f) continue;
    if (i <= 155 && name.length - i - 1 <= 100 && name.length - i - 1 > 0) return { prefix: name.subarray(0, i), name: name.subarray(i + 1) };
  }
  return undefined;
}

/** One pax record: "<len> key=value\n", where len counts the whole record. */
function paxRecord(key: string, value: string): Uint8Array {
  const body = utf8.encode(` ${key}=${value}\n`);
  let len = body.length + 1;
  while (String(len).length + body.length !== len) len = String(len).length + body.length;
  return utf8.encode(`${len}${new TextDecoder().decode(body)}`);
}

function header(h: { name: Uint8Array; prefix?: Uint8Array; size: number; type: string }): Uint8Array {
  const b = new Uint8Array(BLOCK);
  b.set(h.name, 0);
  writeOctal(b, 100, 8, 0o644);
  writeOctal(b, 108, 8, 0);
  writeOctal(b, 116, 8, 0);
  writeOctal(b, 124, 12, h.size);
  writeOctal(b, 136, 12, 0);
  b[156] = h.type.charCodeAt(0);
  b.set(utf8.encode("ustar\u000000"), 257);
  if (h.prefix) b.set(h.prefix, 345);
  b.fill(0x20, 148, 156);
  const sum = b.reduce((a, x) => a + x, 0);
  writeOctal(b, 148, 7, sum);
  return b;
}

/** Zero-padded octal digits in `width - 1` bytes, then NUL. */
function writeOctal(b: Uint8Array, at: number, width: number, value: number): void {
  const digits = value.toString(8).padStart(width - 1, "0");
  if (digits.length > width - 1) throw new RangeError(`tar field too small for ${value}`);
  b.set(utf8.encode(digits), at);
  b[at + width - 1] = 0;
}

function padded(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / BLOCK) * BLOCK);
  out.set(data);
  return out;
}

export function readTar(archive: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let pos = 0;
  // Overrides for the next entry from GNU `L` or pax `x` headers.
  let nextName: string | undefined;
  let nextSize: number | undefined;
  for (;;) {
    if (pos === archive.length) break; // no end-of-archive blocks: tolerated, as GNU tar does
    if (pos + BLOCK > archive.length) throw new TarError(`truncated header at byte ${pos}`);
    const h = archive.subarray(pos, pos + BLOCK);
    if (h.every((x) => x === 0)) break;
    checkChecksum(h, pos);
    const type = h[156] === 0 ? "0" : String.fromCharCode(h[156]);
    let size = readNumber(h, 124, 12, pos);
    if (nextSize !== undefined && (type === "0" || type === "7")) size = nextSize;
    const start = pos + BLOCK;
    const next = start + Math.ceil(size / BLOCK) * BLOCK;
    if (next > archive.length) throw new TarError(`entry at byte ${pos} runs past the end of the archive`);
    const data = archive.subarray(start, start + size);
    pos = next;
    switch (type) {
      case "0":
      case "7": {
        const name = nextName ?? headerName(h, pos);
        nextName = nextSize = undefined;
        entries.push({ name, data: data.slice() });
        break;
      }
      case "5":
        nextName = nextSize = undefined;
        break;
      case "L":
        nextName = decode(trimNul(data), pos);
        break;
      case "x": {
        const pax = parsePax(data, pos);
        if (pax.path !== undefined) nextName = pax.path;
        if (pax.size !== undefined) nextSize = pax.size;
        break;
      }
      case "g":
        break;
      default:
        throw new TarError(`unsupported entry type '${type}' at byte ${pos - BLOCK}`);
    }
  }
  if (nextName !== undefined || nextSize !== undefined) throw new TarError("extended header without a following entry");
  return entries;
}

function checkChecksum(h: Uint8Array, pos: number): void {
  const stored = readNumber(h, 148, 8, pos);
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const x = i >= 148 && i < 156 ? 0x20 : h[i];
    unsigned += x;
    signed += x > 127 ? x - 256 : x;
  }
  if (stored !== unsigned && stored !== signed) throw new TarError(`bad header checksum at byte ${pos}`);
}

/** Octal (NUL/space padded) or GNU base-256 (high bit of the first byte set). */
function readNumber(h: Uint8Array, at: number, width: number, pos: number): number {
  if (h[at] & 0x80) {
    let v = h[at] & 0x7f;
    for (let i = 1; i < width; i++) v = v * 256 + h[at + i];
    if (!Number.isSafeInteger(v)) throw new TarError(`number too large at byte ${pos + at}`);
    return v;
  }
  const text = new TextDecoder()
    .decode(h.subarray(at, at + width))
    .replace(/[\0 ]+$/, "")
    .replace(/^ +/, "");
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError(`bad octal field at byte ${pos + at}`);
  return parseInt(text, 8);
}

function headerName(h: Uint8Array, pos: number): string {
  const name = decode(trimNul(h.subarray(0, 100)), pos);
  const isUstar = new TextDecoder().decode(h.subarray(257, 262)) === "ustar";
  const prefix = isUstar ? decode(trimNul(h.subarray(345, 500)), pos) : "";
  return prefix ? `${prefix}/${name}` : name;
}

function trimNul(b: Uint8Array): Uint8Array {
  const i = b.indexOf(0);
  return i < 0 ? b : b.subarray(0, i);
}

function decode(b: Uint8Array, pos: number): string {
  try {
    return utf8Strict.decode(b);
  } catch {
    throw new TarError(`entry name is not UTF-8 near byte ${pos}`);
  }
}

function parsePax(data: Uint8Array, pos: number): { path?: string; size?: number } {
  const out: { path?: string; size?: number } = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const len = space < 0 ? NaN : Number(new TextDecoder().decode(data.subarray(at, space)));
    if (!Number.isInteger(len) || len <= 0 || at + len > data.length || data[at + len - 1] !== 0x0a) {
      throw new TarError(`bad pax record near byte ${pos}`);
    }
    const record = decode(data.subarray(space + 1, at + len - 1), pos);
    const eq = record.indexOf("=");
    if (eq < 0) throw new TarError(`bad pax record near byte ${pos}`);
    const key = record.slice(0, eq);
    const value = record.slice(eq + 1);
    if (key === "path") out.path = value;
    if (key === "size") {
      if (!/^\d+$/.test(value)) throw new TarError(`bad pax size near byte ${pos}`);
      out.size = Number(value);
    }
    at += len;
  }
  return out;
}
