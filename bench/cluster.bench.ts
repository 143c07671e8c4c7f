/**
 * Scale-out benchmark (on demand: `make bench-cluster`; never a test).
 *
 * GET /invoices/{id} through the full chain of real `portcullis serve`
 * processes (bin/portcullis.js, built dist/, run as the Makefile runs the
 * service), in four set-ups measured in ONE run, in alternating rounds:
 *
 *   sqlite        1 instance: SQLite data and decision log, in-process rate limits (today's default)
 *   postgres      1 instance: PostgreSQL data and decision log, in-process rate limits
 *   cluster x1    1 instance: PostgreSQL + Redis rate limits (what each instance of `make cluster` runs)
 *   cluster x2    2 instances: the same, the load spread over both (round-robin per connection)
 *
 * and reports, per set-up, the median round's requests/s, p50, p99, the
 * instances' CPU per request and the whole machine's CPU per request
 * (PostgreSQL, Redis and the load generator included), then the ratios
 * postgres/sqlite and cluster x2/x1, and the machine-load line
 * (bench/machine.ts): on a shared 2-CPU machine, other processes skew
 * everything, tails most.
 *
 *   node dist/bench/cluster.bench.js [--seconds 20] [--connections 16] [--rounds 5]
 *
 * PostgreSQL and Redis come from scripts/services/ (`make bench-cluster`
 * starts and stops them); the run migrates and seeds a database of its
 * own and drops it at the end. Rate limits are raised for the run (the
 * step, and its Redis round trip, still run). Request log lines go to a
 * file, as a deployment's would go to its collector.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import pg from "pg";
import { mintDevToken } from "../api/identity/mint";
import { DEV_AUDIENCE, DEV_ISSUER } from "../config/settings";
import { migratePg } from "../db/pg/migrate";
import { runLoad, type LoadResult } from "./load";
import { describeCompetition, machineCpu, USER_HZ } from "./machine";

const ROOT = path.resolve(__dirname, "../..");
const INVOICE = "inv_alice_1";

interface SetUp {
  name: string;
  instances: number;
  env: Record<string, string>;
}

interface Running extends SetUp {
  children: ChildProcess[];
  ports: number[];
}

interface Round extends LoadResult {
  /** CPU of the set-up's instances (all threads) per answered request, µs. */
  instancesUs: number;
  /** CPU of the whole machine per answered request, µs. */
  machineUs: number;
}

