/**
 * net.cidr_* builtins (OPA v1/topdown/cidr.go) over a model of Go's net
 * package: an IP is 4 or 16 bytes, ParseIP answers the 16-byte form (an
 * IPv4 address as ::ffff:a.b.c.d), ParseCIDR an IPv4 network as 4 bytes and
 * an IPv6 one (IPv4-mapped included) as 16, and Contains, Mask and String
 * convert between the two forms as Go does. Every error OPA raises makes the
 * call undefined (non-strict mode).
 */

import { Value, StrV, ArrV, SetV, T_STRING, T_ARRAY, T_SET, T_OBJECT, asArr, asSet, asObj, boolV, num, setFromItems } from "../value";
import { strArg } from "./text";

type IP = Array<u8>;

class IPNet {
  constructor(public ip: IP, public mask: IP) {}
}

// ------------------------------------------------------------ parsing (Go's netip)

// @ts-ignore: decorator
@inline function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

function hexDigit(c: i32): i32 {
  if (isDigit(c)) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** Dotted decimal s[from, to) into out[at..at+4): four fields 0-255, no leading zeroes. */
function parseIPv4Into(s: string, from: i32, to: i32, out: IP, at: i32): bool {
  let val = 0;
  let digits = 0;
  let field = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      if (digits == 1 && val == 0) return false;
      val = val * 10 + c - 0x30;
      digits++;
      if (val > 255) return false;
    } else if (c == 0x2e) {
      if (i == from || i == to - 1 || s.charCodeAt(i - 1) == 0x2e || field == 3) return false;
      out[at + field] = <u8>val;
      field++;
      val = 0;
      digits = 0;
    } else return false;
  }
  if (field < 3) return false;
  out[at + 3] = <u8>val;
  return true;
}

/** netip's IPv6 text: hex groups of 1-4 digits, one "::", an IPv4 tail. Zones are not accepted here. */
function parseIPv6(s: string): IP | null {
  const ip = new Array<u8>(16);
  let p = 0;
  const n = s.length;
  let ellipsis = -1;
  if (n >= 2 && s.charCodeAt(0) == 0x3a && s.charCodeAt(1) == 0x3a) {
    ellipsis = 0;
    p = 2;
    if (p == n) return ip;
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    while (p + off < n) {
      const d = hexDigit(s.charCodeAt(p + off));
      if (d < 0) break;
      acc = (acc << 4) + d;
      if (off > 3 || acc > 0xffff) return null;
      off++;
    }
    if (off == 0) return null;
    if (p + off < n && s.charCodeAt(p + off) == 0x2e) {
      // An IPv4 tail fills the last four bytes.
      if ((ellipsis < 0 && i != 12) || i + 4 > 16) return null;
      if (!parseIPv4Into(s, p, n, ip, i)) return null;
      p = n;
      i += 4;
      break;
    }
    ip[i] = <u8>(acc >> 8);
    ip[i + 1] = <u8>acc;
    i += 2;
    p += off;
    if (p == n) break;
    if (s.charCodeAt(p) != 0x3a || p + 1 == n) return null;
    p++;
    if (s.charCodeAt(p) == 0x3a) {
      if (ellipsis >= 0) return null;
      ellipsis = i;
      p++;
      if (p == n) break;
    }
  }
  if (p != n) return null;
  if (i < 16) {
    if (ellipsis < 0) return null;
    const shift = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + shift] = ip[j];
    for (let j = ellipsis; j < ellipsis + shift; j++) ip[j] = 0;
  } else if (ellipsis >= 0) return null; // "::" must stand for at least one group
  return ip;
}

/** Set by parseAddr: whether the text was dotted IPv4 (netip's Is4). */
let parsedIs4: bool = false;

/**
 * net.ParseIP (netip.ParseAddr without zones) as the 16-byte form; the
 * first '.' or ':' decides the family.
 */
function parseAddr(s: string): IP | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x2e) {
      parsedIs4 = true;
      const ip = v4Mapped();
      return parseIPv4Into(s, 0, s.length, ip, 12) ? ip : null;
    }
    if (c == 0x3a) {
      parsedIs4 = false;
      return parseIPv6(s);
    }
    if (c == 0x25) return null;
  }
  return null;
}

/** ::ffff:0.0.0.0, to be filled in. */
function v4Mapped(): IP {
  const ip = new Array<u8>(16);
  ip[10] = 0xff;
  ip[11] = 0xff;
  return ip;
}

