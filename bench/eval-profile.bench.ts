/**
 * Where one evaluation's time goes (run on demand, never a test):
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/eval-profile.bench.js [--cpu-loop <seconds> [--only decision|drop|mask]] [--runtime <file.wasm>]
 *
 * Builds the real policy bundle from rego/ (portcullis/decision,
 * system/log/mask, system/log/drop) plus a trivial one-rule policy, links
 * them with the runtime's internal exports kept, and times the pieces of
 * one `evaluate()` through @open-policy-agent/opa-wasm separately:
 *
 *   stringify   JSON.stringify(input)                      (SDK, JS)
 *   encode+copy TextEncoder.encode + copy into Wasm memory (SDK, JS)
 *   parse       rt_parse_input: input JSON -> values       (Wasm)
 *   plan        the entrypoint's plan on the parsed input  (Wasm, context path `eval`)
 *   dump        opa_json_dump of the result set            (Wasm)
 *   decode      TextDecoder + JSON.parse of the result     (SDK, JS)
 *   evaluate()  the whole SDK call, for comparison with the sum
 *   binary      what Engine does instead when the module has portcullis_eval:
 *               BinaryInputWriter + portcullis_eval (decode, plan, a code
 *               or a dump) + JSON.parse of a dump
 *
 * With `--baseline <dir>` (a checkout of an earlier revision with its
 * compiler and runtime built, e.g. from `git archive`), the same
 * policies compiled by that revision's compiler and runtime are timed too,
 * evaluate() against evaluate() in interleaved rounds (and the binary path
 * against the binary path when both revisions have it, and the plan alone:
 * eval on a parsed input, with the heap bytes one plan allocates; and the
 * input's parse alone; and the result set's dump alone), so both see the
 * same machine load:
 *
 *   mkdir /tmp/base && git archive HEAD | tar -x -C /tmp/base && ln -s $PWD/node_modules /tmp/base/
 *   (cd /tmp/base && make build)
 *   node dist/bench/eval-profile.bench.js --baseline /tmp/base
 *
 * (and the binary input alone: the writer, and the module's decode of its
 * bytes, when the baseline has both; for the PDP bench's input and for the
 * largest body the API admits).
 *
 * Every figure is the median over rounds of the per-call mean in µs. With
 * `--cpu-loop N` it afterwards just runs decision + drop + mask evaluate()
 * calls for N seconds, for `node --cpu-prof` (names of the policy's Wasm
 * functions come from the name section: rule paths, and the runtime's helpers
 * when `--runtime` points at a build that keeps names:
 *
 *   node packages/rego-wasm/runtime/build.mjs --names --out /tmp/runtime-names.wasm
 *   node --cpu-prof dist/bench/eval-profile.bench.js --runtime /tmp/runtime-names.wasm --cpu-loop 10
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { BINARY_EVAL_EXPORT, BinaryInputWriter, compile, EvaluationClock, link, loadRuntimeWasm } from "@portcullis/rego-wasm";
import { collectPolicyInputs } from "../cli/files";
import { DEFAULT_BODY_LIMIT_BYTES } from "../api/app";
import { manyFieldNames, PEER_INPUTS, PEERS_REGO } from "./fixtures";

/** The repository root (this file runs from dist/bench/). */
const ROOT = path.resolve(__dirname, "../..");

const ROUNDS = 21;
const PER_ROUND = 1000;

/** The PDP bench's input: a member reading one invoice. */
const DECISION_INPUT = {
  actor: { id: "u_alice", tenant: "t_acme", roles: ["member"] },
  action: "read",
  resource: { type: "invoice", id: "inv_1" },
  route: { id: "invoices.get", method: "GET", version: "v2" },
  fields: { submitted: [] as string[] },
  params: ["q"],
};

/** The decision input with the largest body the API admits: every field name sent to the policy (as bench/ab.bench.ts's `big`). */
const BIG_INPUT = {
  ...DECISION_INPUT,
  action: "update",
  resource: { type: "user", id: "u_alice" },
  route: { id: "users.me.update", method: "PATCH", version: "v2" },
  fields: { submitted: manyFieldNames(DEFAULT_BODY_LIMIT_BYTES) },
};

