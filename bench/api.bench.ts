/**
 * API benchmark (on demand: `make bench-api`; never a test).
 *
 * GET /invoices/{id} through the FULL chain (JWT verification, route
 * resolution, params/body guards, rate limit, PDP decision with the SQLite
 * decision log, scoped SQLite read, projection, structured log line) versus
 * a bare Express route doing the same scoped SQLite read and JSON answer,
 * and versus the app people write instead of a policy engine: Express +
 * jose, the token verified on every request (jose has no cache), the
 * account read from the users table, the authorization a hand-written `if`
 * (owner, or admin of the invoice's tenant), then the same scoped read.
 * Each server runs in its own child process; this process is the load
 * generator (bench/load.ts: raw keep-alive HTTP/1.1, fixed concurrency, one
 * request in flight per connection, a few µs of CPU per request so that it
 * takes as little as possible of the cores the servers run on), measuring
 * all in one run. Reports requests/s, p50 and p99, and the ratios full/bare
 * (target >= 85%, issue 24) and full/express+jose (target >= 1.0x).
 *
 *   node dist/bench/api.bench.js [--seconds 10] [--connections 16] [--rounds 5] [--breakdown]
 *   node dist/bench/api.bench.js --baseline <dir> [--rounds 10] [--seconds 20]
 *
 * The full chain is served the way its own server (api/http/server.ts)
 * serves it: requests and responses built on Express's prototypes
 * (api/http/express-messages.ts), which spares Express its per-request
 * Object.setPrototypeOf. The bare and jose peers are served with node's
 * default classes, as such apps are written.
 *
 * --breakdown adds two servers: the full chain whose decision log
 * discards events, to show what the decision log costs, and the bare
 * route served with the same classes as the full chain (what the same
 * trick gives bare Express: the ratio against it is printed too).
 *
 * --baseline is the before/after of a change to the chain: the full chain
 * of `<dir>` (a checkout of an earlier revision with dist/ built, e.g.
 * `git worktree add /tmp/base <rev> && cd /tmp/base && bash
 * /work/wt/own-node-modules.sh . && make build`; served by ITS bench's
 * `--serve full`, with its own bundle) against this checkout's, the two
 * servers up at once and measured in alternating rounds. It prints each
 * side's median round and the medians of the per-round ratios (throughput,
 * main-thread CPU per request): a stretch of load from other processes
 * then hits both alike, which separate runs on a shared machine do not.
 *
 * The full chain's rate limit is raised for the run (the step still runs);
 * log lines are built but discarded (a real deployment ships them).
 */
