/**
 * The binary input encoding (compiler/binary-input.ts writes it,
 * runtime/assembly/binary.ts reads it) against the JSON path it stands in
 * for. Every input below goes both ways through one compiled module —
 * JSON.stringify + opa_eval, and BinaryInputWriter + portcullis_eval — and
 * the two result sets must be the same text: a value read differently could
 * turn a deny into an allow. Then the inputs the writer must leave to the
 * JSON path, and bytes the module must refuse rather than evaluate.
 */
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../compiler";
import { BinaryInputWriter, BINARY_EVAL_EXPORT, binaryInputJson, RESULT_CODE } from "../../compiler/binary-input";

const REGO = `package t

echo := input

# Deny by default, and allow only when nothing denies: an input read short
# (a missing user, a truncated name) would allow.
allow if not deny

deny if input.user != "admin"
deny if input.tenant != "t_acme"

# What a dump cannot show: the JSON writer prints a lone surrogate as U+FFFD
# whether or not the value holds one.
probe := {"len": count(input.user), "fffd": indexof(input.user, "\ufffd"), "parts": split(input.user, "\ufffd")}
`;

interface Internals {
  mem: WebAssembly.Memory;
  dataAddr: number;
  dataHeapPtr: number;
  wasmInstance: { exports: Record<string, (...args: number[]) => number> };
}

let policy: LoadedPolicy;
let sdk: Internals;
let writer: BinaryInputWriter;
let ids: { echo: number; allow: number; probe: number };

beforeAll(async () => {
  const { wasm } = compile([{ file: "t.rego", source: REGO }], { entrypoints: ["t/echo", "t/allow", "t/probe"] });
  policy = await loadPolicy(wasm);
  policy.setData({});
  sdk = policy as unknown as Internals;
  writer = new BinaryInputWriter(sdk.mem);
  const eps = policy.entrypoints as Record<string, number>;
  ids = { echo: eps["t/echo"]!, allow: eps["t/allow"]!, probe: eps["t/probe"]! };
}, 120_000);

/** The NUL-terminated UTF-8 text at addr. */
function cstring(addr: number): string {
  const bytes = new Uint8Array(sdk.mem.buffer);
  return Buffer.from(bytes.buffer).toString("utf8", addr, bytes.indexOf(0, addr));
}

/** The result set text of the JSON path: the SDK's own opa_eval call on JSON.stringify(input). */
function viaJson(ep: number, input: unknown): string {
  const text = JSON.stringify(input);
  const bytes = Buffer.from(text, "utf8");
  const at = sdk.dataHeapPtr;
  const need = at + bytes.length - sdk.mem.buffer.byteLength;
  if (need > 0) sdk.mem.grow(Math.ceil(need / 65536));
  new Uint8Array(sdk.mem.buffer).set(bytes, at);
  return cstring(sdk.wasmInstance.exports.opa_eval!(0, ep, sdk.dataAddr, at, bytes.length, at + bytes.length, 0));
}

const align4 = (n: number) => (n + 3) & ~3;

/** The result set text of the binary path, or null when the writer leaves the input to JSON. */
function viaBinary(ep: number, input: unknown): string | null {
  const at = align4(sdk.dataHeapPtr);
  const length = writer.write(input, at);
  if (length < 0) return null;
  return textOfCode(sdk.wasmInstance.exports[BINARY_EVAL_EXPORT]!(ep, sdk.dataAddr, at, length, at + length));
}

function textOfCode(code: number): string {
  if (code === RESULT_CODE.empty) return "[]";
  if (code === RESULT_CODE.false) return '[{"result":false}]';
  if (code === RESULT_CODE.true) return '[{"result":true}]';
  return cstring(code);
}

/** Both paths on every entrypoint: the same texts, and the binary path taken; and the bytes' own JSON text is JSON.stringify's. */
function expectSame(input: unknown): void {
  for (const ep of [ids.echo, ids.allow, ids.probe]) {
    const json = viaJson(ep, input);
    expect(viaBinary(ep, input)).toBe(json);
  }
  expectTextOfBytes(input);
}