/** The decision-log event for that decision, as pdp/log/core/event.ts builds it (no secrets: the common case). */
function logEvent(result: unknown): Record<string, unknown> {
  return {
    decision_id: "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f",
    labels: { id: "0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f", version: "0.1.0" },
    timestamp: "2026-11-21T14:12:13.123456789Z",
    path: "portcullis/decision",
    input: DECISION_INPUT,
    result,
    bundles: { portcullis: { revision: "bench" } },
    requested_by: "127.0.0.1",
    req_id: 42,
    metrics: { timer_rego_query_eval_ns: 21000 },
  };
}

/** What the loader exposes beyond LoadedPolicy's public surface. */
interface SdkInternals {
  wasmInstance: WebAssembly.Instance;
  mem: WebAssembly.Memory;
  dataAddr: number;
  dataHeapPtr: number;
}

type Exports = Record<string, (...args: number[]) => number>;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median over rounds of the mean per-call time in µs; `setup` runs untimed before each call. */
function time(fn: () => unknown, setup?: () => void): number {
  const samples: number[] = [];
  for (let r = -2; r < ROUNDS; r++) {
    let total = 0n;
    for (let i = 0; i < PER_ROUND; i++) {
      setup?.();
      const t0 = process.hrtime.bigint();
      fn();
      total += process.hrtime.bigint() - t0;
    }
    if (r >= 0) samples.push(Number(total) / 1000 / PER_ROUND); // the first two rounds warm up
  }
  return median(samples);
}

/** Like time(), for two functions measured in alternating rounds: [median a, median b]. */
function timePair(a: () => unknown, b: () => unknown): [number, number] {
  const sa: number[] = [];
  const sb: number[] = [];
  const round = (fn: () => unknown): number => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i++) fn();
    return Number(process.hrtime.bigint() - t0) / 1000 / PER_ROUND;
  };
  for (let r = -2; r < ROUNDS * 2; r++) {
    // Which runs first alternates: whichever runs second was measured ~10% faster even against itself.
    let x: number;
    let y: number;
    if (r & 1) {
      y = round(b);
      x = round(a);
    } else {
      x = round(a);
      y = round(b);
    }
    if (r >= 0) {
      sa.push(x);
      sb.push(y);
    }
  }
  return [median(sa), median(sb)];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * What evaluate() does on the ABI 1.2 fast path, minus its per-call
 * allocations: the input is encoded straight into Wasm memory, and one
 * TextEncoder/TextDecoder serve every call. The "direct" row shows what a
 * host calling opa_eval itself would save.
 */
function directEvaluate(sdk: SdkInternals, input: unknown, entrypoint: number): unknown {
  const ex = sdk.wasmInstance.exports as unknown as Exports;
  const text = JSON.stringify(input);
  const at = sdk.dataHeapPtr;
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const need = at + text.length * 3 - sdk.mem.buffer.byteLength;
  if (need > 0) sdk.mem.grow(Math.ceil(need / 65536));
  let mem = new Uint8Array(sdk.mem.buffer);
  const { written } = encoder.encodeInto(text, mem.subarray(at));
  const out = ex.opa_eval(0, entrypoint, sdk.dataAddr, at, written, at + written, 0);
  mem = new Uint8Array(sdk.mem.buffer); // evaluation may have grown the memory
  const end = mem.indexOf(0, out);
  return JSON.parse(decoder.decode(mem.subarray(out, end)));
}

type Evaluate = (input: unknown, entrypoint: number) => unknown;

/**
 * Engine's binary input path on a loaded module (writer + portcullis_eval),
 * with `Writer` from the revision that compiled it; undefined when the
 * module has no portcullis_eval.
 */
