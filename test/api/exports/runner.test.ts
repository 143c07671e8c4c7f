/**
 * The export runner without HTTP: jobs run on a later turn of the event loop,
 * stop() hands a job in progress back to the queue (no partial result, lease
 * released) and the next start runs it from scratch, a damaged job fails
 * alone. Several runners on one database: runner-scale-out.test.ts.
 */
import Database from "better-sqlite3";
import { createExportRunner, type ExportRunner } from "../../../api/exports/runner";
import { sqliteStore } from "../../../db/sqlite-store";
import { ACME, closeTempDb, openTempDb, type TempDb } from "../../db/helpers";
import { countInvoices, insertInvoices, manyInvoices } from "../../db/insert-invoices";

let t: TempDb;
let runners: ExportRunner[] = [];
const logs: Array<Record<string, unknown>> = [];
const runner = () => {
  // The runner works on the async store; the test reads the same file synchronously.
  const r = createExportRunner({ db: sqliteStore(t.db), logger: (entry) => void logs.push(entry) });
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
