/**
 * Several instances on one PostgreSQL database, each with its own export
 * runner (its own store, its own pool), as `portcullis serve` runs them
 * behind a gateway:
 *   - an instance that starts (deploy, scale-up, restart) never takes a job
 *     another, live instance is running: one run per job;
 *   - a job left `running` by a dead instance (its lease expired), or queued
 *     on one that died before running it, is run by a live instance's poll,
 *     without any restart;
 *   - a runner that stalled past its lease writes nothing over the run of the
 *     instance that took the job over;
 *   - stop() releases the job in progress: another instance takes it at
 *     once, not a lease later.
 *
 * A runner is held in the middle of a job by a real lock: the owner takes
 * ACCESS EXCLUSIVE on `invoices`, so the runner's page read waits in
 * PostgreSQL until the test lets it go (seen in pg_locks, never by timing).
 */
import pg from "pg";
import { createExportRunner, type ExportRunner } from "../../../api/exports/runner";
import { openPgStore } from "../../../db/pg";
import type { DataStore } from "../../../db/store";
import { clonePgDatabase, type PgUrls } from "../../db/contract/backends";
import { ACME } from "../../db/helpers";

let db: { urls: PgUrls; drop(): Promise<void> };
let owner: pg.Client;
/** The owner's second connection: holds the lock on invoices while `owner` works. */
let locker: pg.Client;
let stores: DataStore[] = [];
let runners: ExportRunner[] = [];

beforeAll(async () => {
  db = await clonePgDatabase();
  owner = new pg.Client({ connectionString: db.urls.owner });
  await owner.connect();
  locker = new pg.Client({ connectionString: db.urls.owner });
  await locker.connect();
});
afterAll(async () => {
  await owner?.end();
  await locker?.end();
  await db?.drop();
});
afterEach(async () => {
  await locker.query("ROLLBACK").catch(() => undefined); // a lock a failed test left
  for (const r of runners) await r.stop();
  for (const s of stores) await s.close();
  runners = [];
  stores = [];
});

/** One instance: its own store (pool) and runner, logging into `logs`. */
async function instance(options: { pollIntervalMs?: number } = {}): Promise<{ store: DataStore; runner: ExportRunner; logs: Array<Record<string, unknown>> }> {
  const store = await openPgStore({ url: db.urls.app });
  stores.push(store);
  const logs: Array<Record<string, unknown>> = [];
  const runner = createExportRunner({ db: store, logger: (entry) => void logs.push(entry), ...options });
  runners.push(runner);
  return { store, runner, logs };
}

/** Waits, with a deadline, until `ready()` holds. */
async function until(what: string, ready: () => Promise<boolean> | boolean, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Service-role statements waiting for the owner's lock on invoices (pg_locks is readable by every role). */
async function waitingOnInvoices(): Promise<number> {
  const { rows } = await owner.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'public.invoices'::regclass");
  return rows[0].n;
}

const holdInvoices = () => locker.query("BEGIN; LOCK TABLE invoices IN ACCESS EXCLUSIVE MODE");
const releaseInvoices = () => locker.query("COMMIT");

/** As the owner, in the job's tenant (FORCE row-level security holds the owner too). */
async function asOwnerIn(tenant: string, sql: string, params: unknown[] = []): Promise<void> {
  await owner.query("BEGIN");
  try {
    await owner.query("SELECT set_config('portcullis.tenant', $1, true)", [tenant]);
    await owner.query(sql, params);
    await owner.query("COMMIT");
  } catch (err) {
    await owner.query("ROLLBACK");
    throw err;
  }
}

const CAROL_JOB = { requestedBy: "u_carol", format: "json", readFields: ["id"], rowScope: ACME } as const;
const jobRuns = (logs: Array<Record<string, unknown>>, id: string) => logs.filter((l) => l.event === "export.job" && l.job_id === id);

/** Instance A, running a job and held on its first page by the lock on invoices (released by releaseInvoices()). */
async function instanceInTheMiddleOfAJob() {
  const a = await instance();
  const job = await a.store.exportJobs.createScoped(ACME, CAROL_JOB);
  await holdInvoices();
  a.runner.enqueue(job);
  await until("instance A reads its first page", async () => (await waitingOnInvoices()) === 1);
  return { a, job };
}

test("an instance that starts while another runs a job never runs that job too", async () => {
  const { a, job } = await instanceInTheMiddleOfAJob();

  // A deploy starts instance B while A is in the middle of the job.
  const b = await instance();
  let bIdle = false;
  b.runner.resume();
  const bDone = b.runner.idle().then(() => (bIdle = true));
  // B either found nothing to take (idle), or took the job and now waits on the lock beside A.
  await until("instance B settles", async () => bIdle || (await waitingOnInvoices()) === 2);
  await releaseInvoices();
  await bDone;
  await a.runner.idle();

  expect(jobRuns(b.logs, job.id)).toEqual([]);
  expect(jobRuns(a.logs, job.id)).toEqual([expect.objectContaining({ status: "done", rowCount: 8 })]);
  expect(await a.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "done", row_count: 8 });
});

