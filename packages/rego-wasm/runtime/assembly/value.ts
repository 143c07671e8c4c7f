/**
 * The runtime's value model: Rego's seven types as managed AssemblyScript
 * objects, allocated by the bump runtime in `rt.ts` (so the host's heap
 * rewind frees them all at once), plus Rego's total order.
 *
 * A value crosses the module boundary as its address; `null` (address 0)
 * means undefined. Objects and sets are kept sorted by the total order and
 * free of duplicates, so lookups are binary searches, iteration and output
 * are deterministic, and equality is a linear walk.
 *
 * Total order: null < boolean < number < string < array < object < set.
 */

import { compareExact } from "./decimal";
import { markOf, setMark, isCanonicalMark, STATIC_MARK } from "./intern";

export const T_NULL: i32 = 1;
export const T_BOOLEAN: i32 = 2;
export const T_NUMBER: i32 = 3;
export const T_STRING: i32 = 4;
export const T_ARRAY: i32 = 5;
export const T_OBJECT: i32 = 6;
export const T_SET: i32 = 7;

export class Value {
  constructor(public kind: i32) {}
}

export class NullV extends Value {
  constructor() {
    super(T_NULL);
  }
}

export class BoolV extends Value {
  constructor(public value: bool) {
    super(T_BOOLEAN);
  }
}

/**
 * Numbers are f64. `text` keeps the literal's exact decimal text when the f64
 * cannot reproduce it (integers beyond 2^53, long fractions), so a value that
 * is only passed through serialises exactly as it came in. Integer arithmetic
 * results beyond 2^53 carry their exact digits the same way (builtins/numbers.ts).
 * A number without text stands for the decimal it prints as.
 */
export class NumV extends Value {
  constructor(public value: f64, public text: string | null = null) {
    super(T_NUMBER);
  }
}

/** Strings are AssemblyScript strings (UTF-16); Rego semantics (code points, byte order) are kept by the helpers below. */
export class StrV extends Value {
  constructor(public value: string) {
    super(T_STRING);
  }
}

export class ArrV extends Value {
  constructor(public items: Array<Value> = new Array<Value>()) {
    super(T_ARRAY);
  }
}

/** Keys sorted by `compare`, unique; vals[i] belongs to keys[i]. */
export class ObjV extends Value {
  constructor(public keys: Array<Value> = new Array<Value>(), public vals: Array<Value> = new Array<Value>()) {
    super(T_OBJECT);
  }

  /** Index of key, or -(insertion point) - 1 when absent. */
  find(key: Value): i32 {
    if (key.kind == T_STRING) return findString(this.keys, key);
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compare(unchecked(this.keys[mid]), key);
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }

  get(key: Value): Value | null {
    const i = key.kind == T_STRING ? lookupString(this, this.keys, key) : this.find(key);
    return i >= 0 ? unchecked(this.vals[i]) : null;
  }

  getStr(key: string): Value | null {
    return this.get(new StrV(key));
  }

  /** Sets key to value, replacing an existing entry. */
  set(key: Value, value: Value): void {
    keepCanonical(this, key);
    // Keys given in order (object literals, whose constant keys the planner
    // sorts; objects built from a scan of another): one compare, no search.
    const n = this.keys.length;
    if (n == 0 || compareKeys(unchecked(this.keys[n - 1]), key) < 0) {
      appendValue(this.keys, key);
      appendValue(this.vals, value);
      return;
    }
    const i = this.find(key);
    if (i >= 0) {
      unchecked((this.vals[i] = value));
      return;
    }
    const at = -i - 1;
    insertAt(this.keys, at, key);
    insertAt(this.vals, at, value);
  }

  setStr(key: string, value: Value): void {
    this.set(new StrV(key), value);
  }

  /** Removes key if present. */
  delete(key: Value): void {
    const i = this.find(key);
    if (i < 0) return;
    this.keys.splice(i, 1);
    this.vals.splice(i, 1);
  }

  get size(): i32 {
    return this.keys.length;
  }
}

/** Elements sorted by `compare`, unique. */
export class SetV extends Value {
  constructor(public items: Array<Value> = new Array<Value>()) {
    super(T_SET);
  }

