/**
 * io.jwt.decode, io.jwt.verify_hs256/384/512 and io.jwt.encode_sign(_raw)
 * (OPA v1/topdown/tokens.go): compact JWS tokens, three base64url sections
 * separated by '.'. Every error OPA raises (not three sections, bad
 * base64url, a header or payload that is not a JSON object, a JWE header, a
 * non-string operand, a bad key or "alg") makes the call undefined here (no
 * strict mode in Wasm). Public-key signatures are the host's (encodeSign).
 */

import { Value, ArrV, StrV, T_ARRAY, T_OBJECT, T_STRING, asArr, asObj, asStr, boolV } from "../value";
import { parseJson } from "../json";
import { strArg, utf8Bytes, decodeUtf8Lossy } from "./text";
import { decodeBase64Url, decodePaddingImplied, encodeBase64 } from "./base64";
import { bi_json_marshal } from "./json";
import { Digest, constantTimeEqual, hexOf, hmac, sha256, sha384, sha512 } from "./crypto-digest";

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

/**
 * Base64 as the JWK library OPA uses reads key material: padded or not,
 * standard or URL-safe alphabet (told apart by '+' or '/'). Null on
 * corrupt input.
 */
function decodeKeyBytes(s: string): Array<u8> | null {
  return decodePaddingImplied(s, s.indexOf("+") < 0 && s.indexOf("/") < 0);
}

/**
 * The HMAC secret of the first key of a JWK or JWK set ({"keys": [...]}),
 * or null: not JSON, an empty set, a key that is not symmetric ("kty":
 * "oct" with base64 "k").
 */
function hmacSecret(jwk: string): Array<u8> | null {
  const parsed = parseJson(jwk);
  if (parsed === null || parsed.kind != T_OBJECT) return null;
  let key: Value = parsed;
  const set = asObj(parsed).getStr("keys");
  if (set !== null) {
    if (set.kind != T_ARRAY || asArr(set).items.length == 0) return null;
    key = asArr(set).items[0];
    if (key.kind != T_OBJECT) return null;
  }
  const kty = asObj(key).getStr("kty");
  const k = asObj(key).getStr("k");
  if (kty === null || kty.kind != T_STRING || asStr(kty).value != "oct") return null;
  if (k === null || k.kind != T_STRING) return null;
  const secret = decodeKeyBytes(asStr(k).value);
  // The JWK library refuses an oct key without key material.
  return secret === null || secret.length == 0 ? null : secret;
}

/** The string member `name` of a parsed header, or null (not an object, missing, not a string). */
function headerString(header: Value | null, name: string): string | null {
  if (header === null || header.kind != T_OBJECT) return null;
  const v = asObj(header).getStr(name);
  return v !== null && v.kind == T_STRING ? asStr(v).value : null;
}

/** Whether alg is one OPA knows (tokenAlgorithms); the others are an "unknown JWS algorithm". */
function knownAlgorithm(alg: string): bool {
  return alg == "HS256" || alg == "HS384" || alg == "HS512" ||
    alg == "RS256" || alg == "RS384" || alg == "RS512" ||
    alg == "PS256" || alg == "PS384" || alg == "PS512" ||
    alg == "ES256" || alg == "ES384" || alg == "ES512" || alg == "EdDSA";
}

/**
 * A compact JWS of the header and payload texts, as given (base64url
 * without padding), signed with the JWK. The header must be a JSON object
 * with a known "alg"; a payload whose "typ" is "JWT" or absent must be JSON.
 * The HMAC algorithms are signed here. For the others the answer is
 * [alg, signing input, key text]: the host signs (node:crypto; the planner
 * emits that call, see BuiltinSpec.jwsSignedByHost).
 */
function encodeSign(headerText: string, payloadText: string, jwk: string): Value | null {
  const header = parseJson(headerText);
  const alg = headerString(header, "alg");
  if (alg === null || !knownAlgorithm(alg)) return null;
  const typ = headerString(header, "typ");
  if ((typ === null || typ == "JWT") && parseJson(payloadText) === null) return null;
  const signingInput = encodeBase64(utf8Bytes(headerText), true, false) + "." + encodeBase64(utf8Bytes(payloadText), true, false);
  if (!alg.startsWith("HS")) {
    const parts = new Array<Value>();
    parts.push(new StrV(alg));
    parts.push(new StrV(signingInput));
    parts.push(new StrV(jwk));
    return new ArrV(parts);
  }
  const secret = hmacSecret(jwk);
  if (secret === null) return null;
  let mac: Array<u8>;
  if (alg == "HS256") mac = hmac(sha256, 64, secret, utf8Bytes(signingInput));
  else if (alg == "HS384") mac = hmac(sha384, 128, secret, utf8Bytes(signingInput));
  else mac = hmac(sha512, 128, secret, utf8Bytes(signingInput));
  return new StrV(signingInput + "." + encodeBase64(mac, true, false));
}

/** io.jwt.encode_sign_raw(headers, payload, key): all three JSON texts. */
export function bi_io_jwt_encode_sign_raw(headers: Value | null, payload: Value | null, key: Value | null): Value | null {
  const h = strArg(headers);
  const p = strArg(payload);
  const k = strArg(key);
  if (h === null || p === null || k === null) return null;
  return encodeSign(h, p, k);
}

/** io.jwt.encode_sign(headers, payload, key): the values are serialised as OPA does (Go's json.Marshal), then signed. */
export function bi_io_jwt_encode_sign(headers: Value | null, payload: Value | null, key: Value | null): Value | null {
  if (headers === null || payload === null || key === null) return null;
  return encodeSign(marshal(headers), marshal(payload), marshal(key));
}

function marshal(v: Value): string {
  return asStr(changetype<Value>(bi_json_marshal(v))).value;
}
