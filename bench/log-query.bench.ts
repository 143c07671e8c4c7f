/**
 * `portcullis decisions` on a large log, before and after (run on demand, never a test):
 *
 *   node dist/bench/log-query.bench.js --baseline <dir> [--decisions 300000] [--rounds 9] [--postgres]
 *
 * `<dir>` is a checkout of an earlier revision with its dist/ built (see
 * ab.bench.ts). Loads pdp/log/store/query.ts from `<dir>/dist` and from this
 * checkout into ONE process and runs the same queries through each in
 * alternating rounds, each side on a store with its own revision's schema
 * (the earlier one without outcomes_failed), the same rows in both: N
 * decisions 10 ms apart with their outcomes (~1.3 KB events), where a
 * denial, an allowed request that failed (404) and a request to a rare
 * route each come once in ~20,000, and a less rare route once in 1,000.
 * Prints each query's median time per side, the ratio, that both answered
 * the same, and the statements the new side ran. The SQLite stores are
 * made once per size and revision in the temporary directory and reused
 * (a few minutes for the default size); with `--postgres`, two databases
 * of the private cluster (scripts/services/postgres.sh) get the same rows
 * and are dropped at the end.
 *
 * What it shows: the filters an index serves once the query reads through
 * it (--denied, --path of a rare route) no longer walk the log by time;
 * the rest (a dense path, no filter, an actor) read as before.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { migratePg } from "../db/pg/migrate";
import type * as QueryModule from "../pdp/log/store/query";
import { describeCompetition, machineCpu } from "./machine";

const ROOT = path.resolve(__dirname, "../..");

type Query = typeof QueryModule;
interface Side {
  name: "before" | "after";
  query: Query;
  /** The store module of the side's revision: its schema. */
  openForAppend(file: string): Database.Database;
}

const QUERIES: Array<[string, QueryModule.DecisionQuery]> = [
  ["--denied", { denied: true }],
  ["--denied --limit 10", { denied: true, limit: 10 }],
  ["--denied --actor u_7", { denied: true, actor: "u_7" }],
  ["--path rare.get (1/20,000)", { path: "rare.get" }],
  ["--path /rare/x (1/20,000)", { path: "/rare/x" }],
  ["--path some.get (1/1,000)", { path: "some.get" }],
  ["--path portcullis (every one)", { path: "portcullis" }],
  ["--path invoices.get (most)", { path: "invoices.get" }],
  ["--actor u_7 (1/500)", { actor: "u_7" }],
  ["no filter", {}],
];

/** What the two stores spell differently in the rows' SQL. */
interface Dialect {
  /** `n` numbers, `i`. */
  numbers(n: number): string;
  /** `i` as nine digits, zeros first. */
  id: string;
  /** The log's timestamp text of `offsetMs + i * 10` ms after 2026-01-01 (nine fraction digits). */
  time(offsetMs: number): string;
  /** A 1,200-character text. */
  pad: string;
  /** Whether decisions have run_id and a json event (PostgreSQL). */
  postgres: boolean;
}

const SQLITE: Dialect = {
  numbers: (n) => `(WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < ${n}) SELECT i FROM c)`,
  id: "substr('000000000' || i, -9, 9)",
  time: (offsetMs) => `iso_ms(${offsetMs} + i * 10) || substr('000' || (i % 1000), -3, 3) || 'Z'`,
  pad: "replace(hex(zeroblob(600)), '0', 'x')",
  postgres: false,
};

const POSTGRES: Dialect = {
  numbers: (n) => `generate_series(0, ${n - 1}) AS g(i)`,
  id: "lpad(i::text, 9, '0')",
  time: (offsetMs) =>
    `to_char(timestamp '2026-01-01' + (${offsetMs} + i * 10) * interval '1 ms', 'YYYY-MM-DD"T"HH24:MI:SS.US') || lpad((i % 1000)::text, 3, '0') || 'Z'`,
  pad: "repeat('x', 1200)",
  postgres: true,
};

