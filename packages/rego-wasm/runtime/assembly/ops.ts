/**
 * The value helpers emitted policy code calls (runtime-contract.ts:
 * constructors and access). Every argument and result is a value address,
 * 0 meaning undefined, unless the contract says "raw".
 *
 * Only rt_* functions may be exported from this module: index.ts re-exports
 * all of it, and every export becomes a Wasm export.
 */

import {
  Value, NumV, StrV, ArrV, ObjV, SetV, NULL, boolV, compare, equal, mergeObjects,
  T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET, asNum, asStr, asArr, asObj, asSet,
  appendValue, valueArrayWithCapacity, setFromItems, sortItemsInPlace, objectFromPairsOnce, lookupString, markEmptyCanonical,
  indexV,
} from "./value";
import { scanNumber, numberFromBytes } from "./number";
import { stringFromUtf8 } from "./json";
import { hostAbort } from "./host";
import { internConstant, sealInterned } from "./intern";

// @ts-ignore: decorator
@inline function val(addr: usize): Value {
  return changetype<Value>(addr);
}

// @ts-ignore: decorator
@inline function addr(v: Value | null): usize {
  return changetype<usize>(v);
}

// ------------------------------------------------------------ constructors

export function rt_null(): usize {
  return addr(NULL);
}

export function rt_bool(b: i32): usize {
  return addr(boolV(b != 0));
}

export function rt_number_int(i: i32): usize {
  return addr(new NumV(<f64>i));
}

/** A number from literal text; the compiler only emits valid literals, so bad text is fatal. */
export function rt_number_ref(ptr: usize, len: usize): usize {
  if (len == 0 || scanNumber(ptr, ptr + len) != ptr + len) hostAbort("rt_number_ref: invalid number literal");
  return addr(numberFromBytes(ptr, len));
}

export function rt_string(ptr: usize, len: usize): usize {
  return addr(new StrV(stringFromUtf8(ptr, len)));
}

/** A string constant, built once by the start function: also entered in the intern table (intern.ts). */
export function rt_string_const(ptr: usize, len: usize): usize {
  const v = new StrV(stringFromUtf8(ptr, len));
  internConstant(v);
  return addr(v);
}

/** The start function has built every constant: the intern table is complete. */
export function rt_intern_seal(): void {
  sealInterned();
}

export function rt_array_new(capacity: i32): usize {
  return addr(new ArrV(valueArrayWithCapacity(capacity > 0 ? capacity : 8)));
}

export function rt_array_append(arr: usize, v: usize): void {
  appendValue(asArr(val(arr)).items, val(v));
}

export function rt_object_new(): usize {
  const o = new ObjV(valueArrayWithCapacity(8), valueArrayWithCapacity(8));
  markEmptyCanonical(o); // lookups in it by address while its keys stay canonical (value.ts lookupString)
  return addr(o);
}

export function rt_object_insert(obj: usize, key: usize, v: usize): void {
  asObj(val(obj)).set(val(key), val(v));
}

export function rt_object_insert_once(obj: usize, key: usize, v: usize): void {
  const o = asObj(val(obj));
  const i = o.find(val(key));
  if (i >= 0) {
    if (!equal(unchecked(o.vals[i]), val(v))) hostAbort("eval_conflict_error: object keys must be unique");
    return;
  }
  o.set(val(key), val(v));
}

/**
 * Deep merge as OPA does for a base document (a) and a virtual document (b)
 * at the same path (topdown's merge, the C runtime's opa_value_merge): keys
 * of both, objects under a shared key merged recursively, any other shared
 * key keeps a's value, and a non-object on either side leaves a as it is.
 * Undefined (0) on either side is undefined.
 */
export function rt_object_merge(a: usize, b: usize): usize {
  if (a == 0 || b == 0) return 0;
  if (val(a).kind != T_OBJECT || val(b).kind != T_OBJECT) return a;
  return addr(mergeObjects(asObj(val(a)), asObj(val(b)), false));
}

export function rt_set_new(): usize {
  const set = new SetV(valueArrayWithCapacity(8));
  markEmptyCanonical(set);
  return addr(set);
}

/** The set of an array's elements: a set comprehension's result, collected as an array first (sorted once, not per element). */
export function rt_set_from_array(arr: usize): usize {
  const items = asArr(val(arr)).items;
  if (items.length > 16) return addr(setFromItems(items));
  // A few elements: sorted in place, and the array becomes the set's (the comprehension's array is read by nothing else).
  return addr(new SetV(sortItemsInPlace(items)));
}

/**
 * The object of keys[i] -> vals[i] (two arrays of one length): an object
 * comprehension's result, collected first and sorted once. A key given
 * twice with different values aborts, as ObjectInsertOnce does.
 */
export function rt_object_from_arrays_once(keys: usize, vals: usize): usize {
  const o = objectFromPairsOnce(asArr(val(keys)).items, asArr(val(vals)).items);
  if (o === null) hostAbort("eval_conflict_error: object keys must be unique");
  return addr(o);
}