import { fork, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import express from "express";
import { createLocalJWKSet, jwtVerify } from "jose";
import { expressMessages } from "../api/http/express-messages";
import { loadOrCreateDevKeys } from "../api/identity/keys";
import { mintDevToken } from "../api/identity/mint";
import { createService } from "../api/service";
import { openDatabase } from "../db";
import type { ManagedDecisionLog } from "../pdp/log";
import { runLoad, type LoadResult } from "./load";
import { describeCompetition, machineCpu, USER_HZ } from "./machine";

const ROOT = path.resolve(__dirname, "../..");
const INVOICE = "inv_alice_1";

interface Ready {
  port: number;
  token?: string;
}

/** The full chain; `withLog: false` swaps the SQLite decision log for one that discards (breakdown only). */
async function serveFull(dir: string, withLog = true): Promise<Ready> {
  const keyFile = path.join(dir, withLog ? "key.json" : "key-nolog.json");
  const identity = { issuer: "urn:portcullis:bench", audience: "bench", algorithms: ["ES256"], devKeyFile: keyFile, clockToleranceSec: 0 };
  const unlimited = { limit: 1_000_000_000, windowSec: 60 };
  // The benchmark starts no export; the child process is killed when the run ends.
  const service = await createService(
    {
      database: { file: path.join(dir, withLog ? "full.db" : "nolog.db") },
      bundle: { file: path.join(ROOT, "var/bundle.tar.gz"), watch: false },
      decisionLog: { file: path.join(dir, "decisions.db") },
      identity,
      rateLimits: { default: unlimited, sensitive: unlimited, diagnostic: unlimited, authentication: unlimited },
    },
    { logger: (entry) => void JSON.stringify(entry), pdpLogger: () => undefined, decisionLog: withLog ? undefined : DISCARDING_LOG },
  );
  const token = await mintDevToken({ subject: "u_alice", keyFile, issuer: identity.issuer, audience: identity.audience, ttlSec: 3600 });
  // With the request and response classes the service's own server gives node (api/http/server.ts).
  return { port: await listen(service.app, expressMessages(service.app)), token };
}

const DISCARDING_LOG: ManagedDecisionLog = {
  record: () => undefined,
  // Nothing of the input is kept, so decide() may hand over the binary input's bytes, as to the project's log.
  copiesBinaryInput: true,
  recordOutcome: () => undefined,
  flush: async () => undefined,
  close: async () => undefined,
  stats: () => ({ recorded: 0, logged: 0, droppedByPolicy: 0, failSafe: 0, internalErrors: 0, outcomes: 0, queued: 0, sinks: {} }),
  // Nothing is kept, so nothing to wait for before a write.
  durable: async () => undefined,
  health: () => ({ persisting: true }),
  lost: () => 0,
  interruptedRuns: [],
};

async function serveBare(dir: string, bornOnPrototypes = false): Promise<Ready> {
  const db = openDatabase(path.join(dir, bornOnPrototypes ? "bare-proto.db" : "bare.db"), { seed: true });
  const app = express();
  app.get("/invoices/:invoice_id", (req, res) => {
    const row = db.invoices.getScoped(req.params.invoice_id, { tenant_id: "t_acme", owner_id: "u_alice" });
    if (!row) return void res.status(404).json({ error: "not found" });
    res.json({ id: row.id, number: row.number, status: row.status, amount_cents: row.amount_cents, currency: row.currency, created_at: row.created_at });
  });
  return { port: await listen(app, bornOnPrototypes ? expressMessages(app) : {}) };
}

const JOSE_ISSUER = "urn:portcullis:bench";
const JOSE_AUDIENCE = "bench";

/** The peer: Express + jose, authorization by hand. Same data, same answer as the full chain for u_alice. */
async function serveJose(dir: string): Promise<Ready> {
  const keyFile = path.join(dir, "key-jose.json");
  const keys = createLocalJWKSet((await loadOrCreateDevKeys(keyFile)).publicJwks);
  const db = openDatabase(path.join(dir, "jose.db"), { seed: true });
  const app = express();
  app.get("/invoices/:invoice_id", async (req, res) => {
    const bearer = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(req.headers.authorization ?? "");
    if (!bearer) return void res.status(401).json({ error: "authentication required" });
    let sub: string;
    try {
      const { payload } = await jwtVerify(bearer[1], keys, {
        issuer: JOSE_ISSUER,
        audience: JOSE_AUDIENCE,
        algorithms: ["ES256"],
        requiredClaims: ["sub", "exp"],
      });
      sub = payload.sub as string;
    } catch {
      return void res.status(401).json({ error: "invalid token" });
    }
    const user = db.users.findIdentity(sub);
    if (!user || user.status !== "active") return void res.status(403).json({ error: "account inactive" });
    // The rule: an admin reads the tenant's invoices, anyone else their own.
    const scope = user.role === "admin" ? { tenant_id: user.tenant_id } : { tenant_id: user.tenant_id, owner_id: sub };
    const row = db.invoices.getScoped(req.params.invoice_id, scope);
    if (!row) return void res.status(404).json({ error: "not found" });
    res.json({ id: row.id, number: row.number, status: row.status, amount_cents: row.amount_cents, currency: row.currency, created_at: row.created_at });
  });
  const token = await mintDevToken({ subject: "u_alice", keyFile, issuer: JOSE_ISSUER, audience: JOSE_AUDIENCE, ttlSec: 3600 });
  return { port: await listen(app), token };
}

function listen(app: http.RequestListener, options: http.ServerOptions = {}): Promise<number> {
  const server = http.createServer(options, app);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

interface Result extends LoadResult {
  /** Server CPU time (user + system, worker threads included) per successful request, in microseconds. */
  cpuUs?: number;
  /** The server's main (request) thread alone, per successful request, in µs; absent where /proc has no per-thread times. */
  mainUs?: number;
}

interface CpuReading {
  /** The server process, all threads, µs. */
  processUs: number;
  /** The main thread alone, µs, read by the parent (mainThreadUs), or null. */
  mainUs: number | null;
}

/**
 * A server's main thread's CPU from /proc, read by this process: the thread that serves requests, which
 * is what runs out first. schedstat's run time is in ns (stat's utime and stime tick at USER_HZ, 10 ms:
 * too coarse for short rounds); stat where schedstat is missing. Its id is the process id.
 */
function mainThreadUs(pid: number): number | null {
  try {
    const schedstat = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8");
    return Number(schedstat.split(" ")[0]) / 1e3;
  } catch {
    // No schedstat (a kernel without CONFIG_SCHEDSTATS): utime and stime.
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces, hence the last ")"): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1e6;
  } catch {
    return null;
  }
}

function cpuOf(child: ChildProcess): Promise<CpuReading> {
  return new Promise((resolve) => {
    child.once("message", (m) =>
      resolve({ processUs: (m as { processUs: number }).processUs, mainUs: child.pid === undefined ? null : mainThreadUs(child.pid) }),
    );
    child.send("cpu");
  });
}

function headersOf(ready: Ready): Record<string, string> {
  return ready.token ? { Authorization: `Bearer ${ready.token}` } : {};
}

/** `base`: the full chain of the --baseline checkout. */
type Mode = "bare" | "jose" | "full" | "nolog" | "base" | "bareproto";

function start(mode: Mode, dir: string, baseline?: string): Promise<{ child: ChildProcess; ready: Ready }> {
  // Each server its own directory: a baseline's server names its files as this one does.
  const own = path.join(dir, mode);
  fs.mkdirSync(own);
  const script = mode === "base" ? path.join(baseline ?? "", "dist/bench/api.bench.js") : __filename;
  const child = fork(script, ["--serve", mode === "base" ? "full" : mode, own], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("message", (ready) => resolve({ child, ready: ready as Ready }));
    child.once("exit", (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--serve") {
    const mode = argv[1] as Mode;
    const ready =
      mode === "bare" || mode === "bareproto"
        ? await serveBare(argv[2], mode === "bareproto")
        : mode === "jose"
          ? await serveJose(argv[2])
          : await serveFull(argv[2], mode === "full");
    process.on("message", () => {
      const cpu = process.cpuUsage();
      // The parent reads the main thread's CPU itself (mainThreadUs): older checkouts' servers (--baseline) answer this too.
      const reading: CpuReading = { processUs: cpu.user + cpu.system, mainUs: null };
      process.send?.(reading);
    });
    process.send?.(ready);
    return;
  }
  const arg = (name: string, def: number) => {
    const i = argv.indexOf(name);
    return i === -1 ? def : Number(argv[i + 1]);
  };
  const baselineAt = argv.indexOf("--baseline");
  const baseline = baselineAt === -1 ? undefined : path.resolve(argv[baselineAt + 1] ?? "");
  if (baseline !== undefined && !fs.existsSync(path.join(baseline, "dist/bench/api.bench.js")))
    throw new Error(`--baseline ${baseline}: no dist/bench/api.bench.js there (build that checkout first)`);
  const seconds = arg("--seconds", baseline ? 60 : 10);
  const connections = arg("--connections", 16);
  const rounds = arg("--rounds", baseline ? 120 : 5);
  if (!fs.existsSync(path.join(ROOT, "var/bundle.tar.gz"))) throw new Error("var/bundle.tar.gz is missing: run make build");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-bench-"));
  // Both servers up at once, measured in alternating rounds: background load on a shared machine
  // then hits both alike, and the median round of each is reported.
  const modes: Mode[] = baseline ? ["base", "full"] : argv.includes("--breakdown") ? ["bare", "jose", "full", "nolog", "bareproto"] : ["bare", "jose", "full"];
  const runs: Record<Mode, Result[]> = { bare: [], jose: [], full: [], nolog: [], base: [], bareproto: [] };
  const servers: Array<{ mode: Mode; child: ChildProcess; ready: Ready }> = [];
  let competition: string;
  try {
    for (const mode of modes) servers.push({ mode, ...(await start(mode, dir, baseline)) });
    const per = Math.max(0.25, seconds / rounds);
    for (const s of servers) await runLoad({ port: s.ready.port, path: `/invoices/${INVOICE}`, headers: headersOf(s.ready), seconds: 2, connections }); // warm-up: JIT, statement caches
    const machineBefore = machineCpu();
    const ownBefore = process.cpuUsage();
    const serversBefore = await Promise.all(servers.map((s) => cpuOf(s.child)));
    const wallBefore = process.hrtime.bigint();
    for (let round = 0; round < rounds; round++) {
      for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
        const before = await cpuOf(s.child);
        const result: Result = await runLoad({ port: s.ready.port, path: `/invoices/${INVOICE}`, headers: headersOf(s.ready), seconds: per, connections });
        const after = await cpuOf(s.child);
        const answered = Math.max(1, result.requests);
        result.cpuUs = (after.processUs - before.processUs) / answered;
        if (after.mainUs !== null && before.mainUs !== null) result.mainUs = (after.mainUs - before.mainUs) / answered;
        runs[s.mode].push(result);
      }
    }
    const serversAfter = await Promise.all(servers.map((s) => cpuOf(s.child)));
    const own = process.cpuUsage(ownBefore);
    const serversUs = serversAfter.reduce((sum, r, i) => sum + r.processUs - serversBefore[i].processUs, 0);
    competition = describeCompetition(
      machineBefore,
      machineCpu(),
      (own.user + own.system + serversUs) / 1e6,
      Number(process.hrtime.bigint() - wallBefore) / 1e9,
    );
  } finally {
    for (const s of servers) s.child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const median = (rs: Result[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
  const fmt = (r: Result) =>
    `${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  server CPU ${r.cpuUs?.toFixed(0)} us/req (main thread ${r.mainUs?.toFixed(0) ?? "n/a"}), load generator ${r.clientCpuUs.toFixed(0)} us/req  (${r.requests} ok, ${r.errors} errors)`;
  if (baseline) return void reportAb(runs.base, runs.full, { baseline, connections, rounds, seconds, competition, median, fmt });
  const results = { bare: median(runs.bare), jose: median(runs.jose), full: median(runs.full) };
  console.log(
    `GET /invoices/${INVOICE}, ${connections} keep-alive connections, ${rounds} alternating rounds, ${seconds} s per server, ${os.cpus().length} CPUs; median round:`,
  );
  console.log(competition);
  console.log(`bare express + SQLite: ${fmt(results.bare)}`);
  console.log(`express + jose + if:   ${fmt(results.jose)}`);
  console.log(`full chain:            ${fmt(results.full)}`);
  const ratio = results.full.rps / results.bare.rps;
  console.log(`ratio full/bare: ${(ratio * 100).toFixed(1)}% of bare throughput (target >= 85%: ${ratio >= 0.85 ? "met" : "MISSED"})`);
  const joseRatio = results.full.rps / results.jose.rps;
  console.log(`ratio full/express+jose: ${joseRatio.toFixed(2)}x its throughput (target >= 1.0x: ${joseRatio >= 1 ? "met" : "MISSED"})`);
  const medianCpu = (rs: Result[]) => rs.map((r) => r.cpuUs ?? NaN).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
  if (runs.nolog.length > 0) console.log(`breakdown: full chain with a discarding decision log: ${fmt(median(runs.nolog))}`);
  if (runs.bareproto.length > 0) {
    const bareProto = median(runs.bareproto);
    console.log(`breakdown: bare express + SQLite, requests born on Express's prototypes (as the full chain): ${fmt(bareProto)}`);
    console.log(`  ratio full/that bare: ${((results.full.rps / bareProto.rps) * 100).toFixed(1)}% of its throughput`);
  }
  console.log(`capacity ratio (server CPU per request, bare/full): ${((medianCpu(runs.bare) / medianCpu(runs.full)) * 100).toFixed(1)}%`);
  const medianMain = (rs: Result[]) => rs.map((r) => r.mainUs ?? NaN).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
  const mainRatio = medianMain(runs.bare) / medianMain(runs.full);
  if (Number.isFinite(mainRatio)) {
    // The main thread is what saturates first (the decision log's worker runs on another core): this is the capacity that stays.
    console.log(`main-thread capacity ratio (main-thread CPU per request, bare/full): ${(mainRatio * 100).toFixed(1)}%`);
  }
}

/** The --baseline report: each side's median round, and the medians of the per-round ratios this/baseline. */
function reportAb(
  base: Result[],
  mine: Result[],
  o: {
    baseline: string;
    connections: number;
    rounds: number;
    seconds: number;
    competition: string;
    median: (rs: Result[]) => Result;
    fmt: (r: Result) => string;
  },
): void {
  // The median of the per-round ratios, with its distribution-free 95% interval (the order statistics
  // n/2 -/+ 0.98 sqrt(n) of the sorted ratios): what a stretch of load on a shared machine leaves certain.
  const summary = (xs: number[]): string => {
    const sorted = [...xs].sort((a, b) => a - b);
    const n = sorted.length;
    const half = 0.98 * Math.sqrt(n);
    const lo = sorted[Math.max(0, Math.floor(n / 2 - half))];
    const hi = sorted[Math.min(n - 1, Math.ceil(n / 2 + half))];
    return `${sorted[Math.floor(n / 2)].toFixed(3)} (95% interval ${lo.toFixed(3)}..${hi.toFixed(3)})`;
  };
  // Round r ran both servers back to back (in alternating order): its ratio compares like with like.
  const rps = mine.map((r, i) => r.rps / base[i].rps);
  const main = mine.map((r, i) => (r.mainUs ?? NaN) / (base[i].mainUs ?? NaN));
  const cpu = mine.map((r, i) => (r.cpuUs ?? NaN) / (base[i].cpuUs ?? NaN));
  console.log(
    `GET /invoices/${INVOICE}, full chain, this checkout vs ${o.baseline}: ${o.connections} keep-alive connections, ${o.rounds} alternating rounds, ${o.seconds} s per server, ${os.cpus().length} CPUs`,
  );
  console.log(o.competition);
  console.log(`baseline:       ${o.fmt(o.median(base))}`);
  console.log(`this checkout:  ${o.fmt(o.median(mine))}`);
  console.log(`per-round ratios this/baseline, median: throughput ${summary(rps)}`);
  console.log(`  main-thread CPU per request ${summary(main)}; server CPU per request ${summary(cpu)}`);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exitCode = 1;
});