/** KEY=value lines of an env file the service scripts write. */
function readEnv(file: string): Record<string, string> {
  if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: start the services (make bench-cluster does)`);
  return Object.fromEntries(
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A process's CPU time (user + system, all threads), µs, from /proc. */
function processUs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1e6;
}

/** One `portcullis serve --port 0` in its own directory; resolves with its port once it listens. */
async function serve(dir: string, env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, "stdout.log");
  const fd = fs.openSync(out, "w");
  const err = fs.openSync(path.join(dir, "stderr.log"), "w");
  const child = spawn(process.execPath, ["--single-threaded-gc", path.join(ROOT, "bin/portcullis.js"), "serve", "--host", "127.0.0.1", "--port", "0"], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ["ignore", fd, err],
  });
  fs.closeSync(fd);
  fs.closeSync(err);
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) break;
    const line = fs
      .readFileSync(out, "utf8")
      .split("\n")
      .find((l) => l.includes('"http.listening"'));
    if (line) return { child, port: Number(String(JSON.parse(line).address).split(":").pop()) };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`an instance in ${dir} did not listen:\n${fs.readFileSync(path.join(dir, "stderr.log"), "utf8").slice(-2000)}`);
}

async function main(argv: string[]): Promise<void> {
  const arg = (name: string, def: number) => {
    const i = argv.indexOf(name);
    return i === -1 ? def : Number(argv[i + 1]);
  };
  const seconds = arg("--seconds", 20);
  const connections = arg("--connections", 16);
  const rounds = arg("--rounds", 5);
  if (!fs.existsSync(path.join(ROOT, "var/bundle.tar.gz"))) throw new Error("var/bundle.tar.gz is missing: run make build");
  const pgEnv = readEnv(path.join(ROOT, "var/postgres.env"));
  const redisUrl = readEnv(path.join(ROOT, "var/redis.env")).PORTCULLIS_REDIS_URL;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-bench-cluster-"));
  const database = `portcullis_bench_${randomBytes(4).toString("hex")}`;
  const owner = new pg.Client({ connectionString: pgEnv.PORTCULLIS_DATABASE_OWNER_URL });
  await owner.connect();
  const running: Running[] = [];
  try {
    // The name is built above from hex, never from input.
    await owner.query(`CREATE DATABASE ${database}`);
    await migratePg(withDatabase(pgEnv.PORTCULLIS_DATABASE_OWNER_URL, database), { seed: true });
    const databaseUrl = withDatabase(pgEnv.PORTCULLIS_DATABASE_URL, database);

    const keyFile = path.join(dir, "dev-jwt-key.json");
    const token = await mintDevToken({ subject: "u_alice", keyFile, issuer: DEV_ISSUER, audience: DEV_AUDIENCE, ttlSec: 3600 });
    const unlimited = Object.fromEntries(
      ["DEFAULT", "SENSITIVE", "DIAGNOSTIC", "AUTHENTICATION"].map((c) => [`PORTCULLIS_RATE_LIMIT_${c}_LIMIT`, "1000000000"]),
    );
    const common = {
      ...unlimited,
      PORTCULLIS_DEV_KEY_FILE: keyFile,
      PORTCULLIS_BUNDLE: path.join(ROOT, "var/bundle.tar.gz"),
      PORTCULLIS_BUNDLE_WATCH: "false",
    };
    const setUps: SetUp[] = [
      { name: "sqlite", instances: 1, env: common },
      { name: "postgres", instances: 1, env: { ...common, PORTCULLIS_DATABASE_URL: databaseUrl } },
      { name: "cluster x1", instances: 1, env: { ...common, PORTCULLIS_DATABASE_URL: databaseUrl, PORTCULLIS_REDIS_URL: redisUrl } },
      { name: "cluster x2", instances: 2, env: { ...common, PORTCULLIS_DATABASE_URL: databaseUrl, PORTCULLIS_REDIS_URL: redisUrl } },
    ];
    for (const [s, setUp] of setUps.entries()) {
      const started = await Promise.all(Array.from({ length: setUp.instances }, (_, i) => serve(path.join(dir, `${s}-${i}`), setUp.env)));
      running.push({ ...setUp, children: started.map((x) => x.child), ports: started.map((x) => x.port) });
    }
    const headers = { Authorization: `Bearer ${token}` };
    const load = (r: Running, secs: number) => runLoad({ port: r.ports, path: `/invoices/${INVOICE}`, headers, seconds: secs, connections });
    for (const r of running) {
      const warm = await load(r, 2); // JIT, statement caches, pools
      if (warm.requests === 0) throw new Error(`${r.name}: no request answered 200 during the warm-up`);
    }
    await checkStores(databaseUrl);

    const results = new Map<string, Round[]>(running.map((r) => [r.name, []]));
    const per = Math.max(1, seconds / rounds);
    const services = servicePids(pgEnv.PORTCULLIS_PG_DIR, readEnv(path.join(ROOT, "var/redis.env")).PORTCULLIS_REDIS_DIR);
    const servicesBefore = cpuOf(services);
    const machineBefore = machineCpu();
    const ownBefore = process.cpuUsage();
    const instancesBefore = running.flatMap((r) => r.children.map((c) => processUs(c.pid!)));
    const wallBefore = process.hrtime.bigint();
    for (let round = 0; round < rounds; round++) {
      for (const r of round % 2 === 0 ? running : [...running].reverse()) {
        const before = r.children.map((c) => processUs(c.pid!));
        const machine = machineCpu();
        const result = await load(r, per);
        const machineAfter = machineCpu();
        const answered = Math.max(1, result.requests);
        const instancesUs = r.children.reduce((sum, c, i) => sum + processUs(c.pid!) - before[i], 0) / answered;
        const machineUs = machine && machineAfter ? ((machineAfter.busy - machine.busy) * 1e6) / answered : NaN;
        results.get(r.name)!.push({ ...result, instancesUs, machineUs });
      }
    }
    const own = process.cpuUsage(ownBefore);
    const instancesUs = running.flatMap((r) => r.children.map((c) => processUs(c.pid!))).reduce((sum, us, i) => sum + us - instancesBefore[i], 0);
    let servicesUs = 0;
    for (const [pid, us] of cpuOf(services)) servicesUs += us - (servicesBefore.get(pid) ?? us);
    const competition = describeCompetition(
      machineBefore,
      machineCpu(),
      (own.user + own.system + instancesUs + servicesUs) / 1e6,
      Number(process.hrtime.bigint() - wallBefore) / 1e9,
    );

    const median = (rs: Round[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
    const fmt = (r: Round) =>
      `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  instances' CPU ${r.instancesUs.toFixed(0).padStart(5)} us/req  machine CPU ${r.machineUs.toFixed(0).padStart(5)} us/req  (${r.requests} ok, ${r.errors} errors)`;
    console.log(
      `GET /invoices/${INVOICE}, ${connections} keep-alive connections, ${rounds} alternating rounds of ${per} s per set-up, ${os.cpus().length} CPUs; median round:`,
    );
    console.log(competition);
    const m = new Map([...results].map(([name, rs]) => [name, median(rs)]));
    for (const [name, r] of m) console.log(`${name.padEnd(11)} ${fmt(r)}`);
    const ratio = (a: string, b: string) =>
      `${((m.get(a)!.rps / m.get(b)!.rps) * 100).toFixed(1)}% throughput, p50 x${(m.get(a)!.p50 / m.get(b)!.p50).toFixed(2)}, p99 x${(m.get(a)!.p99 / m.get(b)!.p99).toFixed(2)}`;
    console.log(`postgres / sqlite:      ${ratio("postgres", "sqlite")}`);
    console.log(`cluster x1 / postgres:  ${ratio("cluster x1", "postgres")}  (what Redis rate limits cost)`);
    console.log(`cluster x2 / x1:        ${ratio("cluster x2", "cluster x1")}`);
  } finally {
    for (const r of running) for (const c of r.children) c.kill("SIGKILL");
    await Promise.all(
      running.flatMap((r) => r.children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((res) => c.once("exit", res)) : undefined))),
    );
    await owner.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await owner.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The PostgreSQL set-ups really run on PostgreSQL: the warm-up's requests
 * left traffic counts and decisions in the run's database (an instance that
 * ignored PORTCULLIS_DATABASE_URL would have measured SQLite under the
 * wrong name).
 */
async function checkStores(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const table of ["decisions", "traffic_counts"]) {
      // Table names from the list above, never from input.
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${table}`);
      if (rows[0].n === 0) throw new Error(`the PostgreSQL set-ups left nothing in ${table}: do the instances run on PORTCULLIS_DATABASE_URL?`);
    }
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL's processes (the postmaster and its children: the instances'
 * pooled backends) and Redis's: they work for the benchmark, so their CPU
 * counts as its own in the machine-load line, not as competition.
 */
function servicePids(pgDir: string | undefined, redisDir: string | undefined): number[] {
  const first = (file: string) => (fs.existsSync(file) ? Number(fs.readFileSync(file, "utf8").split("\n")[0]) : NaN);
  const postmaster = pgDir ? first(path.join(pgDir, "postmaster.pid")) : NaN;
  const children = fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster ? [Number(d)] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
  return [postmaster, ...children, redisDir ? first(path.join(redisDir, "redis.pid")) : NaN].filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** CPU µs of the given processes still alive, keyed by pid. */
function cpuOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      out.set(pid, processUs(pid));
    } catch {
      /* exited */
    }
  }
  return out;
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exitCode = 1;
});
