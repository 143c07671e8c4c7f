/**
 * Decoders and encoders for the sections the linker edits: types, imports,
 * globals, exports, and the "append to a vector" operation used for the
 * function, code and data sections.
 *
 * Appending never needs the existing items decoded: a vector section is a
 * count followed by its items, so new items go after the old bytes and only
 * the count changes.
 */
import { ByteReader, ByteWriter, encodeU32 } from "./bytes";

export const ValType = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b, funcref: 0x70, externref: 0x6f } as const;

export interface FuncType {
  params: number[];
  results: number[];
}

/** Import and export kinds. */
export const ExternKind = { func: 0, table: 1, memory: 2, global: 3, tag: 4 } as const;

export interface Limits {
  min: number;
  max?: number;
  /** The flags byte as read (shared/64-bit memories keep their bits). */
  flags: number;
}

export interface Import {
  module: string;
  name: string;
  kind: number;
  /** func: type index. */
  typeIndex?: number;
  /** memory and table limits. */
  limits?: Limits;
  /** Raw descriptor bytes after the kind byte, to re-encode unchanged kinds exactly. */
  raw: Uint8Array;
}

export interface Export {
  name: string;
  kind: number;
  index: number;
}

export interface Global {
  type: number;
  mutable: boolean;
  /** Init expression including its final `end` (0x0b). */
  init: Uint8Array;
}

/** A vector section split into its item count and the raw bytes of all items. */
export function splitVec(body: Uint8Array | undefined): { count: number; items: Uint8Array } {
  if (!body) return { count: 0, items: new Uint8Array(0) };
  const r = new ByteReader(body);
  const count = r.u32();
  return { count, items: body.subarray(r.pos) };
}

