/**
 * Set builtins (OPA topdown/binary.go, sets.go): `&` (and), `|` (or), and
 * intersection/union of a set of sets. Sets are sorted and duplicate-free
 * (value.ts), so both operations are linear merges that keep that order.
 */
import { Value, SetV, compare, asSet, T_SET } from "../value";

/**
 * One sorted merge of two sets: the elements both hold, plus, for a union,
 * those only one holds. Both inputs are sorted, so the output is too.
 */
function merge(a: SetV, b: SetV, union: bool): SetV {
  const x = a.items;
  const y = b.items;
  const out = new Array<Value>();
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const c = compare(unchecked(x[i]), unchecked(y[j]));
    if (c == 0) {
      out.push(unchecked(x[i]));
      i++;
      j++;
    } else if (c < 0) {
      if (union) out.push(unchecked(x[i]));
      i++;
    } else {
      if (union) out.push(unchecked(y[j]));
      j++;
    }
  }
  if (union) {
    while (i < x.length) out.push(unchecked(x[i++]));
    while (j < y.length) out.push(unchecked(y[j++]));
  }
  return new SetV(out);
}

function intersect(a: SetV, b: SetV): SetV {
  return merge(a, b, false);
}

function unite(a: SetV, b: SetV): SetV {
  return merge(a, b, true);
}

export function bi_and(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null || a.kind != T_SET || b.kind != T_SET) return null;
  return intersect(asSet(a), asSet(b));
}

export function bi_or(a: Value | null, b: Value | null): Value | null {
  if (a === null || b === null || a.kind != T_SET || b.kind != T_SET) return null;
  return unite(asSet(a), asSet(b));
}

/** intersection(xs): the common elements of a set of sets; {} for an empty xs. */
export function bi_intersection(a: Value | null): Value | null {
  if (a === null || a.kind != T_SET) return null;
  const sets = asSet(a).items;
  if (sets.length == 0) return new SetV();
  let acc: SetV | null = null;
  for (let i = 0; i < sets.length; i++) {
    const s = unchecked(sets[i]);
    if (s.kind != T_SET) return null;
    acc = acc === null ? asSet(s) : intersect(acc, asSet(s));
  }
  return acc;
}

/** union(xs): all elements of a set of sets. */
export function bi_union(a: Value | null): Value | null {
  if (a === null || a.kind != T_SET) return null;
  const sets = asSet(a).items;
  let acc = new SetV();
  for (let i = 0; i < sets.length; i++) {
    const s = unchecked(sets[i]);
    if (s.kind != T_SET) return null;
    acc = unite(acc, asSet(s));
  }
  return acc;
}