/** Go's CIDRMask(ones, bits). */
function cidrMask(ones: i32, bits: i32): IP {
  const m = new Array<u8>(bits >> 3);
  for (let i = 0; i < m.length; i++) {
    const take = min(8, max(0, ones - i * 8));
    m[i] = <u8>(0xff00 >> take);
  }
  return m;
}

/**
 * net.ParseCIDR's network: the address masked to its prefix, 4 bytes for
 * dotted IPv4 and 16 otherwise. The prefix length is decimal digits (leading
 * zeroes allowed) up to the family's bit count.
 */
function parseCIDR(s: string): IPNet | null {
  const slash = s.indexOf("/");
  if (slash < 0) return null;
  const addr = parseAddr(s.substring(0, slash));
  if (addr === null) return null;
  const bits = parsedIs4 ? 32 : 128;
  const from = slash + 1;
  if (from == s.length) return null;
  let ones = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return null;
    ones = ones * 10 + c - 0x30;
    if (ones > bits) return null;
  }
  const mask = cidrMask(ones, bits);
  return new IPNet(maskIP(addr, mask)!, mask);
}

// ------------------------------------------------------------ Go's net.IP methods

function isMapped(ip: IP): bool {
  if (ip.length != 16) return false;
  for (let i = 0; i < 10; i++) if (ip[i] != 0) return false;
  return ip[10] == 0xff && ip[11] == 0xff;
}

/** IP.To4: the 4-byte form, or null when ip is not IPv4. */
function to4(ip: IP): IP | null {
  if (ip.length == 4) return ip;
  return isMapped(ip) ? ip.slice(12) : null;
}

/** IP.Mask. */
function maskIP(ip: IP, mask: IP): IP | null {
  if (mask.length == 16 && ip.length == 4) {
    let allFF = true;
    for (let i = 0; i < 12; i++) if (mask[i] != 0xff) allFF = false;
    if (allFF) mask = mask.slice(12);
  }
  if (mask.length == 4 && ip.length == 16 && isMapped(ip)) ip = ip.slice(12);
  if (ip.length != mask.length) return null;
  const out = new Array<u8>(ip.length);
  for (let i = 0; i < ip.length; i++) out[i] = ip[i] & mask[i];
  return out;
}

/** Set by networkOf: the mask matching the network number networkOf returned. */
let networkMask: IP = [];

/** Go's networkNumberAndMask: null where Go answers nil. */
function networkOf(n: IPNet): IP | null {
  let ip = to4(n.ip);
  if (ip === null) {
    ip = n.ip;
    if (ip.length != 16) return null;
  }
  let m = n.mask;
  if (m.length == 4) {
    if (ip.length != 4) return null;
  } else if (m.length == 16) {
    if (ip.length == 4) m = m.slice(12);
  } else return null;
  networkMask = m;
  return ip;
}

/** IPNet.Contains. */
function contains(n: IPNet, ip: IP): bool {
  const nn = networkOf(n);
  if (nn === null) return false;
  const m = networkMask;
  const x = to4(ip);
  if (x !== null) ip = x;
  if (ip.length != nn.length) return false;
  for (let i = 0; i < ip.length; i++) if ((nn[i] & m[i]) != (ip[i] & m[i])) return false;
  return true;
}

/** The prefix length of a canonical mask (ones then zeroes), -1 otherwise. */
function prefixLength(m: IP): i32 {
  let ones = 0;
  let i = 0;
  while (i < m.length && m[i] == 0xff) {
    ones += 8;
    i++;
  }
  if (i < m.length) {
    const b = <i32>m[i];
    let k = 0;
    while (k < 8 && (b & (0x80 >> k)) != 0) k++;
    if (((b << k) & 0xff) != 0) return -1;
    ones += k;
    for (let j = i + 1; j < m.length; j++) if (m[j] != 0) return -1;
  }
  return ones;
}

const HEX = "0123456789abcdef";

/** IP.String: dotted for IPv4 (mapped included), RFC 5952 for IPv6. */
function ipString(ip: IP): string {
  const v4 = to4(ip);
  if (v4 !== null) return v4[0].toString() + "." + v4[1].toString() + "." + v4[2].toString() + "." + v4[3].toString();
  // The longest run of two or more zero groups (the first of equals) becomes "::".
  let zs = -1;
  let ze = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && ip[2 * j] == 0 && ip[2 * j + 1] == 0) j++;
    if (j - i >= 2 && j - i > ze - zs) {
      zs = i;
      ze = j;
    }
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i == zs) {
      out += "::";
      i = ze - 1;
      continue;
    }
    if (i > 0 && i != ze) out += ":";
    const g = (<i32>ip[2 * i] << 8) | ip[2 * i + 1];
    let started = false;
    for (let shift = 12; shift >= 0; shift -= 4) {
      const d = (g >> shift) & 15;
      if (d != 0 || started || shift == 0) {
        out += HEX.charAt(d);
        started = true;
      }
    }
  }
  return out;
}

