/**
 * Which locals a function's statements ever read, so the emitter can leave
 * out work whose result nobody reads: a Scan's key or value that the body
 * never uses (`some f in xs` binds only the value; the array index would be
 * a new number value per element).
 *
 * Every statement kind is listed (the `never` check makes a new kind a
 * compile error here); a local that is both read and written (the
 * collection of an ArrayAppend, the target of an AssignVarOnce) counts as
 * read.
 */
import type { Block, Local, Stmt } from "../plan/ir";

export function localsRead(blocks: Block[]): Set<Local> {
  const read = new Set<Local>();
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
      case "ResetLocal":
      case "MemoGet":
      case "MemoPush":
      case "MemoPop":
      case "Break":
      case "Trail":
        return;
      case "ArrayAppend":
        read.add(s.array).add(s.value);
        return;
      case "ObjectInsert":
      case "ObjectInsertOnce":
        read.add(s.object).add(s.key).add(s.value);
        return;
      case "ObjectMerge":
        read.add(s.a).add(s.b);
        return;
      case "SetAdd":
        read.add(s.set).add(s.value);
        return;
      case "Dot":
        read.add(s.source).add(s.key);
        return;
      case "Len":
      case "IsDefined":
      case "IsUndefined":
      case "IsArray":
      case "IsObject":
      case "IsSet":
      case "AssignVar":
      case "ReturnLocal":
        read.add(s.source);
        return;
      case "AssignVarOnce":
        read.add(s.source).add(s.target);
        return;
      case "Scan":
        read.add(s.source);
        walk([s.block]);
        return;
      case "Not":
        walk([s.block]);
        return;
      case "Block":
        walk(s.blocks);
        return;
      case "Switch":
        read.add(s.source);
        walk(s.cases.map((c) => c.block));
        return;
      case "Call":
        for (const a of s.args) read.add(a);
        return;
      case "Equal":
      case "NotEqual":
        read.add(s.a).add(s.b);
        return;
      case "ResultSetAdd":
      case "MemoInsert":
        read.add(s.value);
        return;
      case "Print":
        read.add(s.args);
        return;
      default: {
        const never: never = s;
        throw new Error(`localsRead: unknown statement ${JSON.stringify(never)}`);
      }
    }
  };
  walk(blocks);
  return read;
}