/** The rows, as one INSERT ... SELECT per table over `n` numbers. */
function rowsSql(d: Dialect, n: number): string[] {
  const id = `'d-' || ${d.id}`;
  const denied = "(i % 20011 = 7)";
  const failed = "(i % 19997 = 3)";
  const rare = "(i % 20021 = 11)";
  const some = "(i % 1009 = 5)";
  return [
    `INSERT INTO decisions (decision_id, timestamp, path, actor_id, allowed, status, reason, revision, ${d.postgres ? "run_id, " : ""}event)
     SELECT ${id}, ${d.time(0)}, 'portcullis/decision', 'u_' || (i % 500), CASE WHEN ${denied} THEN 0 ELSE 1 END,
            CASE WHEN ${denied} THEN 403 ELSE 200 END, CASE WHEN ${denied} THEN 'role_required' ELSE 'allowed' END, 'rev-1',
            ${d.postgres ? "'bench', " : ""}('{"decision_id":"' || ${id} || '","pad":"' || ${d.pad} || '"}')${d.postgres ? "::json" : ""}
     FROM ${d.numbers(n)}`,
    `INSERT INTO outcomes (decision_id, timestamp, method, http_path, route_id, version, actor_id, status, problem, scope_found, test_run, aborted)
     SELECT ${id}, ${d.time(4)}, 'GET',
            CASE WHEN ${rare} THEN '/rare/x' WHEN ${some} THEN '/some/x' ELSE '/invoices/inv_' || (i % 1000) END,
            CASE WHEN ${rare} THEN 'rare.get' WHEN ${some} THEN 'some.get' ELSE 'invoices.get' END, 'v2', 'u_' || (i % 500),
            CASE WHEN ${denied} THEN 403 WHEN ${failed} THEN 404 ELSE 200 END, NULL, NULL, NULL, 0
     FROM ${d.numbers(n)}`,
  ];
}

const T0_MS = Date.UTC(2026, 0, 1);

