/**
 * Lookups in data documents whose strings the runtime made canonical
 * (runtime/assembly/intern.ts): a canonical key in a collection marked
 * canonical is found or missed by its address alone. These tests hold the
 * answers to what the plain string comparison gives, for keys from every
 * source (the input on each evaluation path, constants, strings built at
 * evaluation time, the data's own strings), across new data (setData), heap
 * rewinds, non-ASCII and long keys, collections past the address limit, and
 * a data text with a repeated key. Their speed is measured by
 * bench/eval-profile.bench.ts, never here.
 */
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import { BinaryInputWriter, BINARY_EVAL_EXPORT, RESULT_CODE } from "../../../compiler/binary-input";

const SOURCE = `package t

# Keys built at evaluation time (concat, json.unmarshal) are never canonical strings.

# The data's own strings (array elements) against the data's keys.
found := [n | some n in data.names; data.m[n]]

missing := [n | some n in data.names; not data.m[n]]

# A set the plan builds from the data's keys, probed by the data's strings and the input's.
keys := {k | some k, _ in data.m}

in_keys := [n | some n in data.names; n in keys]

input_in_keys := input.k in keys

# Built element by element: a constant, then a string that is not canonical,
# probed by the input's string (canonical when the data holds it too).
pair := {"zzz", concat("", [input.p, "ha"])}

pair_obj := {"zzz": 1, concat("", [input.p, "ha"]): 2}

summary := {
	"by_input": object.get(data.m, input.k, "none"),
	"by_constant": object.get(data.m, "alpha", "none"),
	"by_built": object.get(data.m, concat("", [input.p, "ha"]), "none"),
	"by_parsed": object.get(data.m, json.unmarshal(input.j), "none"),
	"found": found,
	"missing": missing,
	"in_keys": in_keys,
	"input_in_keys": input_in_keys,
	"pair_has_input": input.k in pair,
	"pair_has_constant": "zzz" in pair,
	"pair_obj_by_input": object.get(pair_obj, input.k, "none"),
	"big": object.get(data.big, input.b, "none"),
}
`;

const LONG = "a-key-longer-than-thirty-two-characters";

function dataOf(keys: string[], names: string[]): Record<string, unknown> {
  const m: Record<string, number> = {};
  keys.forEach((k, i) => (m[k] = i + 1));
  const big: Record<string, string> = {};
  for (let i = 0; i < 40; i++) big[`key${String(i).padStart(2, "0")}`] = `v${i}`;
  return { m, names, big };
}

/** What summary must be: the same lookups in JS. */
function expected(data: Record<string, unknown>, input: { k: string; p: string; j: string; b: string }): unknown {
  const m = data.m as Record<string, number>;
  const names = data.names as string[];
  const big = data.big as Record<string, string>;
  const get = (o: Record<string, unknown>, k: unknown) => (typeof k === "string" && Object.hasOwn(o, k) ? o[k] : "none");
  return {
    by_input: get(m, input.k),
    by_constant: get(m, "alpha"),
    by_built: get(m, input.p + "ha"),
    by_parsed: get(m, JSON.parse(input.j)),
    found: names.filter((n) => Object.hasOwn(m, n)),
    missing: names.filter((n) => !Object.hasOwn(m, n)),
    in_keys: names.filter((n) => Object.hasOwn(m, n)),
    input_in_keys: Object.hasOwn(m, input.k),
    pair_has_input: input.k === input.p + "ha" || input.k === "zzz",
    pair_has_constant: true,
    pair_obj_by_input: input.k === input.p + "ha" ? 2 : input.k === "zzz" ? 1 : "none",
    big: get(big, input.b),
  };
}

type Exports = Record<string, (...args: number[]) => number>;
interface Sdk {
  mem: WebAssembly.Memory;
  dataAddr: number;
  dataHeapPtr: number;
  baseHeapPtr: number;
  wasmInstance: { exports: Exports };
}

async function load(): Promise<{ policy: LoadedPolicy; sdk: Sdk; ex: Exports }> {
  const policy = await loadPolicy(compile([{ file: "t.rego", source: SOURCE }], { entrypoints: ["t/summary"] }).wasm);
  const sdk = policy as unknown as Sdk;
  return { policy, sdk, ex: sdk.wasmInstance.exports };
}

function cstring(mem: WebAssembly.Memory, at: number): string {
  const bytes = new Uint8Array(mem.buffer);
  return Buffer.from(bytes.buffer).toString("utf8", at, bytes.indexOf(0, at));
}

/** summary through opa_eval (JSON input, the SDK's path) and through portcullis_eval (binary input). */
function bothPaths(policy: LoadedPolicy, sdk: Sdk, ex: Exports, input: unknown): [unknown, unknown] {
  const viaJson = (policy.evaluate(input, "t/summary") as Array<{ result: unknown }>)[0]?.result;
  const writer = new BinaryInputWriter(sdk.mem);
  const at = (sdk.dataHeapPtr + 3) & ~3;
  const length = writer.write(input, at);
  const code = ex[BINARY_EVAL_EXPORT]!(0, sdk.dataAddr, at, length, at + length);
  if (code === RESULT_CODE.empty || code === RESULT_CODE.false || code === RESULT_CODE.true) throw new Error(`unexpected result code ${code}`);
  const viaBinary = (JSON.parse(cstring(sdk.mem, code)) as Array<{ result: unknown }>)[0]?.result;
  return [viaJson, viaBinary];
}