/** IPNet.String: "addr/len", or "addr/hexmask" for a non-canonical mask. */
function netString(n: IPNet): string {
  const nn = networkOf(n);
  if (nn === null) return "<nil>";
  const m = networkMask;
  const l = prefixLength(m);
  if (l >= 0) return ipString(nn) + "/" + l.toString();
  let hex = "";
  for (let i = 0; i < m.length; i++) hex += HEX.charAt(m[i] >> 4) + HEX.charAt(m[i] & 15);
  return ipString(nn) + "/" + hex;
}

// ------------------------------------------------------------ cidr_contains, cidr_intersects, cidr_is_valid

function netArg(v: Value | null): IPNet | null {
  const s = strArg(v);
  return s === null ? null : parseCIDR(s);
}

/** Set by containsCheck: false when OPA raises an error. */
let containsOk: bool = false;

/** OPA's cidr_contains: b is an address or a network that lies wholly inside a. */
function containsCheck(a: Value | null, b: Value | null): bool {
  containsOk = false;
  const na = netArg(a);
  const sb = strArg(b);
  if (na === null || sb === null) return false;
  const ip = parseAddr(sb);
  containsOk = true;
  if (ip !== null) return contains(na, ip);
  const nb = parseCIDR(sb);
  if (nb === null) {
    containsOk = false;
    return false;
  }
  if (!contains(na, nb.ip)) return false;
  // The network's last address: its host bits all set.
  const last = new Array<u8>(nb.ip.length);
  for (let i = 0; i < last.length; i++) last[i] = nb.ip[i] | ~nb.mask[i];
  return contains(na, last);
}

export function bi_net_cidr_contains(a: Value | null, b: Value | null): Value | null {
  const r = containsCheck(a, b);
  return containsOk ? boolV(r) : null;
}

/** Each network holds the other's first address. */
export function bi_net_cidr_intersects(a: Value | null, b: Value | null): Value | null {
  const na = netArg(a);
  const nb = netArg(b);
  if (na === null || nb === null) return null;
  return boolV(contains(na, nb.ip) || contains(nb, na.ip));
}

/** False (never an error) for a non-string. */
export function bi_net_cidr_is_valid(a: Value | null): Value | null {
  if (a === null) return null;
  return boolV(netArg(a) !== null);
}

// ------------------------------------------------------------ cidr_contains_matches

/**
 * The (cidr, key) pairs of an operand: a string is its own key; array
 * elements are keyed by index, set elements by themselves, object values by
 * their keys; an element is a string or a non-empty array whose first item
 * is the CIDR. Another operand type yields no pairs. False on a bad element.
 */
function matchPairs(v: Value, cidrs: Array<Value>, keys: Array<Value>): bool {
  if (v.kind == T_STRING) {
    cidrs.push(v);
    keys.push(v);
    return true;
  }
  let elems: Array<Value>;
  if (v.kind == T_ARRAY) elems = asArr(v).items;
  else if (v.kind == T_SET) elems = asSet(v).items;
  else if (v.kind == T_OBJECT) elems = asObj(v).vals;
  else return true;
  for (let i = 0; i < elems.length; i++) {
    const e = elems[i];
    let cidr: Value;
    if (e.kind == T_STRING) cidr = e;
    else if (e.kind == T_ARRAY && asArr(e).items.length > 0) cidr = asArr(e).items[0];
    else return false;
    cidrs.push(cidr);
    keys.push(v.kind == T_ARRAY ? num(<f64>i) : v.kind == T_SET ? e : asObj(v).keys[i]);
  }
  return true;
}

/** IP.To4 when the address is IPv4, else the address: the form contains compares. */
function normalIP(ip: IP): IP {
  const x = to4(ip);
  return x !== null ? x : ip;
}

/** contains(n, ip) with n's network number and mask and ip already in their compared forms. */
function inNetwork(nn: IP, m: IP, ip: IP): bool {
  if (ip.length != nn.length) return false;
  for (let i = 0; i < ip.length; i++) if ((nn[i] & m[i]) != (ip[i] & m[i])) return false;
  return true;
}

