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
import { decode64, decodeBase64Url, encodeBase64 } from "./base64";

/** The base64 text of the UTF-8 bytes of s. */
function encode64(s: string, url: bool, pad: bool): string {
  return encodeBase64(utf8Bytes(s), url, pad);
}

export function bi_base64_encode(a: Value | null): Value | null {
  const s = strArg(a);
  return s === null ? null : new StrV(encode64(s, false, true));
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
  return s === null ? null : new StrV(encode64(s, true, true));
}

export function bi_base64url_encode_no_pad(a: Value | null): Value | null {
  const s = strArg(a);
  return s === null ? null : new StrV(encode64(s, true, false));
}

/** base64url.decode: see decodeBase64Url for the padding OPA implies. */
export function bi_base64url_decode(a: Value | null): Value | null {
  const s = strArg(a);
  if (s === null) return null;
  const b = decodeBase64Url(s);
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
