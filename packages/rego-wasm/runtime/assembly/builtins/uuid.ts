/**
 * uuid.parse (OPA v1/topdown/uuid.go over google/uuid's Parse): the
 * version and variant of any UUID, plus the time, clock sequence and node
 * (MAC) fields a version 1 or 2 UUID carries, and a version 2's local
 * domain and id. uuid.rfc4122 (random) is a host builtin (compiler/host/random.ts).
 */

import { Value, StrV, ObjV, objectFromPairs } from "../value";
import { strArg, utf8Bytes } from "./text";
import { int64Value } from "./time/instant";

function hexVal(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** The byte of two hex digits at b[i], -1 if either is not one. */
function hexByte(b: Array<u8>, i: i32): i32 {
  const hi = hexVal(b[i]);
  const lo = hexVal(b[i + 1]);
  return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
}

const DASHED_OFFSETS: i32[] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/**
 * google/uuid.Parse: 32 hex digits, or the dashed 36-character form, bare,
 * after "urn:uuid:" (any case), or inside any one character on each side
 * (meant as braces, not checked). Lengths count UTF-8 bytes.
 */
function parseUUID(s: string): Array<u8> | null {
  const b = utf8Bytes(s);
  const out = new Array<u8>(16);
  let at = 0;
  if (b.length == 32) {
    for (let i = 0; i < 16; i++) {
      const v = hexByte(b, 2 * i);
      if (v < 0) return null;
      out[i] = <u8>v;
    }
    return out;
  }
  if (b.length == 36 + 9) {
    const prefix = "urn:uuid:";
    for (let i = 0; i < 9; i++) {
      let c = <i32>b[i];
      if (c >= 0x41 && c <= 0x5a) c += 0x20;
      if (c != prefix.charCodeAt(i)) return null;
    }
    at = 9;
  } else if (b.length == 36 + 2) at = 1;
  else if (b.length != 36) return null;
  if (b[at + 8] != 0x2d || b[at + 13] != 0x2d || b[at + 18] != 0x2d || b[at + 23] != 0x2d) return null;
  for (let i = 0; i < 16; i++) {
    const v = hexByte(b, at + DASHED_OFFSETS[i]);
    if (v < 0) return null;
    out[i] = <u8>v;
  }
  return out;
}

function variantName(b8: u8): string {
  if ((b8 & 0xc0) == 0x80) return "RFC4122";
  if ((b8 & 0xe0) == 0xc0) return "Microsoft";
  if ((b8 & 0xe0) == 0xe0) return "Future";
  return "Reserved";
}

/** The local/global and unicast/multicast bits of a MAC address's first byte. */
function macVariables(b: u8): string {
  if ((b & 3) == 3) return "local:multicast";
  if ((b & 1) == 1) return "global:multicast";
  if ((b & 2) == 2) return "local:unicast";
  return "global:unicast";
}

function domainName(d: u8): string {
  if (d == 0) return "Person";
  if (d == 1) return "Group";
  if (d == 2) return "Org";
  return "Domain" + d.toString();
}

const HEX = "0123456789abcdef";

/** Offset of the Gregorian calendar's start (1582-10-15) from the Unix epoch, in 100 ns units. */
const GREGORIAN_TO_UNIX_100NS: i64 = 122192928000000000;

function key(s: string): Value {
  return new StrV(s);
}

/** An object describing the UUID; undefined for a non-string or a string that is not a UUID. */
export function bi_uuid_parse(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const u = parseUUID(s);
  if (u === null) return null;
  const version = <i32>(u[6] >> 4);
  const keys: Array<Value> = [key("version"), key("variant")];
  const vals: Array<Value> = [int64Value(version), new StrV(variantName(u[8]))];
  if (version == 1 || version == 2) {
    // 60-bit timestamp: time_low, time_mid and the low 12 bits of time_hi_and_version.
    const ts: i64 = (<i64>u[0] << 24) | (<i64>u[1] << 16) | (<i64>u[2] << 8) | <i64>u[3] |
      (<i64>u[4] << 40) | (<i64>u[5] << 32) | ((<i64>(u[6] & 0x0f)) << 56) | (<i64>u[7] << 48);
    // Nanoseconds since the Unix epoch; Go's int64 arithmetic wraps, and so does i64's.
    keys.push(key("time"));
    vals.push(int64Value((ts - GREGORIAN_TO_UNIX_100NS) * 100));
    let node = "";
    for (let i = 10; i < 16; i++) {
      if (i > 10) node += "-";
      node += HEX.charAt(u[i] >> 4) + HEX.charAt(u[i] & 15);
    }
    keys.push(key("nodeid"));
    vals.push(new StrV(node));
    keys.push(key("macvariables"));
    vals.push(new StrV(macVariables(u[10])));
    keys.push(key("clocksequence"));
    vals.push(int64Value(((<i64>u[8] & 0x3f) << 8) | <i64>u[9]));
    if (version == 2) {
      keys.push(key("id"));
      vals.push(int64Value((<i64>u[0] << 24) | (<i64>u[1] << 16) | (<i64>u[2] << 8) | <i64>u[3]));
      keys.push(key("domain"));
      vals.push(new StrV(domainName(u[9])));
    }
  }
  return objectFromPairs(keys, vals);
}