/** The binary input's bytes, copied out of the module's memory (null when the writer declines the input). */
function bytesOf(input: unknown): Uint8Array | null {
  const at = align4(sdk.dataHeapPtr);
  const length = writer.write(input, at);
  return length < 0 ? null : new Uint8Array(sdk.mem.buffer, at, length).slice();
}

/** binaryInputJson gives back JSON.stringify(input), byte for byte (what the decision log records on the binary path). */
function expectTextOfBytes(input: unknown): void {
  const bytes = bytesOf(input);
  expect(bytes).not.toBeNull();
  const text = binaryInputJson(bytes!);
  // Compared as strings and as UTF-8: a lone surrogate left in the text would pass the first and not the second.
  expect(text).toBe(JSON.stringify(input));
  expect(Buffer.from(text, "utf8")).toEqual(Buffer.from(JSON.stringify(input), "utf8"));
}

const LONG = "x".repeat(40); // past the writer's unit-by-unit limit: written by Buffer#write

describe("binary input: the same value as JSON", () => {
  test("the decision shapes: allow and deny", () => {
    const allowed = { user: "admin", tenant: "t_acme", roles: ["admin"] };
    expectSame(allowed);
    expect(viaBinary(ids.allow, allowed)).toBe('[{"result":true}]');
    expectSame({ user: "bob", tenant: "t_acme" });
    expect(viaBinary(ids.allow, { user: "bob", tenant: "t_acme" })).toBe("[]");
  });

  test.each([
    ["NUL inside and at the end", "adm\u0000in"],
    ["NUL after a policy constant", "admin\u0000"],
    ["controls, quotes and backslashes", '\t\n\r\b\f"\\/\u001f\u007f'],
    ["line and paragraph separators", "\u2028\u2029"],
    ["non-ASCII", "Zoë, 日本, ﬁ"],
    ["an astral pair", "😀"],
    ["a lone high surrogate", "\ud800"],
    ["a lone low surrogate", "\udc00"],
    ["a reversed pair", "\udc00\ud800"],
    ["a high surrogate at the end", "admin\ud83d"],
    ["a lone surrogate next to a pair", "\ud800\ud83d\ude00\udfff"],
    ["long, with lone surrogates and NUL", `${LONG}\ud800\u0000${LONG}\udc00😀`],
    ["long non-ASCII", "é".repeat(100)],
    ["empty", ""],
    ["a constant's prefix", "admi"],
  ])("strings: %s", (_, s) => {
    expectSame({ user: s, tenant: "t_acme" });
    expectSame({ [s]: s, user: "admin", tenant: "t_acme" });
    expectSame(s);
  });

  test("strings of random units, surrogates at every position, are read as the JSON path reads them", () => {
    let x = 7;
    const next = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff), x / 0x80000000);
    const units = [0x41, 0x7f, 0xe9, 0x7fff, 0x8000, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd, 0xffff];
    for (let i = 0; i < 400; i++) {
      const s = String.fromCharCode(...Array.from({ length: Math.floor(next() * 10) }, () => units[Math.floor(next() * units.length)]!));
      expectSame({ user: s, tenant: "t_acme", [s]: [s] }); // probe reads input.user: its length and where U+FFFD is
    }
  });

  test("the policy's own constants still compare by content (interning is only a shortcut)", () => {
    for (const user of ["admin", "Admin", "admin ", "admın", "ad\u0000min"]) expectSame({ user, tenant: "t_acme" });
  });

  test.each([
    0,
    -0,
    1,
    -1,
    42,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    123456789012345680000,
    1e15,
    1234567890123456,
    1e21,
    1e-7,
    0.1,
    1 / 3,
    -2.5,
    5e-324,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    NaN,
    Infinity,
    -Infinity,
  ])("numbers: %p", (n) => {
    expectSame(n);
    expectSame({ n, list: [n, -n] });
  });

  test("members JSON.stringify leaves out, or writes as null", () => {
    const sym = Symbol("s");
    expectSame({ a: undefined, f() {}, [sym]: 1, s: sym, user: "admin", tenant: "t_acme" });
    expectSame([undefined, () => 1, sym, null, 1]);
    expectSame(new Array(3)); // holes
    const hidden = { user: "admin" };
    Object.defineProperty(hidden, "tenant", { value: "t_acme", enumerable: false });
    expectSame(hidden); // a non-enumerable tenant is not there: deny
  });

  test("keys: __proto__ as an own key, null-prototype objects, integer-like and empty keys", () => {
    expectSame(JSON.parse('{"__proto__": {"user": "admin"}, "user": "bob", "tenant": "t_acme"}'));
    expectSame(JSON.parse('{"__proto__": "x", "user": "admin", "tenant": "t_acme"}'));
    const bare = Object.create(null) as Record<string, unknown>;
    bare.user = "admin";
    bare.tenant = "t_acme";
    expectSame(bare);
    expectSame({ 10: "a", 2: "b", a: 1, "": 2, "-1": 3, constructor: 4, toString: 5, valueOf: 6 });
    expectSame({ b: 1, a: 2, ab: 3, "a\u0000": 4, é: 5, "😀": 6, "\uffff": 7 }); // order by UTF-8 bytes
  });

  test("what Object.prototype enumerates (pollution) is not the input's: the writer leaves such inputs to JSON, which does not read it", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.user = "admin";
    try {
      expect(writer.write({ tenant: "t_acme" }, align4(sdk.dataHeapPtr))).toBe(-1);
      expect(viaJson(ids.echo, { tenant: "t_acme" })).toBe('[{"result":{"tenant":"t_acme"}}]');
      // Null-prototype objects inherit nothing: still written.
      const bare = Object.assign(Object.create(null) as object, { tenant: "t_acme" });
      expect(viaBinary(ids.echo, bare)).toBe('[{"result":{"tenant":"t_acme"}}]');
    } finally {
      delete proto.user;
    }
    expectSame({ tenant: "t_acme" });
  });

  test("getters are read as JSON.stringify reads them, also when they change the object being written", () => {
    expectSame({
      get user() {
        return "admin";
      },
      tenant: "t_acme",
    });
    // JSON.stringify takes an object's keys before its values: a key an earlier getter deletes is left out, one it
    // adds is not read, one it makes non-enumerable is still read; a getter of a member changes its parent the same way.
    // Each path gets a fresh object: the getters change it.
    const changing = (): Record<string, unknown> => {
      const o: Record<string, unknown> = {
        get user(): string {
          delete o.tenant;
          o.extra = "x";
          Object.defineProperty(o, "roles", { enumerable: false });
          o.level = 2;
          return "admin";
        },
        tenant: "t_acme",
        roles: ["a"],
        level: 1,
        nested: {
          get x() {
            delete o.last;
            o.more = 1;
            return 0;
          },
        },
        last: true,
      };
      return o;
    };
    for (const ep of [ids.echo, ids.allow, ids.probe]) expect(viaBinary(ep, changing())).toBe(viaJson(ep, changing()));
    expect(binaryInputJson(bytesOf(changing())!)).toBe(JSON.stringify(changing()));
    expect(viaBinary(ids.echo, changing())).toBe('[{"result":{"level":2,"nested":{"x":0},"roles":["a"],"user":"admin"}}]');
  });

  test("nesting up to the parser's limit; the writer leaves deeper inputs to the JSON path, which refuses them", () => {
    const nest = (depth: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
      return v;
    };
    expectSame(nest(1999));
    expectSame(nest(2000));
    expect(writer.write(nest(2001), align4(sdk.dataHeapPtr))).toBe(-1);
    expect(() => viaJson(ids.echo, nest(2001))).toThrow(/invalid input/);
  });

  test("inputs larger than memory grow it, and the next input is read whole", () => {
    const big = { names: Array.from({ length: 40_000 }, (_, i) => `name-${i}-é`), blob: "z".repeat(1 << 20) + "\ud800" };
    const before = sdk.mem.buffer.byteLength;
    expectSame(big);
    expect(sdk.mem.buffer.byteLength).toBeGreaterThan(before);
    expectSame({ user: "admin", tenant: "t_acme" });
  });
});