export function rt_set_add(set: usize, v: usize): void {
  asSet(val(set)).add(val(v));
}

// ------------------------------------------------------------ access

/** source[key]: array index (integral number in range), object key, set member (the stored one). */
export function rt_dot(source: usize, key: usize): usize {
  if (source == 0 || key == 0) return 0;
  const s = val(source);
  const k = val(key);
  switch (s.kind) {
    case T_ARRAY: {
      if (k.kind != T_NUMBER) return 0;
      const f = asNum(k).value;
      const items = asArr(s).items;
      if (!(f >= 0) || f != Math.floor(f) || f >= <f64>items.length) return 0;
      return addr(unchecked(items[<i32>f]));
    }
    case T_OBJECT: {
      // ObjV#get, one call shallower for the common string key (rt_dot is the plan's most frequent operation).
      const o = asObj(s);
      const i = k.kind == T_STRING ? lookupString(o, o.keys, k) : o.find(k);
      return i >= 0 ? addr(unchecked(o.vals[i])) : 0;
    }
    case T_SET: {
      const set = asSet(s);
      const i = k.kind == T_STRING ? lookupString(set, set.items, k) : set.find(k);
      return i >= 0 ? addr(unchecked(set.items[i])) : 0;
    }
  }
  return 0;
}

export function rt_len(v: usize): usize {
  const n = length(v);
  return n < 0 ? 0 : addr(new NumV(<f64>n));
}

export function rt_scan_len(v: usize): i32 {
  if (v == 0) return -1;
  const s = val(v);
  switch (s.kind) {
    case T_ARRAY: return asArr(s).items.length;
    case T_OBJECT: return asObj(s).keys.length;
    case T_SET: return asSet(s).items.length;
  }
  return -1;
}

// rt_scan_key and rt_scan_value run once per element of every Scan: the
// bounds check is inlined per kind rather than a call to rt_scan_len.

export function rt_scan_key(v: usize, i: i32): usize {
  if (v == 0) return 0;
  const s = val(v);
  switch (s.kind) {
    case T_ARRAY: return <u32>i < <u32>asArr(s).items.length ? addr(indexV(i)) : 0;
    case T_OBJECT: return itemAt(asObj(s).keys, i);
    case T_SET: return itemAt(asSet(s).items, i);
  }
  return 0;
}

export function rt_scan_value(v: usize, i: i32): usize {
  if (v == 0) return 0;
  const s = val(v);
  switch (s.kind) {
    case T_ARRAY: return itemAt(asArr(s).items, i);
    case T_OBJECT: return itemAt(asObj(s).vals, i);
    case T_SET: return itemAt(asSet(s).items, i);
  }
  return 0;
}

/** items[i], or 0 when i is out of range. */
// @ts-ignore: decorator
@inline function itemAt(items: Array<Value>, i: i32): usize {
  return <u32>i < <u32>items.length ? addr(unchecked(items[i])) : 0;
}

export function rt_equal(a: usize, b: usize): i32 {
  if (a == 0 || b == 0) return 0;
  return equal(val(a), val(b)) ? 1 : 0;
}

export function rt_compare(a: usize, b: usize): i32 {
  // Undefined sorts before every value; the emitter should not pass it.
  if (a == 0 || b == 0) return a == b ? 0 : a == 0 ? -1 : 1;
  return compare(val(a), val(b));
}

/**
 * The case a rule index's table selects for a value (plan/rule-index.ts):
 * the table is an object from scalar constants to case numbers 1..n, built
 * once by the start function. The lookup is the object's own, in Rego's
 * order, so a key matches exactly the values Equal holds for (1 == 1.0, a
 * string never equals a number). Raw 0 when v is undefined or equals no key.
 */
export function rt_switch(table: usize, v: usize): i32 {
  if (v == 0) return 0;
  const found = asObj(val(table)).get(val(v));
  return found === null ? 0 : <i32>asNum(found).value;
}

export function rt_type(v: usize): i32 {
  return v == 0 ? 0 : val(v).kind;
}

/** Element count of a collection, code points of a string, -1 otherwise. */
function length(v: usize): i32 {
  if (v == 0) return -1;
  const s = val(v);
  switch (s.kind) {
    case T_ARRAY: return asArr(s).items.length;
    case T_OBJECT: return asObj(s).keys.length;
    case T_SET: return asSet(s).items.length;
    case T_STRING: return codePoints(asStr(s).value);
  }
  return -1;
}

/** Number of code points: a surrogate pair counts once. */
function codePoints(s: string): i32 {
  const n = s.length;
  let count = n;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c < 0xe000) {
      const p = s.charCodeAt(i - 1);
      if (p >= 0xd800 && p < 0xdc00) count--;
    }
  }
  return count;
}
