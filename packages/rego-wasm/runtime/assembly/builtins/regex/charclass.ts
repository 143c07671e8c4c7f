/**
 * Character classes of the regex engine: sets of code points kept as sorted,
 * merged, flattened [lo, hi] pairs (like Go's regexp/syntax rune slices),
 * plus the ASCII named classes (Perl \d \s \w, POSIX [:alpha:]), access to
 * the Unicode tables (names are resolved in unicode-names.ts) and simple
 * case folding for (?i).
 */

import { TABLE_OFFSETS, TABLE_BLOB, FOLD_RUNS } from "./unicode-data";

export const MAX_RUNE: i32 = 0x10ffff;

/** Appends [lo, hi] to a class under construction (not yet clean). */
export function addRange(r: Array<i32>, lo: i32, hi: i32): void {
  r.push(lo);
  r.push(hi);
}

/** Sorts and merges the pairs of r (overlapping or adjacent ranges join). */
export function cleanClass(r: Array<i32>): Array<i32> {
  const n = r.length >>> 1;
  let sorted = true;
  for (let i = 1; i < n; i++) if (r[2 * i] < r[2 * i - 2]) { sorted = false; break; }
  let src = r;
  if (!sorted) {
    // Pairs packed as one i64 (lo above hi) sort with the default numeric order.
    const keys = new Array<i64>(n);
    for (let i = 0; i < n; i++) keys[i] = (<i64>r[2 * i] << 21) | <i64>r[2 * i + 1];
    keys.sort();
    src = new Array<i32>(2 * n);
    for (let i = 0; i < n; i++) {
      src[2 * i] = <i32>(keys[i] >> 21);
      src[2 * i + 1] = <i32>(keys[i] & 0x1fffff);
    }
  }
  const out = new Array<i32>();
  for (let k = 0; k < n; k++) {
    const lo = src[2 * k];
    const hi = src[2 * k + 1];
    const m = out.length;
    if (m > 0 && lo <= out[m - 1] + 1) {
      if (hi > out[m - 1]) out[m - 1] = hi;
    } else {
      out.push(lo);
      out.push(hi);
    }
  }
  return out;
}

/** Complement of a clean class over [0, MAX_RUNE]. */
export function negateClass(r: Array<i32>): Array<i32> {
  const out = new Array<i32>();
  let next = 0;
  for (let i = 0; i < r.length; i += 2) {
    if (r[i] > next) addRange(out, next, r[i] - 1);
    next = r[i + 1] + 1;
  }
  if (next <= MAX_RUNE) addRange(out, next, MAX_RUNE);
  return out;
}

/** Appends the pairs of src to dst. */
export function appendClass(dst: Array<i32>, src: Array<i32>): void {
  for (let i = 0; i < src.length; i++) dst.push(src[i]);
}

/** Membership test by binary search over a clean class. */
export function classHas(r: StaticArray<i32>, c: i32): bool {
  let lo = 0;
  let hi = (r.length >>> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (c < unchecked(r[2 * mid])) hi = mid - 1;
    else if (c > unchecked(r[2 * mid + 1])) lo = mid + 1;
    else return true;
  }
  return false;
}

// ------------------------------------------------------------ case folding

/**
 * The next code point of c's simple case folding orbit (Go's
 * unicode.SimpleFold): c itself when c has no other case. At most two runs
 * cover any code point and they are adjacent in FOLD_RUNS (see the
 * generator), so a binary search plus one look back suffices.
 */
export function simpleFold(c: i32): i32 {
  const n = FOLD_RUNS.length >>> 1;
  let lo = 0;
  let hi = n - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (<i32>(unchecked(FOLD_RUNS[2 * mid]) & 0x1fffff) <= c) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  for (let k = at; k >= 0 && k >= at - 1; k--) {
    const w0 = unchecked(FOLD_RUNS[2 * k]);
    const w1 = unchecked(FOLD_RUNS[2 * k + 1]);
    const rlo = <i32>(w0 & 0x1fffff);
    const stride = <i32>(w0 >>> 21);
    const rhi = rlo + <i32>(w1 & 0x7ff);
    if (c > rhi) continue;
    if (c == rlo || (stride != 0 && (c - rlo) % stride == 0)) return c + <i32>(w1 >>> 11) - (1 << 20);
  }
  return c;
}

/**
 * Adds to a class every code point that case-folds to one of its members
 * (Go's appendFoldedClass). Only code points in the fold table can add
 * anything, so the walk goes over the table's runs, not over the class.
 */
export function foldClass(r: Array<i32>): Array<i32> {
  const src = cleanClass(r);
  const out = new Array<i32>();
  appendClass(out, src);
  const n = FOLD_RUNS.length >>> 1;
  for (let k = 0; k < n; k++) {
    const rlo = <i32>(FOLD_RUNS[2 * k] & 0x1fffff);
    const stride = <i32>(FOLD_RUNS[2 * k] >>> 21);
    const rhi = rlo + <i32>(FOLD_RUNS[2 * k + 1] & 0x7ff);
    const step = stride == 0 ? 1 : stride;
    for (let c = rlo; c <= rhi; c += step) {
      if (!cleanHas(src, c)) continue;
      for (let f = simpleFold(c); f != c; f = simpleFold(f)) addRange(out, f, f);
    }
  }
  return cleanClass(out);
}