  find(v: Value): i32 {
    if (v.kind == T_STRING) return findString(this.items, v);
    let lo = 0;
    let hi = this.items.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compare(unchecked(this.items[mid]), v);
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }

  has(v: Value): bool {
    return (v.kind == T_STRING ? lookupString(this, this.items, v) : this.find(v)) >= 0;
  }

  add(v: Value): void {
    keepCanonical(this, v);
    // Elements given in order (a scan of a sorted collection): one compare, no search.
    const n = this.items.length;
    if (n == 0 || compareKeys(unchecked(this.items[n - 1]), v) < 0) {
      appendValue(this.items, v);
      return;
    }
    const i = this.find(v);
    if (i >= 0) return;
    insertAt(this.items, -i - 1, v);
  }

  get size(): i32 {
    return this.items.length;
  }
}

// No zeroing of a new value by the allocator (rt.ts __new): an
// AssemblyScript constructor stores every field of its class (a parameter,
// an initializer or the type's zero), and these classes have no other
// memory (test/runtime/ops.test.ts builds values over a heap of garbage).
__rt_filled_by_constructor = idBit(idof<NumV>()) | idBit(idof<StrV>()) | idBit(idof<ArrV>()) | idBit(idof<ObjV>()) | idBit(idof<SetV>());

/** The bit of a class id in __rt_filled_by_constructor; none past 63 (that class is zeroed as before). */
function idBit(id: u32): u64 {
  return id < 64 ? <u64>1 << id : 0;
}

/** Collections up to this size are first scanned for the key's own address (findString). */
const ADDRESS_SCAN: i32 = 8;

/**
 * Binary search of a string value in sorted values (object keys, set
 * elements), the common case (JSON objects, `input.x`, `data.routes[id]`,
 * sets of names): the order of compare() without its dispatch. Index, or
 * -(insertion point) - 1 when absent.
 *
 * A small collection is first scanned for the key's very address: input
 * and data keys the parser took from the policy's constants (intern.ts) are
 * the constant the policy looks them up with, so most lookups in the small
 * objects of an input end in a few address compares, without comparing
 * strings on the way of a binary search. Equal addresses are equal values,
 * so a hit is exact; a miss falls through to the search.
 */
