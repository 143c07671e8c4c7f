/**
 * A minimal reader for the parts of a Wasm binary the runtime tests check
 * (imports with memory limits, function signatures of exports, exported
 * globals and their mutability), plus `patchGlobalInit`, which rewrites an
 * exported global's `i32.const` initializer the way the policy linker patches
 * `__heap_start`.
 */

const TYPES: Record<number, string> = { 0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64" };

export interface Signature {
  params: string[];
  results: string[];
}

export interface ModuleInfo {
  imports: { module: string; name: string; kind: number; memory?: { initial: number; maximum?: number } }[];
  /** Export name -> signature, for function exports. */
  functions: Map<string, Signature>;
  /** Export name -> { mutable, init } for global exports (init when it is an i32.const). */
  globals: Map<string, { mutable: boolean; init?: number }>;
}

class Reader {
  constructor(
    public buf: Uint8Array,
    public pos = 0,
  ) {}
  byte(): number {
    return this.buf[this.pos++];
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if (!(b & 0x80)) return result >>> 0;
      shift += 7;
    }
  }
  s32(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.byte();
      result |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return shift < 32 && b & 0x40 ? result | (~0 << shift) : result;
  }
  name(): string {
    const n = this.u32();
    const s = new TextDecoder().decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
}

interface Section {
  id: number;
  start: number; // payload start
  end: number;
  headerStart: number;
}

function sections(buf: Uint8Array): Section[] {
  const r = new Reader(buf, 8);
  const out: Section[] = [];
  while (r.pos < buf.length) {
    const headerStart = r.pos;
    const id = r.byte();
    const size = r.u32();
    out.push({ id, start: r.pos, end: r.pos + size, headerStart });
    r.pos += size;
  }
  return out;
}

interface GlobalEntry {
  mutable: boolean;
  init?: number;
  start: number;
  end: number;
}

function readGlobals(buf: Uint8Array, s: Section): GlobalEntry[] {
  const r = new Reader(buf, s.start);
  const out: GlobalEntry[] = [];
  for (let n = r.u32(); n > 0; n--) {
    const start = r.pos;
    r.byte(); // value type
    const mutable = r.byte() === 1;
    let init: number | undefined;
    const op = r.byte();
    if (op === 0x41) init = r.s32();
    else if (op === 0x42) while (r.byte() & 0x80);
    else if (op === 0x44) r.pos += 8;
    else if (op === 0x43) r.pos += 4;
    else if (op === 0x23) r.u32();
    if (r.byte() !== 0x0b) throw new Error("unsupported global initializer");
    out.push({ mutable, init, start, end: r.pos });
  }
  return out;
}

export function readModule(buf: Uint8Array): ModuleInfo {
  const info: ModuleInfo = { imports: [], functions: new Map(), globals: new Map() };
  const types: Signature[] = [];
  const funcTypes: number[] = []; // by function index, imports first
  let globals: GlobalEntry[] = [];
  let importedGlobals = 0;
  const exports: { name: string; kind: number; index: number }[] = [];
  for (const s of sections(buf)) {
    const r = new Reader(buf, s.start);
    if (s.id === 1) {
      for (let n = r.u32(); n > 0; n--) {
        if (r.byte() !== 0x60) throw new Error("unsupported type");
        const params = Array.from({ length: r.u32() }, () => TYPES[r.byte()]);
        const results = Array.from({ length: r.u32() }, () => TYPES[r.byte()]);
        types.push({ params, results });
      }
    } else if (s.id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        const module = r.name();
        const name = r.name();
        const kind = r.byte();
        const entry: ModuleInfo["imports"][number] = { module, name, kind };
        if (kind === 0) funcTypes.push(r.u32());
        else if (kind === 1) {
          r.byte();
          const flags = r.u32();
          r.u32();
          if (flags & 1) r.u32();
        } else if (kind === 2) {
          const flags = r.u32();
          entry.memory = { initial: r.u32() };
          if (flags & 1) entry.memory.maximum = r.u32();
        } else if (kind === 3) {
          r.byte();
          r.byte();
          importedGlobals++;
        }
        info.imports.push(entry);
      }
    } else if (s.id === 3) {
      for (let n = r.u32(); n > 0; n--) funcTypes.push(r.u32());
    } else if (s.id === 6) {
      globals = readGlobals(buf, s);
    } else if (s.id === 7) {
      for (let n = r.u32(); n > 0; n--) exports.push({ name: r.name(), kind: r.byte(), index: r.u32() });
    }
  }
  for (const e of exports) {
    if (e.kind === 0) info.functions.set(e.name, types[funcTypes[e.index]]);
    if (e.kind === 3) {
      const g = globals[e.index - importedGlobals];
      info.globals.set(e.name, { mutable: g.mutable, init: g.init });
    }
  }
  return info;
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** Returns a copy of the module with exported global `name` initialised to `value` (i32.const). */
export function patchGlobalInit(buf: Uint8Array, name: string, value: number): Uint8Array<ArrayBuffer> {
  const all = sections(buf);
  const exportSec = all.find((s) => s.id === 7)!;
  const r = new Reader(buf, exportSec.start);
  let index = -1;
  for (let n = r.u32(); n > 0; n--) {
    const ename = r.name();
    const kind = r.byte();
    const idx = r.u32();
    if (ename === name && kind === 3) index = idx;
  }
  if (index < 0) throw new Error(`no exported global ${name}`);
  const importedGlobals = readModule(buf).imports.filter((i) => i.kind === 3).length;
  const globalSec = all.find((s) => s.id === 6)!;
  const g = readGlobals(buf, globalSec)[index - importedGlobals];
  const replacement = [buf[g.start], buf[g.start + 1], 0x41, ...sleb(value), 0x0b];
  const payload = [...buf.subarray(globalSec.start, g.start), ...replacement, ...buf.subarray(g.end, globalSec.end)];
  return new Uint8Array([...buf.subarray(0, globalSec.headerStart), 6, ...uleb(payload.length), ...payload, ...buf.subarray(globalSec.end)]);
}
