/**
 * Before/after of the SQLite decision store's writes (run on demand, never a test):
 *
 *   node dist/bench/sink-ab.bench.js --baseline <dir> [--events 20000] [--rounds 10] [--per-commit 250]
 *
 * `<dir>` is a checkout of an earlier revision with its dist/ built (see
 * ab.bench.ts). Loads SqliteSink (pdp/log/sinks/sqlite-sink.ts, with its
 * store module) from `<dir>/dist` and from this checkout into ONE process
 * and writes the same events through each in alternating rounds, a fresh
 * store file per round (a store that grows across rounds would favour
 * neither side but skew both). Each event goes with its request outcome,
 * as the API records them: `--per-commit` events and their outcomes, then
 * commitNow() (250: the default batch of 500 rows, as under load; 1: a
 * commit per request, as durable() gives a write). Prints each side's
 * median CPU time per event (user + system: the store's write(2) calls are
 * system time) and the ratio. The decision log's worker does these writes:
 * this is that share of its work, without the ring and the policies.
 *
 * A round must span many WAL checkpoints (SQLite's default: one per 1000
 * pages, 8 MB at the store's 8 KiB pages, ~3000 events): the WAL left at a
 * round's end is checkpointed by nobody, so over a short round a change
 * that checkpoints less often looks faster than it is (wal_autocheckpoint
 * 4000 read 0.925 over rounds of 10000 events, 1.058 over rounds of 40000).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SqliteSink as SinkClass } from "../pdp/log/sinks/sqlite-sink";
import type { LogEvent } from "../pdp/log/core/mask";
import type { OutcomeRow } from "../pdp/log/store/sqlite-store";
import { describeCompetition, machineCpu } from "./machine";

const ROOT = path.resolve(__dirname, "../..");

/** A GET's allowed decision as the full chain logs it (~1.9 KB with its trail), ids and times filled in per event. */
function eventText(id: string, timestamp: string, reqId: number): string {
  const trail = [
    ["portcullis.decision", "decision.rego:51"],
    ["portcullis.grant", "routes.rego:66"],
    ["portcullis.outcome", "decision.rego:87"],
    ["portcullis.scope", "tenancy.rego:45"],
    ["portcullis.read_fields", "fields.rego:37"],
    ["portcullis.write_fields", "fields.rego:44"],
    ["portcullis.route_policy", "routes.rego:13"],
    ["portcullis.grant_role", "routes.rego:58"],
    ["portcullis.tenant_scope", "tenancy.rego:47"],
    ["portcullis.owner_scope", "tenancy.rego:49"],
    ["portcullis.views", "fields.rego:19"],
    ["portcullis.retired", "fields.rego:23"],
    ["portcullis.hidden_from_grant", "fields.rego:26"],
    ["portcullis.protected", "fields.rego:21"],
    ["portcullis.role_precedence", "routes.rego:56"],
    ["portcullis.caller_roles", "routes.rego:45"],
    ["portcullis.actor_tenant", "tenancy.rego:12"],
    ["portcullis.authenticated", "routes.rego:33"],
  ].map(([rule, at]) => ({ rule, at: `rego/portcullis/${at}` }));
  return JSON.stringify({
    decision_id: id,
    labels: { id: "e7a9c449-aa99-4188-b387-f2402902315a", version: "0.1.0" },
    timestamp,
    path: "portcullis/decision",
    bundles: { portcullis: { revision: "sha256:22110babf3d89ed4" } },
    requested_by: "127.0.0.1:40884",
    req_id: reqId,
    metrics: { timer_rego_query_eval_ns: 51678 },
    input: {
      actor: { id: "u_alice", tenant: "t_acme", roles: ["member"] },
      action: "read",
      resource: { type: "invoice", id: "inv_alice_1" },
      route: { id: "invoices.get", method: "GET", version: "v2" },
      fields: { submitted: [] },
      params: [],
    },
    result: {
      allow: true,
      fields: { read: ["id", "number", "status", "amount_cents", "currency", "created_at"], write: [] },
      reason: "allowed",
      scope: { owner_id: "u_alice", tenant_id: "t_acme" },
      status: 200,
    },
    custom: { trail },
  });
}