function binaryEvaluator(policy: LoadedPolicy, Writer: typeof BinaryInputWriter): Evaluate | undefined {
  const sdk = policy as unknown as SdkInternals;
  const run = (sdk.wasmInstance.exports as unknown as Exports)[BINARY_EVAL_EXPORT];
  if (typeof run !== "function") return undefined;
  const writer = new Writer(sdk.mem);
  const at = (sdk.dataHeapPtr + 3) & ~3;
  return (input, entrypoint) => {
    const length = writer.write(input, at);
    if (length < 0) throw new Error("the binary writer declined the input");
    const code = run(entrypoint, sdk.dataAddr, at, length, at + length);
    if (code <= 2) return code; // [], false, true: no dump
    const mem = new Uint8Array(sdk.mem.buffer);
    return JSON.parse(decoder.decode(mem.subarray(code, mem.indexOf(0, code))));
  };
}

interface Row {
  name: string;
  bytesIn: number;
  bytesOut: number;
  pieces: Record<string, number>;
}

/** Times each piece of evaluate(entrypoint, input) on an already loaded policy. */
function profile(name: string, policy: LoadedPolicy, entrypoint: number, input: unknown): Row {
  const sdk = policy as unknown as SdkInternals;
  const ex = sdk.wasmInstance.exports as unknown as Exports;
  const mem = () => new Uint8Array(sdk.mem.buffer);
  const base = sdk.dataHeapPtr;
  const text = JSON.stringify(input);
  const bytes = new TextEncoder().encode(text);
  mem().set(bytes, base);
  const inputEnd = base + bytes.length;

  // Parse once, keep the value below a fixed heap mark, and rerun the plan from there.
  ex.opa_heap_ptr_set(inputEnd);
  const parsed = ex.rt_parse_input(base, bytes.length);
  const ctx = ex.opa_eval_ctx_new();
  ex.opa_eval_ctx_set_input(ctx, parsed);
  ex.opa_eval_ctx_set_data(ctx, sdk.dataAddr);
  ex.opa_eval_ctx_set_entrypoint(ctx, entrypoint);
  const mark = ex.opa_heap_ptr_get();
  ex.opa_heap_ptr_set(mark);
  ex.eval(ctx);
  const resultSet = ex.opa_eval_ctx_get_result(ctx);
  const afterPlan = ex.opa_heap_ptr_get();
  const dumped = ex.opa_json_dump(resultSet);
  let end = dumped;
  while (mem()[end] !== 0) end++;
  const resultText = new TextDecoder().decode(new Uint8Array(sdk.mem.buffer, dumped, end - dumped));

  const pieces: Record<string, number> = {};
  pieces.stringify = time(() => JSON.stringify(input));
  pieces["encode+copy"] = time(() => mem().set(new TextEncoder().encode(text), base));
  pieces.parse = time(
    () => ex.rt_parse_input(base, bytes.length),
    () => ex.opa_heap_ptr_set(inputEnd),
  );
  pieces.plan = time(
    () => ex.eval(ctx),
    () => ex.opa_heap_ptr_set(mark),
  );
  pieces.dump = time(
    () => ex.opa_json_dump(resultSet),
    () => ex.opa_heap_ptr_set(afterPlan),
  );
  pieces.decode = time(() => JSON.parse(new TextDecoder().decode(new Uint8Array(sdk.mem.buffer, dumped, end - dumped))));
  pieces["sum of pieces"] = Object.values(pieces).reduce((a, b) => a + b, 0);
  pieces["evaluate()"] = time(() => policy.evaluate(input, entrypoint));
  pieces["direct"] = time(() => directEvaluate(sdk, input, entrypoint));
  const binary = binaryEvaluator(policy, BinaryInputWriter);
  if (binary) pieces["binary"] = time(() => binary(input, entrypoint));
  return { name, bytesIn: bytes.length, bytesOut: resultText.length, pieces };
}

/**
 * The input's JSON text written at the data heap top through OPA's ABI (the
 * baseline's modules keep no runtime exports), the heap rewound first.
 */
function inputText(policy: LoadedPolicy, input: unknown): { sdk: SdkInternals; ex: Exports; at: number; length: number } {
  const sdk = policy as unknown as SdkInternals;
  const ex = sdk.wasmInstance.exports as unknown as Exports;
  const bytes = new TextEncoder().encode(JSON.stringify(input));
  ex.opa_heap_ptr_set(sdk.dataHeapPtr);
  const at = ex.opa_malloc(bytes.length);
  new Uint8Array(sdk.mem.buffer).set(bytes, at);
  return { sdk, ex, at, length: bytes.length };
}

