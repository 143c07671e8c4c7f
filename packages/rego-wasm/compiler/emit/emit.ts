/**
 * IR -> Wasm function bodies.
 *
 * Each IR local becomes an i32 Wasm local (a value address, 0 = undefined).
 * Each IR Block becomes a Wasm `block`; a statement that fails branches past
 * the end of the innermost IR block, so "failure stops the block" is a plain
 * `br`. Scan bodies and Not bodies are IR blocks too, which is what
 * BreakStmt's index counts. Scratch locals (a call result, a plan's result
 * set, per-nesting scan counters) come after the IR locals.
 *
 * Everything the code refers to outside itself (runtime exports, other
 * functions, host builtins, addresses in the data segment) comes from an
 * `EmitContext` the linker provides, so this module knows nothing about the
 * module it is emitted into.
 */
import type { Block, DotStmt, Func, Local, Plan, Stmt, SwitchStmt } from "../plan/ir";
import type { TrailLayout } from "../trail";
import { memoRegionSize, memoSlot, refSlot, type MemoLayout } from "./memo";
import type { Constant } from "./constants";
import { localsRead } from "./locals-read";
import { Code, type Label } from "./wasm/code";
import { encodeFuncBody, ValType } from "./wasm/sections";

export interface EmitContext {
  /** Function index of an `rt_*` runtime export (signature already checked). */
  rt(name: string): number;
  /** Resolves a CallStmt's callee (runtime builtin, host builtin, planned func). */
  callee(name: string, argc: number, caller: string): Callee;
  /** Address and byte length of Policy.strings[index] in the data segment. */
  string(index: number): { ptr: number; len: number };
  /** Address of a NUL-terminated message in the data segment. */
  message(text: string): number;
  /** Function index of the imported env.opa_abort. */
  abort: number;
  /** Global index holding a constant built once per instance (see constants.ts). */
  constant(c: Constant): number;
  /** The decision trail's region (../trail.ts); absent when the policy records no trail. */
  trail?: TrailLayout;
  /** The memo frame's region (memo.ts). */
  memo: MemoLayout;
}

/** How to call something: `call index`, prefixed by `i32.const` args for host dispatch. */
export interface Callee {
  index: number;
  /** Leading constant arguments (host builtins: builtin id and the reserved ctx 0). */
  prefix: number[];
  /** A builtin (native or host) rather than a planned function. */
  builtin: boolean;
  /** A memoised planned function: the address of its memo slot (memo.ts memoisedAt). */
  memo?: number;
}

export interface EmittedFunction {
  /** Number of i32 params. */
  params: number;
  /** Number of i32 results: 1 unless said otherwise (the start function has none). */
  results?: 0 | 1;
  /** Encoded body (size-prefixed), ready for the code section. */
  body: Uint8Array;
}

/** Compiles a planned function: params [input, data, ...args], returns the `ret` local. */
export function emitFunc(func: Func, ctx: EmitContext, refs: Map<DotStmt, number> = new Map()): EmittedFunction {
  func.params.forEach((p, i) => {
    if (p !== i) throw new Error(`emit: ${func.name}: params must be locals 0..n-1`);
  });
  const fe = new FunctionEmitter(func.name, func.locals, func.params.length, ctx, false, localsRead(func.blocks).add(func.ret), refs);
  fe.local(func.ret);
  for (const b of func.blocks) fe.block(b);
  fe.code.get(func.ret);
  return fe.finish();
}

/** Compiles a plan into `(input, data) -> result set`. */
export function emitPlan(plan: Plan, ctx: EmitContext, refs: Map<DotStmt, number> = new Map()): EmittedFunction {
  if (plan.locals < 2) throw new Error(`emit: plan ${plan.name}: needs locals for input and data`);
  const fe = new FunctionEmitter(plan.name, plan.locals, 2, ctx, true, localsRead(plan.blocks), refs);
  const rs = fe.resultSet as number;
  fe.code.call(ctx.rt("rt_set_new")).set(rs);
  for (const b of plan.blocks) fe.block(b);
  fe.code.get(rs);
  return fe.finish();
}

/** Scratch locals of one Scan nesting level. */
interface ScanLocals {
  source: number;
  count: number;
  index: number;
}

