/**
 * Compiler and evaluation benchmark (run on demand: `make bench`; never a test).
 *
 * Reports medians measured in this one run:
 * - compile time of a generated 200-rule policy (parse -> check -> plan -> emit/link);
 * - evaluate() latency through @open-policy-agent/opa-wasm for a small input
 *   and a ~1 KB input;
 * - the same decision written by hand in TypeScript, as the baseline, and the ratio.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "@portcullis/rego-wasm";

const RULES = 200;

/** 200 rules: role grants as complete rules, a partial set over them, and the decision. */
function generatedPolicy(): string {
  const lines = ["package bench", ""];
  for (let i = 0; i < RULES - 2; i++) {
    lines.push(`grant_${i} if {`, `\tinput.user.role == "role_${i % 20}"`, `\tinput.action == "action_${i % 7}"`, `}`, "");
  }
  lines.push("grants contains name if {", "\tsome name in data.bench_names", "\tinput.user.tenant == data.tenants[_]", "}", "");
  lines.push(
    "default allow := false",
    "allow if {",
    '\tinput.user.role in {"admin", "role_3"}',
    "\tinput.resource.tenant == input.user.tenant",
    "\tnot input.user.suspended",
    "}",
  );
  return lines.join("\n");
}

const DECISION = `package decision

default allow := false

allow if {
	input.user.role in {"admin", "role_3"}
	input.resource.tenant == input.user.tenant
	not input.user.suspended
}
`;

interface Input {
  user: { role: string; tenant: string; suspended?: boolean; [k: string]: unknown };
  resource: { tenant: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** The decision by hand: the baseline the compiled policy is measured against. */
function handwritten(input: Input): boolean {
  const role = input.user.role;
  return (role === "admin" || role === "role_3") && input.resource.tenant === input.user.tenant && !input.user.suspended;
}

const small: Input = { user: { role: "role_3", tenant: "t1" }, resource: { tenant: "t1" } };
const large: Input = {
  user: { role: "role_3", tenant: "t1", email: "someone@example.com", groups: Array.from({ length: 12 }, (_, i) => `group-${i}`) },
  resource: { tenant: "t1", id: "inv_123", tags: Array.from({ length: 10 }, (_, i) => `tag-${i}`) },
  headers: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`x-header-${i}`, `value-${i}-abcdefghijklmnop`])),
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median per-call time in microseconds over `rounds` rounds of `perRound` calls. */
function timeCalls(fn: () => unknown, rounds = 25, perRound = 2000): number {
  for (let i = 0; i < perRound; i++) fn(); // warm up
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < perRound; i++) fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1000 / perRound);
  }
  return median(samples);
}

async function main(): Promise<void> {
  const source = generatedPolicy();
  const compileSamples: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t0 = process.hrtime.bigint();
    compile([{ file: "bench.rego", source }], { entrypoints: ["bench/allow", "bench/grants"] });
    compileSamples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }

  const { wasm } = compile([{ file: "decision.rego", source: DECISION }], { entrypoints: ["decision/allow"] });
  const policy = await loadPolicy(wasm);
  policy.setData({});
  const check = policy.evaluate(small) as Array<{ result: boolean }>;
  if (check[0]?.result !== handwritten(small)) throw new Error("compiled and handwritten decisions disagree");

  const wasmSmall = timeCalls(() => policy.evaluate(small));
  const wasmLarge = timeCalls(() => policy.evaluate(large));
  const tsSmall = timeCalls(() => handwritten(small), 25, 200000);
  const tsLarge = timeCalls(() => handwritten(large), 25, 200000);

  const rows = [
    ["compile 200-rule policy (ms, median of 15)", median(compileSamples).toFixed(2), ""],
    ["evaluate small input via SDK (µs)", wasmSmall.toFixed(2), `${(wasmSmall / tsSmall).toFixed(0)}x hand-written`],
    [`evaluate ${JSON.stringify(large).length} B input via SDK (µs)`, wasmLarge.toFixed(2), `${(wasmLarge / tsLarge).toFixed(0)}x hand-written`],
    ["hand-written TypeScript, small (µs)", tsSmall.toFixed(4), "baseline"],
    ["hand-written TypeScript, large (µs)", tsLarge.toFixed(4), "baseline"],
  ];
  for (const [name, value, ratio] of rows) console.log(`${name.padEnd(46)} ${value.padStart(10)}  ${ratio}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
