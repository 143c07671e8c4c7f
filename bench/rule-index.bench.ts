/**
 * Does rule count matter? (run on demand, never a test)
 *
 *   make bench-rules    (= node --single-threaded-gc dist/bench/rule-index.bench.js, after a build)
 *
 * A route table written as rules, one per route, each a ground equality on
 * input refs (the shape OPA's Go evaluator indexes, and OPA's Wasm does not):
 *
 *   allow if { input.method == "GET"; input.path == "/r/417"; "reader" in input.roles }
 *
 * compiled by our compiler for 10, 100 and 1,000 routes, with its rule
 * index (the default, packages/rego-wasm/compiler/plan/rule-index.ts) and without it
 * (`ruleIndex: false`: every rule tried in turn, what the compiler did
 * before), and evaluated through Engine for a request matching the LAST
 * route (every rule before it is tried first when nothing is indexed) and
 * one matching none. Every subject runs in alternating rounds (medians of
 * per-call p50 over rounds), so the ratios against 10 routes and between
 * the two compilations are fair on a shared machine; the machine-load line
 * says how shared it was.
 *
 * Target (issue 24, item 3): 1,000 routes within 2x the time of 10 routes.
 */
import * as os from "node:os";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import { Engine } from "../pdp/engine";
import { describeCompetition, machineCpu } from "./machine";

const SIZES = [10, 100, 1000];
const ROUNDS = 15;
const PER_ROUND = 2000;

function routesPolicy(n: number): string {
  const rules = Array.from({ length: n }, (_, i) => `allow if {\n\tinput.method == "GET"\n\tinput.path == "/r/${i}"\n\t"reader" in input.roles\n}\n`);
  return `package routes\n\ndefault allow := false\n\n${rules.join("\n")}`;
}

async function engineFor(n: number, ruleIndex: boolean): Promise<{ engine: Engine; compileMs: number }> {
  const t0 = process.hrtime.bigint();
  const { wasm } = compile([{ file: "routes.rego", source: routesPolicy(n) }], { entrypoints: ["routes/allow"], ruleIndex });
  const compileMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const manifest = { revision: `routes-${n}`, roots: [""], rego_version: 1, wasm: [{ entrypoint: "routes/allow", module: "/policy.wasm" }] };
  return { engine: await Engine.load(writeBundle({ wasm, data: {}, manifest, sources: [] }), `${n} routes`), compileMs };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Subject {
  n: number;
  ruleIndex: boolean;
  compileMs: number;
  last: () => unknown;
  none: () => unknown;
}

async function main(): Promise<void> {
  const subjects: Subject[] = [];
  // Warm the compiler up first, so neither compilation's time includes the JIT's.
  for (const ruleIndex of [true, false]) compile([{ file: "routes.rego", source: routesPolicy(1000) }], { entrypoints: ["routes/allow"], ruleIndex });
  for (const ruleIndex of [true, false]) {
    for (const n of SIZES) {
      const { engine, compileMs } = await engineFor(n, ruleIndex);
      const last = { method: "GET", path: `/r/${n - 1}`, roles: ["reader"] };
      const none = { method: "GET", path: "/nowhere", roles: ["reader"] };
      if (engine.evaluate("routes/allow", last) !== true || engine.evaluate("routes/allow", none) !== false) throw new Error(`${n} routes: wrong answers`);
      subjects.push({ n, ruleIndex, compileMs, last: () => engine.evaluate("routes/allow", last), none: () => engine.evaluate("routes/allow", none) });
    }
  }
  const machineBefore = machineCpu();
  const ownBefore = process.cpuUsage();
  const wallBefore = process.hrtime.bigint();
  const fns = subjects.flatMap((s) => [s.last, s.none]);
  for (const fn of fns) for (let i = 0; i < PER_ROUND; i++) fn();
  const p50s = fns.map(() => [] as number[]);
  const samples = new Float64Array(PER_ROUND);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, fn] of fns.entries()) {
      for (let i = 0; i < PER_ROUND; i++) {
        const t0 = process.hrtime.bigint();
        fn();
        samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
      }
      p50s[k].push(samples.slice().sort()[PER_ROUND >> 1]);
    }
  }
  const own = process.cpuUsage(ownBefore);
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} on ${os.cpus().length} CPUs`,
  );
  console.log(describeCompetition(machineBefore, machineCpu(), (own.user + own.system) / 1e6, Number(process.hrtime.bigint() - wallBefore) / 1e9));
  console.log(`Engine.evaluate p50, median over ${ROUNDS} alternating rounds of ${PER_ROUND} calls; one rule per route (ground equalities on input refs)`);
  const p50 = (i: number, which: "last" | "none"): number => median(p50s[2 * i + (which === "last" ? 0 : 1)]);
  let worst = 0;
  for (const ruleIndex of [true, false]) {
    console.log(ruleIndex ? "with the rule index (default):" : "without it (ruleIndex: false, every rule tried in turn):");
    const base = subjects.findIndex((s) => s.ruleIndex === ruleIndex);
    for (const [i, s] of subjects.entries()) {
      if (s.ruleIndex !== ruleIndex) continue;
      const last = p50(i, "last");
      const none = p50(i, "none");
      const lastRatio = last / p50(base, "last");
      const noneRatio = none / p50(base, "none");
      console.log(
        `${String(s.n).padStart(5)} routes  last route ${last.toFixed(2)} µs (${lastRatio.toFixed(1)}x 10 routes)  no route ${none.toFixed(2)} µs (${noneRatio.toFixed(1)}x)  compile ${s.compileMs.toFixed(0)} ms`,
      );
      if (ruleIndex) worst = Math.max(worst, lastRatio, noneRatio);
    }
  }
  const indexed = subjects.findIndex((s) => s.ruleIndex && s.n === 1000);
  const plain = subjects.findIndex((s) => !s.ruleIndex && s.n === 1000);
  console.log(`1,000 routes, last route: ${(p50(plain, "last") / p50(indexed, "last")).toFixed(1)}x faster with the index`);
  console.log(`target 1,000 routes within 2x of 10 routes: ${worst <= 2 ? "met" : "MISSED"} (${worst.toFixed(1)}x)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