function cleanHas(r: Array<i32>, c: i32): bool {
  let lo = 0;
  let hi = (r.length >>> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (c < r[2 * mid]) hi = mid - 1;
    else if (c > r[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The case folding orbit of c as a clean class (c alone when it has none). */
export function foldOrbit(c: i32): Array<i32> {
  const r = new Array<i32>();
  addRange(r, c, c);
  for (let f = simpleFold(c); f != c; f = simpleFold(f)) addRange(r, f, f);
  return cleanClass(r);
}

// ------------------------------------------------------------ named classes

/** Reads the base-128 varint at TABLE_BLOB[at]; the position after it goes to `varEnd`. */
let varEnd: i32 = 0;
function readVarint(at: i32): i32 {
  let v = 0;
  let shift = 0;
  for (;;) {
    const b = <i32>unchecked(TABLE_BLOB[at++]);
    v |= (b & 0x7f) << shift;
    shift += 7;
    if ((b & 0x80) == 0) break;
  }
  varEnd = at;
  return v;
}

/** Appends the ranges of table i (see unicode-data.ts) to out. */
export function decodeTable(i: i32, out: Array<i32>): void {
  let at = TABLE_OFFSETS[i];
  const end = TABLE_OFFSETS[i + 1];
  let prev = -1;
  while (at < end) {
    const lo = prev + 1 + readVarint(at);
    const hi = lo + readVarint(varEnd);
    at = varEnd;
    out.push(lo);
    out.push(hi);
    prev = hi;
  }
}

/** Whether table i contains c, by a linear walk (no allocation). */
export function tableHas(i: i32, c: i32): bool {
  let at = TABLE_OFFSETS[i];
  const end = TABLE_OFFSETS[i + 1];
  let prev = -1;
  while (at < end) {
    const lo = prev + 1 + readVarint(at);
    const hi = lo + readVarint(varEnd);
    at = varEnd;
    if (c < lo) return false;
    if (c <= hi) return true;
    prev = hi;
  }
  return false;
}

/** Perl classes \d \s \w (ASCII only, as in Go), by their letter. */
export function perlClass(letter: i32): Array<i32> {
  const r = new Array<i32>();
  if (letter == 0x64) addRange(r, 0x30, 0x39); // d
  else if (letter == 0x73) {
    // s: \t \n \f \r and space (not \v, unlike POSIX [:space:])
    addRange(r, 0x09, 0x0a);
    addRange(r, 0x0c, 0x0d);
    addRange(r, 0x20, 0x20);
  } else if (letter == 0x77) wordClass(r); // w
  return r;
}

function wordClass(r: Array<i32>): void {
  addRange(r, 0x30, 0x39);
  addRange(r, 0x41, 0x5a);
  addRange(r, 0x5f, 0x5f);
  addRange(r, 0x61, 0x7a);
}

/** POSIX classes [:name:] (ASCII, as in Go), or null when the name is unknown. */
export function posixClass(name: string): Array<i32> | null {
  const r = new Array<i32>();
  if (name == "alnum") {
    addRange(r, 0x30, 0x39);
    addRange(r, 0x41, 0x5a);
    addRange(r, 0x61, 0x7a);
  } else if (name == "alpha") {
    addRange(r, 0x41, 0x5a);
    addRange(r, 0x61, 0x7a);
  } else if (name == "ascii") addRange(r, 0, 0x7f);
  else if (name == "blank") {
    addRange(r, 0x09, 0x09);
    addRange(r, 0x20, 0x20);
  } else if (name == "cntrl") {
    addRange(r, 0, 0x1f);
    addRange(r, 0x7f, 0x7f);
  } else if (name == "digit") addRange(r, 0x30, 0x39);
  else if (name == "graph") addRange(r, 0x21, 0x7e);
  else if (name == "lower") addRange(r, 0x61, 0x7a);
  else if (name == "print") addRange(r, 0x20, 0x7e);
  else if (name == "punct") {
    addRange(r, 0x21, 0x2f);
    addRange(r, 0x3a, 0x40);
    addRange(r, 0x5b, 0x60);
    addRange(r, 0x7b, 0x7e);
  } else if (name == "space") {
    addRange(r, 0x09, 0x0d);
    addRange(r, 0x20, 0x20);
  } else if (name == "upper") addRange(r, 0x41, 0x5a);
  else if (name == "word") wordClass(r);
  else if (name == "xdigit") {
    addRange(r, 0x30, 0x39);
    addRange(r, 0x41, 0x46);
    addRange(r, 0x61, 0x66);
  } else return null;
  return r;
}