export function findString(sorted: Array<Value>, keyValue: Value): i32 {
  const n = sorted.length;
  if (n <= ADDRESS_SCAN) {
    const data = sorted.dataStart;
    const want = changetype<usize>(keyValue);
    for (let i = 0; i < n; i++) if (load<usize>(data + (<usize>i << alignof<usize>())) == want) return i;
  }
  const key = changetype<StrV>(keyValue).value;
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = unchecked(sorted[mid]);
    // Kinds first: null, booleans and numbers sort before strings, collections after.
    const c = k.kind == T_STRING ? compareStringsQuick(changetype<StrV>(k).value, key) : k.kind < T_STRING ? -1 : 1;
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

/** Canonical collections up to this size are searched by address alone (lookupString). */
const ADDRESS_DECIDES: i32 = 32;

/**
 * Index of a string among a collection's sorted values (an object's keys, a
 * set's elements), or a negative number when absent: for lookups, it gives
 * no insertion point. A canonical string in a collection marked canonical
 * (intern.ts) is there exactly when its address is, so a small enough
 * collection is decided by comparing addresses, found or not; otherwise
 * findString compares strings.
 */
// @ts-ignore: decorator
@inline export function lookupString(coll: Value, sorted: Array<Value>, key: Value): i32 {
  const n = sorted.length;
  if (n <= ADDRESS_DECIDES && isCanonicalMark(markOf(changetype<usize>(key))) && isCanonicalMark(markOf(changetype<usize>(coll)))) {
    const data = sorted.dataStart;
    const want = changetype<usize>(key);
    for (let i = 0; i < n; i++) if (load<usize>(data + (<usize>i << alignof<usize>())) == want) return i;
    return -1;
  }
  return findString(sorted, key);
}

/**
 * A collection marked canonical (every string key canonical, intern.ts)
 * about to hold `key`: it stays so when the key is a constant or not a
 * string, becomes marked with the current mark when the key is a data
 * string, and loses its mark otherwise (even when the key turns out to be
 * there already: only a lost chance, never a wrong answer).
 */
// @ts-ignore: decorator
@inline function keepCanonical(coll: Value, key: Value): void {
  const c = changetype<usize>(coll);
  const f = markOf(c);
  if (f == 0 || key.kind != T_STRING) return;
  const m = markOf(changetype<usize>(key));
  if (m == STATIC_MARK) return;
  setMark(c, m == __rt_canon_mark && (f == STATIC_MARK || f == m) ? m : 0);
}

/** Marks a new, empty collection canonical (it holds no string that is not). */
export function markEmptyCanonical(coll: Value): void {
  setMark(changetype<usize>(coll), STATIC_MARK);
}

/** Marks a collection canonical when every string among `keys` (its keys or elements) is. */
export function markIfCanonicalKeys(coll: Value, keys: Array<Value>): void {
  let mark = STATIC_MARK;
  for (let i = 0, n = keys.length; i < n; i++) {
    const k = unchecked(keys[i]);
    if (k.kind != T_STRING) continue;
    const m = markOf(changetype<usize>(k));
    if (m == STATIC_MARK) continue;
    if (m != __rt_canon_mark) return;
    mark = m;
  }
  setMark(changetype<usize>(coll), mark);
}

/**
 * Arrays of values built and grown by hand, as AssemblyScript's `__newArray`
 * builds them, for the collections every evaluation makes: without the
 * Array constructor's memory.fill of its spare slots, push's memory.fill
 * when it grows, or __newArray's memory.copy. V8 runs those as calls out of
 * Wasm, which cost more than the few stores a small array needs. Slots past
 * the length are left unwritten: nothing reads them (there is no collector
 * to scan them, and value arrays only ever shrink by `length =`).
 * arrayOfSlots builds any such array (memo frames use it too): its slots are
 * not written, the caller writes what it reads.
 */
export function arrayOfSlots<T>(capacity: i32, length: i32): usize {
  const buffer = __rt_new_uninit(<usize>capacity << alignof<T>(), idof<ArrayBuffer>());
  const array = __rt_new_uninit(offsetof<Array<T>>(), idof<Array<T>>()); // its four fields are written below
  store<usize>(array, buffer, offsetof<ArrayBufferView>("buffer"));
  store<usize>(array, buffer, offsetof<ArrayBufferView>("dataStart"));
  store<i32>(array, capacity << alignof<T>(), offsetof<ArrayBufferView>("byteLength"));
  store<i32>(array, length, offsetof<Array<T>>("length_"));
  return array;
}

/** An empty array with room for `capacity` values. */
export function valueArrayWithCapacity(capacity: i32): Array<Value> {
  return changetype<Array<Value>>(arrayOfSlots<Value>(capacity, 0));
}

/** The n values at from, from + stride, ... (addresses), in an array of exactly that capacity. */
export function valueArrayFrom(from: usize, n: i32, stride: usize): Array<Value> {
  const array = changetype<Array<Value>>(arrayOfSlots<Value>(n, n));
  const data = array.dataStart;
  for (let i = 0, p = from; i < n; i++, p += stride) store<usize>(data + (<usize>i << alignof<usize>()), load<usize>(p));
  return array;
}

/** arr.push(v), growing (doubling, at least 8 slots) by hand. */
export function appendValue(arr: Array<Value>, v: Value): void {
  const a = changetype<usize>(arr);
  const length = load<i32>(a, offsetof<Array<Value>>("length_"));
  let data = load<usize>(a, offsetof<ArrayBufferView>("dataStart"));
  const capacity = load<i32>(a, offsetof<ArrayBufferView>("byteLength")) >>> alignof<usize>();
  if (length >= capacity) {
    const grown = max(8, capacity << 1);
    const buffer = __rt_new_uninit(<usize>grown << alignof<usize>(), idof<ArrayBuffer>());
    for (let i = 0; i < length; i++) store<usize>(buffer + (<usize>i << alignof<usize>()), load<usize>(data + (<usize>i << alignof<usize>())));
    store<usize>(a, buffer, offsetof<ArrayBufferView>("buffer"));
    store<usize>(a, buffer, offsetof<ArrayBufferView>("dataStart"));
    store<i32>(a, grown << alignof<usize>(), offsetof<ArrayBufferView>("byteLength"));
    data = buffer;
  }
  store<usize>(data + (<usize>length << alignof<usize>()), changetype<usize>(v));
  store<i32>(a, length + 1, offsetof<Array<Value>>("length_"));
}

function insertAt(arr: Array<Value>, at: i32, v: Value): void {
  appendValue(arr, v);
  const last = arr.length - 1;
  if (last - at > 16) {
    // A long shift (a set or object of hundreds built key by key): one native move.
    const data = arr.dataStart + (<usize>at << alignof<usize>());
    memory.copy(data + sizeof<usize>(), data, <usize>(last - at) << alignof<usize>());
  } else for (let j = last; j > at; j--) unchecked((arr[j] = arr[j - 1]));
  unchecked((arr[at] = v));
}

// ------------------------------------------------------------ singletons

export const NULL: NullV = new NullV();
export const TRUE: BoolV = new BoolV(true);
export const FALSE: BoolV = new BoolV(false);

export function boolV(b: bool): BoolV {
  return b ? TRUE : FALSE;
}

/** Array indices below this are numbers built once, with the singletons (indexV). */
const SMALL_INDICES: i32 = 64;

function buildIndices(): StaticArray<NumV> {
  const t = new StaticArray<NumV>(SMALL_INDICES);
  for (let i = 0; i < SMALL_INDICES; i++) unchecked((t[i] = new NumV(<f64>i)));
  return t;
}

const INDICES: StaticArray<NumV> = buildIndices();

/**
 * Array index `i` (>= 0) as a number: a Scan binds one per element when
 * the body reads the index (`some i, role in roles`), and numbers are never
 * mutated, so the small ones are shared, like the singletons above, built
 * before any heap mark a host rewinds to.
 */
export function indexV(i: i32): NumV {
  return i < SMALL_INDICES ? unchecked(INDICES[i]) : new NumV(<f64>i);
}

export function num(f: f64): NumV {
  return new NumV(f);
}

export function str(s: string): StrV {
  return new StrV(s);
}

// ------------------------------------------------------------ casts

// @ts-ignore: decorator
@inline export function asNum(v: Value): NumV { return changetype<NumV>(v); }
// @ts-ignore: decorator
@inline export function asStr(v: Value): StrV { return changetype<StrV>(v); }
// @ts-ignore: decorator
@inline export function asArr(v: Value): ArrV { return changetype<ArrV>(v); }
// @ts-ignore: decorator
@inline export function asObj(v: Value): ObjV { return changetype<ObjV>(v); }
// @ts-ignore: decorator
@inline export function asSet(v: Value): SetV { return changetype<SetV>(v); }
// @ts-ignore: decorator
@inline export function asBool(v: Value): BoolV { return changetype<BoolV>(v); }

// ------------------------------------------------------------ order

/**
 * Maps a UTF-16 code unit so that comparing mapped units orders strings by
 * code point (= UTF-8 byte order), which plain UTF-16 order does not do for
 * characters above U+FFFF versus U+E000..U+FFFF.
 */
// @ts-ignore: decorator
@inline function codePointOrderUnit(c: i32): i32 {
  if (c >= 0xd800) {
    if (c <= 0xdfff) return c + 0x2000;
    return c - 0x800;
  }
  return c;
}

/**
 * Byte-wise UTF-8 order of two strings: -1, 0 or 1. One pass over the code
 * units (object keys are compared on every lookup, so no `a == b` pre-pass
 * and no bounds-checked charCodeAt).
 */
export function compareStrings(a: string, b: string): i32 {
  if (changetype<usize>(a) == changetype<usize>(b)) return 0;
  const la = a.length;
  const lb = b.length;
  const n = la < lb ? la : lb;
  const pa = changetype<usize>(a);
  const pb = changetype<usize>(b);
  // Skip the common prefix four units at a time (keys such as "invoices.get"
  // and "invoices.list" share long ones), then find the first difference.
  let i = 0;
  while (i + 4 <= n && load<u64>(pa + (<usize>i << 1)) == load<u64>(pb + (<usize>i << 1))) i += 4;
  for (; i < n; i++) {
    const off = <usize>i << 1;
    const ca = <i32>load<u16>(pa + off);
    const cb = <i32>load<u16>(pb + off);
    if (ca != cb) return codePointOrderUnit(ca) < codePointOrderUnit(cb) ? -1 : 1;
  }
  return la < lb ? -1 : la > lb ? 1 : 0;
}

/**
 * compareStrings, settled inline when it can be: the same string (input
 * keys the parser took from the policy's constants meet those constants),
 * or different first units (most keys a binary search passes on its way).
 */
// @ts-ignore: decorator
@inline function compareStringsQuick(a: string, b: string): i32 {
  if (changetype<usize>(a) == changetype<usize>(b)) return 0;
  if (a.length == 0 || b.length == 0) return compareStrings(a, b);
  const ca = <i32>load<u16>(changetype<usize>(a));
  const cb = <i32>load<u16>(changetype<usize>(b));
  if (ca != cb) return codePointOrderUnit(ca) < codePointOrderUnit(cb) ? -1 : 1;
  return compareStrings(a, b);
}

/** Rego's total order over values: -1, 0 or 1. */
export function compare(a: Value, b: Value): i32 {
  if (a === b) return 0;
  if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
  switch (a.kind) {
    case T_NULL:
      return 0;
    case T_BOOLEAN: {
      const x = asBool(a).value;
      const y = asBool(b).value;
      return x == y ? 0 : x ? 1 : -1;
    }
    case T_NUMBER: {
      const x = asNum(a).value;
      const y = asNum(b).value;
      if (x < y) return -1;
      if (x > y) return 1;
      // Equal as f64: literals beyond f64 precision kept their text; decide exactly.
      if (asNum(a).text !== null || asNum(b).text !== null) return compareExact(asNum(a), asNum(b));
      return 0;
    }
    case T_STRING:
      return compareStrings(asStr(a).value, asStr(b).value);
    case T_ARRAY:
      return compareLists(asArr(a).items, asArr(b).items);
    case T_OBJECT: {
      const x = asObj(a);
      const y = asObj(b);
      const n = min(x.keys.length, y.keys.length);
      for (let i = 0; i < n; i++) {
        let c = compare(unchecked(x.keys[i]), unchecked(y.keys[i]));
        if (c != 0) return c;
        c = compare(unchecked(x.vals[i]), unchecked(y.vals[i]));
        if (c != 0) return c;
      }
      return x.keys.length < y.keys.length ? -1 : x.keys.length > y.keys.length ? 1 : 0;
    }
    case T_SET:
      return compareLists(asSet(a).items, asSet(b).items);
  }
  return 0;
}

function compareLists(x: Array<Value>, y: Array<Value>): i32 {
  const n = min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const c = compare(unchecked(x[i]), unchecked(y[i]));
    if (c != 0) return c;
  }
  return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
}

