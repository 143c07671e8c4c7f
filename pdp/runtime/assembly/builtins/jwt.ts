/**
 * io.jwt.decode and io.jwt.verify_hs256/384/512 (OPA v1/topdown/tokens.go):
 * compact JWS tokens, three base64url sections separated by '.'. Every
 * error OPA raises (not three sections, bad base64url, a header or payload
 * that is not a JSON object, a JWE header, a non-string operand) makes the
 * call undefined here (no strict mode in Wasm).
 */

import { Value, ArrV, StrV, T_OBJECT, T_STRING, asObj, asStr, boolV } from "../value";
import { parseJson } from "../json";
import { strArg, utf8Bytes, decodeUtf8Lossy } from "./text";
import { decodeBase64Url } from "./base64";
import { Digest, constantTimeEqual, hexOf, hmac, sha256, sha384, sha512 } from "./digest";

/** The header, payload and signature sections of a compact JWT; null unless there are exactly three. */
function sections(token: string): Array<string> | null {
  const parts = token.split(".");
  return parts.length == 3 ? parts : null;
}

/** A base64url section decoded and parsed as a JSON object, or null. */
function jsonObjectSection(section: string): Value | null {
  const b = decodeBase64Url(section);
  if (b === null) return null;
  const v = parseJson(decodeUtf8Lossy(b));
  return v !== null && v.kind == T_OBJECT ? v : null;
}

/** Strips leading and trailing `"` and `'` (Go's strings.Trim with that cutset). */
function trimQuotes(s: string): string {
  let i = 0;
  let j = s.length;
  while (i < j && (s.charCodeAt(i) == 0x22 || s.charCodeAt(i) == 0x27)) i++;
  while (j > i && (s.charCodeAt(j - 1) == 0x22 || s.charCodeAt(j - 1) == 0x27)) j--;
  return s.substring(i, j);
}

function decodeToken(token: string): Value | null {
  const parts = sections(token);
  if (parts === null) return null;
  const header = jsonObjectSection(parts[0]);
  if (header === null) return null;
  // A header with "enc" is a JWE, which OPA does not support.
  if (asObj(header).getStr("enc") !== null) return null;
  const payloadBytes = decodeBase64Url(parts[1]);
  if (payloadBytes === null) return null;
  const payloadText = decodeUtf8Lossy(payloadBytes);
  const cty = asObj(header).getStr("cty");
  if (cty !== null) {
    if (cty.kind != T_STRING) return null;
    // Nested JWT: the payload is another token, possibly quoted (as jwt.io
    // writes it); the result is the inner token's, and the outer signature
    // is not looked at.
    if (asStr(cty).value == "JWT") return decodeToken(trimQuotes(payloadText));
  }
  const payload = parseJson(payloadText);
  if (payload === null || payload.kind != T_OBJECT) return null;
  const signature = decodeBase64Url(parts[2]);
  if (signature === null) return null;
  return new ArrV([header, payload, new StrV(hexOf(signature))]);
}

/** io.jwt.decode(jwt): [header, payload, signature in hex], without verifying anything. */
export function bi_io_jwt_decode(jwt: Value | null): Value | null {
  const s = strArg(jwt);
  return s === null ? null : decodeToken(s);
}

/**
 * Whether the token's signature is the HMAC of its first two sections (as
 * written, base64url) under secret. The header is not decoded: its "alg" is
 * not consulted, the builtin's name says which hash to use.
 */
function verifyHmac(jwt: Value | null, secret: Value | null, hash: Digest, block: i32): Value | null {
  const token = strArg(jwt);
  const key = strArg(secret);
  if (token === null || key === null) return null;
  const parts = sections(token);
  if (parts === null) return null;
  const signature = decodeBase64Url(parts[2]);
  if (signature === null) return null;
  const mac = hmac(hash, block, utf8Bytes(key), utf8Bytes(parts[0] + "." + parts[1]));
  return boolV(constantTimeEqual(signature, mac));
}

export function bi_io_jwt_verify_hs256(jwt: Value | null, secret: Value | null): Value | null {
  return verifyHmac(jwt, secret, sha256, 64);
}

export function bi_io_jwt_verify_hs384(jwt: Value | null, secret: Value | null): Value | null {
  return verifyHmac(jwt, secret, sha384, 128);
}

export function bi_io_jwt_verify_hs512(jwt: Value | null, secret: Value | null): Value | null {
  return verifyHmac(jwt, secret, sha512, 128);
}
