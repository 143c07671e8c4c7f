/**
 * Path-based JSON builtins (OPA topdown/json.go): json.filter, json.remove
 * and json.patch (RFC 6902 as OPA implements it with its edit tree).
 *
 * Paths are "a/b/c" strings (leading slashes ignored, ~1 = "/", ~0 = "~")
 * or arrays of path segments of any type. json.patch also walks into sets
 * (a segment names a member) and accepts array indices as numbers or
 * strings ("-" appends; leading zeros are rejected). Values are immutable,
 * so each patch operation rebuilds the containers along its path; any
 * failing operation makes the whole call undefined, as in OPA.
 */
import { Value, ObjV, ArrV, SetV, NULL, str, equal, asArr, asObj, asSet, asStr, asNum, T_NULL, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET } from "../value";
import { isIntegral } from "./numbers";

// ------------------------------------------------------------ paths

/** Segments of one path: a "/"-separated string or an array; null for other types. */
function parsePath(p: Value): Array<Value> | null {
  if (p.kind == T_ARRAY) return asArr(p).items;
  if (p.kind != T_STRING) return null;
  const s = asStr(p).value;
  const out = new Array<Value>();
  if (s.length == 0) return out;
  let from = 0;
  while (from < s.length && s.charCodeAt(from) == 47) from++;
  const parts = s.substring(from).split("/");
  for (let i = 0; i < parts.length; i++) out.push(str(unchecked(parts[i]).replaceAll("~1", "/").replaceAll("~0", "~")));
  return out;
}

/** The paths of json.filter/json.remove: an array or set of paths. */
function parsePaths(v: Value): Array<Array<Value>> | null {
  let items: Array<Value>;
  if (v.kind == T_ARRAY) items = asArr(v).items;
  else if (v.kind == T_SET) items = asSet(v).items;
  else return null;
  const out = new Array<Array<Value>>();
  for (let i = 0; i < items.length; i++) {
    const p = parsePath(unchecked(items[i]));
    if (p === null) return null;
    out.push(p);
  }
  return out;
}

/**
 * Merges paths into a tree of objects whose leaves are null ("a/b", "a/c"
 * -> {"a": {"b": null, "c": null}}); a shorter path swallows longer ones.
 */
function pathsToTree(paths: Array<Array<Value>>): ObjV {
  const root = new ObjV();
  for (let p = 0; p < paths.length; p++) {
    const path = unchecked(paths[p]);
    if (path.length == 0) continue;
    let node = root;
    let done = false;
    for (let i = 0; i < path.length - 1; i++) {
      const k = unchecked(path[i]);
      const child = node.get(k);
      if (child === null) {
        const obj = new ObjV();
        node.set(k, obj);
        node = obj;
      } else if (child.kind == T_NULL) {
        done = true;
        break;
      } else node = asObj(child);
    }
    if (!done) node.set(unchecked(path[path.length - 1]), NULL);
  }
  return root;
}

// ------------------------------------------------------------ json.filter / json.remove

export function bi_json_filter(o: Value | null, paths: Value | null): Value | null {
  if (o === null || paths === null || o.kind != T_OBJECT) return null;
  const ps = parsePaths(paths);
  if (ps === null) return null;
  return filterValue(o, pathsToTree(ps));
}

export function bi_json_remove(o: Value | null, paths: Value | null): Value | null {
  if (o === null || paths === null || o.kind != T_OBJECT) return null;
  const ps = parsePaths(paths);
  if (ps === null) return null;
  return removeTree(o, pathsToTree(ps));
}

/** a without the parts that tree marks with null leaves; null when a itself goes. */
function removeTree(a: Value, tree: Value | null): Value | null {
  if (tree === null) return a;
  if (tree.kind == T_NULL) return null;
  if (tree.kind != T_OBJECT) return a;
  const t = asObj(tree);
  switch (a.kind) {
    case T_OBJECT: {
      const o = asObj(a);
      const outK = new Array<Value>();
      const outV = new Array<Value>();
      for (let i = 0; i < o.keys.length; i++) {
        const r = removeTree(unchecked(o.vals[i]), t.get(unchecked(o.keys[i])));
        if (r === null) continue;
        outK.push(unchecked(o.keys[i]));
        outV.push(r);
      }
      return new ObjV(outK, outV);
    }
    case T_SET: {
      const items = asSet(a).items;
      const out = new SetV();
      for (let i = 0; i < items.length; i++) {
        const r = removeTree(unchecked(items[i]), t.get(unchecked(items[i])));
        if (r !== null) out.add(r);
      }
      return out;
    }
    case T_ARRAY: {
      // Array elements are addressed by their index as a string; removed ones close up.
      const items = asArr(a).items;
      const out = new Array<Value>();
      for (let i = 0; i < items.length; i++) {
        const r = removeTree(unchecked(items[i]), t.get(str(i.toString())));
        if (r !== null) out.push(r);
      }
      return new ArrV(out);
    }
  }
  return a;
}