export function equal(a: Value, b: Value): bool {
  return compare(a, b) == 0;
}

// ------------------------------------------------------------ building sorted collections

/**
 * Builds an object from keys and values in any order; a later duplicate key
 * wins (JSON parsing semantics). Already-sorted input costs one pass. Takes
 * ownership of both arrays: the object may keep them, reordered.
 */
export function objectFromPairs(keys: Array<Value>, vals: Array<Value>): ObjV {
  const n = keys.length;
  if (n <= SMALL_OBJECT) return new ObjV(sortPairsInPlace(keys, vals), vals);
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if (compare(unchecked(keys[i - 1]), unchecked(keys[i])) >= 0) {
      sorted = false;
      break;
    }
  }
  if (sorted) return new ObjV(keys, vals);
  const idx = sortedIndex(keys);
  const outK = new Array<Value>();
  const outV = new Array<Value>();
  for (let i = 0; i < n; i++) {
    const k = unchecked(keys[unchecked(idx[i])]);
    const v = unchecked(vals[unchecked(idx[i])]);
    const last = outK.length - 1;
    if (last >= 0 && compare(unchecked(outK[last]), k) == 0) unchecked((outV[last] = v)); // stable sort: later wins
    else {
      outK.push(k);
      outV.push(v);
    }
  }
  return new ObjV(outK, outV);
}

