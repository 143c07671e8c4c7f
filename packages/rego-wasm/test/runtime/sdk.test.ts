/**
 * The runtime under the real host: a hand-written stand-in for a linked
 * policy (AssemblyScript, written to build/test/ and compiled with the
 * runtime's own flags) supplies eval/opa_eval/entrypoints/builtins on top of
 * the runtime core, and @open-policy-agent/opa-wasm loads and drives it:
 * fast path (ABI 1.2) and context path, setData, heap rewinds across many
 * evaluations, a host builtin, print(), and aborts. A probe export also
 * checks number formatting of computed values against JS.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./harness";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const opa = require("@open-policy-agent/opa-wasm");

const FIXTURE = `
import { Value, ObjV, ArrV, SetV, StrV, NumV } from "../../runtime/assembly/value";
import { hostAbort, rt_host_builtin1 } from "../../runtime/assembly/host";
import { rt_ctx_input, rt_ctx_data, rt_ctx_entrypoint, rt_ctx_set_result, rt_eval_begin, rt_parse_input, rt_dump } from "../../runtime/assembly/ctx";
import { rt_dot, rt_object_insert_once } from "../../runtime/assembly/ops";
import { rt_print } from "../../runtime/assembly/print";
import { dumpJson, parseBytes } from "../../runtime/assembly/json";
export * from "../../runtime/assembly/abi";
export * from "../../runtime/assembly/ctx";

/** Test probe: JSON text of an f64 computed in Wasm (no literal text). */
export function probe_format(v: f64): usize {
  return dumpJson(new NumV(v));
}

/** Test probe: the f64 a JSON number text parses to. */
export function probe_parse(ptr: usize, len: usize): f64 {
  return changetype<NumV>(parseBytes(ptr, len, false)).value;
}

export function entrypoints(): usize {
  const o = new ObjV();
  o.setStr("test/echo", new NumV(0));
  o.setStr("test/print", new NumV(1));
  o.setStr("test/conflict", new NumV(2));
  return changetype<usize>(o);
}

export function builtins(): usize {
  const o = new ObjV();
  o.setStr("custom.double", new NumV(0));
  return changetype<usize>(o);
}

function run(ep: i32, input: usize, data: usize): usize {
  const obj = new ObjV();
  if (ep == 0) {
    if (input != 0) obj.setStr("input", changetype<Value>(input));
    obj.setStr("data", changetype<Value>(data));
    const n = input != 0 ? rt_dot(input, changetype<usize>(new StrV("n"))) : 0;
    if (n != 0) {
      const d = rt_host_builtin1(0, 0, n);
      if (d != 0) obj.setStr("double", changetype<Value>(d));
    }
  } else if (ep == 1) {
    const args = new ArrV();
    const s = new SetV();
    if (input != 0) s.add(changetype<Value>(input));
    args.items.push(s);
    args.items.push(new SetV());
    rt_print(changetype<usize>(args));
  } else if (ep == 2) {
    const k = changetype<usize>(new StrV("k"));
    rt_object_insert_once(changetype<usize>(obj), k, changetype<usize>(new NumV(1)));
    rt_object_insert_once(changetype<usize>(obj), k, changetype<usize>(new NumV(2)));
  } else {
    hostAbort("invalid entrypoint id " + ep.toString());
  }
  const binding = new ObjV();
  binding.setStr("result", obj);
  const rs = new SetV();
  rs.add(binding);
  return changetype<usize>(rs);
}

export function eval(ctx: usize): i32 {
  rt_eval_begin(0);
  rt_ctx_set_result(ctx, run(rt_ctx_entrypoint(ctx), rt_ctx_input(ctx), rt_ctx_data(ctx)));
  return 0;
}

