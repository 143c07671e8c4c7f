/**
 * The chain's own CPU per request, before/after a change, in ONE process
 * (on demand, never a test):
 *
 *   node --single-threaded-gc dist/bench/chain.bench.js --baseline <dir> [--rounds 200] [--per-round 200] [--concurrency 16] [--alloc 5000] [--sites 0]
 *
 * `<dir>` is a checkout of an earlier revision with dist/ built (as for
 * api.bench.ts --baseline). Both checkouts' services are built in this
 * process (createService, the configuration bench-api's full chain uses:
 * SQLite store and decision log, the real bundle, a signed ES256 token)
 * and GET /invoices/inv_alice_1 is handed to each app directly, as node's
 * HTTP server hands it a request: an IncomingMessage and a ServerResponse
 * (of the classes that checkout's own server gives node, api/http/) on a
 * socket that takes every byte and sends nothing. Rounds alternate
 * between the two apps; each round's main-thread CPU (schedstat, ns) per
 * request is compared with the other app's in the same round.
 *
 * What it measures: the JavaScript a request runs in the app (the chain's
 * steps, Express's router, the PDP, the SQLite reads, the decision log's
 * recording side, the response's headers and body) and the garbage it
 * leaves, without the HTTP parser, the socket writes and the load
 * generator: the part a change to api/, db/ or the log's recording side
 * can move, with a narrower interval than bench-api's rounds, which
 * include the kernel and share two cores with the load generator and
 * whatever else runs. Quote both.
 *
 * It also reports the bytes each app allocates per request on its main
 * thread (`--alloc N` requests each, 0 to skip; V8's sampling heap
 * profiler every 256 bytes, collected objects included): garbage is what
 * the main thread's collections (a quarter of its time under load) are
 * paid for, and this figure does not move with the machine's load.
 * `--sites N` then lists this checkout's N call sites allocating the most
 * per request (where to cut garbage next; run it with
 * `--no-turbo-inlining --rounds 0` to see through inlined callees, which
 * the sampling profiler otherwise charges to their caller), and the call
 * sites whose objects a young-generation collection found alive (copied,
 * then promoted: the garbage that costs; approximate, the profiler's own
 * weak references are involved).
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { Session } from "node:inspector";
import { Duplex } from "node:stream";
import { mintDevToken } from "../api/identity/mint";
import type { createService as CreateService } from "../api/service";
import { describeCompetition, machineCpu } from "./machine";

const ROOT = path.resolve(__dirname, "../..");
const INVOICE_PATH = "/invoices/inv_alice_1";

/** A client socket that accepts whatever the response writes, at once. */
class NullSocket extends Duplex {
  readonly remoteAddress = "127.0.0.1";
  readonly remotePort = 50_000;
  readonly remoteFamily = "IPv4";
  override _read(): void {}
  override _write(_chunk: unknown, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    done();
  }
  override _writev(_chunks: unknown[], done: (error?: Error | null) => void): void {
    done();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

interface Subject {
  app: http.RequestListener;
  headers: Record<string, string>;
  /** The classes that checkout's HTTP server builds requests and responses with (node's own where it names none). */
  messages: { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse };
}

/** The request and response classes `dist`'s server (api/http/server.ts) gives node, when that checkout has them. */
function messagesOf(dist: string, app: unknown): Subject["messages"] {
  const file = path.join(dist, "api/http/express-messages.js");
  if (!fs.existsSync(file)) return { IncomingMessage: http.IncomingMessage, ServerResponse: http.ServerResponse };
  /* eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS from a path known only at run time */
  return (require(file) as { expressMessages: (app: unknown) => Subject["messages"] }).expressMessages(app);
}

/** One checkout's full chain, as bench-api serves it (`dist`: that checkout's dist/). */
async function subjectOf(dist: string, dir: string): Promise<Subject> {
  /* eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS from a path known only at run time */
  const { createService } = require(path.join(dist, "api/service")) as { createService: typeof CreateService };
  fs.mkdirSync(dir);
  const keyFile = path.join(dir, "key.json");
  const identity = { issuer: "urn:portcullis:bench", audience: "bench", algorithms: ["ES256"], devKeyFile: keyFile, clockToleranceSec: 0 };
  const unlimited = { limit: 1_000_000_000, windowSec: 60 };
  const service = await createService(
    {
      database: { file: path.join(dir, "full.db") },
      bundle: { file: path.join(path.dirname(dist), "var/bundle.tar.gz"), watch: false },
      decisionLog: { file: path.join(dir, "decisions.db") },
      identity,
      rateLimits: { default: unlimited, sensitive: unlimited, diagnostic: unlimited, authentication: unlimited },
    },
    { logger: (entry) => void JSON.stringify(entry), pdpLogger: () => undefined },
  );
  const token = await mintDevToken({ subject: "u_alice", keyFile, issuer: identity.issuer, audience: identity.audience, ttlSec: 3600 });
  return {
    app: service.app as unknown as http.RequestListener,
    messages: messagesOf(dist, service.app),
    headers: { host: "127.0.0.1:8080", connection: "keep-alive", authorization: `Bearer ${token}` },
  };
}

/** One request through the app, as node's server would hand it over; resolves when the response finished (its status). */
function request(subject: Subject): Promise<number> {
  const socket = new NullSocket();
  const req = new subject.messages.IncomingMessage(socket as never);
  req.method = "GET";
  req.url = INVOICE_PATH;
  req.httpVersion = "1.1";
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.headers = { ...subject.headers };
  req.rawHeaders = Object.entries(subject.headers).flat();
  req.complete = true;
  req.push(null);
  const res = new subject.messages.ServerResponse(req);
  res.shouldKeepAlive = true;
  res.assignSocket(socket as never);
  return new Promise((resolve) => {
    res.on("finish", () => {
      res.detachSocket(socket as never);
      resolve(res.statusCode);
    });
    subject.app(req, res);
  });
}

/** `count` requests, `concurrency` at a time; throws on any answer but 200. */
async function run(subject: Subject, count: number, concurrency: number): Promise<void> {
  let left = count;
  const lane = async () => {
    while (left > 0) {
      left--;
      const status = await request(subject);
      if (status !== 200) throw new Error(`answered ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

/** Bytes allocated on this thread per request over `count` requests (sampled every 256 bytes, objects already collected included). */
async function allocatedPerRequest(subject: Subject, count: number, concurrency: number, sites = 0, survivorsOnly = false): Promise<number> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  try {
    await post("HeapProfiler.enable");
    await post("HeapProfiler.startSampling", {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !survivorsOnly,
    });
    await run(subject, count, concurrency);
    const { profile } = (await post("HeapProfiler.stopSampling")) as { profile: { head: SampledNode } };
    const total = (node: SampledNode): number => node.selfSize + node.children.reduce((sum, child) => sum + total(child), 0);
    if (sites > 0) printSites(profile.head, count, sites);
    return total(profile.head) / count;
  } finally {
    session.disconnect();
  }
}

interface SampledNode {
  selfSize: number;
  children: SampledNode[];
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

/** The `n` call sites that allocate the most bytes per request (self, with their caller), for --sites. */
function printSites(head: SampledNode, count: number, n: number): void {
  const bytes = new Map<string, number>();
  const where = (node: SampledNode) => {
    const f = node.callFrame;
    const url = f.url
      .replace(/^.*node_modules\//, "nm/")
      .replace(`file://${ROOT}/`, "")
      .replace(`${ROOT}/`, "");
    return `${f.functionName || "(anonymous)"} ${url}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
  };
  const walk = (node: SampledNode, caller: string) => {
    const site = where(node);
    if (node.selfSize > 0) {
      const key = `${site}  <- ${caller}`;
      bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, site);
  };
  walk(head, "");
  for (const [site, b] of [...bytes].sort((a, z) => z[1] - a[1]).slice(0, n)) console.log(`${(b / count).toFixed(0).padStart(7)} B/req  ${site}`);
}

/** This thread's CPU time in ns (schedstat), or the process's (user + system) where there is none. */
function threadNs(): number {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    const cpu = process.cpuUsage();
    return (cpu.user + cpu.system) * 1e3;
  }
}

/** The alternating rounds: each app's main-thread CPU per request, and the per-round ratios this/baseline. */
async function timeRounds(subjects: Subject[], rounds: number, perRound: number, concurrency: number, baseline: string): Promise<void> {
  const us: number[][] = [[], []];
  const machineBefore = machineCpu();
  const wallBefore = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const before = threadNs();
      await run(subjects[i], perRound, concurrency);
      us[i].push((threadNs() - before) / 1e3 / perRound);
    }
  }
  const own = process.cpuUsage(cpuBefore);
  const competition = describeCompetition(machineBefore, machineCpu(), (own.user + own.system) / 1e6, Number(process.hrtime.bigint() - wallBefore) / 1e9);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // The median of the per-round ratios and its distribution-free 95% interval (order statistics n/2 -/+ 0.98 sqrt(n)).
  const ratios = us[1].map((mine, r) => mine / us[0][r]).sort((a, b) => a - b);
  const half = 0.98 * Math.sqrt(ratios.length);
  const lo = ratios[Math.max(0, Math.floor(ratios.length / 2 - half))];
  const hi = ratios[Math.min(ratios.length - 1, Math.ceil(ratios.length / 2 + half))];
  console.log(
    `GET ${INVOICE_PATH} handed to each app in this process, ${rounds} alternating rounds of ${perRound} requests, ${concurrency} at a time; this checkout vs ${baseline}`,
  );
  console.log(competition);
  console.log(`main-thread CPU per request, median round: baseline ${median(us[0]).toFixed(1)} us, this checkout ${median(us[1]).toFixed(1)} us`);
  console.log(`per-round ratio this/baseline: median ${median(ratios).toFixed(3)} (95% interval ${lo.toFixed(3)}..${hi.toFixed(3)})`);
}

async function main(argv: string[]): Promise<void> {
  const arg = (name: string, def: number) => {
    const i = argv.indexOf(name);
    return i === -1 ? def : Number(argv[i + 1]);
  };
  const at = argv.indexOf("--baseline");
  if (at === -1) throw new Error("usage: chain.bench.js --baseline <dir> [--rounds 200] [--per-round 200] [--concurrency 16]");
  const baseline = path.resolve(argv[at + 1] ?? "");
  if (!fs.existsSync(path.join(baseline, "dist/api/service.js"))) throw new Error(`--baseline ${baseline}: no dist/api/service.js there (build it first)`);
  const rounds = arg("--rounds", 200);
  const perRound = arg("--per-round", 200);
  const concurrency = arg("--concurrency", 16);
  const allocRequests = arg("--alloc", 5000);
  const sites = arg("--sites", 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-chain-"));
  try {
    const subjects = [await subjectOf(path.join(baseline, "dist"), path.join(dir, "base")), await subjectOf(path.join(ROOT, "dist"), path.join(dir, "this"))];
    for (const s of subjects) await run(s, 5 * perRound, concurrency); // warm-up: JIT, statement caches, token caches
    if (rounds > 0) await timeRounds(subjects, rounds, perRound, concurrency, baseline);
    if (allocRequests > 0) {
      // Twice each, alternated: the sampling is random, the two figures of one app show how far it moves.
      const bytes: number[][] = [[], []];
      for (const i of [0, 1, 1, 0]) bytes[i].push(await allocatedPerRequest(subjects[i], allocRequests, concurrency));
      const kib = (xs: number[]) => xs.map((b) => (b / 1024).toFixed(1)).join(" / ");
      console.log(
        `allocated on the main thread per request (${allocRequests} requests, twice each): baseline ${kib(bytes[0])} KiB, this checkout ${kib(bytes[1])} KiB`,
      );
    }
    if (sites > 0) {
      console.log(`this checkout's ${sites} call sites allocating the most per request (${allocRequests} requests; self bytes, <- caller):`);
      const all = await allocatedPerRequest(subjects[1], allocRequests, concurrency, sites);
      // Objects a young-generation collection found alive: copied (twice, then promoted), the costly garbage.
      console.log(`this checkout's ${sites} call sites whose objects outlive a young-generation collection (promoted, or live at the end):`);
      const kept = await allocatedPerRequest(subjects[1], allocRequests, concurrency, sites, true);
      console.log(`of ${(all / 1024).toFixed(1)} KiB allocated per request, ${(kept / 1024).toFixed(1)} KiB outlived a young-generation collection`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // The services' decision-log workers and timers are not closed: the process ends here.
  process.exit(0);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