/**
 * An object from n (key, value) pairs stored one after the other at `pairs`
 * (addresses: key, value, key, value...), as the JSON parser leaves them on
 * its stack; a later duplicate key's value wins. The pairs are sorted in
 * place there (insertion: already-sorted keys, the common case, cost one
 * comparison each), so the two arrays
 * are built once, of exactly their final size. String keys are compared
 * without going through compare()'s dispatch on kinds.
 */
export function objectFromPairSlots(pairs: usize, n: i32): ObjV {
  const slot = sizeof<usize>();
  const pair = slot << 1;
  if (n > SMALL_OBJECT) return objectFromPairs(valueArrayFrom(pairs, n, pair), valueArrayFrom(pairs + slot, n, pair));
  let m = 0; // pairs in the sorted, duplicate-free prefix
  for (let i = 0; i < n; i++) {
    const at = pairs + <usize>i * pair;
    const k = load<usize>(at);
    const v = load<usize>(at, slot);
    let j = m - 1;
    let c = 1;
    while (j >= 0) {
      c = compareKeys(changetype<Value>(load<usize>(pairs + <usize>j * pair)), changetype<Value>(k));
      if (c <= 0) break;
      j--;
    }
    if (j >= 0 && c == 0) {
      store<usize>(pairs + <usize>j * pair, v, slot);
      continue;
    }
    // m <= i: the pairs moved up were all read already.
    for (let t = m; t > j + 1; t--) {
      const from = pairs + <usize>(t - 1) * pair;
      store<usize>(from + pair, load<usize>(from));
      store<usize>(from + pair, load<usize>(from, slot), slot);
    }
    const to = pairs + <usize>(j + 1) * pair;
    store<usize>(to, k);
    store<usize>(to, v, slot);
    m++;
  }
  return new ObjV(valueArrayFrom(pairs, m, pair), valueArrayFrom(pairs + slot, m, pair));
}