function sqliteStore(side: Side, n: number): string {
  const revision = side.name === "before" ? "before" : "after";
  const file = path.join(os.tmpdir(), `portcullis-log-query-${n}-${revision}.db`);
  if (fs.existsSync(file)) return file;
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  const db = side.openForAppend(partial);
  // To the millisecond; SQLITE.time appends the other six fraction digits.
  db.function("iso_ms", (ms: number) => new Date(T0_MS + ms).toISOString().slice(0, 23));
  const t = Date.now();
  db.transaction(() => {
    for (const sql of rowsSql(SQLITE, n)) db.exec(sql);
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  fs.renameSync(partial, file);
  console.log(`made ${file} (${n} decisions) in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  return file;
}

async function postgresStores(n: number): Promise<{ urls: Record<Side["name"], string>; drop(): Promise<void> }> {
  const env = Object.fromEntries(
    fs
      .readFileSync(path.join(ROOT, "var/postgres.env"), "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  const owner = env.PORTCULLIS_DATABASE_OWNER_URL;
  const app = env.PORTCULLIS_DATABASE_URL;
  if (!owner || !app) throw new Error("var/postgres.env lacks the database URLs: run scripts/services/postgres.sh start");
  const at = (url: string, name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const admin = new pg.Client({ connectionString: owner });
  await admin.connect();
  const names = { before: `portcullis_bench_before_${process.pid}`, after: `portcullis_bench_after_${process.pid}` };
  for (const [side, name] of Object.entries(names)) {
    await admin.query(`CREATE DATABASE ${name}`);
    await migratePg(at(owner, name));
    const c = new pg.Client({ connectionString: at(owner, name) });
    await c.connect();
    // The earlier revision's schema: without the index the new queries read through.
    if (side === "before") await c.query("DROP INDEX outcomes_failed");
    const t = Date.now();
    for (const sql of rowsSql(POSTGRES, n)) await c.query(sql);
    await c.query("VACUUM ANALYZE decisions");
    await c.query("VACUUM ANALYZE outcomes");
    await c.end();
    console.log(`made PostgreSQL database ${name} (${n} decisions) in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  }
  return {
    urls: { before: at(app, names.before), after: at(app, names.after) },
    async drop() {
      for (const name of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

function option(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  return at < 0 ? fallback : Number(argv[at + 1]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Runner {
  store: string;
  run(side: Side, q: QueryModule.DecisionQuery, trace?: QueryModule.QueryTuning["trace"]): Promise<string[]>;
}

async function measure(runner: Runner, sides: Side[], rounds: number): Promise<void> {
  console.log(`\n${runner.store}: median ms over ${rounds} alternating rounds`);
  console.log(`${"query".padEnd(32)} ${"before".padStart(10)} ${"after".padStart(10)} ${"ratio".padStart(8)}  same  statements (after)`);
  for (const [name, q] of QUERIES) {
    const times: Record<string, number[]> = { before: [], after: [] };
    const answers: Record<string, string[]> = {};
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const t = process.hrtime.bigint();
        answers[side.name] = await runner.run(side, q);
        times[side.name].push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }
    let statements = 0;
    await runner.run(sides[1], q, () => statements++);
    const [before, after] = [median(times.before), median(times.after)];
    const same = JSON.stringify(answers.before) === JSON.stringify(answers.after) ? "yes" : "NO";
    console.log(
      `${name.padEnd(32)} ${before.toFixed(1).padStart(10)} ${after.toFixed(1).padStart(10)} ${(after / before).toFixed(3).padStart(8)}  ${same.padEnd(4)}  ${statements}`,
    );
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf("--baseline");
  if (at < 0 || !argv[at + 1]) throw new Error("usage: log-query.bench.js --baseline <checkout with dist/ built> [--decisions N] [--rounds N] [--postgres]");
  const baseline = path.resolve(argv[at + 1]);
  const n = option(argv, "--decisions", 300_000);
  const rounds = option(argv, "--rounds", 9);
  /* eslint-disable @typescript-eslint/no-require-imports -- CommonJS from a path known only at run time */
  const load = (dir: string, name: Side["name"]): Side => ({
    name,
    query: require(path.join(dir, "dist/pdp/log/store/query")) as Query,
    openForAppend: (require(path.join(dir, "dist/pdp/log/store/sqlite-store")) as typeof import("../pdp/log/store/sqlite-store")).openForAppend,
  });
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sides = [load(baseline, "before"), load(ROOT, "after")];
  console.log(`before: ${baseline}\nafter:  ${ROOT}`);

  const machineBefore = machineCpu();
  const wallStart = Date.now();
  const cpuStart = process.cpuUsage();
  const files = Object.fromEntries(sides.map((side) => [side.name, sqliteStore(side, n)]));
  const dbs = Object.fromEntries(Object.entries(files).map(([name, file]) => [name, new Database(file, { readonly: true })]));
  await measure(
    {
      store: `SQLite, ${n} decisions`,
      run: async (side, q, trace) => side.query.queryDecisions(dbs[side.name], q, trace ? { trace } : undefined).map((e) => e.decision_id),
    },
    sides,
    rounds,
  );
  for (const db of Object.values(dbs)) db.close();

  if (argv.includes("--postgres")) {
    const stores = await postgresStores(n);
    const pools = {
      before: new pg.Pool({ connectionString: stores.urls.before, max: 1 }),
      after: new pg.Pool({ connectionString: stores.urls.after, max: 1 }),
    };
    try {
      await measure(
        {
          store: `PostgreSQL, ${n} decisions`,
          run: async (side, q, trace) => (await side.query.queryDecisionsPg(pools[side.name], q, trace ? { trace } : undefined)).map((e) => e.decision_id),
        },
        sides,
        rounds,
      );
    } finally {
      for (const pool of Object.values(pools)) await pool.end();
      await stores.drop();
    }
  }
  const used = process.cpuUsage(cpuStart);
  console.log(`\n${describeCompetition(machineBefore, machineCpu(), (used.user + used.system) / 1e6, (Date.now() - wallStart) / 1000)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
