/**
 * Before/after of the service's decision path (run on demand, never a test):
 *
 *   node --single-threaded-gc dist/bench/ab.bench.js --baseline <dir> [--rounds 21]
 *
 * `<dir>` is a checkout of an earlier revision with its dist/ built, e.g.
 *
 *   git worktree add /tmp/base <rev> && cd /tmp/base && bash /work/wt/own-node-modules.sh . && npx tsc -p tsconfig.build.json
 *
 * Loads decide() and Engine from `<dir>/dist/pdp` and from this checkout
 * into ONE process, hands both the same bundles (this checkout's
 * var/bundle.tar.gz, and the peers bench's rule compiled by this checkout),
 * and times them in alternating rounds, so a stretch of load from the other
 * processes on a shared machine hits both alike and the ratios stay fair
 * (absolute figures on a busy machine do not). Subjects:
 *   decide    decide() of the real policy, PDP bench input, no-op decision log
 *   logged    the same with each side's own real decision log (SQLite file
 *             in a temp directory, worker pipeline); the event loop turns
 *             every 50 calls, as between requests, so each side's records
 *             reach its worker's ring as in the service: p50/p99 are the
 *             calls alone, the mean (wall time per call) includes those
 *             turns (the ring writes). Each side's worker finishes its
 *             backlog (flush, untimed) after the warm-up and after each of
 *             that side's rounds: a worker takes ~100 µs an event, so
 *             without it the side whose worker was further behind would
 *             wait for room in its ring and the mean would time that
 *   big       the same as logged for the largest body the API admits (as
 *             bench/pdp.bench.ts: every field name sent to the policy), in
 *             rounds of BIG_PER_ROUND calls, which the worker's ring holds
 *   peers     Engine.evaluate of the peers rule, its four inputs in turn
 * What it compares is the service side (pdp/*.ts); the compiler and runtime
 * of two revisions are compared by eval-profile.bench.ts --baseline.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import type { decide as Decide } from "../pdp/decide";
import type { Engine as EngineClass } from "../pdp/engine";
import type { createDecisionLog as CreateDecisionLog } from "../pdp/log";
import { DEFAULT_BODY_LIMIT_BYTES } from "../api/app";
import { manyFieldNames, PEER_INPUTS, PEERS_REGO, READ_INVOICE_INPUT } from "./fixtures";
import { describeCompetition, machineCpu } from "./machine";

const ROOT = path.resolve(__dirname, "../..");
const PER_ROUND = 2000;
/** The big subject's events are ~30 KB: 100 fit in the log's 4 MiB ring, so a round never waits for its worker. */
const BIG_PER_ROUND = 100;

// The logged subject last: its workers may still be writing its backlog when it ends.
const SUBJECTS = ["decide", "big", "peers", "logged"] as const;
type Subjects = Record<(typeof SUBJECTS)[number], () => unknown> & { settle: () => Promise<void>; close: () => Promise<void> };
/** As many body field names as the API's body limit admits (bench/pdp.bench.ts manyFieldNames), all sent to the policy. */
const BIG_INPUT = {
  ...READ_INVOICE_INPUT,
  action: "update",
  resource: { type: "user", id: "u_alice" },
  route: { id: "users.me.update", method: "PATCH", version: "v2" },
  fields: { submitted: manyFieldNames(DEFAULT_BODY_LIMIT_BYTES) },
};

/** Calls between two turns of the event loop for the subjects with a log (as bench/pdp.bench.ts). */
const YIELD_EVERY = 50;