test("a dead instance's jobs (running under an expired lease, or queued) are run by a live instance's poll, no restart needed", async () => {
  const live = await instance({ pollIntervalMs: 20 });
  live.runner.resume();
  await live.runner.idle();
  // An instance claimed this job and died; its lease has run out (0 ms: expired as soon as taken).
  const orphan = await live.store.exportJobs.createScoped(ACME, CAROL_JOB);
  expect(await live.store.exportJobs.claimNextScoped(ACME, { runner: "dead-instance", ms: 0 })).toMatchObject({ id: orphan.id, status: "running" });
  // Another accepted this one and died before its runner saw it: nobody ever enqueue()d it here.
  const accepted = await live.store.exportJobs.createScoped(ACME, CAROL_JOB);

  const done = async (id: string) => (await live.store.exportJobs.getScoped(id, ACME))?.status === "done";
  await until("the live instance runs both", async () => (await done(orphan.id)) && (await done(accepted.id)));
  for (const job of [orphan, accepted]) expect(jobRuns(live.logs, job.id)).toEqual([expect.objectContaining({ status: "done", runner: live.runner.id })]);
});

test("a runner that stalled past its lease writes nothing over the run of the instance that took the job over", async () => {
  const { a, job } = await instanceInTheMiddleOfAJob();
  // A stalls (its page read waits) until its lease is over: moved on the database's clock, not waited for.
  await asOwnerIn("t_acme", "UPDATE export_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [job.id]);
  const b = await instance({ pollIntervalMs: 20 });
  b.runner.resume();
  await until("B takes the job over", async () => (await waitingOnInvoices()) === 2);
  expect(await a.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "running", lease_owner: b.runner.id });
  await releaseInvoices();
  await a.runner.idle();
  await until("B finishes", async () => (await a.store.exportJobs.getScoped(job.id, ACME))?.status === "done");

  expect(jobRuns(a.logs, job.id)).toEqual([expect.objectContaining({ level: "warn", status: "lease_lost", runner: a.runner.id })]);
  expect(jobRuns(b.logs, job.id)).toEqual([expect.objectContaining({ status: "done", rowCount: 8, runner: b.runner.id })]);
  expect(await a.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "done", row_count: 8, lease_owner: null, lease_expires_at: null });
});

test("stop() releases the job in progress: another instance takes it at once, not a lease later", async () => {
  // Three pages, so the stop lands before a next page.
  await asOwnerIn(
    "t_acme",
    `INSERT INTO invoices (id, tenant_id, owner_id, number, amount_cents, currency, status)
     SELECT 'inv_bulk_' || n, 't_acme', 'u_bob', 'BULK-' || n, 100 + n, 'USD', 'draft' FROM generate_series(1, 250) AS n`,
  );
  try {
    const a = await instance();
    const job = await a.store.exportJobs.createScoped(ACME, CAROL_JOB);
    await holdInvoices();
    a.runner.enqueue(job);
    await until("A reads its first page", async () => (await waitingOnInvoices()) === 1);
    const stopping = a.runner.stop();
    await releaseInvoices();
    await stopping;
    expect(jobRuns(a.logs, job.id)).toEqual([expect.objectContaining({ status: "cancelled" })]);
    expect(await a.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "queued", lease_owner: null, result: null });

    // B's lease-length wait would be 30 s (the default): the deadline below is shorter.
    const b = await instance({ pollIntervalMs: 20 });
    b.runner.resume();
    await until("B runs the released job", async () => (await b.store.exportJobs.getScoped(job.id, ACME))?.status === "done", 10_000);
    expect(jobRuns(b.logs, job.id)).toEqual([expect.objectContaining({ status: "done", rowCount: 258, runner: b.runner.id })]);
  } finally {
    await asOwnerIn("t_acme", "DELETE FROM export_jobs; DELETE FROM invoices WHERE id LIKE 'inv_bulk_%'");
  }
});
