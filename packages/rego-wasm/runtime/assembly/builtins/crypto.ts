/**
 * crypto.md5, crypto.sha1, crypto.sha256 and crypto.hmac.* (OPA
 * v1/topdown/crypto.go): lower-case hex digests of the UTF-8 bytes of a
 * string, and a constant-time comparison of two strings. A non-string
 * operand is a type error in OPA: undefined here.
 */

import { Value, StrV, boolV } from "../value";
import { strArg, utf8Bytes } from "./text";
import { Digest, constantTimeEqual, hmac, hexOf, md5, sha1, sha256, sha512 } from "./crypto-digest";

function hashHex(a: Value | null, hash: Digest): Value | null {
  const s = strArg(a);
  return s === null ? null : new StrV(hexOf(hash(utf8Bytes(s))));
}

/** HMAC of message (first operand) under key (second), in hex. */
function hmacHex(message: Value | null, key: Value | null, hash: Digest, block: i32): Value | null {
  const m = strArg(message);
  const k = strArg(key);
  if (m === null || k === null) return null;
  return new StrV(hexOf(hmac(hash, block, utf8Bytes(k), utf8Bytes(m))));
}

export function bi_crypto_md5(a: Value | null): Value | null {
  return hashHex(a, md5);
}

export function bi_crypto_sha1(a: Value | null): Value | null {
  return hashHex(a, sha1);
}

export function bi_crypto_sha256(a: Value | null): Value | null {
  return hashHex(a, sha256);
}

export function bi_crypto_hmac_md5(message: Value | null, key: Value | null): Value | null {
  return hmacHex(message, key, md5, 64);
}

export function bi_crypto_hmac_sha1(message: Value | null, key: Value | null): Value | null {
  return hmacHex(message, key, sha1, 64);
}

export function bi_crypto_hmac_sha256(message: Value | null, key: Value | null): Value | null {
  return hmacHex(message, key, sha256, 64);
}

export function bi_crypto_hmac_sha512(message: Value | null, key: Value | null): Value | null {
  return hmacHex(message, key, sha512, 128);
}

/** crypto.hmac.equal(mac1, mac2): whether the strings' bytes are equal, in constant time. */
export function bi_crypto_hmac_equal(mac1: Value | null, mac2: Value | null): Value | null {
  const a = strArg(mac1);
  const b = strArg(mac2);
  if (a === null || b === null) return null;
  return boolV(constantTimeEqual(utf8Bytes(a), utf8Bytes(b)));
}