export function opa_eval(reserved: i32, ep: i32, data: usize, input: usize, len: usize, heap: usize, fmt: i32): usize {
  if (reserved != 0) hostAbort("invalid reserved argument");
  rt_eval_begin(heap);
  const inp = rt_parse_input(input, len);
  return rt_dump(run(ep, inp, data), fmt);
}
`;

let wasm: Buffer;

beforeAll(() => {
  const dir = path.join(ROOT, "build/test");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "sdk-policy.ts"), FIXTURE);
  execFileSync(process.execPath, [path.join(ROOT, "runtime/build.mjs"), "--entry", "build/test/sdk-policy.ts", "--out", "build/test/sdk-policy.wasm"], {
    cwd: ROOT,
    stdio: "pipe",
  });
  wasm = readFileSync(path.join(dir, "sdk-policy.wasm"));
});

const load = () => opa.loadPolicy(wasm, undefined, { "custom.double": (x: number) => x * 2 });

test("fast path: input, data, host builtin", async () => {
  const policy = await load();
  expect(policy.minorVersion).toBe(3);
  expect(policy.entrypoints).toEqual({ "test/echo": 0, "test/print": 1, "test/conflict": 2 });
  expect(policy.evaluate({ n: 21, s: "héllo" })).toEqual([{ result: { input: { n: 21, s: "héllo" }, data: {}, double: 42 } }]);
  policy.setData({ roles: { admin: ["alice"] } });
  expect(policy.evaluate({ n: 1 }, "test/echo")).toEqual([{ result: { input: { n: 1 }, data: { roles: { admin: ["alice"] } }, double: 2 } }]);
  // the SDK sends falsy inputs as "no input"
  expect(policy.evaluate(undefined)).toEqual([{ result: { data: { roles: { admin: ["alice"] } } } }]);
});

test("context path (ABI < 1.2) gives the same results", async () => {
  const policy = await load();
  policy.minorVersion = 1;
  policy.setData({ x: [1, 2] });
  expect(policy.evaluate({ n: 5 })).toEqual([{ result: { input: { n: 5 }, data: { x: [1, 2] }, double: 10 } }]);
  expect(policy.evaluate(false)).toEqual([{ result: { input: false, data: { x: [1, 2] } } }]);
});

test("the heap is rewound between evaluations", async () => {
  const policy = await load();
  policy.setData({ big: "d".repeat(10000) });
  const input = { items: Array.from({ length: 200 }, (_, i) => ({ i, s: "x".repeat(20) })) };
  policy.evaluate(input);
  const size = policy.mem.buffer.byteLength;
  for (let i = 0; i < 2000; i++) policy.evaluate(input);
  expect(policy.mem.buffer.byteLength).toBe(size);
  expect(policy.evaluate({ n: 1 })[0].result.double).toBe(2);
});

test("print goes through opa_println; aborts become JS throws", async () => {
  const policy = await load();
  const log = jest.spyOn(console, "log").mockImplementation(() => {});
  try {
    expect(policy.evaluate("hi", "test/print")).toEqual([{ result: {} }]);
    expect(log).toHaveBeenCalledWith("hi <undefined>");
  } finally {
    log.mockRestore();
  }
  expect(() => policy.evaluate({}, "test/conflict")).toThrow("eval_conflict_error: object keys must be unique");
  expect(() => policy.evaluate({}, 7)).toThrow("invalid entrypoint id 7");
});

function probes() {
  const memory = new WebAssembly.Memory({ initial: 5 });
  const fail = () => {
    throw new Error("unexpected host call");
  };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(wasm)), {
    env: { memory, opa_abort: fail, opa_println: fail, opa_builtin0: fail, opa_builtin1: fail, opa_builtin2: fail, opa_builtin3: fail, opa_builtin4: fail },
  });
  return { memory, x: instance.exports as Record<string, (...a: number[]) => number> };
}

/** Random finite doubles over the whole range (bit patterns), plus short decimals. */
function randomDoubles(seed: number, n: number): number[] {
  const f = new Float64Array(1);
  const u = new BigUint64Array(f.buffer);
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    u[0] = (BigInt(Math.floor(rand() * 0x7ff)) << 52n) | (BigInt(Math.floor(rand() * 2 ** 26)) << 26n) | BigInt(Math.floor(rand() * 2 ** 26));
    if (Number.isFinite(f[0])) out.push(f[0]);
    out.push(Math.round(rand() * 1e6) / 1000);
  }
  return out;
}

test("number text parses to the correctly rounded double", () => {
  const { memory, x } = probes();
  const top = x.opa_heap_ptr_get();
  const parse = (text: string) => {
    x.opa_heap_ptr_set(top);
    const b = new TextEncoder().encode(text);
    const p = x.opa_malloc(b.length);
    new Uint8Array(memory.buffer).set(b, p);
    return x.probe_parse(p, b.length);
  };
  const texts = [
    "1e23",
    "8.98846567431158e307",
    "2.2250738585072011e-308",
    "4.9e-324",
    "2.4703282292062328e-324",
    "1.7976931348623159e308",
    "0.1",
    "123456789012345678901234567890",
  ];
  const values = randomDoubles(5, 1000);
  const wrong: string[] = [];
  for (const t of texts) if (!Object.is(parse(t), Number(t))) wrong.push(t);
  for (const d of values) {
    for (const t of [JSON.stringify(d), d.toExponential(24), d.toPrecision(17), d.toExponential(40)]) {
      if (!Object.is(parse(t), Number(t))) wrong.push(t);
    }
  }
  expect(wrong).toEqual([]);
});

test("computed numbers print like JS's Number#toString (shortest round trip)", () => {
  const { memory, x } = probes();
  const text = (addr: number) => {
    const b = new Uint8Array(memory.buffer);
    let end = addr;
    while (b[end]) end++;
    return new TextDecoder().decode(b.subarray(addr, end));
  };
  const values = [
    0.1 + 0.2,
    1e23,
    1e21,
    1e-7,
    123456789012345680000,
    5e-324,
    1.7976931348623157e308,
    -2.5,
    0.000001,
    2 ** 53 + 2,
    1 / 3,
    0.1,
    -0.001,
    1.5e-6,
    9.99e-7,
    123456789.123,
    99999999999999.9,
    999999999999999.9,
    1e15 + 0.5,
    0.1 * 3,
    10.5,
    -1e-6,
  ];
  values.push(...randomDoubles(99, 3000));
  const top = x.opa_heap_ptr_get();
  const wrong = values.filter((v) => {
    const got = text(x.probe_format(v));
    x.opa_heap_ptr_set(top);
    return got !== String(v).replace("Infinity", "null");
  });
  expect(wrong.map((v) => [String(v), (x.opa_heap_ptr_set(top), text(x.probe_format(v)))])).toEqual([]);
});