/**
 * OPA's filterObject: keeps the parts of o selected by a filter tree whose
 * leaves are null. Object and set entries are selected by key/member, array
 * elements by their index as a string ("0", "1", ...). Null if the filter is
 * neither null nor an object.
 */
function filterValue(o: Value, filter: Value): Value | null {
  if (filter.kind == T_NULL) return o;
  if (filter.kind != T_OBJECT) return null;
  const f = asObj(filter);
  switch (o.kind) {
    case T_ARRAY: {
      const items = asArr(o).items;
      const out = new Array<Value>();
      for (let i = 0; i < items.length; i++) {
        const sub = f.get(str(i.toString()));
        if (sub === null) continue;
        const r = filterValue(unchecked(items[i]), sub);
        if (r === null) return null;
        out.push(r);
      }
      return new ArrV(out);
    }
    case T_SET: {
      const items = asSet(o).items;
      const out = new SetV();
      for (let i = 0; i < items.length; i++) {
        const sub = f.get(unchecked(items[i]));
        if (sub === null) continue;
        const r = filterValue(unchecked(items[i]), sub);
        if (r === null) return null;
        out.add(r);
      }
      return out;
    }
    case T_OBJECT: {
      const obj = asObj(o);
      const outK = new Array<Value>();
      const outV = new Array<Value>();
      for (let i = 0; i < obj.keys.length; i++) {
        const sub = f.get(unchecked(obj.keys[i]));
        if (sub === null) continue;
        const r = filterValue(unchecked(obj.vals[i]), sub);
        if (r === null) return null;
        outK.push(unchecked(obj.keys[i]));
        outV.push(r);
      }
      return new ObjV(outK, outV);
    }
  }
  return o; // scalars pass through
}

// ------------------------------------------------------------ json.patch

/** Sentinel for "no index" from toIndex (indices are never this negative). */
const BAD_INDEX: f64 = -1e300;

/**
 * Array index named by a path segment (OPA edittree toIndex): an integer
 * number, or a decimal integer string without leading zeros, or "-" for
 * the end of the array. BAD_INDEX when the segment is none of these.
 */
function toIndex(len: i32, k: Value): f64 {
  if (k.kind == T_NUMBER) {
    const f = asNum(k).value;
    return isIntegral(f) ? f : BAD_INDEX;
  }
  if (k.kind != T_STRING) return BAD_INDEX;
  const s = asStr(k).value;
  if (s == "-") return <f64>len;
  // strconv.ParseInt syntax: optional sign, then decimal digits.
  let i = 0;
  if (s.length > 0 && (s.charCodeAt(0) == 43 || s.charCodeAt(0) == 45)) i = 1;
  if (i >= s.length || s.length > 19 + i) return BAD_INDEX;
  let v: f64 = 0;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c < 48 || c > 57) return BAD_INDEX;
    v = v * 10 + <f64>(c - 48);
  }
  if (s != "0" && s.charCodeAt(0) == 48) return BAD_INDEX; // "leading zeros are not allowed"
  return s.charCodeAt(0) == 45 ? -v : v;
}

/** The child of c named by k, or null when there is none. */
function child(c: Value, k: Value): Value | null {
  switch (c.kind) {
    case T_OBJECT:
      return asObj(c).get(k);
    case T_SET:
      return asSet(c).has(k) ? k : null;
    case T_ARRAY: {
      const items = asArr(c).items;
      const idx = toIndex(items.length, k);
      if (idx < 0 || idx >= <f64>items.length) return null;
      return unchecked(items[<i32>idx]);
    }
  }
  return null;
}

/** c with its existing child k replaced by v (a set member is its own key, so v replaces k). */
function withChild(c: Value, k: Value, v: Value): Value {
  const without = deleteChild(c, k)!;
  if (c.kind != T_SET) return insertChild(without, k, v)!;
  asSet(without).add(v);
  return without;
}

/** JSON Patch "add" into container c under key k; null on error. */
function insertChild(c: Value, k: Value, v: Value): Value | null {
  switch (c.kind) {
    case T_OBJECT: {
      const o = asObj(c);
      const out = new ObjV(o.keys.slice(0), o.vals.slice(0));
      out.set(k, v);
      return out;
    }
    case T_SET: {
      if (!equal(k, v)) return null; // "set key does not equal value to be inserted"
      const out = new SetV(asSet(c).items.slice(0));
      out.add(v);
      return out;
    }
    case T_ARRAY: {
      const items = asArr(c).items;
      const idx = toIndex(items.length, k);
      if (idx < 0 || idx > <f64>items.length) return null;
      const at = <i32>idx;
      const out = new Array<Value>(items.length + 1);
      for (let j = 0; j < at; j++) unchecked((out[j] = items[j]));
      unchecked((out[at] = v));
      for (let j = at; j < items.length; j++) unchecked((out[j + 1] = items[j]));
      return new ArrV(out);
    }
  }
  return null;
}