/**
 * Set of [key1, key2] for every pair where operand 1's CIDR contains
 * operand 2's (containsCheck per pair). Each side is parsed once, before the
 * n*m loop, so the loop only compares bytes: an error anywhere makes the
 * whole call undefined, so the order checks are made in does not matter.
 */
export function bi_net_cidr_contains_matches(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null) return null;
  const c1 = new Array<Value>();
  const k1 = new Array<Value>();
  if (!matchPairs(a, c1, k1)) return null;
  // OPA reads operand 2 once per element of operand 1: with none, it is never read.
  if (c1.length == 0) return new SetV();
  const c2 = new Array<Value>();
  const k2 = new Array<Value>();
  if (!matchPairs(b, c2, k2)) return null;
  // With no pair to check, no CIDR is parsed and none can fail.
  if (c2.length == 0) return new SetV();
  // Operand 1: network numbers and masks (a null number contains nothing).
  const nets = new Array<IP | null>(c1.length);
  const masks = new Array<IP>(c1.length);
  for (let i = 0; i < c1.length; i++) {
    const n = netArg(c1[i]);
    if (n === null) return null;
    nets[i] = networkOf(n);
    masks[i] = networkMask;
  }
  // Operand 2: an address, or a network's first and last addresses (both
  // must lie inside); the same slot holds an address as first and last.
  const firsts = new Array<IP>(c2.length);
  const lasts = new Array<IP>(c2.length);
  for (let j = 0; j < c2.length; j++) {
    const s = strArg(c2[j]);
    if (s === null) return null;
    const ip = parseAddr(s);
    if (ip !== null) {
      firsts[j] = lasts[j] = normalIP(ip);
      continue;
    }
    const nb = parseCIDR(s);
    if (nb === null) return null;
    const last = new Array<u8>(nb.ip.length);
    for (let i = 0; i < last.length; i++) last[i] = nb.ip[i] | ~nb.mask[i];
    firsts[j] = normalIP(nb.ip);
    lasts[j] = normalIP(last);
  }
  const out = new Array<Value>();
  for (let i = 0; i < c1.length; i++) {
    const nn = nets[i];
    if (nn === null) continue;
    const m = masks[i];
    for (let j = 0; j < c2.length; j++) {
      if (inNetwork(nn, m, firsts[j]) && inNetwork(nn, m, lasts[j])) out.push(new ArrV([k1[i], k2[j]]));
    }
  }
  return setFromItems(out);
}

// ------------------------------------------------------------ cidr_expand

/** Every address of the network, first to last. */
export function bi_net_cidr_expand(a: Value | null): Value | null {
  const n = netArg(a);
  if (n === null) return null;
  const out = new Array<Value>();
  const ip = n.ip.slice(0);
  while (contains(n, ip)) {
    out.push(new StrV(ipString(ip)));
    // Increment with carry; wrapping to zero leaves the network and ends.
    let j = ip.length - 1;
    while (j >= 0) {
      ip[j] = ip[j] + 1;
      if (ip[j] != 0) break;
      j--;
    }
  }
  return setFromItems(out);
}

// ------------------------------------------------------------ cidr_merge

/** An address as a 128-bit number (IPv4 in its mapped form). */
class U128 {
  constructor(public hi: u64, public lo: u64) {}
}

function toU128(ip: IP): U128 {
  let hi: u64 = 0;
  let lo: u64 = 0;
  for (let i = 0; i < 8; i++) hi = (hi << 8) | <u64>ip[i];
  for (let i = 8; i < 16; i++) lo = (lo << 8) | <u64>ip[i];
  return new U128(hi, lo);
}

function fromU128(x: U128): IP {
  const ip = new Array<u8>(16);
  for (let i = 0; i < 8; i++) ip[i] = <u8>(x.hi >> (<u64>(56 - 8 * i)));
  for (let i = 0; i < 8; i++) ip[8 + i] = <u8>(x.lo >> (<u64>(56 - 8 * i)));
  return ip;
}

function cmpU128(a: U128, b: U128): i32 {
  if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
  if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
  return 0;
}

/** a with its low k bits set (k <= 128). */
function withLowBits(a: U128, k: i32): U128 {
  if (k == 0) return a;
  if (k < 64) return new U128(a.hi, a.lo | ((<u64>1 << <u64>k) - 1));
  if (k == 64) return new U128(a.hi, 0xffffffffffffffff);
  const hk = k - 64;
  return new U128(a.hi | (hk == 64 ? 0xffffffffffffffff : (<u64>1 << <u64>hk) - 1), 0xffffffffffffffff);
}

