/**
 * A builder for the instructions the emitter produces: structured control
 * (block, loop, br, br_if, br_table), locals, i32 constants and comparisons,
 * and calls. It tracks the label stack so callers can ask how deep a label is
 * instead of counting by hand, and refuses unbalanced `end`s.
 */
import { ByteWriter } from "./bytes";

const OP = {
  unreachable: 0x00,
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  brTable: 0x0e,
  return: 0x0f,
  call: 0x10,
  drop: 0x1a,
  select: 0x1b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  globalGet: 0x23,
  globalSet: 0x24,
  i32Const: 0x41,
  i32Eqz: 0x45,
  i32Eq: 0x46,
  i32Ne: 0x47,
  i32LtS: 0x48,
  i32GeS: 0x4e,
  i32Add: 0x6a,
  i32Shl: 0x74,
  i32Load: 0x28,
  i32Load8U: 0x2d,
  i32Load16U: 0x2f,
  i32Store: 0x36,
  i32Store8: 0x3a,
  i32Store16: 0x3b,
  i64Const: 0x42,
  i64Store: 0x37,
} as const;

/** Block type "no params, no results". */
const EMPTY = 0x40;

/** Opaque handle for an open label, used to compute `br` depths. */
export type Label = number;

export class Code {
  private w = new ByteWriter();
  /** Open labels, innermost last. The value is the label's id. */
  private labels: Label[] = [];
  private nextLabel = 0;

  /** Opens a `block`; a branch to it jumps past its `end`. */
  block(): Label {
    this.w.byte(OP.block).byte(EMPTY);
    return this.push();
  }

  /** Opens a `loop`; a branch to it jumps back to its start. */
  loop(): Label {
    this.w.byte(OP.loop).byte(EMPTY);
    return this.push();
  }

  /** Opens an `if` (consumes an i32 condition). */
  if(): Label {
    this.w.byte(OP.if).byte(EMPTY);
    return this.push();
  }

  /** Starts the `else` arm of `label`, the innermost open `if`; the label stays open (closed by `end`). */
  else(label: Label): this {
    if (this.labels[this.labels.length - 1] !== label) throw new Error("emit: else of an if that is not the innermost label");
    this.w.byte(OP.else);
    return this;
  }

  end(label: Label): this {
    if (this.labels[this.labels.length - 1] !== label) throw new Error("emit: unbalanced end");
    this.labels.pop();
    this.w.byte(OP.end);
    return this;
  }

  /** Relative depth of an open label, as `br` wants it. */
  depth(label: Label): number {
    const i = this.labels.lastIndexOf(label);
    if (i < 0) throw new Error("emit: branch to a label that is not open");
    return this.labels.length - 1 - i;
  }

  br(label: Label): this {
    this.w.byte(OP.br).u32(this.depth(label));
    return this;
  }

  brIf(label: Label): this {
    this.w.byte(OP.brIf).u32(this.depth(label));
    return this;
  }

  brTable(targets: Label[], fallback: Label): this {
    this.w.byte(OP.brTable).u32(targets.length);
    for (const t of targets) this.w.u32(this.depth(t));
    this.w.u32(this.depth(fallback));
    return this;
  }

  return(): this {
    return this.op(OP.return);
  }

  unreachable(): this {
    return this.op(OP.unreachable);
  }

  drop(): this {
    return this.op(OP.drop);
  }

  /** `select`: of the two values under an i32 condition, the first when it is non-zero. */
  select(): this {
    return this.op(OP.select);
  }

  call(index: number): this {
    this.w.byte(OP.call).u32(index);
    return this;
  }

  get(local: number): this {
    this.w.byte(OP.localGet).u32(local);
    return this;
  }

  set(local: number): this {
    this.w.byte(OP.localSet).u32(local);
    return this;
  }

  tee(local: number): this {
    this.w.byte(OP.localTee).u32(local);
    return this;
  }

  globalGet(global: number): this {
    this.w.byte(OP.globalGet).u32(global);
    return this;
  }

  globalSet(global: number): this {
    this.w.byte(OP.globalSet).u32(global);
    return this;
  }

  i32(value: number): this {
    this.w.byte(OP.i32Const).s32(value);
    return this;
  }

  /** An i64 constant within i32's range (its LEB128 is the s32 one; s32 refuses anything else). */
  i64(value: number): this {
    this.w.byte(OP.i64Const).s32(value);
    return this;
  }

  eqz(): this {
    return this.op(OP.i32Eqz);
  }

  eq(): this {
    return this.op(OP.i32Eq);
  }

  ne(): this {
    return this.op(OP.i32Ne);
  }

  ltS(): this {
    return this.op(OP.i32LtS);
  }

  geS(): this {
    return this.op(OP.i32GeS);
  }

  add(): this {
    return this.op(OP.i32Add);
  }

  shl(): this {
    return this.op(OP.i32Shl);
  }

  /** Memory accesses: the address on the stack plus the constant `offset` (alignment hints are the natural ones). */
  load(offset = 0): this {
    return this.mem(OP.i32Load, 2, offset);
  }

  load8u(offset = 0): this {
    return this.mem(OP.i32Load8U, 0, offset);
  }

  load16u(offset = 0): this {
    return this.mem(OP.i32Load16U, 1, offset);
  }

  store(offset = 0): this {
    return this.mem(OP.i32Store, 2, offset);
  }

  store64(offset = 0): this {
    return this.mem(OP.i64Store, 3, offset);
  }

  store8(offset = 0): this {
    return this.mem(OP.i32Store8, 0, offset);
  }

  store16(offset = 0): this {
    return this.mem(OP.i32Store16, 1, offset);
  }

  /** The finished expression, closed by the function's final `end`. */
  finish(): Uint8Array {
    if (this.labels.length) throw new Error("emit: unclosed blocks at end of function");
    this.w.byte(OP.end);
    return this.w.toBytes();
  }

  private mem(code: number, align: number, offset: number): this {
    this.w.byte(code).u32(align).u32(offset);
    return this;
  }

  private op(code: number): this {
    this.w.byte(code);
    return this;
  }

  private push(): Label {
    const l = this.nextLabel++;
    this.labels.push(l);
    return l;
  }
}