describe("binary input: the decoder's shortcuts read the same value", () => {
  // The decoder remembers the policy's constants it met (and the strings that are none) by a hash of their units,
  // and sorts object keys comparing first units inline. A policy with constants of every interned length, sharing
  // prefixes; the helpers above read the module in `sdk`, `writer` and `ids`, swapped to this one for this block.
  const NAMES = Array.from({ length: 33 }, (_, i) => "abcdefghijklmnopqrstuvwxyz0123456".slice(0, i + 1)).concat(["invoices.get", "GET", "v2"]);
  const saved = { sdk: null as unknown as Internals, writer: null as unknown as BinaryInputWriter, ids };
  beforeAll(async () => {
    saved.sdk = sdk;
    saved.writer = writer;
    saved.ids = ids;
    const source = `package c\n\nnames := ${JSON.stringify(NAMES)}\n\necho := input\n\nallow if input.s in names\n\nprobe := [i | some i, n in names; n == input.s]\n`;
    const loaded = await loadPolicy(compile([{ file: "c.rego", source }], { entrypoints: ["c/echo", "c/allow", "c/probe"] }).wasm);
    loaded.setData({});
    sdk = loaded as unknown as Internals;
    writer = new BinaryInputWriter(sdk.mem);
    const eps = loaded.entrypoints as Record<string, number>;
    ids = { echo: eps["c/echo"]!, allow: eps["c/allow"]!, probe: eps["c/probe"]! };
  }, 120_000);
  afterAll(() => {
    sdk = saved.sdk;
    writer = saved.writer;
    ids = saved.ids;
  });

  /** Each constant, and strings that differ from it in one unit (first, middle, last), in length by one, by a NUL or a non-ASCII unit. */
  const nearby = (c: string): string[] => {
    const at = (i: number, u: string) => c.slice(0, i) + u + c.slice(i + 1);
    return [c, at(0, "Z"), at(c.length >> 1, "Z"), at(c.length - 1, "Z"), c + "x", c.slice(0, -1), c + "\u0000", at(c.length >> 1, "é"), "Z" + c.slice(1)];
  };

  test("constants of every length and the strings next to them, in turn, as values and as keys", () => {
    const strings = NAMES.flatMap(nearby).concat(["invoXXXX.get", "invoices.geT", "GEt", "v3", "", "\ud800"]);
    // Twice, the second time in reverse: what the first round remembered (a constant, or none) meets other strings.
    for (const list of [strings, [...strings].reverse()]) {
      for (const s of list) {
        expectSame({ s });
        expectSame({ [s]: 1, s, names: [s, "v2", s] });
      }
    }
    expect(viaBinary(ids.probe, { s: "invoices.get" })).toBe('[{"result":[33]}]');
    expect(viaBinary(ids.probe, { s: "invoXXXX.get" })).toBe('[{"result":[]}]');
  });

  test("a string with the same hash as a constant is read as itself, before and after the constant", () => {
    // The decoder's hash (runtime/assembly/binary.ts constantOf) of 8 units: two 8-byte words w0, w1,
    // h = ((8K ^ w0) * K ^ w1) * K mod 2^64. Another first word and the w1 that gives the same h: a full collision,
    // so the slot and signature match and only the comparison of the units tells the strings apart.
    const K = 0x9e3779b97f4a7c15n;
    const M = (1n << 64n) - 1n;
    const word = (s: string, i: number) => [0, 1, 2, 3].reduce((w, j) => w | (BigInt(s.charCodeAt(i + j)) << BigInt(16 * j)), 0n);
    const units = (w: bigint) => [0, 1, 2, 3].map((j) => String.fromCharCode(Number((w >> BigInt(16 * j)) & 0xffffn))).join("");
    const hash8 = (s: string) => (((((((8n * K) & M) ^ word(s, 0)) * K) & M) ^ word(s, 4)) * K) & M;
    const constant = "abcdefgh";
    expect(NAMES).toContain(constant);
    const head = "Zbcd";
    const tail = word(constant, 4) ^ (((((8n * K) & M) ^ word(constant, 0)) * K) & M) ^ (((((8n * K) & M) ^ word(head, 0)) * K) & M);
    const twin = head + units(tail);
    expect(twin).not.toBe(constant);
    expect(hash8(twin)).toBe(hash8(constant));
    for (const order of [
      [constant, twin, constant, twin],
      [twin, constant, twin],
    ]) {
      for (const s of order) {
        expectSame({ s });
        expect(viaBinary(ids.allow, { s })).toBe(s === constant ? '[{"result":true}]' : "[]");
      }
    }
  });

  test("object keys in every order, across the surrogates (where UTF-16 order and code point order part)", () => {
    const keys = ["a", "B", "ab", "", "é", "\ue000", "😀", "\uffff", "\ud800", "abcdefghi", "abcdefghij"];
    let x = 99;
    const next = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff), x / 0x80000000);
    for (let i = 0; i < 200; i++) {
      const order = [...keys].sort(() => next() - 0.5);
      const o: Record<string, unknown> = {};
      for (const k of order.slice(0, 1 + Math.floor(next() * keys.length))) o[k] = k;
      expectSame({ s: o });
    }
  });
});