/**
 * The entrypoint's plan on `input`, parsed once into the policy's memory:
 * `run` rewinds the heap to just above the parsed input and evaluates
 * again (what profile() times as "plan"); `heapBytes` is what one plan
 * allocates.
 */
function planRunner(policy: LoadedPolicy, entrypoint: number, input: unknown): { run: () => void; heapBytes: number } {
  const { sdk, ex, at, length } = inputText(policy, input);
  const parsed = ex.opa_json_parse(at, length);
  const ctx = ex.opa_eval_ctx_new();
  ex.opa_eval_ctx_set_input(ctx, parsed);
  ex.opa_eval_ctx_set_data(ctx, sdk.dataAddr);
  ex.opa_eval_ctx_set_entrypoint(ctx, entrypoint);
  const mark = ex.opa_heap_ptr_get();
  ex.eval(ctx);
  const heapBytes = ex.opa_heap_ptr_get() - mark;
  return {
    run: () => {
      ex.opa_heap_ptr_set(mark);
      ex.eval(ctx);
    },
    heapBytes,
  };
}

/**
 * The input's JSON text parsed as `opa_eval` parses it (Rego mode, through
 * OPA's ABI, which the baseline's modules keep too): `run` rewinds the heap
 * to just above the text and parses it again; `heapBytes` is what one
 * parse allocates (less for every string found among the policy's constants).
 */
function parseRunner(policy: LoadedPolicy, input: unknown): { run: () => void; heapBytes: number } {
  const { ex, at, length } = inputText(policy, input);
  const mark = ex.opa_heap_ptr_get();
  if (ex.opa_value_parse(at, length) === 0) throw new Error("the input did not parse");
  return {
    run: () => {
      ex.opa_heap_ptr_set(mark);
      ex.opa_value_parse(at, length);
    },
    heapBytes: ex.opa_heap_ptr_get() - mark,
  };
}

/**
 * The binary input of `input` on a policy linked with the runtime's exports
 * kept: `write` writes it at the data heap top with `Writer` (that
 * revision's), `decode` rewinds the heap to just above it and decodes it
 * again with rt_input_decode.
 */
function inputRunner(policy: LoadedPolicy, Writer: typeof BinaryInputWriter, input: unknown): { write: () => void; decode: () => void; bytes: number } {
  const sdk = policy as unknown as SdkInternals;
  const ex = sdk.wasmInstance.exports as unknown as Exports;
  const writer = new Writer(sdk.mem);
  const at = (sdk.dataHeapPtr + 3) & ~3;
  const bytes = writer.write(input, at);
  if (bytes < 0) throw new Error("the binary writer declined the input");
  return {
    write: () => writer.write(input, at),
    decode: () => {
      ex.opa_heap_ptr_set(at + bytes);
      ex.rt_input_decode(at, bytes);
    },
    bytes,
  };
}

/**
 * The entrypoint's result set for `input` dumped as opa_json_dump dumps it
 * (what Engine reads after every evaluation that is not a boolean): `run`
 * rewinds the heap to just above the result and dumps it again;
 * `bytes` is the dump's length.
 */
function dumpRunner(policy: LoadedPolicy, entrypoint: number, input: unknown): { run: () => void; bytes: number } {
  const { sdk, ex, at, length } = inputText(policy, input);
  const ctx = ex.opa_eval_ctx_new();
  ex.opa_eval_ctx_set_input(ctx, ex.opa_json_parse(at, length));
  ex.opa_eval_ctx_set_data(ctx, sdk.dataAddr);
  ex.opa_eval_ctx_set_entrypoint(ctx, entrypoint);
  ex.eval(ctx);
  const result = ex.opa_eval_ctx_get_result(ctx);
  const mark = ex.opa_heap_ptr_get();
  const dump = ex.opa_json_dump(result);
  const memory = Buffer.from(sdk.mem.buffer);
  return {
    run: () => {
      ex.opa_heap_ptr_set(mark);
      ex.opa_json_dump(result);
    },
    bytes: memory.indexOf(0, dump) - dump,
  };
}

