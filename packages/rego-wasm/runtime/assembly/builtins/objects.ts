/**
 * Object builtins (OPA topdown/object.go, subset.go): object.get, keys,
 * remove, filter, union, union_n, subset.
 */
import { Value, ObjV, SetV, ArrV, boolV, compare, equal, mergeObjects, asArr, asObj, asSet, asNum, T_ARRAY, T_OBJECT, T_SET, T_NUMBER } from "../value";
import { isIntegral } from "./numbers";

/**
 * The value at path[from..] below v, or null when a step does not exist:
 * object steps by key, array steps by integer index, set steps by member.
 */
function findPath(v: Value, path: Array<Value>, from: i32): Value | null {
  let cur = v;
  for (let i = from; i < path.length; i++) {
    const k = unchecked(path[i]);
    if (cur.kind == T_OBJECT) {
      const next = asObj(cur).get(k);
      if (next === null) return null;
      cur = next;
    } else if (cur.kind == T_ARRAY) {
      if (k.kind != T_NUMBER) return null;
      const f = asNum(k).value;
      const items = asArr(cur).items;
      if (!isIntegral(f) || f < 0 || f >= <f64>items.length) return null;
      cur = unchecked(items[<i32>f]);
    } else if (cur.kind == T_SET) {
      if (!asSet(cur).has(k)) return null;
      cur = k;
    } else return null;
  }
  return cur;
}

export function bi_object_get(o: Value | null, key: Value | null, dflt: Value | null): Value | null {
  if (o === null || key === null || o.kind != T_OBJECT) return null;
  if (key.kind != T_ARRAY) {
    const got = asObj(o).get(key);
    return got !== null ? got : dflt;
  }
  // An array key is a path; the empty path selects the object itself.
  const got = findPath(o, asArr(key).items, 0);
  return got !== null ? got : dflt;
}

export function bi_object_keys(o: Value | null): Value | null {
  if (o === null || o.kind != T_OBJECT) return null;
  return new SetV(asObj(o).keys.slice(0)); // keys are sorted and unique already
}

/** The keys named by an array, set or object (its keys), as a set; null for other types. */
function keySet(v: Value): SetV | null {
  if (v.kind == T_SET) return asSet(v);
  if (v.kind == T_OBJECT) return new SetV(asObj(v).keys);
  if (v.kind == T_ARRAY) {
    const s = new SetV();
    const items = asArr(v).items;
    for (let i = 0; i < items.length; i++) s.add(unchecked(items[i]));
    return s;
  }
  return null;
}

/** The entries of o whose key is (keep = true) or is not (keep = false) in keys. */
function selectKeys(o: ObjV, keys: SetV, keep: bool): ObjV {
  const outK = new Array<Value>();
  const outV = new Array<Value>();
  for (let i = 0; i < o.keys.length; i++) {
    const k = unchecked(o.keys[i]);
    if (keys.has(k) == keep) {
      outK.push(k);
      outV.push(unchecked(o.vals[i]));
    }
  }
  return new ObjV(outK, outV);
}

export function bi_object_remove(o: Value | null, keys: Value | null): Value | null {
  if (o === null || keys === null || o.kind != T_OBJECT) return null;
  const ks = keySet(keys);
  if (ks === null) return null;
  return selectKeys(asObj(o), ks, false);
}

export function bi_object_filter(o: Value | null, keys: Value | null): Value | null {
  if (o === null || keys === null || o.kind != T_OBJECT) return null;
  const ks = keySet(keys);
  if (ks === null) return null;
  return selectKeys(asObj(o), ks, true);
}

export function bi_object_union(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null || a.kind != T_OBJECT || b.kind != T_OBJECT) return null;
  return mergeObjects(asObj(a), asObj(b), true); // OPA mergeWithOverwrite: b wins
}

/**
 * object.union_n([o1, ..., on]): the left fold of object.union, which is what
 * OPA's back-to-front merge with "frozen" keys computes.
 */
export function bi_object_union_n(a: Value | null): Value | null {
  if (a === null || a.kind != T_ARRAY) return null;
  const items = asArr(a).items;
  let acc = new ObjV();
  for (let i = 0; i < items.length; i++) {
    const o = unchecked(items[i]);
    if (o.kind != T_OBJECT) return null;
    acc = mergeObjects(acc, asObj(o), true);
  }
  return acc;
}

// ------------------------------------------------------------ object.subset

function objectSubset(sup: ObjV, sub: ObjV): bool {
  for (let i = 0; i < sub.keys.length; i++) {
    const sv = unchecked(sub.vals[i]);
    const pv = sup.get(unchecked(sub.keys[i]));
    if (pv === null) return false;
    if (equal(sv, pv)) continue;
    // Nested objects, sets and arrays are compared as subsets; anything else must be equal.
    if (!nestedSubset(pv, sv)) return false;
  }
  return true;
}

/** Subset for same-kind composite pairs; false otherwise (the caller already tested equality). */
function nestedSubset(sup: Value, sub: Value): bool {
  if (sup.kind != sub.kind) return false;
  if (sup.kind == T_OBJECT) return objectSubset(asObj(sup), asObj(sub));
  if (sup.kind == T_SET) return setSubset(asSet(sup), asSet(sub));
  if (sup.kind == T_ARRAY) return arraySubset(asArr(sup).items, asArr(sub).items);
  return false;
}

function setSubset(sup: SetV, sub: SetV): bool {
  for (let i = 0; i < sub.items.length; i++) if (!sup.has(unchecked(sub.items[i]))) return false;
  return true;
}

/** sub occurs as a contiguous run in sup (naive search, as OPA does). */
function arraySubset(sup: Array<Value>, sub: Array<Value>): bool {
  if (sub.length > sup.length) return false;
  for (let start = 0; start + sub.length <= sup.length; start++) {
    let k = 0;
    while (k < sub.length && equal(unchecked(sup[start + k]), unchecked(sub[k]))) k++;
    if (k == sub.length) return true;
  }
  return false;
}

/**
 * Array super, set sub: OPA counts super's elements that are in sub and
 * succeeds once that count reaches |sub| (duplicates in super count again),
 * checking after each element, so an empty super never succeeds.
 */
function arraySetSubset(sup: Array<Value>, sub: SetV): bool {
  let unmatched = sub.items.length;
  for (let i = 0; i < sup.length; i++) {
    if (sub.has(unchecked(sup[i]))) unmatched--;
    if (unmatched == 0) return true;
  }
  return false;
}

export function bi_object_subset(sup: Value | null, sub: Value | null): Value | null {
  if (sup === null || sub === null) return null;
  if (sup.kind == T_OBJECT && sub.kind == T_OBJECT) return boolV(objectSubset(asObj(sup), asObj(sub)));
  if (sup.kind == T_SET && sub.kind == T_SET) return boolV(setSubset(asSet(sup), asSet(sub)));
  if (sup.kind == T_ARRAY && sub.kind == T_ARRAY) return boolV(arraySubset(asArr(sup).items, asArr(sub).items));
  if (sup.kind == T_ARRAY && sub.kind == T_SET) return boolV(arraySetSubset(asArr(sup).items, asSet(sub)));
  return null;
}