class FunctionEmitter {
  readonly code = new Code();
  /** Wasm labels of the enclosing IR blocks, innermost last. */
  private ir: Label[] = [];
  private scans: ScanLocals[] = [];
  private scanDepth = 0;
  private totalLocals: number;
  /** Holds a callee's result until it is known to be defined. */
  private readonly tmp: number;
  /** The plan's result set (a scratch local); undefined in a Func. */
  readonly resultSet: number | undefined;

  constructor(
    private readonly name: string,
    private readonly irLocals: number,
    private readonly params: number,
    private readonly ctx: EmitContext,
    isPlan: boolean,
    /** Locals some statement reads (locals-read.ts): a Scan binds only those. */
    private readonly read: Set<Local>,
    /** The Dots reading a constant input path, and the input ref slot of each (input-refs.ts). */
    private readonly refs: Map<DotStmt, number>,
  ) {
    if (params > irLocals) throw new Error(`emit: ${name}: more params than locals`);
    this.totalLocals = irLocals;
    this.tmp = this.totalLocals++;
    this.resultSet = isPlan ? this.totalLocals++ : undefined;
  }

  finish(): EmittedFunction {
    const declared = this.totalLocals - this.params;
    return { params: this.params, body: encodeFuncBody(declared ? [[declared, ValType.i32]] : [], this.code.finish()) };
  }

  /** Validates an IR local and returns it (Wasm local index = IR local index). */
  local(l: Local): number {
    if (!Number.isInteger(l) || l < 0 || l >= this.irLocals) throw new Error(`emit: ${this.name}: local ${l} out of range`);
    return l;
  }

  block(b: Block): void {
    this.withBlock(b, () => {});
  }

  /** Branch that leaves `n` enclosing IR blocks (1 = fail the current one). */
  private leave(n: number): void {
    if (n < 1 || n > this.ir.length) throw new Error(`emit: ${this.name}: break out of ${n} blocks, only ${this.ir.length} open`);
    this.code.br(this.ir[this.ir.length - n]);
  }

  /** Fails the innermost IR block when the i32 on the stack is non-zero. */
  private failIf(): void {
    this.code.brIf(this.ir[this.ir.length - 1]);
  }

  /** Fails when local `l` is undefined. */
  private failIfUndefined(l: Local): void {
    this.code.get(this.local(l)).eqz();
    this.failIf();
  }

  /** Fails unless every local is defined, then pushes them as call arguments. */
  private defined(...ls: Local[]): Code {
    for (const l of ls) this.failIfUndefined(l);
    return this.args(...ls);
  }

  /** Pushes the locals as call arguments. */
  private args(...ls: Local[]): Code {
    for (const l of ls) this.code.get(this.local(l));
    return this.code;
  }

  /** target = result on the stack, failing (and leaving target alone) when it is 0. */
  private setDefined(target: Local): void {
    this.local(target);
    this.code.tee(this.tmp).eqz();
    this.failIf();
    this.code.get(this.tmp).set(target);
  }

  private rt(name: string): number {
    return this.ctx.rt(name);
  }