/** A vector section body with `added` (each already encoded) after the existing items. */
export function appendVec(body: Uint8Array | undefined, added: Uint8Array[]): Uint8Array {
  const { count, items } = splitVec(body);
  // Typed-array copies: the code section of the runtime is large.
  const parts = [Uint8Array.from(encodeU32(count + added.length)), items, ...added];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function readTypes(body: Uint8Array | undefined): FuncType[] {
  if (!body) return [];
  const r = new ByteReader(body);
  const n = r.u32();
  const types: FuncType[] = [];
  for (let i = 0; i < n; i++) {
    const form = r.byte();
    // GC proposal forms (rec groups, structs) would change type indexing; the runtime does not use them.
    if (form !== 0x60) r.fail(`type form 0x${form.toString(16)} is not a plain function type`);
    const params = Array.from(r.take(r.u32()));
    const results = Array.from(r.take(r.u32()));
    types.push({ params, results });
  }
  return types;
}

export function encodeFuncType(t: FuncType): Uint8Array {
  return new ByteWriter().byte(0x60).u32(t.params.length).bytes(t.params).u32(t.results.length).bytes(t.results).toBytes();
}

function readLimits(r: ByteReader): Limits {
  const flags = r.byte();
  if (flags & 0x04) r.fail("64-bit memories are not supported");
  const min = r.u32();
  const max = flags & 0x01 ? r.u32() : undefined;
  return { flags, min, max };
}

export function encodeLimits(l: Limits): Uint8Array {
  const w = new ByteWriter().byte(l.flags).u32(l.min);
  if (l.flags & 0x01) w.u32(l.max ?? l.min);
  return w.toBytes();
}

export function readImports(body: Uint8Array | undefined): Import[] {
  if (!body) return [];
  const r = new ByteReader(body);
  const n = r.u32();
  const out: Import[] = [];
  for (let i = 0; i < n; i++) {
    const module = r.name();
    const name = r.name();
    const kind = r.byte();
    const start = r.pos;
    const imp: Import = { module, name, kind, raw: new Uint8Array(0) };
    switch (kind) {
      case ExternKind.func:
        imp.typeIndex = r.u32();
        break;
      case ExternKind.table:
        r.byte(); // reference type
        imp.limits = readLimits(r);
        break;
      case ExternKind.memory:
        imp.limits = readLimits(r);
        break;
      case ExternKind.global:
        r.byte();
        r.byte();
        break;
      case ExternKind.tag:
        r.byte();
        r.u32();
        break;
      default:
        r.fail(`unknown import kind ${kind}`);
    }
    imp.raw = body.slice(start, r.pos);
    out.push(imp);
  }
  return out;
}

export function encodeImports(imports: Import[]): Uint8Array {
  const w = new ByteWriter().u32(imports.length);
  for (const imp of imports) {
    w.name(imp.module).name(imp.name).byte(imp.kind);
    if (imp.kind === ExternKind.memory && imp.limits) w.bytes(encodeLimits(imp.limits));
    else w.bytes(imp.raw);
  }
  return w.toBytes();
}

export function readExports(body: Uint8Array | undefined): Export[] {
  if (!body) return [];
  const r = new ByteReader(body);
  const n = r.u32();
  const out: Export[] = [];
  for (let i = 0; i < n; i++) out.push({ name: r.name(), kind: r.byte(), index: r.u32() });
  return out;
}

export function encodeExports(exports: Export[]): Uint8Array {
  const w = new ByteWriter().u32(exports.length);
  for (const e of exports) w.name(e.name).byte(e.kind).u32(e.index);
  return w.toBytes();
}

/** Reads a constant expression up to and including its `end`. */
function readConstExpr(r: ByteReader): Uint8Array {
  const start = r.pos;
  for (;;) {
    const op = r.byte();
    switch (op) {
      case 0x0b:
        return r.bytes.slice(start, r.pos);
      case 0x41:
        r.s32();
        break; // i32.const
      case 0x42:
        r.skipS64();
        break; // i64.const
      case 0x43:
        r.take(4);
        break; // f32.const
      case 0x44:
        r.take(8);
        break; // f64.const
      case 0x23:
        r.u32();
        break; // global.get
      case 0xd0:
        r.byte();
        break; // ref.null
      case 0xd2:
        r.u32();
        break; // ref.func
      case 0x6a:
      case 0x6b:
      case 0x6c:
      case 0x7c:
      case 0x7d:
      case 0x7e:
        break; // extended-const arithmetic
      default:
        r.fail(`opcode 0x${op.toString(16)} in a constant expression`);
    }
  }
}

export function readGlobals(body: Uint8Array | undefined): Global[] {
  if (!body) return [];
  const r = new ByteReader(body);
  const n = r.u32();
  const out: Global[] = [];
  for (let i = 0; i < n; i++) {
    const type = r.byte();
    const mutable = r.byte() === 1;
    out.push({ type, mutable, init: readConstExpr(r) });
  }
  return out;
}

export function encodeGlobals(globals: Global[]): Uint8Array {
  const w = new ByteWriter().u32(globals.length);
  for (const g of globals)
    w.byte(g.type)
      .byte(g.mutable ? 1 : 0)
      .bytes(g.init);
  return w.toBytes();
}

/** The value of an init expression that is a single `i32.const`, else undefined. */
export function constI32(init: Uint8Array): number | undefined {
  if (init[0] !== 0x41) return undefined;
  const r = new ByteReader(init, 1);
  const v = r.s32();
  return r.byte() === 0x0b && r.done ? v : undefined;
}

/** `i32.const v; end`. */
export function i32ConstExpr(v: number): Uint8Array {
  return new ByteWriter()
    .byte(0x41)
    .s32(v | 0)
    .byte(0x0b)
    .toBytes();
}

/** An active data segment for memory 0 at a constant offset. */
export interface DataSegment {
  offset: number;
  length: number;
}

/** Active segments with constant offsets; passive or computed ones are reported as such. */
export function readDataSegments(body: Uint8Array | undefined): { segments: DataSegment[]; other: number } {
  const segments: DataSegment[] = [];
  let other = 0;
  if (!body) return { segments, other };
  const r = new ByteReader(body);
  const n = r.u32();
  for (let i = 0; i < n; i++) {
    const flags = r.u32();
    if (flags === 1) {
      other++;
      r.take(r.u32());
      continue;
    }
    if (flags === 2)
      r.u32(); // explicit memory index
    else if (flags !== 0) r.fail(`data segment flags ${flags}`);
    const offset = constI32(readConstExpr(r));
    const length = r.u32();
    r.take(length);
    if (offset === undefined) other++;
    else segments.push({ offset: offset >>> 0, length });
  }
  return { segments, other };
}

export function encodeDataSegment(offset: number, bytes: Uint8Array): Uint8Array {
  return new ByteWriter().u32(0).bytes(i32ConstExpr(offset)).u32(bytes.length).bytes(bytes).toBytes();
}

/** A function body: locals as (count, type) runs, then the code (which ends with `end`). */
export function encodeFuncBody(locals: Array<[number, number]>, code: Uint8Array): Uint8Array {
  const inner = new ByteWriter().u32(locals.length);
  for (const [count, type] of locals) inner.u32(count).byte(type);
  inner.bytes(code);
  return new ByteWriter().u32(inner.length).bytes(inner.toBytes()).toBytes();
}
