/**
 * The export runner without HTTP: jobs run on a later turn of the event loop,
 * stop() hands a job in progress back to the queue (no partial result, lease
 * released) and the next start runs it from scratch, a damaged job fails
 * alone, the lease is renewed between pages and a renewal refused ends the
 * run, a job whose every run died is failed after three. Several runners on one database: runner-scale-out.test.ts.
 */
import Database from "better-sqlite3";
import { createExportRunner, type ExportRunner } from "../../../api/exports/runner";
import { sqliteStore } from "../../../db/sqlite-store";
import { ACME, closeTempDb, openTempDb, type TempDb } from "../../db/helpers";
import { countInvoices, insertInvoices, manyInvoices } from "../../db/insert-invoices";

let t: TempDb;
let runners: ExportRunner[] = [];
const logs: Array<Record<string, unknown>> = [];
const runner = (options: { leaseMs?: number; now?: () => number } = {}) => {
  // The runner works on the async store; the test reads the same file synchronously.
  const r = createExportRunner({ db: sqliteStore(t.db), logger: (entry) => void logs.push(entry), ...options });
  runners.push(r);
  return r;
};
const createJob = () => t.db.exportJobs.createScoped(ACME, { requestedBy: "u_carol", format: "json", readFields: ["id", "number"], rowScope: ACME });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

beforeEach(() => {
  t = openTempDb();
  logs.length = 0;
});
afterEach(async () => {
  for (const r of runners) await r.stop();
  runners = [];
  closeTempDb(t);
});

test("enqueue returns at once; the job runs later and stores the projected rows", async () => {
  const r = runner();
  const job = createJob();
  r.enqueue(job);
  expect(t.db.exportJobs.getScoped(job.id, ACME)?.status).toBe("queued");
  await r.idle();
  const done = t.db.exportJobs.getScoped(job.id, ACME)!;
  expect(done).toMatchObject({ status: "done", row_count: countInvoices(t.file, "t_acme"), error: null });
  const rows = JSON.parse(done.result!) as Array<Record<string, unknown>>;
  for (const row of rows) expect(Object.keys(row)).toEqual(["id", "number"]);
});

test("stop() hands a job in progress back to the queue with no result; the next start runs it from scratch", async () => {
  insertInvoices(t.file, manyInvoices("t_acme", "u_bob", 250)); // three pages
  const first = runner();
  const job = createJob();
  first.enqueue(job);
  for (let i = 0; i < 100 && t.db.exportJobs.getScoped(job.id, ACME)?.status !== "running"; i++) await turn();
  expect(t.db.exportJobs.getScoped(job.id, ACME)?.status).toBe("running");
  await first.stop();
  expect(t.db.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "queued", started_at: null, result: null, row_count: null, lease_owner: null });
  expect(logs).toContainEqual(expect.objectContaining({ event: "export.job", job_id: job.id, status: "cancelled" }));

  first.enqueue(job); // a stopped runner takes nothing
  await turn();
  expect(t.db.exportJobs.getScoped(job.id, ACME)?.status).toBe("queued");

  const next = runner();
  next.resume();
  await next.idle();
  expect(t.db.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "done", row_count: countInvoices(t.file, "t_acme") });
});

test("a job whose stored scope is damaged fails alone with export_failed; the next job still runs", async () => {
  const damaged = createJob();
  const raw = new Database(t.file);
  raw.prepare("UPDATE export_jobs SET scope = ? WHERE id = ?").run(JSON.stringify({ tenant_id: "t_acme", project_id: "p_1" }), damaged.id);
  raw.close();
  const healthy = createJob();
  const r = runner();
  r.enqueue(damaged);
  await r.idle();
  expect(t.db.exportJobs.getScoped(damaged.id, ACME)).toMatchObject({ status: "failed", error: "export_failed", result: null });
  expect(t.db.exportJobs.getScoped(healthy.id, ACME)?.status).toBe("done");
  const failure = logs.find((l) => l.job_id === damaged.id && l.status === "failed");
  expect(failure?.message).toMatch(/cannot enforce: project_id/);
});