  /** Emits s; `prev` is the statement just before it in the same block, if any. */
  private stmt(s: Stmt, prev: Stmt | undefined): void {
    const c = this.code;
    switch (s.type) {
      // Constants are built once per instance and read from globals (constants.ts);
      // null, true and false are the runtime's singletons, read from globals too.
      case "MakeNull":
        this.constant({ kind: "null" }, s.target);
        return;
      case "MakeBoolean":
        this.constant({ kind: "bool", value: s.value }, s.target);
        return;
      case "MakeNumberInt":
        if (!Number.isInteger(s.value) || s.value < -0x80000000 || s.value > 0x7fffffff)
          throw new Error(`emit: ${this.name}: MakeNumberInt ${s.value} is not an i32`);
        this.constant({ kind: "int", value: s.value }, s.target);
        return;
      case "MakeNumberRef":
        this.constant({ kind: "number", index: s.index }, s.target);
        return;
      case "MakeString":
        this.constant({ kind: "string", index: s.index }, s.target);
        return;
      case "MakeArray":
        c.i32(s.capacity).call(this.rt("rt_array_new")).set(this.local(s.target));
        return;
      case "MakeObject":
        c.call(this.rt("rt_object_new")).set(this.local(s.target));
        return;
      case "MakeSet":
        c.call(this.rt("rt_set_new")).set(this.local(s.target));
        return;
      case "MakeConstant":
        this.constant({ kind: "value", value: s.value }, s.target);
        return;
      case "ArrayAppend":
        this.args(s.array, s.value).call(this.rt("rt_array_append"));
        return;
      case "ObjectInsert":
        this.args(s.object, s.key, s.value).call(this.rt("rt_object_insert"));
        return;
      case "ObjectInsertOnce":
        this.args(s.object, s.key, s.value).call(this.rt("rt_object_insert_once"));
        return;
      case "SetAdd":
        this.args(s.set, s.value).call(this.rt("rt_set_add"));
        return;
      // Operands are checked before the runtime sees them: its helpers take values, not 0.
      case "ObjectMerge":
        this.defined(s.a, s.b).call(this.rt("rt_object_merge"));
        this.setDefined(s.target);
        return;
      case "Dot":
        this.dot(s);
        return;
      case "Len":
        this.defined(s.source).call(this.rt("rt_len"));
        this.setDefined(s.target);
        return;
      case "Scan":
        this.scan(s.source, s.key, s.value, s.block);
        return;
      case "Not":
        // The body is an IR block: failing inside it lands after it (the Not
        // succeeds); running to its end fails the block around the Not.
        this.withBlock(s.block, () => this.leave(2));
        return;
      case "Block":
        for (const b of s.blocks) this.block(b);
        return;
      case "Switch":
        this.switch(s);
        return;
      case "Break":
        this.leave(s.index + 1);
        return;
      case "Call":
        this.call(s.func, s.args, s.result);
        return;
      case "Equal":
      case "NotEqual": {
        const boolean = justMadeBoolean(prev, s.a, s.b);
        if (boolean) {
          // true and false are singletons (the runtime never makes another
          // boolean value), so equal to one is being it: an address compare,
          // not a call. The common case: `x != false`, every reference to a
          // rule or a call as a condition (exprs.ts notFalse).
          this.failIfUndefined(boolean.other);
          c.get(this.local(boolean.other)).globalGet(this.ctx.constant({ kind: "bool", value: boolean.value }));
          if (s.type === "Equal") c.ne();
          else c.eq();
          this.failIf();
          return;
        }
        this.defined(s.a, s.b).call(this.rt("rt_equal"));
        if (s.type === "Equal") c.eqz();
        this.failIf();
        return;
      }
      case "IsDefined":
        this.failIfUndefined(s.source);
        return;
      case "IsUndefined":
        c.get(this.local(s.source));
        this.failIf();
        return;
      case "IsArray":
        this.typeIs(s.source, 5);
        return;
      case "IsObject":
        this.typeIs(s.source, 6);
        return;
      case "IsSet":
        this.typeIs(s.source, 7);
        return;
      case "AssignVar":
        c.get(this.local(s.source)).set(this.local(s.target));
        return;
      case "AssignVarOnce":
        this.assignOnce(s.source, s.target, s.message);
        return;
      case "ResetLocal":
        c.i32(0).set(this.local(s.target));
        return;
      case "ReturnLocal":
        // A plan's result is its result set; returning a value from one is a planner bug.
        if (this.resultSet !== undefined) throw new Error(`emit: ${this.name}: ReturnLocal in a plan`);
        c.get(this.local(s.source)).return();
        return;
      case "ResultSetAdd":
        if (this.resultSet === undefined) throw new Error(`emit: ${this.name}: ResultSetAdd outside a plan`);
        c.get(this.resultSet).get(this.local(s.value)).call(this.rt("rt_set_add"));
        return;
      case "MemoGet":
        this.memoGet(s.func, s.target);
        return;
      case "MemoInsert": {
        // slot = value, or 1 (computed, undefined) when the value is 0.
        const v = this.local(s.value);
        c.i32(memoSlot(this.ctx.memo, s.func)).get(v).i32(1).get(v).select().store();
        return;
      }
      case "MemoPush":
      case "MemoPop":
        c.i32(this.ctx.memo.base)
          .i32(memoRegionSize(this.ctx.memo.slots))
          .call(this.rt(s.type === "MemoPush" ? "rt_memo_push" : "rt_memo_pop"));
        return;
      case "Print":
        this.args(s.args).call(this.rt("rt_print"));
        return;
      case "Trail":
        this.trail(s.body);
        return;
      default: {
        const never: never = s;
        throw new Error(`emit: unknown statement ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * Appends body `id` to the trail unless its seen flag is set (../trail.ts):
   * seen[id] = 1; ids[count] = id; count++. A few loads and stores, no call.
   */
  private trail(id: number): void {
    const t = this.ctx.trail;
    if (!t) throw new Error(`emit: ${this.name}: Trail statement but the policy has no trail region`);
    const c = this.code;
    c.i32(t.seen + id)
      .load8u()
      .eqz();
    const fresh = c.if();
    c.i32(t.seen + id)
      .i32(1)
      .store8();
    c.i32(t.head).load().tee(this.tmp).i32(1).shl().i32(id).store16(t.ids);
    c.i32(t.head).get(this.tmp).i32(1).add().store();
    c.end(fresh);
  }

  /** Runs `b` as an IR block, calling `atEnd` when its statements ran to completion. */
  private withBlock(b: Block, atEnd: () => void): void {
    const label = this.code.block();
    this.ir.push(label);
    let prev: Stmt | undefined;
    for (const s of b.stmts) {
      this.stmt(s, prev);
      prev = s;
    }
    atEnd();
    this.ir.pop();
    this.code.end(label);
  }

  /**
   * One Wasm block per case around a br_table on the case number rt_switch
   * answers (0: no case). Case i's code follows the end of its block, so
   * the table jumps straight to it; each case ends with a branch past the
   * others. A case's IR block is a Wasm block of its own, so failing in it
   * lands on that branch.
   */
  private switch(s: SwitchStmt): void {
    const c = this.code;
    const table = this.ctx.constant({ kind: "switch", keys: s.cases.map((k) => k.key) });
    const done = c.block();
    const labels: Label[] = [];
    for (let i = s.cases.length - 1; i >= 0; i--) labels[i] = c.block();
    const none = c.block();
    c.globalGet(table).get(this.local(s.source)).call(this.rt("rt_switch"));
    c.brTable([none, ...labels], none);
    c.end(none);
    c.br(done);
    s.cases.forEach((k, i) => {
      c.end(labels[i]!);
      this.block(k.block);
      c.br(done);
    });
    c.end(done);
  }

  private constant(k: Constant, target: Local): void {
    this.code.globalGet(this.ctx.constant(k)).set(this.local(target));
  }

  /**
   * The function's memo slot (memo.ts): 0 is a miss (fail), 1 a memoised
   * undefined value (target = 0, no failure), else the value.
   */
  private memoGet(func: number, target: Local): void {
    const c = this.code;
    c.i32(0).load(memoSlot(this.ctx.memo, func)).tee(this.tmp).eqz();
    this.failIf();
    this.slotValue();
    c.set(this.local(target));
  }

  /** Pushes the value a non-zero memo slot in `tmp` records: 0 (undefined) for a 1, else the slot itself. */
  private slotValue(): void {
    this.code.i32(0).get(this.tmp).get(this.tmp).i32(1).eq().select();
  }

  /**
   * target = source[key]. A Dot reading a constant input path (input-refs.ts)
   * reads its slot first and only dots on a miss, recording the value (1 for
   * undefined) as MemoInsert does; undefined operands fail first either way.
   */
  private dot(s: DotStmt): void {
    const c = this.code;
    const ref = this.refs.get(s);
    if (ref === undefined) {
      this.defined(s.source, s.key).call(this.rt("rt_dot"));
      this.setDefined(s.target);
      return;
    }
    const slot = refSlot(this.ctx.memo, ref);
    this.failIfUndefined(s.source);
    this.failIfUndefined(s.key);
    c.i32(0).load(slot).tee(this.tmp);
    const hit = c.if();
    this.slotValue();
    c.set(this.tmp).else(hit);
    this.args(s.source, s.key).call(this.rt("rt_dot")).set(this.tmp);
    c.i32(slot).get(this.tmp).i32(1).get(this.tmp).select().store();
    c.end(hit);
    c.get(this.tmp);
    this.setDefined(s.target);
  }

  private typeIs(source: Local, code: number): void {
    this.args(source).call(this.rt("rt_type")).i32(code).ne();
    this.failIf();
  }

  private call(func: string, args: Local[], result: Local): void {
    const callee = this.ctx.callee(func, args.length, this.name);
    // A builtin with an undefined operand is undefined; a planned function
    // takes input as its first param, which may legitimately be undefined.
    if (callee.builtin) for (const a of args) this.failIfUndefined(a);
    const c = this.code;
    if (callee.memo === undefined) {
      for (const p of callee.prefix) c.i32(p);
      this.args(...args).call(callee.index);
      this.setDefined(result);
      return;
    }
    // A rule already evaluated (slot != 0): its value is read here, 0 for the
    // 1 of "undefined", as the callee's own MemoGet would answer; the call is
    // made on a miss only. Most references to a rule are hits.
    c.i32(0).load(callee.memo).tee(this.tmp);
    const hit = c.if();
    this.slotValue();
    c.set(this.tmp).else(hit);
    this.args(...args)
      .call(callee.index)
      .set(this.tmp);
    c.end(hit);
    c.get(this.tmp);
    this.setDefined(result);
  }

  /**
   * target undefined: take source. Defined and equal: keep. Defined and
   * different: a conflict, which aborts. An undefined source never conflicts.
   */
  private assignOnce(source: Local, target: Local, message: string): void {
    const c = this.code;
    const src = this.local(source);
    const dst = this.local(target);
    const done = c.block();
    c.get(dst).eqz();
    const take = c.if();
    c.get(src).set(dst);
    c.end(take);
    c.get(dst).eqz().brIf(done);
    c.get(src).eqz().brIf(done);
    c.get(dst).get(src).call(this.rt("rt_equal")).brIf(done);
    c.i32(this.ctx.message(message)).call(this.ctx.abort).unreachable();
    c.end(done);
  }

  /**
   * for i in 0..n: key, value = element i; run the body. The counter steps
   * before the body so a failure inside it (a branch past the body) simply
   * continues with the next element.
   */
  private scan(source: Local, key: Local, value: Local, body: Block): void {
    const c = this.code;
    const v = this.scanLocals(this.scanDepth++);
    this.failIfUndefined(source);
    c.get(this.local(source)).tee(v.source).call(this.rt("rt_scan_len")).tee(v.count).i32(0).ltS();
    this.failIf();
    c.i32(0).set(v.index);
    const done = c.block();
    const next = c.loop();
    c.get(v.index).get(v.count).geS().brIf(done);
    const [k, val] = [this.local(key), this.local(value)];
    // A key or value nothing reads is not made (an array's index would be a new number per element).
    if (this.read.has(key)) c.get(v.source).get(v.index).call(this.rt("rt_scan_key")).set(k);
    if (this.read.has(value)) c.get(v.source).get(v.index).call(this.rt("rt_scan_value")).set(val);
    c.get(v.index).i32(1).add().set(v.index);
    this.block(body);
    c.br(next);
    c.end(next);
    c.end(done);
    this.scanDepth--;
  }

  private scanLocals(depth: number): ScanLocals {
    while (this.scans.length <= depth) {
      this.scans.push({ source: this.totalLocals++, count: this.totalLocals++, index: this.totalLocals++ });
    }
    return this.scans[depth];
  }
}

/**
 * When `prev` (the statement right before an Equal/NotEqual of a and b, in
 * the same block, so it ran just before) made one operand a boolean, that
 * boolean and the other operand.
 */
function justMadeBoolean(prev: Stmt | undefined, a: Local, b: Local): { value: boolean; other: Local } | undefined {
  if (prev?.type !== "MakeBoolean" || a === b) return undefined;
  if (prev.target === b) return { value: prev.value, other: a };
  if (prev.target === a) return { value: prev.value, other: b };
  return undefined;
}
