/**
 * Memory under a long mixed load (run on demand, never a test):
 *
 *   make bench-rss    (= node --single-threaded-gc dist/bench/rss.bench.js, after a build)
 *   node --single-threaded-gc dist/bench/rss.bench.js [--minutes 10] [--warmup 1] [--every 10] [--connections 8]
 *
 * The full service (SQLite store, SQLite decision log, the built bundle,
 * served by its own HTTP server, api/http/server.ts) in a child process; this process is the load generator (bench/load.ts). The
 * load cycles through one-second slices of different requests: invoice
 * reads by their owner, the invoice list, /users/me with a FRESHLY minted
 * token every slice (the verified-token cache fills towards its bound),
 * another tenant's invoice (404), a member on an admin route (403), a
 * forged token (401) and an unknown route (404). Every `--every` seconds
 * the child reports its RSS, its main V8 heap (used, and committed: the part
 * of the heap that is resident) and external memory; what RSS holds beyond
 * the main heap ("rest": the decision-log worker's isolate, Wasm memory,
 * SQLite's caches, code) is printed beside it, so a drift can be told
 * apart: main heap, or the rest.
 *
 * Reports the RSS level after the warm-up, its lowest and highest sample
 * after it and the last, and how far each minute's median strays from the
 * level. Single samples swing with V8's collections (the heap is a sawtooth
 * of tens of MB under load), so the level and the verdict use medians per
 * minute: the level is the first minute's median after the warm-up; a
 * leak shows as later medians drifting away from it. Target (issue 24,
 * item 5): RSS stays within 10% of its level after warm-up over a
 * 10-minute run.
 */