/** JSON Patch "remove" of key k from container c; null on error (absent key, scalar). */
function deleteChild(c: Value, k: Value): Value | null {
  switch (c.kind) {
    case T_OBJECT: {
      const o = asObj(c);
      const i = o.find(k);
      if (i < 0) return null;
      const keys = o.keys.slice(0);
      const vals = o.vals.slice(0);
      keys.splice(i, 1);
      vals.splice(i, 1);
      return new ObjV(keys, vals);
    }
    case T_SET: {
      const s = asSet(c);
      const i = s.find(k);
      if (i < 0) return null;
      const items = s.items.slice(0);
      items.splice(i, 1);
      return new SetV(items);
    }
    case T_ARRAY: {
      const items = asArr(c).items;
      const idx = toIndex(items.length, k);
      if (idx < 0 || idx >= <f64>items.length) return null;
      const out = items.slice(0);
      out.splice(<i32>idx, 1);
      return new ArrV(out);
    }
  }
  return null;
}

/** The value at path below root, or null when the path does not exist. */
function getAt(root: Value | null, path: Array<Value>): Value | null {
  let cur = root;
  for (let i = 0; i < path.length && cur !== null; i++) cur = child(cur, unchecked(path[i]));
  return cur;
}

/**
 * root with an insert (value !== null) or delete (value === null) applied
 * at the last segment of path[i..], rebuilding the containers above it.
 * Null on error. path is non-empty.
 */
function editAt(cur: Value, path: Array<Value>, i: i32, value: Value | null): Value | null {
  const k = unchecked(path[i]);
  if (i == path.length - 1) return value !== null ? insertChild(cur, k, value) : deleteChild(cur, k);
  const c = child(cur, k);
  if (c === null) return null;
  const edited = editAt(c, path, i + 1, value);
  if (edited === null) return null;
  return withChild(cur, k, edited);
}

/** Set when a patch operation fails (AssemblyScript has no tuples to return it with the document). */
let failed = false;

function fail(): Value | null {
  failed = true;
  return null;
}

/** The document after a JSON Patch "add" of v at path (the empty path replaces the document). */
function add(root: Value | null, path: Array<Value>, v: Value): Value | null {
  if (path.length == 0) return v;
  if (root === null) return fail();
  const r = editAt(root, path, 0, v);
  return r !== null ? r : fail();
}

/** The document after a JSON Patch "remove" at path; null when the document itself is removed. */
function remove(root: Value | null, path: Array<Value>): Value | null {
  if (root === null) return fail();
  if (path.length == 0) return null; // the document itself is gone
  const r = editAt(root, path, 0, null);
  return r !== null ? r : fail();
}

const OPS = ["add", "remove", "replace", "move", "copy", "test"];

export function bi_json_patch(doc: Value | null, ops: Value | null): Value | null {
  if (doc === null || ops === null || ops.kind != T_ARRAY) return null;
  const list = asArr(ops).items;
  let root: Value | null = doc;
  failed = false;
  for (let i = 0; i < list.length && !failed; i++) {
    const opv = unchecked(list[i]);
    if (opv.kind != T_OBJECT) return null;
    const o = asObj(opv);
    const opName = o.getStr("op");
    if (opName === null || opName.kind != T_STRING) return null;
    const op = asStr(opName).value;
    if (!OPS.includes(op)) return null;
    const pathV = o.getStr("path");
    if (pathV === null) return null;
    let from: Value | null = null;
    if (op == "move" || op == "copy") {
      from = o.getStr("from");
      if (from === null) return null;
    }
    let value: Value | null = null;
    if (op == "add" || op == "replace" || op == "test") {
      value = o.getStr("value");
      if (value === null) return null;
    }
    const path = parsePath(pathV);
    if (path === null) return null;
    if (op == "add") root = add(root, path, value!);
    else if (op == "remove") root = remove(root, path);
    else if (op == "replace") {
      root = remove(root, path);
      if (!failed) root = add(root, path, value!);
    } else if (op == "test") {
      const got = getAt(root, path);
      if (got === null || !equal(got, value!)) return null;
    } else {
      const fromPath = parsePath(from!);
      if (fromPath === null) return null;
      const chunk = getAt(root, fromPath);
      if (chunk === null) return null;
      if (op == "move") root = remove(root, fromPath);
      if (!failed) root = add(root, path, chunk);
    }
  }
  if (failed) return null;
  return root;
}
