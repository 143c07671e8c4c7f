/**
 * A readable text form of the IR, close to OPA's `opa build --debug` plan
 * dumps: one line per statement, nested blocks indented, locals as `lN`,
 * string constants inlined. Used by `portcullis rego plan` and by tests.
 */
import type { Block, ConstantValue, Policy, ScalarConstant, Stmt } from "./ir";

export function printPolicy(policy: Policy): string {
  const out: string[] = [];
  const s = (i: number): string => JSON.stringify(policy.strings[i] ?? `<string ${i}>`);
  if (policy.hostBuiltins.length) {
    out.push("host builtins:");
    policy.hostBuiltins.forEach((h, i) => out.push(`  ${i}: ${h.name}/${h.arity}`));
  }
  policy.funcs.forEach((f, i) => {
    out.push(`func ${i} ${f.name} (${f.params.map((p) => `l${p}`).join(", ")}) -> l${f.ret}  [${f.locals} locals]`);
    f.blocks.forEach((b) => printBlock(b, 1, out, s));
  });
  policy.plans.forEach((p, i) => {
    out.push(`plan ${i} ${p.name}  [${p.locals} locals]`);
    p.blocks.forEach((b) => printBlock(b, 1, out, s));
  });
  return out.join("\n");
}

function printBlock(b: Block, depth: number, out: string[], s: (i: number) => string): void {
  out.push(`${"  ".repeat(depth)}block`);
  for (const st of b.stmts) printStmt(st, depth + 1, out, s);
}

function printStmt(st: Stmt, depth: number, out: string[], s: (i: number) => string): void {
  const pad = "  ".repeat(depth);
  const l = (n: number): string => `l${n}`;
  switch (st.type) {
    case "Scan":
      out.push(`${pad}Scan ${l(st.source)} -> key ${l(st.key)}, value ${l(st.value)}`);
      printBlock(st.block, depth + 1, out, s);
      return;
    case "Not":
      out.push(`${pad}Not`);
      printBlock(st.block, depth + 1, out, s);
      return;
    case "Block":
      out.push(`${pad}Block`);
      st.blocks.forEach((b) => printBlock(b, depth + 1, out, s));
      return;
    case "Switch":
      out.push(`${pad}Switch ${l(st.source)}`);
      for (const c of st.cases) {
        out.push(`${pad}  case ${scalar(c.key, s)}`);
        printBlock(c.block, depth + 2, out, s);
      }
      return;
    default:
      out.push(`${pad}${formatStmt(st, l, s)}`);
  }
}

function scalar(k: ScalarConstant, s: (i: number) => string): string {
  switch (k.type) {
    case "null":
      return "null";
    case "boolean":
      return String(k.value);
    case "number":
      return `number ${s(k.index)}`;
    case "string":
      return s(k.index);
  }
}

function constantValue(v: ConstantValue, s: (i: number) => string): string {
  switch (v.type) {
    case "int":
      return String(v.value);
    case "array":
      return `[${v.items.map((x) => constantValue(x, s)).join(", ")}]`;
    case "set":
      return v.items.length === 0 ? "set()" : `{${v.items.map((x) => constantValue(x, s)).join(", ")}}`;
    case "object":
      return `{${v.items.map(([k, x]) => `${constantValue(k, s)}: ${constantValue(x, s)}`).join(", ")}}`;
    default:
      return scalar(v, s);
  }
}

function formatStmt(st: Stmt, l: (n: number) => string, s: (i: number) => string): string {
  switch (st.type) {
    case "MakeNull":
      return `${l(st.target)} = null`;
    case "MakeBoolean":
      return `${l(st.target)} = ${st.value}`;
    case "MakeNumberRef":
      return `${l(st.target)} = number ${s(st.index)}`;
    case "MakeNumberInt":
      return `${l(st.target)} = ${st.value}`;
    case "MakeString":
      return `${l(st.target)} = ${s(st.index)}`;
    case "MakeArray":
      return `${l(st.target)} = [] (cap ${st.capacity})`;
    case "MakeObject":
      return `${l(st.target)} = {}`;
    case "MakeSet":
      return `${l(st.target)} = set()`;
    case "MakeConstant":
      return `${l(st.target)} = constant ${constantValue(st.value, s)}`;
    case "ArrayAppend":
      return `ArrayAppend ${l(st.array)} += ${l(st.value)}`;
    case "ObjectInsert":
      return `ObjectInsert ${l(st.object)}[${l(st.key)}] = ${l(st.value)}`;
    case "ObjectInsertOnce":
      return `ObjectInsertOnce ${l(st.object)}[${l(st.key)}] = ${l(st.value)}`;
    case "ObjectMerge":
      return `${l(st.target)} = ObjectMerge ${l(st.a)}, ${l(st.b)}`;
    case "SetAdd":
      return `SetAdd ${l(st.set)} += ${l(st.value)}`;
    case "Dot":
      return `${l(st.target)} = ${l(st.source)}[${l(st.key)}]`;
    case "Len":
      return `${l(st.target)} = Len ${l(st.source)}`;
    case "Break":
      return `Break ${st.index}`;
    case "Call":
      return `${l(st.result)} = Call ${st.func}(${st.args.map(l).join(", ")})`;
    case "Equal":
      return `Equal ${l(st.a)}, ${l(st.b)}`;
    case "NotEqual":
      return `NotEqual ${l(st.a)}, ${l(st.b)}`;
    case "IsDefined":
    case "IsUndefined":
    case "IsArray":
    case "IsObject":
    case "IsSet":
      return `${st.type} ${l(st.source)}`;
    case "AssignVar":
      return `${l(st.target)} = ${l(st.source)}`;
    case "AssignVarOnce":
      return `AssignVarOnce ${l(st.target)} = ${l(st.source)}`;
    case "ResetLocal":
      return `ResetLocal ${l(st.target)}`;
    case "ReturnLocal":
      return `Return ${l(st.source)}`;
    case "ResultSetAdd":
      return `ResultSetAdd ${l(st.value)}`;
    case "MemoGet":
      return `${l(st.target)} = MemoGet func ${st.func}`;
    case "MemoInsert":
      return `MemoInsert func ${st.func} = ${l(st.value)}`;
    case "MemoPush":
    case "MemoPop":
      return st.type;
    case "Print":
      return `Print ${l(st.args)}`;
    case "Trail":
      return `Trail body ${st.body}`;
    default:
      return (st as { type: string }).type;
  }
}