async function load(wasm: Uint8Array, data: unknown, clock: EvaluationClock): Promise<LoadedPolicy> {
  const policy = await loadPolicy(wasm, undefined, clock.builtins());
  policy.setData(data as object);
  return policy;
}

function print(rows: Row[]): void {
  const names = Object.keys(rows[0]!.pieces);
  const header = ["µs per call".padEnd(16), ...rows.map((r) => r.name.padStart(14))].join("");
  console.log(header);
  console.log(["bytes in/out".padEnd(16), ...rows.map((r) => `${r.bytesIn}/${r.bytesOut}`.padStart(14))].join(""));
  for (const n of names) console.log([n.padEnd(16), ...rows.map((r) => r.pieces[n]!.toFixed(2).padStart(14))].join(""));
}

async function main(): Promise<void> {
  const loopArg = process.argv.indexOf("--cpu-loop");
  const loopSeconds = loopArg >= 0 ? Number(process.argv[loopArg + 1] ?? 10) : 0;
  const runtimeArg = process.argv.indexOf("--runtime");
  const runtime = runtimeArg >= 0 ? fs.readFileSync(process.argv[runtimeArg + 1]!) : loadRuntimeWasm();
  const keep = { keepRuntimeExports: true };
  const clock = new EvaluationClock();
  clock.tick();

  const { sources, data } = collectPolicyInputs([path.join(ROOT, "rego")]);
  const entrypoints = ["portcullis/decision", "system/log/mask", "system/log/drop"];
  const real = await load(link(compile(sources, { entrypoints }).policy, runtime, keep), data, clock);
  const trivialSource = 'package t\n\nallow if input.actor.id == "u_alice"\n';
  const trivial = await load(link(compile([{ file: "t.rego", source: trivialSource }], { entrypoints: ["t/allow"] }).policy, runtime, keep), {}, clock);

  const peers = await load(link(compile([{ file: "peers.rego", source: PEERS_REGO }], { entrypoints: ["peers/allow"] }).policy, runtime, keep), {}, clock);

  const baselineArg = process.argv.indexOf("--baseline");
  let baseline: { real: LoadedPolicy; trivial: LoadedPolicy; peers: LoadedPolicy; Writer?: typeof BinaryInputWriter; realKept?: LoadedPolicy } | undefined;
  if (baselineArg >= 0) {
    // That revision's compiler and runtime, on today's rego/: in packages/rego-wasm since the toolchain became
    // a workspace package, in dist/pdp/compiler and build/ before (the revisions one compares against).
    const dir = path.resolve(process.argv[baselineArg + 1]!);
    const pkg = path.join(dir, "packages/rego-wasm");
    const moved = fs.existsSync(path.join(pkg, "package.json"));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS from a path known only at run time
    const old = require(moved ? path.join(pkg, "dist") : path.join(dir, "dist/pdp/compiler")) as {
      compile: typeof compile;
      link?: typeof link;
      BinaryInputWriter?: typeof BinaryInputWriter;
    };
    const oldRuntime = fs.readFileSync(path.join(moved ? pkg : dir, "build/runtime.wasm"));
    baseline = {
      real: await load(old.compile(sources, { entrypoints, runtimeWasm: oldRuntime }).wasm, data, clock),
      trivial: await load(old.compile([{ file: "t.rego", source: trivialSource }], { entrypoints: ["t/allow"], runtimeWasm: oldRuntime }).wasm, {}, clock),
      peers: await load(old.compile([{ file: "peers.rego", source: PEERS_REGO }], { entrypoints: ["peers/allow"], runtimeWasm: oldRuntime }).wasm, {}, clock),
      Writer: old.BinaryInputWriter,
      // The decision policy with the runtime's exports kept (rt_input_decode), when that revision has both.
      realKept:
        old.link && old.BinaryInputWriter ? await load(old.link(old.compile(sources, { entrypoints }).policy, oldRuntime, keep), data, clock) : undefined,
    };
  }

  const decision = (real.evaluate(DECISION_INPUT, 0) as Array<{ result: unknown }>)[0]?.result;
  const event = logEvent(decision);
  console.log(`decision: ${JSON.stringify(decision)}`);
  console.log(`mask: ${JSON.stringify(real.evaluate(event, 1))}  drop: ${JSON.stringify(real.evaluate(event, 2))}\n`);

  const rows = [
    profile("trivial", trivial, 0, DECISION_INPUT),
    profile("peers", peers, 0, PEER_INPUTS[0]),
    profile("decision", real, 0, DECISION_INPUT),
    profile("drop", real, 2, event),
    profile("mask", real, 1, event),
  ];
  print(rows);
  const total = rows.slice(1).reduce((a, r) => a + r.pieces["evaluate()"]!, 0);
  console.log(`\ndecision + drop + mask evaluate(): ${total.toFixed(2)} µs (median per call, summed)`);

  if (baseline) {
    console.log(`\nevaluate() µs, baseline vs this tree, interleaved rounds:`);
    const cases: Array<[string, LoadedPolicy, LoadedPolicy, number, unknown]> = [
      ["trivial", baseline.trivial, trivial, 0, DECISION_INPUT],
      ["decision", baseline.real, real, 0, DECISION_INPUT],
      ["drop", baseline.real, real, 2, event],
      ["mask", baseline.real, real, 1, event],
    ];
    let sumBase = 0;
    let sumNow = 0;
    for (const [name, before, after, ep, input] of cases) {
      const [was, is] = [JSON.stringify(before.evaluate(input, ep)), JSON.stringify(after.evaluate(input, ep))];
      if (was !== is) console.log(`note: ${name} differs: baseline ${was}, this tree ${is}`);
      const [b, a] = timePair(
        () => before.evaluate(input, ep),
        () => after.evaluate(input, ep),
      );
      if (name !== "trivial") {
        sumBase += b;
        sumNow += a;
      }
      console.log(`${name.padEnd(16)}${b.toFixed(2).padStart(10)} -> ${a.toFixed(2).padStart(8)}  (${(b / a).toFixed(2)}x)`);
    }
    console.log(`${"decision+drop+mask".padEnd(16)}${sumBase.toFixed(2).padStart(8)} -> ${sumNow.toFixed(2).padStart(8)}  (${(sumBase / sumNow).toFixed(2)}x)`);

    console.log(`\nbinary path µs (writer + portcullis_eval), baseline vs this tree, interleaved rounds:`);
    const Writer = baseline.Writer;
    const binaryCases: Array<[string, LoadedPolicy, LoadedPolicy, number, unknown[]]> = [
      ["peers", baseline.peers, peers, 0, PEER_INPUTS],
      ["trivial", baseline.trivial, trivial, 0, [DECISION_INPUT]],
      ["decision", baseline.real, real, 0, [DECISION_INPUT]],
    ];
    for (const [name, before, after, ep, inputs] of binaryCases) {
      const was = Writer && binaryEvaluator(before, Writer);
      const is = binaryEvaluator(after, BinaryInputWriter);
      if (!was || !is) {
        console.log(`${name.padEnd(16)}(no portcullis_eval in ${was ? "this tree" : "the baseline"})`);
        continue;
      }
      for (const input of inputs) {
        const [x, y] = [JSON.stringify(was(input, ep)), JSON.stringify(is(input, ep))];
        if (x !== y) console.log(`note: ${name} differs: baseline ${x}, this tree ${y}`);
      }
      let k = 0;
      const [b, a] = timePair(
        () => was(inputs[k++ % inputs.length], ep),
        () => is(inputs[k++ % inputs.length], ep),
      );
      console.log(`${name.padEnd(16)}${b.toFixed(2).padStart(10)} -> ${a.toFixed(2).padStart(8)}  (${(b / a).toFixed(2)}x)`);
    }
    // The plan alone, the part a compiler or runtime change moves: the rest of
    // evaluate() (JSON on both sides, the SDK's copies) is the same code in
    // both trees and only adds noise to their ratio.
    console.log(`\nplan alone µs (eval on a parsed input, heap rewound each call), baseline vs this tree, interleaved rounds:`);
    for (const [name, before, after, ep, input] of cases.slice(1)) {
      const [was, is] = [planRunner(before, ep, input), planRunner(after, ep, input)];
      const [b, a] = timePair(was.run, is.run);
      console.log(
        `${name.padEnd(16)}${b.toFixed(2).padStart(10)} -> ${a.toFixed(2).padStart(8)}  (${(b / a).toFixed(2)}x)  heap bytes per plan ${was.heapBytes} -> ${is.heapBytes}`,
      );
    }
    // The binary input alone: the host's writer (JS) and the module's decoder (Wasm), each timed apart,
    // so that a change to either is not lost in the plan's noise.
    if (baseline.realKept && baseline.Writer) {
      console.log(`\nbinary input alone µs (BinaryInputWriter.write; rt_input_decode, heap rewound), baseline vs this tree, interleaved rounds:`);
      for (const [name, input] of [
        ["", DECISION_INPUT],
        [" (big)", BIG_INPUT],
      ] as const) {
        const [was, is] = [inputRunner(baseline.realKept, baseline.Writer, input), inputRunner(real, BinaryInputWriter, input)];
        if (was.bytes !== is.bytes) console.log(`note: the encodings differ: baseline ${was.bytes} bytes, this tree ${is.bytes}`);
        for (const piece of ["write", "decode"] as const) {
          const [b, a] = timePair(was[piece], is[piece]);
          console.log(`${(piece + name).padEnd(16)}${b.toFixed(3).padStart(10)} -> ${a.toFixed(3).padStart(8)}  (${(b / a).toFixed(2)}x)`);
        }
      }
    }
    // The input's parse alone, the part a change to the runtime's JSON parser moves.
    console.log(`\nparse alone µs (opa_value_parse of the input's JSON text, heap rewound each call), baseline vs this tree, interleaved rounds:`);
    for (const [name, before, after, , input] of [cases[1]!, cases[2]!]) {
      const [was, is] = [parseRunner(before, input), parseRunner(after, input)];
      const [b, a] = timePair(was.run, is.run);
      console.log(
        `${(name === "drop" ? "log event" : name).padEnd(16)}${b.toFixed(2).padStart(10)} -> ${a.toFixed(2).padStart(8)}  (${(b / a).toFixed(2)}x)  heap bytes per parse ${was.heapBytes} -> ${is.heapBytes}`,
      );
    }
    // The result's dump alone, the part a change to the runtime's JSON writer moves.
    console.log(`\ndump alone µs (opa_json_dump of the result set, heap rewound each call), baseline vs this tree, interleaved rounds:`);
    for (const [name, before, after, ep, input] of cases.slice(1)) {
      const [was, is] = [dumpRunner(before, ep, input), dumpRunner(after, ep, input)];
      const [b, a] = timePair(was.run, is.run);
      console.log(`${name.padEnd(16)}${b.toFixed(2).padStart(10)} -> ${a.toFixed(2).padStart(8)}  (${(b / a).toFixed(2)}x)  bytes ${was.bytes} -> ${is.bytes}`);
    }
  }

  if (loopSeconds > 0) {
    const onlyArg = process.argv.indexOf("--only");
    const only = onlyArg >= 0 ? process.argv[onlyArg + 1] : undefined;
    const calls: Array<[string, number, unknown]> = [
      ["decision", 0, DECISION_INPUT],
      ["drop", 2, event],
      ["mask", 1, event],
    ];
    const loop = calls.filter(([name]) => only === undefined || name === only);
    console.log(`\nlooping ${loop.map(([name]) => name).join(" + ")} for ${loopSeconds} s (for --cpu-prof)`);
    const stop = Date.now() + loopSeconds * 1000;
    while (Date.now() < stop) {
      for (let i = 0; i < 1000; i++) for (const [, ep, input] of loop) real.evaluate(input, ep);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