/** The two subjects as built by the pdp/ of `dist` (this checkout's dist/ or a baseline's). */
async function subjectsOf(dist: string, bundle: Uint8Array, peersBundle: Uint8Array): Promise<Subjects> {
  /* eslint-disable @typescript-eslint/no-require-imports -- CommonJS from a path known only at run time */
  const { Engine } = require(path.join(dist, "pdp/engine")) as { Engine: typeof EngineClass };
  const { decide } = require(path.join(dist, "pdp/decide")) as { decide: typeof Decide };
  const { createDecisionLog } = require(path.join(dist, "pdp/log")) as { createDecisionLog: typeof CreateDecisionLog };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const engine = await Engine.load(bundle, "ab bench");
  const peers = await Engine.load(peersBundle, "ab bench peers");
  // The no-op log keeps nothing of the input, so it takes the binary input's bytes: decide() reads the input as with the project's log.
  const noop = { record: () => undefined, copiesBinaryInput: true, flush: async () => undefined };
  const deps = { entrypoint: "portcullis/decision", log: noop, logger: () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ab-bench-"));
  const log = createDecisionLog({ db: path.join(dir, "decisions.db") });
  const logged = { ...deps, log };
  let k = 0;
  return {
    decide: () => decide(engine, deps, READ_INVOICE_INPUT, {}),
    logged: () => decide(engine, logged, READ_INVOICE_INPUT, {}),
    big: () => decide(engine, logged, BIG_INPUT, {}),
    peers: () => peers.evaluate("peers/allow", PEER_INPUTS[k++ & 3]),
    settle: () => log.flush(),
    close: async () => {
      await log.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Figures {
  p50: number[];
  p99: number[];
  mean: number[];
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf("--baseline");
  if (at < 0 || !argv[at + 1]) throw new Error("usage: ab.bench.js --baseline <checkout with dist/ built> [--rounds N]");
  const baseline = path.resolve(argv[at + 1]);
  const roundsAt = argv.indexOf("--rounds");
  const rounds = roundsAt < 0 ? 21 : Number(argv[roundsAt + 1]);
  const bundleFile = path.join(ROOT, "var/bundle.tar.gz");
  if (!fs.existsSync(bundleFile)) throw new Error("var/bundle.tar.gz is missing: run make build");
  const bundle = fs.readFileSync(bundleFile);
  const manifest = { revision: "peers", roots: [""], rego_version: 1, wasm: [{ entrypoint: "peers/allow", module: "/policy.wasm" }] };
  const peersWasm = compile([{ file: "peers.rego", source: PEERS_REGO }], { entrypoints: ["peers/allow"] }).wasm;
  const peersBundle = writeBundle({ wasm: peersWasm, data: {}, manifest, sources: [] });
  const sides = {
    before: await subjectsOf(path.join(baseline, "dist"), bundle, peersBundle),
    after: await subjectsOf(path.join(ROOT, "dist"), bundle, peersBundle),
  };

  console.log(
    `before: ${baseline}\nafter:  ${ROOT}\n${rounds} alternating rounds of ${PER_ROUND} calls; medians over rounds of each round's p50, p99 and mean`,
  );
  const machineBefore = machineCpu();
  const ownBefore = process.cpuUsage();
  const wallBefore = process.hrtime.bigint();
  const lines: string[] = [];
  const samples = new Float64Array(PER_ROUND);
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const subject of SUBJECTS) {
    const withLog = subject === "logged" || subject === "big";
    const yieldEvery = withLog ? YIELD_EVERY : PER_ROUND;
    const perRound = subject === "big" ? BIG_PER_ROUND : PER_ROUND;
    const figures: Record<"before" | "after", Figures> = { before: { p50: [], p99: [], mean: [] }, after: { p50: [], p99: [], mean: [] } };
    for (const side of ["before", "after"] as const) {
      for (let i = 0; i < 20_000; i++) {
        sides[side][subject]();
        if ((i + 1) % yieldEvery === 0) await new Promise(setImmediate);
      }
      if (withLog) await sides[side].settle();
    }
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const)) {
        const fn = sides[side][subject];
        const start = process.hrtime.bigint();
        for (let i = 0; i < perRound; i++) {
          const t0 = process.hrtime.bigint();
          fn();
          samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
          if ((i + 1) % yieldEvery === 0) await new Promise(setImmediate);
        }
        const f = figures[side];
        f.mean.push(Number(process.hrtime.bigint() - start) / 1000 / perRound);
        const sorted = samples.slice(0, perRound).sort();
        f.p50.push(sorted[perRound >> 1]);
        f.p99.push(sorted[Math.floor(perRound * 0.99)]);
        await new Promise(setImmediate); // the event loop turns, as between requests
        if (withLog) await sides[side].settle();
      }
    }
    const show = (f: Figures) => `p50 ${median(f.p50).toFixed(2)} µs  p99 ${median(f.p99).toFixed(2)} µs  mean ${median(f.mean).toFixed(2)} µs`;
    const ratio = (key: keyof Figures) => (median(figures.after[key]) / median(figures.before[key])).toFixed(3);
    lines.push(`${subject.padEnd(7)} before ${show(figures.before)}`);
    lines.push(`${"".padEnd(7)} after  ${show(figures.after)}   after/before: p50 ${ratio("p50")}x  p99 ${ratio("p99")}x  mean ${ratio("mean")}x`);
  }
  await Promise.all([sides.before.close(), sides.after.close()]);
  const own = process.cpuUsage(ownBefore);
  console.log(describeCompetition(machineBefore, machineCpu(), (own.user + own.system) / 1e6, Number(process.hrtime.bigint() - wallBefore) / 1e9));
  for (const line of lines) console.log(line);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exitCode = 1;
});
