/**
 * A compact JWS as OPA reads it (v1/topdown/tokens.go): the three sections,
 * base64url, the JSON header and its fields, the algorithm names, and the
 * one error type every JWT builtin raises (see ./index.ts: it makes the call
 * undefined).
 */

/** A host builtin as the SDK calls it. */
export type HostFn = (...args: unknown[]) => unknown;

/** Thrown by the JWT builtins for any error OPA raises; guarded() turns it into undefined. */
export class JwtError extends Error {}

/** Runs a builtin body; OPA's errors become undefined (see ./index.ts). */
export function guarded<T>(body: () => T): T | undefined {
  try {
    return body();
  } catch (err) {
    if (err instanceof JwtError) return undefined;
    throw err;
  }
}

/** The algorithms OPA knows (tokenAlgorithms). */
export const ALGORITHMS = new Set(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "HS256", "HS384", "HS512", "EdDSA"]);

/** The hash of each algorithm's bit size (RS256, PS384, ES512, HS256 ...). */
export const HASH: Record<string, string> = { "256": "sha256", "384": "sha384", "512": "sha512" };

/** A compact JWS's three sections, still base64url. */
export interface Token {
  header: string;
  payload: string;
  signature: string;
}

/** OPA's decodeJWT: a string with exactly three '.'-separated sections. */
export function splitToken(jwt: unknown): Token {
  if (typeof jwt !== "string") throw new JwtError("operand 1 must be a string");
  const parts = jwt.split(".");
  if (parts.length !== 3) throw new JwtError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** base64url.decode as OPA reads it: padded or not; corrupt input is an error. */
export function base64Url(section: string): Buffer {
  // A backwards scan, not /=+$/: that regex is quadratic on a long run of '='.
  let end = section.length;
  while (end > 0 && section.charCodeAt(end - 1) === 0x3d) end--;
  const bare = section.slice(0, end);
  if (!BASE64URL.test(section) || bare.length % 4 === 1) throw new JwtError("illegal base64 data");
  if (section.length !== bare.length && section.length % 4 !== 0) throw new JwtError("illegal base64 data");
  return Buffer.from(bare, "base64url");
}

/**
 * jwx's base64 decoding of JWK members: the alphabet is URL unless the text
 * holds '+' or '/', padded when it ends in '=', and then decoded as Go's
 * encoding/base64 does (CR and LF skipped, padding exact). Null when corrupt.
/** A JSON object's text and its parsed value, or an error. */
export function jsonObject(text: string): { text: string; value: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JwtError("invalid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new JwtError("decoded JSON type was not an Object");
  return { text, value: value as Record<string, unknown> };
}

/** The decoded header of a token; a JWE ("enc") is not supported. */
export function decodeHeader(token: Token): { text: string; value: Record<string, unknown> } {
  const header = jsonObject(base64Url(token.header).toString("utf8"));
  if ("enc" in header.value) throw new JwtError("JWT is a JWE object, which is not supported");
  return header;
}

export interface HeaderFields {
  alg: string;
  kid: string;
  cty: string;
  /** RFC 7515 4.1.1 and 4.1.11: "alg" present, no unrecognised critical parameter. */
  valid: boolean;
}

/** OPA's parseTokenHeader: alg, kid, typ and cty must be strings, crit a nonempty list of strings. */
export function headerFields(header: Record<string, unknown>): HeaderFields {
  const str = (name: string): string => {
    const v = header[name];
    if (v === undefined) return "";
    if (typeof v !== "string") throw new JwtError(`${name}: must be a string`);
    return v;
  };
  const alg = str("alg");
  const kid = str("kid");
  str("typ");
  const cty = str("cty");
  let crit: Set<string> | undefined;
  if ("crit" in header) {
    if (!Array.isArray(header.crit)) throw new JwtError("crit: must be a list");
    crit = new Set(header.crit.filter((c): c is string => typeof c === "string"));
    if (crit.size === 0) throw new JwtError("crit: must be a nonempty list");
  }
  const known = new Set(["alg", "kid", "typ", "cty", "crit"]);
  const unknownCritical = Object.keys(header).some((k) => !known.has(k) && crit?.has(k));
  return { alg, kid, cty, valid: alg !== "" && !unknownCritical };
}
