/**
 * The binary input encoding: what a host that builds the input from its own
 * objects can write instead of JSON text (the host side, and the reasons,
 * are in compiler/binary-input.ts). Read by `rt_input_decode`, which the
 * linker's `portcullis_eval` export calls in place of the JSON parser.
 *
 * The bytes are a sequence of 4-byte-aligned items, each starting with a
 * u32 header `n << 3 | tag`:
 *
 *   tag 0 null, 1 false, 2 true       (n = 0)
 *   tag 3 integer                     the next u32 is an i32
 *   tag 4 number                      n ASCII bytes of its JSON text, padded to 4
 *   tag 5 string                      n UTF-16 code units, padded to 4 bytes
 *   tag 6 array                       n items follow
 *   tag 7 object                      n pairs follow: a string item (the key), any item
 *
 * The value read must be the one the JSON path (json.ts) would parse from
 * JSON.stringify of the same host object: numbers go through the same
 * number parser, unpaired surrogates become U+FFFD (as their \uXXXX
 * escapes do), a later duplicate key wins, and nesting is limited as the
 * JSON parser limits it. Anything malformed aborts the evaluation: a
 * truncated or misread input must never be evaluated.
 */

import { Value, NULL, TRUE, FALSE, StrV, ArrV, NumV, ObjV, SetV, T_SET, T_OBJECT, T_STRING, T_BOOLEAN, asObj, asStr, asBool, arrayOfSlots, compareStrings } from "./value";
import { numberFromBytes, scanNumber } from "./number";
import { internedUtf16 } from "./intern";
import { hostAbort } from "./host";
import { dumpJson } from "./write";
import { MAX_DEPTH } from "./json";

const TAG_NULL: u32 = 0;
const TAG_FALSE: u32 = 1;
const TAG_TRUE: u32 = 2;
const TAG_INT: u32 = 3;
const TAG_NUMBER: u32 = 4;
const TAG_STRING: u32 = 5;
const TAG_ARRAY: u32 = 6;
const TAG_OBJECT: u32 = 7;

/** Read position and end of the bytes being decoded (one decode at a time: Wasm is single-threaded). */
let at: usize = 0;
let end: usize = 0;

function malformed(): void {
  hostAbort("invalid input: malformed binary input encoding");
}

/** The input value encoded in the len bytes at ptr; aborts when they are not exactly one well-formed item. */
export function rt_input_decode(ptr: usize, len: usize): usize {
  if ((ptr & 3) != 0 || (len & 3) != 0 || len == 0) malformed();
  if (!constantSlotsCleared) {
    memory.fill(constantSlots, 0, CONSTANT_SLOTS_BYTES); // zero in a fresh memory; an imported one may have been used
    constantSlotsCleared = true;
  }
  at = ptr;
  end = ptr + len;
  const v = item(0);
  if (at != end) malformed();
  return changetype<usize>(v);
}

// @ts-ignore: decorator
@inline function header(): u32 {
  if (end - at < 4) malformed();
  const h = load<u32>(at);
  at += 4;
  return h;
}

/** `bytes` rounded up to the 4-byte alignment of items, if that many are left; aborts otherwise. */
// @ts-ignore: decorator
@inline function take(bytes: usize): usize {
  const padded = (bytes + 3) & ~(<usize>3);
  if (bytes > end - at || padded > end - at) malformed();
  const p = at;
  at += padded;
  return p;
}

function item(depth: i32): Value {
  // As the JSON parser: a value deeper than MAX_DEPTH is rejected.
  if (depth > MAX_DEPTH) hostAbort("invalid input: nested deeper than " + MAX_DEPTH.toString());
  const h = header();
  const n = h >>> 3;
  switch (h & 7) {
    case TAG_NULL:
      if (n != 0) malformed();
      return NULL;
    case TAG_FALSE:
      if (n != 0) malformed();
      return FALSE;
    case TAG_TRUE:
      if (n != 0) malformed();
      return TRUE;
    case TAG_INT: {
      if (n != 0) malformed();
      const p = take(4);
      return new NumV(<f64>load<i32>(p));
    }
    case TAG_NUMBER: {
      const p = take(n);
      if (n == 0 || scanNumber(p, p + n) != p + n) malformed();
      return numberFromBytes(p, n);
    }
    case TAG_STRING:
      return stringOf(n);
    case TAG_ARRAY: {
      // Every item takes at least 4 bytes: a count the bytes cannot hold is malformed, not a huge allocation.
      if (<usize>n > (end - at) >> 2) malformed();
      const items = changetype<Array<Value>>(arrayOfSlots<Value>(n, n));
      const data = items.dataStart;
      for (let i: u32 = 0; i < n; i++) store<usize>(data + (<usize>i << alignof<usize>()), changetype<usize>(item(depth + 1)));
      return new ArrV(items);
    }
    case TAG_OBJECT: {
      if (<usize>n > (end - at) >> 3) malformed();
      const keys = changetype<Array<Value>>(arrayOfSlots<Value>(n, n));
      const vals = changetype<Array<Value>>(arrayOfSlots<Value>(n, n));
      const kd = keys.dataStart;
      const vd = vals.dataStart;
      for (let i: u32 = 0; i < n; i++) {
        const kh = header();
        if ((kh & 7) != TAG_STRING) malformed();
        store<usize>(kd + (<usize>i << alignof<usize>()), changetype<usize>(stringOf(kh >>> 3)));
        store<usize>(vd + (<usize>i << alignof<usize>()), changetype<usize>(item(depth + 1)));
      }
      return objectOfStringKeys(keys, vals);
    }
  }
  malformed();
  return NULL;
}