/** UUIDv7-like ids, increasing like the PDP's (the unique index grows at its right edge). */
function idOf(n: number): string {
  const hex = n.toString(16).padStart(15, "0");
  return `01a21fd1-${hex.slice(0, 4)}-7${hex.slice(4, 7)}-9e7f-${hex.slice(7).padStart(12, "0")}`;
}

type Item = { event: LogEvent; json: string; outcome: OutcomeRow };

let made = 0;
function items(n: number): Item[] {
  return Array.from({ length: n }, () => {
    const id = idOf(made++);
    const timestamp = new Date(Date.UTC(2026, 10, 28) + made).toISOString().replace("Z", "000000Z");
    const json = eventText(id, timestamp, made);
    const outcome: OutcomeRow = {
      decision_id: id,
      timestamp,
      method: "GET",
      http_path: "/invoices/inv_alice_1",
      route_id: "invoices.get",
      version: "v2",
      actor_id: "u_alice",
      status: 200,
      problem: null,
      scope_found: 1,
      test_run: null,
      aborted: 0,
    };
    return { event: JSON.parse(json) as LogEvent, json, outcome };
  });
}

/** CPU microseconds per event (with its outcome) for one round through `Sink`, on a fresh file. */
function round(Sink: typeof SinkClass, file: string, batch: Item[], perCommit: number): number {
  const sink = new Sink({
    file,
    batchSize: 2 * perCommit,
    bufferLimit: 4 * batch.length,
    flushIntervalMs: 3_600_000,
    onError: (e) => {
      throw e;
    },
  });
  const start = process.cpuUsage();
  for (let i = 0; i < batch.length; i += perCommit) {
    for (const item of batch.slice(i, i + perCommit)) {
      sink.write(item.event, item.json);
      sink.writeOutcome(item.outcome);
    }
    if (!sink.commitNow()) throw new Error("a commit failed");
  }
  const used = process.cpuUsage(start);
  if (sink.stats().written !== 2 * batch.length) throw new Error(`wrote ${sink.stats().written} rows, expected ${2 * batch.length}`);
  void sink.close();
  return (used.user + used.system) / batch.length;
}

function option(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
}

function main(): void {
  const argv = process.argv.slice(2);
  const at = argv.indexOf("--baseline");
  if (at < 0 || !argv[at + 1]) throw new Error("usage: sink-ab.bench.js --baseline <checkout with dist/ built> [--events N] [--rounds N] [--per-commit N]");
  const baseline = path.resolve(argv[at + 1]);
  const events = option(argv, "--events", 20000);
  const rounds = option(argv, "--rounds", 10);
  const perCommit = option(argv, "--per-commit", 250);
  /* eslint-disable @typescript-eslint/no-require-imports -- CommonJS from a path known only at run time */
  const sides = [
    {
      name: "baseline",
      Sink: (require(path.join(baseline, "dist/pdp/log/sinks/sqlite-sink")) as { SqliteSink: typeof SinkClass }).SqliteSink,
      cpu: [] as number[],
    },
    {
      name: "this checkout",
      Sink: (require(path.join(ROOT, "dist/pdp/log/sinks/sqlite-sink")) as { SqliteSink: typeof SinkClass }).SqliteSink,
      cpu: [] as number[],
    },
  ];
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sink-ab-"));
  console.log(`SqliteSink, ${events} events and their outcomes per round, ${perCommit} of each per commit, ${rounds} alternating rounds, a fresh store each`);
  console.log(`before: ${baseline}\nafter:  ${ROOT}`);
  const machineBefore = machineCpu();
  const cpuBefore = process.cpuUsage();
  const wallStart = Date.now();
  try {
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const batch = items(events); // built before the clock starts; the same shape for both sides
        const file = path.join(dir, `round-${r}.db`);
        side.cpu.push(round(side.Sink, file, batch, perCommit));
        for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const used = process.cpuUsage(cpuBefore);
  console.log(describeCompetition(machineBefore, machineCpu(), (used.user + used.system) / 1e6, (Date.now() - wallStart) / 1000));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  for (const side of sides) {
    console.log(
      `${side.name.padEnd(14)} CPU per event + outcome: median ${median(side.cpu).toFixed(1)} us (rounds ${side.cpu.map((x) => x.toFixed(0)).join(" ")})`,
    );
  }
  const ratios = sides[0].cpu.map((b, i) => sides[1].cpu[i] / b);
  console.log(`per-round ratio this/baseline, median: ${median(ratios).toFixed(3)}`);
}

main();