describe("binary input: its JSON text (binaryInputJson) is JSON.stringify's", () => {
  /** A small deterministic generator (xorshift32): the same cases on every run. */
  function random(seed: number): () => number {
    let x = seed;
    return () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
  }

  test("strings of random UTF-16 units: every escape, pair and lone surrogate as JSON.stringify writes it", () => {
    const next = random(24);
    // Units from the ranges that escape or encode differently: controls, ASCII, 2- and 3-byte UTF-8, surrogates, the top.
    const ranges = [
      [0, 0x20],
      [0x20, 0x80],
      [0x80, 0x800],
      [0x800, 0xd800],
      [0xd800, 0xdc00],
      [0xdc00, 0xe000],
      [0xe000, 0x10000],
    ];
    for (let i = 0; i < 2000; i++) {
      const units: number[] = [];
      const n = Math.floor(next() * 12);
      for (let j = 0; j < n; j++) {
        const [lo, hi] = ranges[Math.floor(next() * ranges.length)]!;
        units.push(lo! + Math.floor(next() * (hi! - lo!)));
      }
      const s = String.fromCharCode(...units);
      expectTextOfBytes({ [s]: s, list: [s, ""] });
    }
  });

  test("random values: nesting, key order, numbers of every kind", () => {
    const next = random(7);
    const numbers = [0, -0, 1, -1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53, 1e21, 1e-7, 0.1, -2.5, 5e-324, Number.MAX_VALUE, NaN, Infinity];
    const keys = ["a", "b", "10", "2", "", "__proto__", "constructor", "é", "😀", "\u0000", "\ud800", '"q"'];
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 4 || r < 0.4) {
        const k = Math.floor(next() * 6);
        if (k === 0) return numbers[Math.floor(next() * numbers.length)];
        if (k === 1) return next() * 1e6 - 5e5;
        if (k === 2) return keys[Math.floor(next() * keys.length)];
        if (k === 3) return next() < 0.5;
        if (k === 4) return null;
        return undefined;
      }
      if (r < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--)
        Object.defineProperty(o, keys[Math.floor(next() * keys.length)]!, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
      return o;
    };
    for (let i = 0; i < 1000; i++) expectTextOfBytes({ v: value(0) });
  });

  const words = (...w: number[]) => new Uint8Array(Uint32Array.from(w).buffer);
  test.each([
    ["an empty input", new Uint8Array(0)],
    ["a length that is not a multiple of 4", new Uint8Array(5)],
    ["a string longer than the bytes", words(5 * 8 + 5, 0x00610061)],
    ["bytes left over", words(0, 0)],
    ["a key that is not a string", words(1 * 8 + 7, 3, 1, 0)],
    ["number text that is not JSON", words(2 * 8 + 4, 0x00003130)],
    ["a scalar with a count", words(1 * 8 + 2)],
  ])("bytes that are not one well-formed item throw: %s", (_, bytes) => {
    expect(() => binaryInputJson(bytes)).toThrow(/malformed binary input encoding/);
  });

  test("nesting past the parser's limit throws", () => {
    expect(() => binaryInputJson(words(...Array.from({ length: 2002 }, () => 1 * 8 + 6), 0))).toThrow(/malformed/);
  });
});