/** The string of the n UTF-16 units at the read position: a policy constant when it is one. Inlined, as constantOf in it: a call per string cost ~7% of a decode each. */
// @ts-ignore: decorator
@inline function stringOf(n: u32): StrV {
  const bytes = <usize>n << 1;
  const src = take(bytes);
  const constant = constantOf(src, n);
  if (constant !== null) return constant;
  const s = __rt_new_uninit(bytes, idof<string>()); // every unit is written below
  // Two units at a time (the item is padded to 4); a unit from 0x8000 up may be a surrogate, and then each is looked at.
  let high: u32 = 0;
  let i: usize = 0;
  for (; i + 4 <= bytes; i += 4) {
    const w = load<u32>(src + i);
    store<u32>(s + i, w);
    high |= w;
  }
  if (i < bytes) {
    const c = <u32>load<u16>(src + i);
    store<u16>(s + i, <u16>c);
    high |= c;
  }
  if ((high & 0x80008000) != 0) replaceLoneSurrogates(s, bytes);
  return new StrV(changetype<string>(s));
}

/** Slots of the constants cache: a power of two, many times the names in a real policy's inputs. */
const CONSTANT_SLOTS: usize = 1024;
const CONSTANT_SLOTS_BYTES: usize = CONSTANT_SLOTS * 8;
/**
 * What the decoder learnt about the strings it met, by a 64-bit hash of
 * their units: per 8-byte slot, a u32 signature (32 more bits of the hash)
 * and the address of the policy constant (StrV) with those units, or 0 when
 * the intern table had none. Static memory, below every heap rewind: only
 * constants of the sealed intern table are entered, and those live as long
 * as the module. Cleared on the first decode.
 */
const constantSlots: usize = memory.data(<i32>CONSTANT_SLOTS_BYTES, 8);
let constantSlotsCleared = false;

/**
 * The policy constant equal to the n units at src, or null when none is
 * known: the intern table's answer (internedUtf16) without its unit-by-unit
 * FNV hash and probe for the strings met before. A slot whose signature
 * matches answers its constant when the units are the same, and null when
 * it remembers that the intern table had none. A constant answered null is
 * only slower later (an input string equal to a constant is the same value
 * whether it is the constant or a copy), and a remembered constant is never
 * replaced by a remembered miss, so a string colliding with a constant
 * cannot push it out.
 */
// @ts-ignore: decorator
@inline function constantOf(src: usize, n: u32): StrV | null {
  if (n == 0 || n > 32) return internedUtf16(src, <i32>n); // the intern table keeps no longer strings
  const bytes = <usize>n << 1;
  const K: u64 = 0x9e3779b97f4a7c15;
  let h: u64 = <u64>n * K;
  if (bytes >= 8) {
    for (let i: usize = 0; i + 8 < bytes; i += 8) h = (h ^ load<u64>(src + i)) * K;
    h = (h ^ load<u64>(src + bytes - 8)) * K; // the last 8 bytes, overlapping the word before when bytes is not a multiple of 8
  } else {
    // Only the string's own bytes: its item is padded to 4 with whatever the memory held.
    const w: u64 = bytes == 2 ? <u64>load<u16>(src) : bytes == 4 ? <u64>load<u32>(src) : <u64>load<u32>(src) | (<u64>load<u16>(src + 4) << 32);
    h = (h ^ w) * K;
  }
  const slot = constantSlots + ((<usize>(h >> 54) & (CONSTANT_SLOTS - 1)) << 3);
  const sig = <u32>(h ^ (h >> 29)) | 1; // never 0: a cleared slot matches nothing
  const cached = <usize>load<u32>(slot, 4);
  if (load<u32>(slot) == sig) {
    if (cached == 0) return null;
    const s = changetype<StrV>(cached).value;
    if (<u32>s.length == n && sameBytes(changetype<usize>(s), src, bytes)) return changetype<StrV>(cached);
  }
  const constant = internedUtf16(src, <i32>n);
  if (constant !== null) {
    store<u32>(slot, sig);
    store<u32>(slot, <u32>changetype<usize>(constant), 4);
  } else if (cached == 0) {
    store<u32>(slot, sig);
  }
  return constant;
}

