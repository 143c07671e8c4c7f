/**
 * Refs into `input` read once per memo frame: `input.route.id` dotted by
 * four rules of a policy is looked up by the first and read from a memo slot
 * by the others (emit.ts dot), as a rule's value is.
 *
 * Which Dot statements qualify: in a function (or plan) with no MemoPush,
 * a Dot whose key is a string constant and whose source is the input
 * parameter (local 0, never written in the function) or the target of
 * another such Dot; every write of every local involved, in the whole
 * function, is such a Dot of the same path (rule bodies reuse locals) or the
 * MakeString of the same constant, so the local holds that value or 0 (a
 * failing Dot leaves its target alone). Such a Dot reads `input.<path>`
 * with a path known at compile time, and its path names its slot.
 *
 * Why that is one value per memo frame: the frame belongs to one input.
 * A function runs in its caller's frame with its caller's input, except
 * inside a `with`, where the planner brackets the replaced input's
 * expression with MemoPush/MemoPop (a fresh frame, emptied, then the outer
 * one restored) and passes the replaced input to every call in it; so every
 * function running while a frame is current was given that frame's input
 * as local 0. A function holding a MemoPush itself is left out: a local it
 * dotted from its input before the `with` could be dotted again inside it,
 * in the inner frame. Input values are never mutated (the mutating
 * statements only target MakeArray/MakeObject/MakeSet locals), and the
 * dispatch zeroes the frame, these slots included, before every evaluation.
 * An undefined source or key still fails the statement before the slot is
 * read, as rt_dot's caller does.
 */
import type { Block, DotStmt, Local, Stmt } from "../plan/ir";

/** The Dot statements of one function that read a constant input path, with that path ("3/7": string constant indices). */
export function inputRefPaths(blocks: Block[]): Map<DotStmt, string> {
  const writes = new Map<Local, Stmt[]>();
  const dots: DotStmt[] = [];
  let pushes = false;
  const write = (l: Local, s: Stmt) => {
    const ws = writes.get(l);
    if (ws) ws.push(s);
    else writes.set(l, [s]);
  };
  const walk = (bs: Block[]): void => {
    for (const b of bs) for (const s of b.stmts) visit(s);
  };
  const visit = (s: Stmt): void => {
    switch (s.type) {
      case "MakeNull":
      case "MakeBoolean":
      case "MakeNumberRef":
      case "MakeNumberInt":
      case "MakeString":
      case "MakeArray":
      case "MakeObject":
      case "MakeSet":
      case "MakeConstant":
      case "ObjectMerge":
      case "Len":
      case "AssignVar":
      case "AssignVarOnce":
      case "ResetLocal":
      case "MemoGet":
        write(s.target, s);
        return;
      case "Dot":
        write(s.target, s);
        dots.push(s);
        return;
      case "ArrayAppend":
        write(s.array, s);
        return;
      case "ObjectInsert":
      case "ObjectInsertOnce":
        write(s.object, s);
        return;
      case "SetAdd":
        write(s.set, s);
        return;
      case "Call":
        write(s.result, s);
        return;
      case "Scan":
        write(s.key, s);
        write(s.value, s);
        walk([s.block]);
        return;
      case "Not":
        walk([s.block]);
        return;
      case "Block":
        walk(s.blocks);
        return;
      case "Switch":
        walk(s.cases.map((c) => c.block));
        return;
      case "MemoPush":
        pushes = true;
        return;
      case "MemoPop":
      case "Break":
      case "Trail":
      case "Equal":
      case "NotEqual":
      case "IsDefined":
      case "IsUndefined":
      case "IsArray":
      case "IsObject":
      case "IsSet":
      case "ReturnLocal":
      case "ResultSetAdd":
      case "MemoInsert":
      case "Print":
        return;
      default: {
        const never: never = s;
        throw new Error(`inputRefPaths: unknown statement ${JSON.stringify(never)}`);
      }
    }
  };
  walk(blocks);
  const paths = new Map<DotStmt, string>();
  if (pushes || writes.has(0)) return paths;
  const visiting = new Set<DotStmt>();
  /** What every write of `l` gives it (a local is 0 until its first write, and a failing Dot leaves it alone), or undefined when they differ. */
  const same = (l: Local, of: (s: Stmt) => string | undefined): string | undefined => {
    let common: string | undefined;
    for (const w of writes.get(l) ?? []) {
      const v = of(w);
      if (v === undefined || (common !== undefined && v !== common)) return undefined;
      common = v;
    }
    return common;
  };
  /** The input path a local holds ("" for the input itself), or undefined. */
  const pathOf = (l: Local): string | undefined => (l === 0 ? "" : same(l, (w) => (w.type === "Dot" ? dotPath(w) : undefined)));
  const dotPath = (d: DotStmt): string | undefined => {
    const key = same(d.key, (w) => (w.type === "MakeString" ? String(w.index) : undefined));
    if (key === undefined || visiting.has(d)) return undefined; // a Dot reached from itself reads no fixed path
    visiting.add(d);
    const source = pathOf(d.source);
    visiting.delete(d);
    return source === undefined ? undefined : `${source}/${key}`;
  };
  for (const d of dots) {
    const p = dotPath(d);
    if (p !== undefined) paths.set(d, p);
  }
  return paths;
}
