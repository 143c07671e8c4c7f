/**
 * base64, base64url and hex builtins (OPA v1/topdown/encoding.go, Go's
 * encoding/base64 and encoding/hex).
 *
 * They work on the UTF-8 bytes of strings. Decoded bytes become a string
 * through UTF-8; an invalid byte reads as U+FFFD, as Go's JSON output shows
 * a string holding invalid UTF-8 (our strings cannot hold raw bytes).
 */

import { Value, StrV, boolV } from "../value";
import { strArg, utf8Bytes, decodeUtf8Lossy } from "./text";

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function encode64(s: string, alphabet: string, pad: bool): string {
  const b = utf8Bytes(s);
  const out = new Array<i32>();
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const v = (<i32>b[i] << 16) | (<i32>b[i + 1] << 8) | <i32>b[i + 2];
    out.push(alphabet.charCodeAt(v >> 18));
    out.push(alphabet.charCodeAt((v >> 12) & 63));
    out.push(alphabet.charCodeAt((v >> 6) & 63));
    out.push(alphabet.charCodeAt(v & 63));
  }
  const rest = b.length - i;
  if (rest > 0) {
    const v = (<i32>b[i] << 16) | (rest == 2 ? <i32>b[i + 1] << 8 : 0);
    out.push(alphabet.charCodeAt(v >> 18));
    out.push(alphabet.charCodeAt((v >> 12) & 63));
    if (rest == 2) out.push(alphabet.charCodeAt((v >> 6) & 63));
    else if (pad) out.push(0x3d);
    if (pad) out.push(0x3d);
  }
  return String.fromCharCodes(out);
}

function sextet(c: i32, url: bool): i32 {
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 26;
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 52;
  if (c == (url ? 0x2d : 0x2b)) return 62;
  if (c == (url ? 0x5f : 0x2f)) return 63;
  return -1;
}

// @ts-ignore: decorator
@inline function isNewline(c: i32): bool {
  return c == 0x0a || c == 0x0d;
}

/**
 * Go's (padded, non-strict) base64 DecodeString: newlines are skipped
 * anywhere, a final quantum must be padded with '=' correctly, nothing but
 * newlines may follow the padding, and unused trailing bits are ignored.
 * Null on corrupt input.
 */
function decode64(s: string, url: bool): Array<u8> | null {
  const out = new Array<u8>();
  const n = s.length;
  let si = 0;
  while (true) {
    const buf = [0, 0, 0, 0];
    let dlen = 4;
    let done = false;
    for (let j = 0; j < 4; j++) {
      if (si == n) {
        if (j == 0) return out;
        return null; // unpadded final quantum
      }
      const c = s.charCodeAt(si++);
      const v = sextet(c, url);
      if (v >= 0) {
        buf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c != 0x3d || j < 2) return null; // bad character or padding too early
      if (j == 2) { // "==" expected: the second '=' may follow newlines
        while (si < n && isNewline(s.charCodeAt(si))) si++;
        if (si == n || s.charCodeAt(si) != 0x3d) return null;
        si++;
      }
      while (si < n && isNewline(s.charCodeAt(si))) si++;
      if (si < n) return null; // trailing garbage after padding
      dlen = j;
      done = true;
      break;
    }
    const val = (buf[0] << 18) | (buf[1] << 12) | (buf[2] << 6) | buf[3];
    out.push(<u8>(val >> 16));
    if (dlen >= 3) out.push(<u8>(val >> 8));
    if (dlen == 4) out.push(<u8>val);
    if (done) return out;
  }
  return out;
}

export function bi_base64_encode(a: Value | null): Value | null {
  const s = strArg(a);
  return s === null ? null : new StrV(encode64(s, STD, true));
}

export function bi_base64_decode(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const b = decode64(s, false);
  return b === null ? null : new StrV(decodeUtf8Lossy(b));
}

/** base64.is_valid: false (not undefined) for a non-string, as OPA. */
export function bi_base64_is_valid(a: Value | null): Value | null {
  if (a === null) return null;
  const s = strArg(a);
  return boolV(s !== null && decode64(s, false) !== null);
}

export function bi_base64url_encode(a: Value | null): Value | null {
  const s = strArg(a);
  return s === null ? null : new StrV(encode64(s, URL, true));
}

export function bi_base64url_encode_no_pad(a: Value | null): Value | null {
  const s = strArg(a);
  return s === null ? null : new StrV(encode64(s, URL, false));
}

/**
 * base64url.decode: input without trailing '=' gets the padding RFC 7515
 * (appendix C) implies (a length of 1 mod 4 is an error), then strict
 * padded decoding. The length counts bytes, hence UTF-8.
 */
export function bi_base64url_decode(a: Value | null): Value | null {
  let s = strArg(a);
  if (s === null) return null;
  if (!s.endsWith("=")) {
    const r = utf8Bytes(s).length % 4;
    if (r == 1) return null;
    if (r == 2) s += "==";
    else if (r == 3) s += "=";
  }
  const b = decode64(s, true);
  return b === null ? null : new StrV(decodeUtf8Lossy(b));
}

export function bi_hex_encode(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const b = utf8Bytes(s);
  const digits = "0123456789abcdef";
  const out = new Array<i32>(b.length * 2);
  for (let i = 0; i < b.length; i++) {
    unchecked((out[2 * i] = digits.charCodeAt(<i32>b[i] >> 4)));
    unchecked((out[2 * i + 1] = digits.charCodeAt(<i32>b[i] & 15)));
  }
  return new StrV(String.fromCharCodes(out));
}

function hexVal(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** hex.decode: Go's hex.DecodeString (either case; odd length or a non-hex byte is an error). */
export function bi_hex_decode(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null || s.length % 2 != 0) return null;
  const out = new Array<u8>(s.length / 2);
  for (let i = 0; i < s.length; i += 2) {
    const hi = hexVal(s.charCodeAt(i));
    const lo = hexVal(s.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) return null;
    unchecked((out[i / 2] = <u8>((hi << 4) | lo)));
  }
  return new StrV(decodeUtf8Lossy(out));
}