/** Whether the `bytes` bytes at a and at b are the same (an even count: UTF-16 units). */
// @ts-ignore: decorator
@inline function sameBytes(a: usize, b: usize, bytes: usize): bool {
  let i: usize = 0;
  for (; i + 8 <= bytes; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false;
  if (i + 4 <= bytes) {
    if (load<u32>(a + i) != load<u32>(b + i)) return false;
    i += 4;
  }
  return i == bytes || load<u16>(a + i) == load<u16>(b + i);
}

/**
 * Unpaired surrogates become U+FFFD: JSON.stringify writes each as a \uXXXX
 * escape and the JSON parser decodes those to U+FFFD (Go's decoder does).
 * A high surrogate followed by a low one is a pair and stays.
 */
function replaceLoneSurrogates(s: usize, bytes: usize): void {
  for (let i: usize = 0; i < bytes; i += 2) {
    const c = load<u16>(s + i);
    if (c < 0xd800 || c >= 0xe000) continue;
    if (c < 0xdc00 && i + 2 < bytes) {
      const d = load<u16>(s + i + 2);
      if (d >= 0xdc00 && d < 0xe000) {
        i += 2; // a pair: both stay
        continue;
      }
    }
    store<u16>(s + i, 0xfffd);
  }
}

/**
 * An object of string keys in any order, sorted in place by insertion (an
 * input's objects are small): a later duplicate key's value wins, as in the
 * JSON parser. Works on the arrays' slots directly, with the first units
 * compared inline: most keys of an input's object differ there.
 */
function objectOfStringKeys(keys: Array<Value>, vals: Array<Value>): ObjV {
  const n = keys.length;
  const kd = keys.dataStart;
  const vd = vals.dataStart;
  let m = 0; // the sorted, duplicate-free prefix
  for (let i = 0; i < n; i++) {
    const k = load<usize>(kd + (<usize>i << alignof<usize>()));
    const v = load<usize>(vd + (<usize>i << alignof<usize>()));
    const ks = changetype<StrV>(k).value;
    let j = m - 1;
    let c = 1;
    while (j >= 0) {
      c = keyOrder(changetype<StrV>(load<usize>(kd + (<usize>j << alignof<usize>()))).value, ks);
      if (c <= 0) break;
      j--;
    }
    if (j >= 0 && c == 0) {
      store<usize>(vd + (<usize>j << alignof<usize>()), v);
      continue;
    }
    // The larger keys and their values move up one slot (a loop: memory.copy is a call out of Wasm in V8).
    const to = <usize>(j + 1) << alignof<usize>();
    for (let p = <usize>m << alignof<usize>(); p > to; p -= sizeof<usize>()) {
      store<usize>(kd + p, load<usize>(kd + p - sizeof<usize>()));
      store<usize>(vd + p, load<usize>(vd + p - sizeof<usize>()));
    }
    store<usize>(kd + to, k);
    store<usize>(vd + to, v);
    m++;
  }
  if (m < n) {
    keys.length = m;
    vals.length = m;
  }
  return new ObjV(keys, vals);
}

/** compareStrings(a, b), settled inline when a and b are the same string or differ in a first unit below the surrogates. */
// @ts-ignore: decorator
@inline function keyOrder(a: string, b: string): i32 {
  const pa = changetype<usize>(a);
  const pb = changetype<usize>(b);
  if (pa == pb) return 0;
  if (a.length == 0 || b.length == 0) return compareStrings(a, b);
  const ca = <i32>load<u16>(pa);
  const cb = <i32>load<u16>(pb);
  if (ca != cb && ca < 0xd800 && cb < 0xd800) return ca < cb ? -1 : 1;
  return compareStrings(a, b);
}

/** rt_result_code's answers for the result sets a boolean rule gives; anything else is dumped (an address, never this small). */
const RESULT_EMPTY: usize = 0;
const RESULT_FALSE: usize = 1;
const RESULT_TRUE: usize = 2;

/**
 * The result set `rs` as a small code when it is `[]`, `[{"result":false}]`
 * or `[{"result":true}]`, else the address of its JSON dump (as
 * opa_json_dump): the host reads a boolean decision without a dump or a
 * JSON parse.
 */
export function rt_result_code(rs: usize): usize {
  if (rs == 0) hostAbort("rt_result_code: undefined value");
  const v = changetype<Value>(rs);
  if (v.kind == T_SET) {
    const items = changetype<SetV>(v).items;
    if (items.length == 0) return RESULT_EMPTY;
    if (items.length == 1) {
      const b = unchecked(items[0]);
      if (b.kind == T_OBJECT) {
        const o = asObj(b);
        if (o.keys.length == 1) {
          const k = unchecked(o.keys[0]);
          const r = unchecked(o.vals[0]);
          if (k.kind == T_STRING && asStr(k).value == "result" && r.kind == T_BOOLEAN) return asBool(r).value ? RESULT_TRUE : RESULT_FALSE;
        }
      }
    }
  }
  return dumpJson(v);
}