/** compare() for object keys, strings (nearly all keys) settled without its dispatch. */
// @ts-ignore: decorator
@inline function compareKeys(a: Value, b: Value): i32 {
  if (a.kind == T_STRING && b.kind == T_STRING) return compareStringsQuick(changetype<StrV>(a).value, changetype<StrV>(b).value);
  return compare(a, b);
}

/**
 * Objects up to this many keys (nearly every object in a decision input)
 * are sorted by insertion in place: no index arrays and no copies, and
 * already-sorted keys cost one comparison each.
 */
const SMALL_OBJECT: i32 = 32;

/**
 * Insertion sort of keys (and vals alongside, when given) into a sorted,
 * duplicate-free prefix, which the arrays are then cut to; a later
 * duplicate key's value wins. Returns keys. Without vals it sorts a set's
 * elements in place (sortItemsInPlace).
 */
function sortPairsInPlace(keys: Array<Value>, vals: Array<Value> | null): Array<Value> {
  const n = keys.length;
  let m = 0; // length of the sorted prefix
  for (let i = 0; i < n; i++) {
    const k = unchecked(keys[i]);
    const v = vals !== null ? unchecked(vals[i]) : k;
    let j = m - 1;
    let c = 1;
    while (j >= 0) {
      c = compare(unchecked(keys[j]), k);
      if (c <= 0) break;
      j--;
    }
    if (j >= 0 && c == 0) {
      if (vals !== null) unchecked((vals[j] = v));
      continue;
    }
    // m <= i, so the slots written here were already read.
    for (let t = m; t > j + 1; t--) {
      unchecked((keys[t] = keys[t - 1]));
      if (vals !== null) unchecked((vals[t] = vals[t - 1]));
    }
    unchecked((keys[j + 1] = k));
    if (vals !== null) unchecked((vals[j + 1] = v));
    m++;
  }
  if (m < n) {
    keys.length = m;
    if (vals !== null) vals.length = m;
  }
  return keys;
}

/** A few elements sorted and deduplicated in place (insertion sort): the array becomes a set's. */
export function sortItemsInPlace(items: Array<Value>): Array<Value> {
  return sortPairsInPlace(items, null);
}

