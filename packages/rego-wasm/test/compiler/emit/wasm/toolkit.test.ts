/** The Wasm binary toolkit: LEB128, section split/rejoin, section codecs, the code builder. */
import * as fs from "node:fs";
import * as path from "node:path";
import { ByteReader, encodeS32, encodeU32, WasmFormatError } from "../../../../compiler/emit/wasm/bytes";
import { Code } from "../../../../compiler/emit/wasm/code";
import { findSection, readModule, SectionId, setSection, writeModule } from "../../../../compiler/emit/wasm/module";
import { addFunctionNames } from "../../../../compiler/emit/wasm/names";
import {
  encodeExports,
  encodeFuncBody,
  encodeFuncType,
  encodeGlobals,
  encodeImports,
  readExports,
  readGlobals,
  readImports,
  readTypes,
  ValType,
} from "../../../../compiler/emit/wasm/sections";

const runtimePath = path.join(__dirname, "../../../../build/runtime.wasm");

describe("LEB128", () => {
  test.each([0, 1, 63, 64, 127, 128, 255, 16383, 16384, 2 ** 31, 0xffffffff])("u32 %d", (v) => {
    const r = new ByteReader(Uint8Array.from(encodeU32(v)));
    expect(r.u32()).toBe(v);
    expect(r.done).toBe(true);
  });
  test.each([0, 1, -1, 63, 64, -64, -65, 127, 128, -128, 2 ** 31 - 1, -(2 ** 31)])("s32 %d", (v) => {
    const r = new ByteReader(Uint8Array.from(encodeS32(v)));
    expect(r.s32()).toBe(v);
    expect(r.done).toBe(true);
  });
  test("known encodings", () => {
    expect(encodeU32(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(encodeS32(-123456)).toEqual([0xc0, 0xbb, 0x78]);
  });
  test("reads padded encodings and rejects overlong ones", () => {
    expect(new ByteReader(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x00])).u32()).toBe(0);
    expect(() => new ByteReader(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x00])).u32()).toThrow(WasmFormatError);
    expect(() => new ByteReader(Uint8Array.from([0x80])).u32()).toThrow(/unexpected end/);
  });
});

describe("module reader/writer", () => {
  const runtime = fs.readFileSync(runtimePath);

  test("round-trips build/runtime.wasm byte for byte", () => {
    const out = writeModule(readModule(runtime));
    expect(Buffer.from(out).equals(runtime)).toBe(true);
  });

  test("section codecs re-encode the runtime's sections exactly", () => {
    const m = readModule(runtime);
    const body = (id: number) => findSection(m, id)!.body;
    expect(encodeImports(readImports(body(SectionId.import)))).toEqual(body(SectionId.import));
    expect(encodeExports(readExports(body(SectionId.export)))).toEqual(body(SectionId.export));
    expect(encodeGlobals(readGlobals(body(SectionId.global)))).toEqual(body(SectionId.global));
    const types = readTypes(body(SectionId.type));
    const w = [...encodeU32(types.length)];
    for (const t of types) w.push(...encodeFuncType(t));
    expect(Uint8Array.from(w)).toEqual(body(SectionId.type));
  });

  test("rejects what is not a module", () => {
    expect(() => readModule(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]))).toThrow(/bad magic/);
    expect(() => readModule(runtime.subarray(0, runtime.length - 3))).toThrow(WasmFormatError);
    expect(() => readModule(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 3, 1, 0, 1, 1, 0]))).toThrow(/out of order/);
  });
});

describe("building a module from scratch", () => {
  test("a function made with Code validates and runs", () => {
    const m = readModule(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    // (i32) -> i32: 10 for 0, 20 for 1, 30 otherwise, via br_table.
    const c = new Code();
    const other = c.block();
    const one = c.block();
    const zero = c.block();
    c.get(0).brTable([zero, one], other);
    c.end(zero).i32(10).return();
    c.end(one).i32(20).return();
    c.end(other).i32(30);
    const body = encodeFuncBody([], c.finish());
    setSection(m, SectionId.type, Uint8Array.from([1, ...encodeFuncType({ params: [ValType.i32], results: [ValType.i32] })]));
    setSection(m, SectionId.export, encodeExports([{ name: "f", kind: 0, index: 0 }]));
    setSection(m, SectionId.code, Uint8Array.from([1, ...body]));
    setSection(m, SectionId.function, Uint8Array.from([1, 0]));
    addFunctionNames(m, [[0, "pick"]]);
    const bytes = writeModule(m);
    expect(WebAssembly.validate(bytes)).toBe(true);
    const f = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f as (x: number) => number;
    expect([f(0), f(1), f(2), f(-1)]).toEqual([10, 20, 30, 30]);
    expect(m.sections.map((s) => s.id)).toEqual([1, 3, 7, 10, 0]);
  });

  test("Code refuses unbalanced structure", () => {
    const c = new Code();
    const a = c.block();
    c.block();
    expect(() => c.end(a)).toThrow(/unbalanced/);
    const d = new Code();
    d.block();
    expect(() => d.finish()).toThrow(/unclosed/);
    const e = new Code();
    const arm = e.i32(1).if();
    e.block();
    expect(() => e.else(arm)).toThrow(/not the innermost/);
  });
});