const INPUTS = [
  { k: "alpha", p: "alp", j: '"beta"', b: "key07" },
  { k: "beta", p: "bet", j: '"ünï"', b: "key39" },
  { k: "delta", p: "delt", j: '"gamma"', b: "key40" },
  { k: "ünï", p: "x", j: `"${LONG}"`, b: "key00" },
  { k: LONG, p: "", j: '"alpha"', b: "nope" },
  { k: "gamma", p: "gam", j: '"delta"', b: "key1" },
  { k: "beta", p: "bet", j: '"alpha"', b: "key12" },
  { k: "zzz", p: "zz", j: '"zzz"', b: "key12" },
  { k: "", p: "alp", j: '""', b: "" },
];

test("keys from the input, constants, evaluation-time strings and the data itself find exactly the data's keys", async () => {
  const { policy, sdk, ex } = await load();
  const data = dataOf(["alpha", "beta", "gamma", "ünï", LONG, ""], ["alpha", "delta", "ünï", LONG, "gamma", "zeta", "beta", ""]);
  policy.setData(data);
  // Twice round: the second time every evaluation runs on a heap rewound over the one before.
  for (let round = 0; round < 2; round++) {
    for (const input of INPUTS) expect([input, ...bothPaths(policy, sdk, ex, input)]).toEqual([input, expected(data, input), expected(data, input)]);
  }
});

test("new data replaces the strings of the old: lookups answer for the new data only", async () => {
  const { policy, sdk, ex } = await load();
  const first = dataOf(["alpha", "beta", "gamma"], ["alpha", "beta", "gamma", "delta"]);
  policy.setData(first);
  for (const input of INPUTS) expect(bothPaths(policy, sdk, ex, input)).toEqual([expected(first, input), expected(first, input)]);
  // Other strings where the old ones were: a stale canonical string would be found at an address now holding something else.
  const second = dataOf(["delta", "ünï", "gamma", "epsilon", LONG], ["gamma", "alpha", "delta", "beta", "epsilon", LONG]);
  policy.setData(second);
  for (const input of INPUTS) expect([input, ...bothPaths(policy, sdk, ex, input)]).toEqual([input, expected(second, input), expected(second, input)]);
  policy.setData(first);
  for (const input of INPUTS) expect([input, ...bothPaths(policy, sdk, ex, input)]).toEqual([input, expected(first, input), expected(first, input)]);
});

test("a host that parses its input before its first evaluation (its strings entered as data) still answers right after rewinding", async () => {
  const { sdk, ex } = await load();
  const data = dataOf(["alpha", "beta"], ["alpha", "beta", "delta"]);
  const parse = (text: string): number => {
    const bytes = Buffer.from(text);
    const at = ex.opa_malloc!(bytes.length);
    new Uint8Array(sdk.mem.buffer).set(bytes, at);
    const v = ex.opa_json_parse!(at, bytes.length);
    if (v === 0) throw new Error("did not parse");
    return v;
  };
  const dataAddr = parse(JSON.stringify(data));
  const mark = ex.opa_heap_ptr_get!();
  for (const input of [...INPUTS, ...INPUTS]) {
    ex.opa_heap_ptr_set!(mark);
    const inputAddr = parse(JSON.stringify(input));
    const ctx = ex.opa_eval_ctx_new!();
    ex.opa_eval_ctx_set_input!(ctx, inputAddr);
    ex.opa_eval_ctx_set_data!(ctx, dataAddr);
    ex.eval!(ctx);
    const result = JSON.parse(cstring(sdk.mem, ex.opa_json_dump!(ex.opa_eval_ctx_get_result!(ctx)))) as Array<{ result: unknown }>;
    expect([input, result[0]?.result]).toEqual([input, expected(data, input)]);
  }
});

test("a data text with a repeated key keeps the last value, found by every kind of key", async () => {
  const { sdk, ex } = await load();
  ex.opa_heap_ptr_set!(sdk.baseHeapPtr);
  const text = `{"m": {"beta": 9, "alpha": 1, "beta": 2, "alpha": 3}, "names": ["alpha", "beta", "alpha"], "big": {}}`;
  const bytes = Buffer.from(text);
  const at = ex.opa_malloc!(bytes.length);
  new Uint8Array(sdk.mem.buffer).set(bytes, at);
  const dataAddr = ex.opa_json_parse!(at, bytes.length);
  const dataHeapPtr = ex.opa_heap_ptr_get!();
  const data = { m: { alpha: 3, beta: 2 }, names: ["alpha", "beta", "alpha"], big: {} };
  const writer = new BinaryInputWriter(sdk.mem);
  for (const input of INPUTS) {
    const inputAt = (dataHeapPtr + 3) & ~3;
    const length = writer.write(input, inputAt);
    const code = ex[BINARY_EVAL_EXPORT]!(0, dataAddr, inputAt, length, inputAt + length);
    const result = JSON.parse(cstring(sdk.mem, code)) as Array<{ result: unknown }>;
    expect([input, result[0]?.result]).toEqual([input, expected(data, input)]);
  }
});