describe("binary input: what the writer leaves to the JSON path", () => {
  class Box {
    user = "admin";
  }
  const cycle: Record<string, unknown> = { user: "admin" };
  cycle.self = cycle;
  test.each([
    ["undefined", undefined],
    ["a function", () => 1],
    ["a BigInt", 1n],
    ["a BigInt member", { n: 1n }],
    ["a Date (toJSON)", { at: new Date(0) }],
    ["an own toJSON", { user: "bob", toJSON: () => ({ user: "admin" }) }],
    ["an inherited toJSON", Object.create({ toJSON: () => "x" }) as object],
    ["a class instance", new Box()],
    ["a Map", new Map([["user", "admin"]])],
    ["a boxed string", new String("admin")],
    ["an array subclass", new (class extends Array {})()],
    ["a cycle", cycle],
    [
      "a getter that throws",
      {
        get user(): string {
          throw new Error("no");
        },
      },
    ],
  ])("%s", (_, input) => {
    expect(writer.write(input, align4(sdk.dataHeapPtr))).toBe(-1);
  });
});

describe("binary input: bytes the module refuses", () => {
  const at = () => align4(sdk.dataHeapPtr);
  /** Evaluates raw u32 words as the input. */
  const run = (words: number[], length = words.length * 4) => {
    const base = at();
    new Uint32Array(sdk.mem.buffer, base, words.length).set(words);
    return sdk.wasmInstance.exports[BINARY_EVAL_EXPORT]!(ids.allow, sdk.dataAddr, base, length, base + align4(length));
  };
  const h = (n: number, tag: number) => n * 8 + tag;
  const str = (s: string) => {
    const units = [...s].map((c) => c.charCodeAt(0));
    if (units.length % 2) units.push(0);
    const words = [h(s.length, 5)];
    for (let i = 0; i < units.length; i += 2) words.push(units[i]! | (units[i + 1]! << 16));
    return words;
  };

  test("a well-formed input decides", () => {
    expect(run([h(2, 7), ...str("user"), ...str("admin"), ...str("tenant"), ...str("t_acme")])).toBe(RESULT_CODE.true);
  });

  test("a later duplicate key wins, as in the JSON parser", () => {
    expect(run([h(3, 7), ...str("user"), ...str("bob"), ...str("tenant"), ...str("t_acme"), ...str("user"), ...str("admin")])).toBe(RESULT_CODE.true);
    expect(run([h(3, 7), ...str("user"), ...str("admin"), ...str("tenant"), ...str("t_acme"), ...str("user"), ...str("bob")])).toBe(RESULT_CODE.empty);
    expect(
      run([h(4, 7), ...str("tenant"), ...str("x"), ...str("user"), ...str("admin"), ...str("tenant"), ...str("t_acme"), ...str("tenant"), ...str("t_acme")]),
    ).toBe(RESULT_CODE.true);
  });

  test.each([
    ["a string longer than the bytes (truncated)", [h(2, 7), ...str("user"), h(10, 5), 0x00640061, ...str("tenant"), ...str("t_acme")]],
    ["a count past the end", [h(3, 7), ...str("user"), ...str("admin"), ...str("tenant"), ...str("t_acme")]],
    ["a huge count (no allocation for it)", [h(0x1fffffff, 6)]],
    ["bytes left over", [h(0, 0), h(0, 0)]],
    ["a key that is not a string", [h(1, 7), h(0, 3), 1, h(0, 0)]],
    ["a scalar with a count", [h(1, 2)]],
    ["an integer without its word", [h(0, 3)]],
    ["number text that is not JSON", [h(2, 4), 0x00003130]], // "01"
    ["number text with a sign", [h(2, 4), 0x0000312b]], // "+1"
    ["empty number text", [h(0, 4)]],
    ["nesting past the parser's limit", [...Array.from({ length: 2002 }, () => h(1, 6)), h(0, 0)]],
  ])("%s", (_, words) => {
    expect(() => run(words)).toThrow(/invalid input/);
    // Nothing of it stays behind: the next input is read afresh.
    expect(viaBinary(ids.allow, { user: "admin", tenant: "t_acme" })).toBe('[{"result":true}]');
  });

  test("a length that is not a multiple of 4, and an empty input", () => {
    expect(() => run([h(0, 2)], 3)).toThrow(/invalid input/);
    expect(() => run([], 0)).toThrow(/invalid input/);
  });
});
