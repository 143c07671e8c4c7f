/**
 * Before/after of the decision log's worker pipeline, whole (run on demand, never a test):
 *
 *   node dist/bench/log-worker-ab.bench.js --baseline <dir> [--events 20000] [--rounds 10] [--rate 0]
 *
 * `<dir>` is a checkout of an earlier revision with its dist/ built (see
 * ab.bench.ts). Loads the engine, decide() and the decision log from
 * `<dir>/dist` and from this checkout into ONE process and, in alternating
 * rounds, records `--events` real decisions of the real bundle
 * (var/bundle.tar.gz, READ_INVOICE_INPUT) with their request outcomes
 * through each side's log (the worker pipeline, a new SQLite store per
 * round), then closes it. A round's CPU is read from /proc: the main
 * thread's (decide, record, the ring's writes and waits) and the rest of
 * the process's (the log's worker: event building, drop and mask, the
 * store; plus V8's and libuv's helper threads), each per event. Only one
 * side's log lives at a time.
 *
 * `--rate 0` (the default) records as fast as decide() allows, as a
 * server at its limit does: the worker falls behind, the ring fills and
 * the main thread waits for room, which is what bench-api's full chain
 * meets on 2 CPUs. `--rate N` paces the recording at N events a second
 * (50 at a time), a worker that keeps up.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Engine as EngineClass } from "../pdp/engine";
import type { decide as Decide } from "../pdp/decide";
import type { createDecisionLog as CreateDecisionLog } from "../pdp/log";
import { READ_INVOICE_INPUT } from "./fixtures";
import { describeCompetition, machineCpu, USER_HZ } from "./machine";

const ROOT = path.resolve(__dirname, "../..");

interface Side {
  name: "baseline" | "this checkout";
  Engine: typeof EngineClass;
  decide: typeof Decide;
  createDecisionLog: typeof CreateDecisionLog;
}

/** CPU seconds of the main thread (this process's first thread), from /proc. */
function mainThreadSeconds(): number {
  const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ; // utime, stime
}

function processSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

async function round(side: Side, engine: EngineClass, events: number, rate: number): Promise<{ main: number; rest: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "log-worker-ab-"));
  try {
    const log = side.createDecisionLog({ db: path.join(dir, "decisions.db") });
    const deps = { entrypoint: "portcullis/decision", log, logger: () => undefined };
    const main0 = mainThreadSeconds();
    const all0 = processSeconds();
    const start = Date.now();
    for (let i = 0; i < events; i++) {
      const { decisionId } = side.decide(engine, deps, READ_INVOICE_INPUT, {});
      log.recordOutcome({
        decisionId,
        method: "GET",
        path: "/invoices/inv_alice_1",
        routeId: "invoices.get",
        version: "v2",
        actorId: "u_alice",
        status: 200,
        problem: null,
        scopeFound: true,
        testRun: null,
        aborted: false,
      });
      // A turn of the event loop every 50, as requests give it; paced to `rate` when asked.
      if (i % 50 === 49) {
        const wait = rate > 0 ? start + ((i + 1) * 1000) / rate - Date.now() : 0;
        await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
      }
    }
    await log.close();
    const stats = log.stats();
    if (stats.logged !== events) throw new Error(`${side.name}: ${stats.logged} of ${events} events logged`);
    const main = mainThreadSeconds() - main0;
    return { main: (main * 1e6) / events, rest: ((processSeconds() - all0 - main) * 1e6) / events };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function option(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  return at < 0 ? fallback : Number(argv[at + 1]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf("--baseline");
  if (at < 0 || !argv[at + 1]) throw new Error("usage: log-worker-ab.bench.js --baseline <checkout with dist/ built> [--events N] [--rounds N] [--rate N]");
  const baseline = path.resolve(argv[at + 1]);
  const events = option(argv, "--events", 20_000);
  const rounds = option(argv, "--rounds", 10);
  const rate = option(argv, "--rate", 0);
  /* eslint-disable @typescript-eslint/no-require-imports -- CommonJS from a path known only at run time */
  const load = (dir: string, name: Side["name"]): Side => ({
    name,
    Engine: (require(path.join(dir, "dist/pdp/engine")) as { Engine: typeof EngineClass }).Engine,
    decide: (require(path.join(dir, "dist/pdp/decide")) as { decide: typeof Decide }).decide,
    createDecisionLog: (require(path.join(dir, "dist/pdp/log")) as { createDecisionLog: typeof CreateDecisionLog }).createDecisionLog,
  });
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sides = [load(baseline, "baseline"), load(ROOT, "this checkout")];
  const bundle = fs.readFileSync(path.join(ROOT, "var/bundle.tar.gz"));
  const engines = await Promise.all(sides.map((side) => side.Engine.load(bundle, "log-worker-ab")));
  console.log(
    `decision log, worker pipeline: ${events} decisions and their outcomes per round, ${rate > 0 ? `${rate}/s` : "as fast as decide() allows"}, ${rounds} alternating rounds\nbefore: ${baseline}\nafter:  ${ROOT}`,
  );
  await round(sides[0], engines[0], 2000, rate); // warm-up: JIT, the worker's first load
  await round(sides[1], engines[1], 2000, rate);
  const machineBefore = machineCpu();
  const cpu0 = processSeconds();
  const wall0 = Date.now();
  const results = sides.map(() => ({ main: [] as number[], rest: [] as number[] }));
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    const got: Array<{ main: number; rest: number }> = [];
    for (const i of order) got[i] = await round(sides[i], engines[i], events, rate);
    got.forEach((g, i) => (results[i].main.push(g.main), results[i].rest.push(g.rest)));
    ratios.push((got[1].main + got[1].rest) / (got[0].main + got[0].rest));
  }
  console.log(describeCompetition(machineBefore, machineCpu(), processSeconds() - cpu0, (Date.now() - wall0) / 1000));
  sides.forEach((side, i) => {
    const { main: m, rest } = results[i];
    console.log(
      `${side.name.padEnd(14)} CPU per event + outcome, median: main thread ${median(m).toFixed(1)} us, worker and helpers ${median(rest).toFixed(1)} us (rounds ${rest.map((x) => x.toFixed(0)).join(" ")})`,
    );
  });
  const ratioOf = (key: "main" | "rest") => median(results[1][key].map((x, r) => x / results[0][key][r]));
  console.log(
    `per-round ratio this/baseline, median: total ${median(ratios).toFixed(3)}, main thread ${ratioOf("main").toFixed(3)}, worker and helpers ${ratioOf("rest").toFixed(3)}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