/**
 * An object from keys and values in any order, where a key given twice must
 * come with equal values (a comprehension's keys: OPA's conflict error
 * otherwise: null). Sorting once costs n log n; inserting key by key into
 * the sorted arrays costs a shift per key, n^2 for n keys.
 */
export function objectFromPairsOnce(keys: Array<Value>, vals: Array<Value>): ObjV | null {
  const n = keys.length;
  const idx = sortedIndex(keys);
  const outK = valueArrayWithCapacity(n);
  const outV = valueArrayWithCapacity(n);
  for (let i = 0; i < n; i++) {
    const k = unchecked(keys[unchecked(idx[i])]);
    const v = unchecked(vals[unchecked(idx[i])]);
    const last = outK.length - 1;
    if (last >= 0 && compare(unchecked(outK[last]), k) == 0) {
      if (!equal(unchecked(outV[last]), v)) return null; // a conflict
      continue;
    }
    appendValue(outK, k);
    appendValue(outV, v);
  }
  return new ObjV(outK, outV);
}

/** Builds a set from elements in any order, dropping duplicates. */
export function setFromItems(items: Array<Value>): SetV {
  const n = items.length;
  const idx = sortedIndex(items);
  const out = new Array<Value>();
  for (let i = 0; i < n; i++) {
    const v = unchecked(items[unchecked(idx[i])]);
    if (out.length > 0 && compare(unchecked(out[out.length - 1]), v) == 0) continue;
    out.push(v);
  }
  return new SetV(out);
}

/** Sorts a copy of values in place (stable). */
export function sortValues(items: Array<Value>): Array<Value> {
  const idx = sortedIndex(items);
  const out = new Array<Value>(items.length);
  for (let i = 0; i < items.length; i++) unchecked((out[i] = items[unchecked(idx[i])]));
  return out;
}

/** Stable merge sort of positions 0..n-1 by the values at those positions. */
function sortedIndex(values: Array<Value>): Array<i32> {
  const n = values.length;
  let a = new Array<i32>(n);
  let b = new Array<i32>(n);
  for (let i = 0; i < n; i++) unchecked((a[i] = i));
  for (let width = 1; width < n; width <<= 1) {
    for (let lo = 0; lo < n; lo += width << 1) {
      const mid = min(lo + width, n);
      const hi = min(lo + (width << 1), n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (compare(unchecked(values[unchecked(a[j])]), unchecked(values[unchecked(a[i])])) < 0) unchecked((b[k++] = a[j++]));
        else unchecked((b[k++] = a[i++]));
      }
      while (i < mid) unchecked((b[k++] = a[i++]));
      while (j < hi) unchecked((b[k++] = a[j++]));
    }
    const t = a;
    a = b;
    b = t;
  }
  return a;
}

/**
 * Deep merge of two objects: keys of both; where both hold objects they are
 * merged recursively; any other shared key keeps b's value when `bWins`
 * (object.union) and a's otherwise (base data over virtual documents). Both
 * key lists are sorted, so one linear pass keeps the result sorted.
 */
export function mergeObjects(a: ObjV, b: ObjV, bWins: bool): ObjV {
  const keys = new Array<Value>();
  const vals = new Array<Value>();
  let i = 0;
  let j = 0;
  while (i < a.keys.length || j < b.keys.length) {
    const c = i >= a.keys.length ? 1 : j >= b.keys.length ? -1 : compare(unchecked(a.keys[i]), unchecked(b.keys[j]));
    if (c < 0) {
      keys.push(unchecked(a.keys[i]));
      vals.push(unchecked(a.vals[i++]));
    } else if (c > 0) {
      keys.push(unchecked(b.keys[j]));
      vals.push(unchecked(b.vals[j++]));
    } else {
      const x = unchecked(a.vals[i]);
      const y = unchecked(b.vals[j]);
      keys.push(bWins ? unchecked(b.keys[j]) : unchecked(a.keys[i])); // equal keys; keep the winner's spelling (1 vs 1.0)
      i++;
      j++;
      vals.push(x.kind == T_OBJECT && y.kind == T_OBJECT ? mergeObjects(asObj(x), asObj(y), bWins) : bWins ? y : x);
    }
  }
  return new ObjV(keys, vals);
}
