/**
 * Building a partial object from ref-head rules: each solution of each rule
 * inserts its value at a key path (`p[x].y := z` -> ["x-value", "y"]).
 *
 * OPA's conflicts, all eval_conflict_error "object keys must be unique":
 * - two different values at the same path (ObjectInsertOnce aborts);
 * - a path going through another rule's value (`p.q.r := {...}` and
 *   `p.q.r.s := 1`), even when that value is an object.
 * The second needs to know which positions hold rule values: a "shadow"
 * object mirrors the paths, with `true` at value leaves and a set at set
 * leaves. Descending through a non-object shadow entry, or placing a leaf
 * where the shadow has an object, forces an abort by inserting a different
 * value with ObjectInsertOnce. Single-key objects (`p[k] := v`) need no shadow.
 */
import type { Ctx } from "./context";
import type { Local, Stmt } from "./ir";

export interface Target {
  obj: Local;
  shadow: Local | null;
}

/** obj[k1]...[kn] = v (or v added to the set at obj[k1]...[kn] when `setLeaf`). */
export function insertPath(ctx: Ctx, target: Target, keys: Local[], v: Local, setLeaf: boolean): void {
  const fb = ctx.fb;
  let cur = target.obj;
  let shadow = target.shadow;
  const inner = setLeaf ? keys : keys.slice(0, -1);
  inner.forEach((key, i) => {
    const leafSet = setLeaf && i === inner.length - 1;
    if (shadow !== null) shadow = descendShadow(ctx, shadow, key, leafSet);
    cur = getOrCreate(ctx, cur, key, leafSet ? "MakeSet" : "MakeObject");
  });
  if (setLeaf) {
    fb.emit({ type: "SetAdd", set: cur, value: v });
    return;
  }
  const last = keys[keys.length - 1]!;
  if (shadow !== null) {
    const s = shadow;
    const existing = fb.newLocal();
    fb.emit({ type: "ResetLocal", target: existing });
    fb.nested(() => fb.emit({ type: "Dot", source: s, key: last, target: existing }));
    // An intermediate object here means other rules' paths go through this leaf.
    abortIfObject(ctx, existing, s, last);
    const mark = fb.newLocal();
    fb.emit({ type: "MakeBoolean", value: true, target: mark });
    fb.emit({ type: "ObjectInsert", object: s, key: last, value: mark });
  }
  fb.emit({ type: "ObjectInsertOnce", object: cur, key: last, value: v });
}

/** obj[key], created empty (object or set) when absent. */
function getOrCreate(ctx: Ctx, obj: Local, key: Local, make: "MakeObject" | "MakeSet"): Local {
  const fb = ctx.fb;
  const t = fb.newLocal();
  fb.emit({ type: "ResetLocal", target: t });
  fb.nested(() => fb.emit({ type: "Dot", source: obj, key, target: t }));
  fb.nested(() => {
    fb.emit({ type: "IsUndefined", source: t });
    fb.emit({ type: make, target: t } as Stmt);
    fb.emit({ type: "ObjectInsert", object: obj, key, value: t });
  });
  return t;
}

/** The shadow entry under `key`: must be an object (intermediate) or, for a set leaf, a set. */
function descendShadow(ctx: Ctx, shadow: Local, key: Local, leafSet: boolean): Local {
  const t = getOrCreate(ctx, shadow, key, leafSet ? "MakeSet" : "MakeObject");
  const fb = ctx.fb;
  const ok = fb.newLocal();
  fb.emit({ type: "ResetLocal", target: ok });
  fb.nested(() => {
    fb.emit({ type: leafSet ? "IsSet" : "IsObject", source: t });
    fb.emit({ type: "MakeBoolean", value: true, target: ok });
  });
  // Not the expected kind: a rule value sits here, so this insert conflicts.
  fb.nested(() => {
    fb.emit({ type: "IsUndefined", source: ok });
    const fresh = fb.newLocal();
    fb.emit({ type: leafSet ? "MakeSet" : "MakeObject", target: fresh });
    fb.emit({ type: "ObjectInsertOnce", object: shadow, key, value: fresh });
  });
  return t;
}

/** Aborts (a conflicting ObjectInsertOnce) when `value` is an object. */
function abortIfObject(ctx: Ctx, value: Local, obj: Local, key: Local): void {
  const fb = ctx.fb;
  fb.nested(() => {
    fb.emit({ type: "IsObject", source: value });
    const other = fb.newLocal();
    fb.emit({ type: "MakeBoolean", value: true, target: other });
    fb.emit({ type: "ObjectInsertOnce", object: obj, key, value: other });
  });
}