import { fork, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { createHttpServer } from "../api/http/server";
import { DEFAULT_HTTP_LIMITS } from "../api/http/limits";
import { mintDevToken } from "../api/identity/mint";
import { createService } from "../api/service";
import { runLoad } from "./load";
import { describeCompetition, machineCpu } from "./machine";

const ROOT = path.resolve(__dirname, "../..");
const ISSUER = "urn:portcullis:bench";
const AUDIENCE = "bench";

interface Memory {
  rss: number;
  heapUsed: number;
  /** The main isolate's V8 heap as committed (what of it counts in RSS); the rest of RSS is the log worker's isolate, Wasm memory, SQLite, code. */
  heapTotal: number;
  external: number;
  /** The server's CPU time so far (all threads), µs: for the machine-load line. */
  cpuUs: number;
}

async function serve(dir: string): Promise<void> {
  const keyFile = path.join(dir, "key.json");
  const unlimited = { limit: 1_000_000_000, windowSec: 60 };
  // Log lines are built and discarded (a real deployment ships them).
  const logger = (entry: object) => void JSON.stringify(entry);
  const service = await createService(
    {
      database: { file: path.join(dir, "rss.db") },
      bundle: { file: path.join(ROOT, "var/bundle.tar.gz"), watch: false },
      decisionLog: { file: path.join(dir, "decisions.db") },
      identity: { issuer: ISSUER, audience: AUDIENCE, algorithms: ["ES256"], devKeyFile: keyFile, clockToleranceSec: 0 },
      rateLimits: { default: unlimited, sensitive: unlimited, diagnostic: unlimited, authentication: unlimited },
    },
    { logger, pdpLogger: () => undefined },
  );
  // The service's own HTTP server (api/http/server.ts: its limits, and requests built on Express's prototypes), as `serve` runs it.
  const { server } = createHttpServer(service.app, { limits: DEFAULT_HTTP_LIMITS, logger });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.on("message", () => {
    const m = process.memoryUsage();
    const cpu = process.cpuUsage();
    process.send?.({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, cpuUs: cpu.user + cpu.system } satisfies Memory);
  });
  process.send?.({ port: (server.address() as AddressInfo).port, keyFile });
}

function memoryOf(child: ChildProcess): Promise<Memory> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as Memory));
    child.send("memory");
  });
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--serve") return serve(argv[1]);
  const arg = (name: string, def: number) => {
    const i = argv.indexOf(name);
    return i === -1 ? def : Number(argv[i + 1]);
  };
  const minutes = arg("--minutes", 10);
  const warmupMinutes = arg("--warmup", 1);
  const every = arg("--every", 10);
  const connections = arg("--connections", 8);
  if (!fs.existsSync(path.join(ROOT, "var/bundle.tar.gz"))) throw new Error("var/bundle.tar.gz is missing: run make build");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-rss-"));
  const child = fork(__filename, ["--serve", dir], { stdio: ["ignore", "ignore", "inherit", "ipc"], execArgv: [...process.execArgv] });
  try {
    const { port, keyFile } = await new Promise<{ port: number; keyFile: string }>((resolve, reject) => {
      child.once("message", (m) => resolve(m as { port: number; keyFile: string }));
      child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    });
    const token = (subject: string, ttlSec = 3600) => mintDevToken({ subject, keyFile, issuer: ISSUER, audience: AUDIENCE, ttlSec });
    const bearer = async (subject: string) => ({ Authorization: `Bearer ${await token(subject)}` });
    const [alice, bob] = [await bearer("u_alice"), await bearer("u_bob")];
    const forged = { Authorization: `Bearer ${(await token("u_alice")).slice(0, -4)}AAAA` };
    const kinds: Array<() => Promise<{ path: string; headers: Record<string, string> }>> = [
      async () => ({ path: "/invoices/inv_alice_1", headers: alice }),
      async () => ({ path: "/invoices", headers: bob }),
      async () => ({ path: "/users/me", headers: await bearer("u_carol") }), // a new token every slice
      async () => ({ path: "/invoices/inv_dave_1", headers: alice }), // another tenant's: 404
      async () => ({ path: "/metrics", headers: alice }), // not an admin: 403
      async () => ({ path: "/users/me", headers: forged }), // 401
      async () => ({ path: "/no/such/route", headers: alice }), // 404 route_not_found
    ];

    const serverBefore = await memoryOf(child);
    const machineBefore = machineCpu();
    const ownBefore = process.cpuUsage();
    const wallBefore = process.hrtime.bigint();
    const start = Date.now();
    const warmupEnd = start + warmupMinutes * 60_000;
    const end = warmupEnd + minutes * 60_000;
    let nextSample = start;
    let requests = 0;
    const samples: Array<{ at: number; m: Memory }> = [];
    for (let slice = 0; Date.now() < end; slice++) {
      const request = await kinds[slice % kinds.length]();
      const r = await runLoad({ port, ...request, seconds: 1, connections });
      requests += r.requests + r.errors;
      if (Date.now() >= nextSample) {
        nextSample += every * 1000;
        const m = await memoryOf(child);
        if (Date.now() < warmupEnd) continue;
        samples.push({ at: (Date.now() - warmupEnd) / 1000, m });
        console.log(
          `${((Date.now() - start) / 1000).toFixed(0).padStart(5)} s  rss ${mb(m.rss)}  heap ${mb(m.heapUsed)} of ${mb(m.heapTotal)} committed  rest ${mb(m.rss - m.heapTotal)}  external ${mb(m.external)}`,
        );
      }
    }
    const own = process.cpuUsage(ownBefore);
    const serverUs = (await memoryOf(child)).cpuUs - serverBefore.cpuUs;
    const competition = describeCompetition(
      machineBefore,
      machineCpu(),
      (own.user + own.system + serverUs) / 1e6,
      Number(process.hrtime.bigint() - wallBefore) / 1e9,
    );
    if (samples.length === 0) throw new Error("no sample after the warm-up: run longer");
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const perMinute = (of: (m: Memory) => number): number[] => {
      const medians: number[] = [];
      for (let minute = 0; minute * 60 < samples[samples.length - 1].at; minute++) {
        const inMinute = samples.filter((s) => s.at >= minute * 60 && s.at < (minute + 1) * 60).map((s) => of(s.m));
        if (inMinute.length > 0) medians.push(median(inMinute));
      }
      return medians;
    };
    const minutesMedians = perMinute((m) => m.rss);
    const rss = samples.map((s) => s.m.rss);
    const level = minutesMedians[0];
    const drift = Math.max(...minutesMedians.map((x) => Math.abs(x - level))) / level;
    const peak = Math.max(...rss.map((x) => Math.abs(x - level))) / level;
    console.log(
      `\n${requests} requests over ${warmupMinutes + minutes} min (${warmupMinutes} min warm-up), ${connections} connections, ${kinds.length} request kinds in 1 s slices`,
    );
    console.log(competition);
    console.log(
      `RSS level after warm-up (first minute's median) ${mb(level)}; samples after it: min ${mb(Math.min(...rss))}, max ${mb(Math.max(...rss))}, last ${mb(rss[rss.length - 1])}`,
    );
    console.log(`median RSS per minute: ${minutesMedians.map(mb).join(", ")}`);
    // Which part moves: the main isolate's committed heap, or the rest (log worker, Wasm, SQLite).
    console.log(
      `  of which the main V8 heap, committed: ${perMinute((m) => m.heapTotal)
        .map(mb)
        .join(", ")}`,
    );
    console.log(
      `  and the rest: ${perMinute((m) => m.rss - m.heapTotal)
        .map(mb)
        .join(", ")}`,
    );
    console.log(`largest single-sample deviation from the level: ${(peak * 100).toFixed(1)}% (GC sawtooth included)`);
    console.log(
      `largest per-minute-median deviation: ${(drift * 100).toFixed(1)}% (target <= 10%${minutes >= 10 ? "" : `, over 10 minutes; this run: ${minutes}`}): ${drift <= 0.1 ? "met" : "MISSED"}`,
    );
  } finally {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exitCode = 1;
});