/** Whether the low k bits of a are all zero. */
function alignedTo(a: U128, k: i32): bool {
  const m = withLowBits(ZERO, k);
  return (a.hi & m.hi) == 0 && (a.lo & m.lo) == 0;
}

function plusOne(a: U128): U128 {
  const lo = a.lo + 1;
  return new U128(lo == 0 ? a.hi + 1 : a.hi, lo);
}

/** A range of the merge: first and last address; the input network while nothing was merged into it. */
class Range {
  constructor(public first: U128, public last: U128, public net: IPNet | null) {}
}

/**
 * The first and last address of a network in the 16-byte space, IPv4 at
 * ::ffff:a.b.c.d (cidrMerge.GetAddressRange).
 */
function rangeOf(n: IPNet): Range {
  let first = maskIP(n.ip, n.mask)!;
  if (first.length == 4) {
    const m = v4Mapped();
    for (let i = 0; i < 4; i++) m[12 + i] = first[i];
    first = m;
  }
  const last = first.slice(0);
  const ml = n.mask.length;
  for (let i = 0; i < ml; i++) last[16 - ml + i] |= ~n.mask[i];
  return new Range(toU128(first), toU128(last), n);
}

const MAPPED_ZERO = new U128(0, 0xffff00000000);
const ZERO = new U128(0, 0);

/** GetPreviousIP: zero and ::ffff:0.0.0.0 have no predecessor and answer themselves. */
function previous(a: U128): U128 {
  if (cmpU128(a, ZERO) == 0 || cmpU128(a, MAPPED_ZERO) == 0) return a;
  return new U128(a.lo == 0 ? a.hi - 1 : a.hi, a.lo - 1);
}

/** A merge element: an IPv4 address gets its classful default mask (OPA: ip.DefaultMask()), unmasked. */
function mergeNet(v: Value): IPNet | null {
  const s = strArg(v);
  if (s === null) return null;
  const ip = parseAddr(s);
  if (ip === null) return parseCIDR(s);
  const v4 = to4(ip);
  if (v4 === null) return null; // an IPv6 address needs a prefix length
  const ones = v4[0] < 0x80 ? 8 : v4[0] < 0xc0 ? 16 : 24;
  return new IPNet(ip, cidrMask(ones, 32));
}

/**
 * The fewest CIDR blocks covering [first, last], each the largest aligned
 * block that fits, as strings; a range within the IPv4 space prints as IPv4.
 */
function rangeToCIDRs(first: U128, last: U128, out: Array<Value>): void {
  const v4 = isMapped(fromU128(first)) && isMapped(fromU128(last));
  const bits = v4 ? 32 : 128;
  let cur = first;
  while (true) {
    let k = 0;
    while (k < bits && alignedTo(cur, k + 1) && cmpU128(withLowBits(cur, k + 1), last) <= 0) k++;
    const ip = fromU128(cur);
    out.push(new StrV(netString(new IPNet(v4 ? ip.slice(12) : ip, cidrMask(bits - k, bits)))));
    const end = withLowBits(cur, k);
    if (cmpU128(end, last) >= 0) return;
    cur = plusOne(end);
  }
}

/** The smallest set of CIDRs covering the given addresses and networks. */
export function bi_net_cidr_merge(a: Value | null): Value | null {
  if (a === null || (a.kind != T_ARRAY && a.kind != T_SET)) return null;
  const elems = a.kind == T_ARRAY ? asArr(a).items : asSet(a).items;
  const ranges = new Array<Range>();
  for (let i = 0; i < elems.length; i++) {
    const n = mergeNet(elems[i]);
    if (n === null) return null;
    ranges.push(rangeOf(n));
  }
  // By last address, then first.
  ranges.sort((x: Range, y: Range): i32 => {
    const c = cmpU128(x.last, y.last);
    return c != 0 ? c : cmpU128(x.first, y.first);
  });
  // From the end, fold each range into its predecessor when they touch or overlap.
  for (let i = ranges.length - 1; i > 0; i--) {
    const cur = ranges[i];
    const prev = ranges[i - 1];
    if (cmpU128(previous(cur.first), prev.last) <= 0) {
      const first = cmpU128(prev.first, cur.first) < 0 ? prev.first : cur.first;
      ranges[i - 1] = new Range(first, cur.last, null);
      ranges.splice(i, 1);
    }
  }
  const out = new Array<Value>();
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i];
    if (r.net !== null) out.push(new StrV(netString(r.net!)));
    else rangeToCIDRs(r.first, r.last, out);
  }
  return setFromItems(out);
}