describe("the lease while a job runs (the runner's clock decides when to renew; expiry is the database's)", () => {
  const LEASE_MS = 30_000;
  const FAR = "2999-01-01T00:00:00.000Z";
  /** A clock that moves half a lease at every reading, so every page finds the lease due for renewal; `onRead` runs at each reading. */
  const jumpingClock = (onRead: (reading: number) => void) => {
    let reading = 0;
    return () => {
      onRead(++reading);
      return reading * (LEASE_MS / 2);
    };
  };

  test("renewed before every page once a third of it has passed", async () => {
    insertInvoices(t.file, manyInvoices("t_acme", "u_bob", 250)); // three pages
    const job = createJob();
    const raw = new Database(t.file);
    // At each reading of the clock: what the lease's expiry is, then pushed far away, so a renewal shows as a nearer one.
    const seen: string[] = [];
    const r = runner({
      leaseMs: LEASE_MS,
      now: jumpingClock(() => {
        const row = raw.prepare("SELECT status, lease_expires_at FROM export_jobs WHERE id = ?").get(job.id) as { status: string; lease_expires_at: string };
        if (row.status !== "running") return;
        seen.push(row.lease_expires_at);
        raw.prepare("UPDATE export_jobs SET lease_expires_at = ? WHERE id = ?").run(FAR, job.id);
      }),
    });
    try {
      r.enqueue(job);
      await r.idle();
    } finally {
      raw.close();
    }
    expect(t.db.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "done", row_count: countInvoices(t.file, "t_acme"), lease_owner: null });
    // The claim's lease, then one renewal (30 s from the database's now) before each of the three pages.
    const renewals = seen.filter((expiry) => expiry !== FAR);
    expect(renewals).toHaveLength(4);
    for (const expiry of renewals) expect(Date.parse(expiry)).toBeLessThan(Date.now() + LEASE_MS + 5_000);
  });

  test("a renewal refused (another runner took the job over meanwhile) ends the run with no write", async () => {
    const job = createJob();
    const raw = new Database(t.file);
    const r = runner({
      leaseMs: LEASE_MS,
      // While this runner was paused before its first page, its lease ran out and another runner claimed the job.
      now: jumpingClock((reading) => {
        if (reading === 2) raw.prepare("UPDATE export_jobs SET lease_owner = 'usurper', lease_expires_at = ? WHERE id = ?").run(FAR, job.id);
      }),
    });
    try {
      r.enqueue(job);
      await r.idle();
    } finally {
      raw.close();
    }
    expect(logs).toContainEqual(expect.objectContaining({ event: "export.job", job_id: job.id, status: "lease_lost", level: "warn" }));
    expect(t.db.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "running", lease_owner: "usurper", result: null, row_count: null });
  });
});

test("a job whose runners all died (three expired claims) is failed with export_failed, not run a fourth time; the tenant's next job runs", async () => {
  const poison = createJob();
  for (let i = 0; i < 3; i++) expect(t.db.exportJobs.claimNextScoped(ACME, { runner: `crashed-${i}`, ms: 0 })?.id).toBe(poison.id);
  const healthy = createJob();
  const r = runner();
  r.resume();
  await r.idle();
  expect(t.db.exportJobs.getScoped(poison.id, ACME)).toMatchObject({ status: "failed", error: "export_failed", result: null, attempts: 3 });
  expect(logs).toContainEqual(
    expect.objectContaining({ event: "export.job", job_id: poison.id, status: "failed", message: "abandoned after 3 runs that never finished" }),
  );
  expect(logs.filter((l) => l.job_id === poison.id)).toHaveLength(1);
  expect(t.db.exportJobs.getScoped(healthy.id, ACME)).toMatchObject({ status: "done", attempts: 1 });
});
