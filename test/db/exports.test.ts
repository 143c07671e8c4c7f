/**
 * The export jobs repository: every read and write through the tenant scope,
 * the job's captured row scope kept in its tenant, status changes only from
 * the right state, and a schema that refuses a half-written job even when
 * the repository is bypassed.
 */
import Database from "better-sqlite3";
import { ScopeError, type NewExportJob } from "../../db";
import { ACME, ALICE, closeTempDb, GLOBEX, INJECTIONS, openTempDb, type TempDb } from "./helpers";

let t: TempDb;
beforeEach(() => (t = openTempDb()));
afterEach(() => closeTempDb(t));

const CAROL_JOB: NewExportJob = { requestedBy: "u_carol", format: "csv", readFields: ["id", "number"], rowScope: ACME };
const LEASE = { runner: "runner-a", ms: 30_000 };

describe("createScoped", () => {
  test("stores a queued job with the captured fields and scope", () => {
    const job = t.db.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(job).toMatchObject({ tenant_id: "t_acme", requested_by: "u_carol", format: "csv", status: "queued", read_fields: ["id", "number"], scope: ACME });
    expect(job.id).toMatch(/^exp_[0-9a-f-]{36}$/);
    expect(job).toMatchObject({ started_at: null, finished_at: null, row_count: null, result: null, error: null });
  });

  test("a job never reads another tenant, nor is it requested by another tenant's user", () => {
    expect(() => t.db.exportJobs.createScoped(ACME, { ...CAROL_JOB, rowScope: GLOBEX })).toThrow(ScopeError);
    expect(() => t.db.exportJobs.createScoped(ACME, { ...CAROL_JOB, requestedBy: "u_erin" })).toThrow(ScopeError);
    expect(() => t.db.exportJobs.createScoped({} as never, CAROL_JOB)).toThrow(ScopeError);
    // Owner-scoped: for oneself only.
    expect(() => t.db.exportJobs.createScoped(ALICE, CAROL_JOB)).toThrow(ScopeError);
    expect(t.db.exportJobs.createScoped(ALICE, { ...CAROL_JOB, requestedBy: "u_alice", rowScope: ALICE }).scope).toEqual(ALICE);
  });
});

describe("reads and transitions stay in scope", () => {
  test("another tenant's job is undefined, like a missing one; injections are inert", () => {
    const job = t.db.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(t.db.exportJobs.getScoped(job.id, ACME)?.id).toBe(job.id);
    expect(t.db.exportJobs.getScoped(job.id, GLOBEX)).toBeUndefined();
    expect(t.db.exportJobs.getScoped("exp_missing", ACME)).toBeUndefined();
    for (const attack of INJECTIONS) expect(t.db.exportJobs.getScoped(attack, ACME)).toBeUndefined();
  });

  test("claimNextScoped takes the scope's oldest queued job, once", () => {
    const first = t.db.exportJobs.createScoped(ACME, CAROL_JOB);
    const second = t.db.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(t.db.exportJobs.claimNextScoped(GLOBEX, LEASE)).toBeUndefined();
    const claimed = t.db.exportJobs.claimNextScoped(ACME, LEASE);
    expect(claimed).toMatchObject({ id: first.id, status: "running", lease_owner: LEASE.runner });
    expect(claimed?.started_at).toEqual(expect.any(String));
    expect(t.db.exportJobs.claimNextScoped(ACME, LEASE)?.id).toBe(second.id);
    expect(t.db.exportJobs.claimNextScoped(ACME, LEASE)).toBeUndefined();
  });

  test("complete, fail and requeue change a running job of the scope only", () => {
    const job = t.db.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(t.db.exportJobs.completeScoped(job.id, ACME, LEASE.runner, { result: "x", rowCount: 1 })).toBe(false); // still queued
    t.db.exportJobs.claimNextScoped(ACME, LEASE);
    expect(t.db.exportJobs.completeScoped(job.id, GLOBEX, LEASE.runner, { result: "x", rowCount: 1 })).toBe(false);
    expect(t.db.exportJobs.failScoped(job.id, GLOBEX, LEASE.runner, "export_failed")).toBe(false);
    expect(t.db.exportJobs.requeueScoped(job.id, GLOBEX, LEASE.runner)).toBe(false);
    expect(t.db.exportJobs.completeScoped(job.id, ACME, LEASE.runner, { result: "id\r\n", rowCount: 0 })).toBe(true);
    expect(t.db.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "done", result: "id\r\n", row_count: 0, error: null, lease_owner: null });
    expect(t.db.exportJobs.failScoped(job.id, ACME, LEASE.runner, "export_failed")).toBe(false); // done stays done
  });
});

describe("the schema refuses inconsistent jobs (repository bypassed)", () => {
  test("done without a result, failed without an error, a scope outside the job's tenant", () => {
    const job = t.db.exportJobs.createScoped(ACME, CAROL_JOB);
    const raw = new Database(t.file);
    try {
      expect(() => raw.prepare("UPDATE export_jobs SET status = 'done', finished_at = 'now' WHERE id = ?").run(job.id)).toThrow(/CHECK/);
      expect(() => raw.prepare("UPDATE export_jobs SET status = 'failed', finished_at = 'now' WHERE id = ?").run(job.id)).toThrow(/CHECK/);
      expect(() => raw.prepare("UPDATE export_jobs SET scope = ? WHERE id = ?").run(JSON.stringify(GLOBEX), job.id)).toThrow(/CHECK/);
      expect(() => raw.prepare("UPDATE export_jobs SET format = 'xml' WHERE id = ?").run(job.id)).toThrow(/CHECK/);
      // A lease only on a running job, and whole (holder and expiry together).
      expect(() => raw.prepare("UPDATE export_jobs SET lease_owner = 'r', lease_expires_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(job.id)).toThrow(
        /CHECK/,
      );
      t.db.exportJobs.claimNextScoped(ACME, LEASE);
      expect(() => raw.prepare("UPDATE export_jobs SET lease_expires_at = NULL WHERE id = ?").run(job.id)).toThrow(/CHECK/);
      // A writer that ignores leases (an older build) cannot finish a leased job.
      expect(() => raw.prepare("UPDATE export_jobs SET status = 'queued' WHERE id = ?").run(job.id)).toThrow(/CHECK/);
    } finally {
      raw.close();
    }
  });
});
