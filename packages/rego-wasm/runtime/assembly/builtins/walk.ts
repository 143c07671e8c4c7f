/**
 * walk (OPA topdown/walk.go): the relation of every [path, value] pair of a
 * value, the root first with path [], then depth first: array elements by
 * index (path segment: the index number), object members by key (segment:
 * the key), set elements in order (segment: the element itself).
 *
 * A relation yields many results; natively it returns them all as one array
 * of pairs, and the planner scans that array, unifying each pair with the
 * call's output pattern (`walk(x, [p, v])`), as OPA's own Wasm planner does.
 */
import { Value, ArrV, NumV, asArr, asObj, asSet, T_ARRAY, T_OBJECT, T_SET } from "../value";

export function bi_walk(x: Value | null): Value | null {
  if (x === null) return null;
  const out = new Array<Value>();
  walkInto(x, new Array<Value>(), out);
  return new ArrV(out);
}

/** Appends the pair for `x` at `path`, then those of its descendants; `path` is restored on return. */
function walkInto(x: Value, path: Array<Value>, out: Array<Value>): void {
  const pair = new Array<Value>(2);
  // Each pair owns a copy of the path: the caller keeps mutating `path`.
  unchecked((pair[0] = new ArrV(path.slice(0))));
  unchecked((pair[1] = x));
  out.push(new ArrV(pair));
  if (x.kind == T_ARRAY) {
    const items = asArr(x).items;
    for (let i = 0; i < items.length; i++) {
      path.push(new NumV(<f64>i));
      walkInto(unchecked(items[i]), path, out);
      path.pop();
    }
  } else if (x.kind == T_OBJECT) {
    const o = asObj(x);
    for (let i = 0; i < o.keys.length; i++) {
      path.push(unchecked(o.keys[i]));
      walkInto(unchecked(o.vals[i]), path, out);
      path.pop();
    }
  } else if (x.kind == T_SET) {
    const items = asSet(x).items;
    for (let i = 0; i < items.length; i++) {
      const e = unchecked(items[i]);
      path.push(e);
      walkInto(e, path, out);
      path.pop();
    }
  }
}
