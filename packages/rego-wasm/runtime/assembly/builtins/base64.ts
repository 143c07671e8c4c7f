/**
 * Base64 encoding, and decoding as Go's encoding/base64 does it, on bytes, shared by the
 * encoding builtins and io.jwt.* (not a builtin module: index.ts does not
 * re-export it).
 */

import { utf8Bytes } from "./text";

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Base64 (url: the URL-safe alphabet) of bytes, with '=' padding or without. */
export function encodeBase64(b: Array<u8>, url: bool, pad: bool): string {
  const alphabet = url ? URL : STD;
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
export function decode64(s: string, url: bool): Array<u8> | null {
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

/**
 * OPA's base64url decoding (base64url.decode, JWT sections): input without
 * trailing '=' gets the padding RFC 7515 (appendix C) implies (a length of
 * 1 mod 4 is an error), then strict padded decoding. The length counts
 * bytes, hence UTF-8. Null on corrupt input.
 */
export function decodeBase64Url(s: string): Array<u8> | null {
  return decodePaddingImplied(s, true);
}

/** Base64 in either alphabet whose missing '=' padding is implied (RFC 7515 appendix C); null on corrupt input. */
export function decodePaddingImplied(s: string, url: bool): Array<u8> | null {
  if (!s.endsWith("=")) {
    const r = utf8Bytes(s).length % 4;
    if (r == 1) return null;
    if (r == 2) s += "==";
    else if (r == 3) s += "=";
  }
  return decode64(s, url);
}
