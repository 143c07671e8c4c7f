/**
 * The parts of Go's net/url that providers.aws.sign_req reads: url.Parse
 * (with its errors) and a parsed URL's Host, EscapedPath and RawQuery (not a
 * builtin module: index.ts does not re-export it). Works on UTF-8 bytes, as
 * Go does.
 */

import { utf8Bytes, decodeUtf8Lossy } from "./text";

/** What sign_req needs of a parsed URL. */
export class GoURL {
  constructor(
    /** Host (and port) of the authority, %-escapes decoded; "" without an authority. */
    public host: string,
    /** The path as written when validly escaped, else Go's escaping of the decoded path. */
    public escapedPath: string,
    /** Everything after the first '?', as written (before any '#'). */
    public rawQuery: string,
  ) {}
}

const HEX = "0123456789ABCDEF";

function isAlnum(c: i32): bool {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

function unhex(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** Go's shouldEscape for a path (encodePath). */
function escapeInPath(c: i32): bool {
  if (isAlnum(c)) return false;
  switch (c) {
    case 0x2d: case 0x5f: case 0x2e: case 0x7e: // - _ . ~
    case 0x24: case 0x26: case 0x2b: case 0x2c: case 0x2f: case 0x3a: case 0x3b: case 0x3d: case 0x40: // $ & + , / : ; = @
      return false;
  }
  return true;
}

/** Go's shouldEscape for a host (encodeHost): the bytes that may appear in one unescaped. */
function allowedInHost(c: i32): bool {
  if (isAlnum(c)) return true;
  return "-_.~!$&'()*+,;=:[]<>\"".indexOf(String.fromCharCode(c)) >= 0;
}

/**
 * Go's unescape: %XX sequences decoded; null on a malformed one. In a host,
 * an escape may only encode a non-ASCII byte (or be "%25"), and a literal
 * ASCII byte must be one a host allows.
 */
function unescape(s: string, host: bool): string | null {
  const b = utf8Bytes(s);
  const out = new Array<u8>();
  for (let i = 0; i < b.length; i++) {
    const c = <i32>b[i];
    if (c == 0x25) {
      if (i + 2 >= b.length) return null;
      const hi = unhex(b[i + 1]);
      const lo = unhex(b[i + 2]);
      if (hi < 0 || lo < 0) return null;
      if (host && hi < 8 && !(hi == 2 && lo == 5)) return null;
      out.push(<u8>((hi << 4) | lo));
      i += 2;
      continue;
    }
    if (host && c < 0x80 && !allowedInHost(c)) return null;
    out.push(<u8>c);
  }
  return decodeUtf8Lossy(out);
}

/** Go's validEncoded for a path: only bytes a path may hold as written, and '%'. */
function validEncodedPath(s: string): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ("!$&'()*+,;=:@[]%".indexOf(String.fromCharCode(c)) >= 0) continue;
    if (escapeInPath(c)) return false;
  }
  return true;
}

/** Go's escape(path, encodePath): %XX (upper-case hex) for each UTF-8 byte that needs it. */
function escapePath(s: string): string {
  const b = utf8Bytes(s);
  let out = "";
  for (let i = 0; i < b.length; i++) {
    const c = <i32>b[i];
    if (escapeInPath(c)) out += "%" + HEX.charAt(c >> 4) + HEX.charAt(c & 15);
    else out += String.fromCharCode(c);
  }
  return out;
}

/** Go's validOptionalPort: "" or ':' followed by digits only. */
function validOptionalPort(port: string): bool {
  if (port.length == 0) return true;
  if (port.charCodeAt(0) != 0x3a) return false;
  for (let i = 1; i < port.length; i++) {
    const c = port.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** Go's parseHost: a bracketed IPv6 literal or a name, each with an optional numeric port. */
function parseHost(host: string): string | null {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0 || !validOptionalPort(host.substring(i + 1))) return null;
  } else {
    const i = host.lastIndexOf(":");
    if (i >= 0 && !validOptionalPort(host.substring(i))) return null;
  }
  return unescape(host, true);
}

function validUserinfo(s: string): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isAlnum(c) || "-._:~!$&'()*+,;=%@".indexOf(String.fromCharCode(c)) >= 0) continue;
    return false;
  }
  return true;
}

/** Go's parseAuthority: [userinfo@]host; the user info is checked but not kept. */
function parseAuthority(authority: string): string | null {
  const at = authority.lastIndexOf("@");
  if (at < 0) return parseHost(authority);
  const userinfo = authority.substring(0, at);
  if (!validUserinfo(userinfo) || unescape(userinfo, false) === null) return null;
  return parseHost(authority.substring(at + 1));
}

/** Go's getScheme: the scheme's length, 0 when there is none, -1 for a leading ':' ("missing protocol scheme"). */
function schemeLength(s: string): i32 {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c == 0x2b || c == 0x2d || c == 0x2e) {
      if (i == 0) return 0;
      continue;
    }
    if (c == 0x3a) return i == 0 ? -1 : i;
    return 0;
  }
  return 0;
}

/** Go's url.Parse; null where it returns an error. */
export function parseURL(raw: string): GoURL | null {
  let s = raw;
  const hash = s.indexOf("#");
  let fragment = "";
  if (hash >= 0) {
    fragment = s.substring(hash + 1);
    s = s.substring(0, hash);
  }
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c == 0x7f) return null; // invalid control character in URL
  }
  if (unescape(fragment, false) === null) return null;
  if (s == "*") return new GoURL("", "*", "");

  const n = schemeLength(s);
  if (n < 0) return null;
  const hasScheme = n > 0;
  let rest = hasScheme ? s.substring(n + 1) : s;

  let rawQuery = "";
  if (rest.endsWith("?") && rest.indexOf("?") == rest.length - 1) {
    rest = rest.substring(0, rest.length - 1); // ForceQuery: an empty query
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      rawQuery = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
  }

  if (!rest.startsWith("/")) {
    // An opaque URL ("mailto:x") has no host and no path.
    if (hasScheme) return new GoURL("", "", rawQuery);
    const slash = rest.indexOf("/");
    const segment = slash < 0 ? rest : rest.substring(0, slash);
    if (segment.indexOf(":") >= 0) return null; // first path segment in URL cannot contain colon
  }

  let host = "";
  if ((hasScheme || !rest.startsWith("///")) && rest.startsWith("//")) {
    let authority = rest.substring(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.substring(slash);
      authority = authority.substring(0, slash);
    }
    const h = parseAuthority(authority);
    if (h === null) return null;
    host = h;
  }

  const path = unescape(rest, false);
  if (path === null) return null;
  // EscapedPath: the path as written when that is a valid escaping of it.
  let escaped: string;
  if (validEncodedPath(rest)) escaped = rest;
  else if (path == "*") escaped = "*";
  else escaped = escapePath(path);
  return new GoURL(host, escaped, rawQuery);
}
