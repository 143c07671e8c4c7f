/**
 * Contract: the export jobs repository, the same tests on SQLite and
 * PostgreSQL (backends.ts): created in scope with the decision's fields and
 * row scope, claimed oldest first and once, moved only from `running`.
 */
import { DbInputError, ScopeError, type NewExportJob } from "../../../db";
import { ACME, ALICE, GLOBEX, INJECTIONS } from "../helpers";
import { BACKENDS, useBackend } from "./backends";

const CAROL_JOB: NewExportJob = { requestedBy: "u_carol", format: "csv", readFields: ["id", "number"], rowScope: ACME };

describe.each(BACKENDS)("export jobs on $name", (backend) => {
  const t = useBackend(backend);

  test("createScoped stores a queued job with the captured fields and scope", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(job).toMatchObject({ tenant_id: "t_acme", requested_by: "u_carol", format: "csv", status: "queued", read_fields: ["id", "number"], scope: ACME });
    expect(job).toMatchObject({ started_at: null, finished_at: null, row_count: null, result: null, error: null });
    expect(job.id).toMatch(/^exp_[0-9a-f-]{36}$/);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toEqual(job);
  });

  test("a job never reads another tenant, nor is requested by another tenant's user; owner scopes create their own only", async () => {
    await expect(t.store.exportJobs.createScoped(ACME, { ...CAROL_JOB, rowScope: GLOBEX })).rejects.toThrow(ScopeError);
    await expect(t.store.exportJobs.createScoped(ACME, { ...CAROL_JOB, requestedBy: "u_erin" })).rejects.toThrow(ScopeError);
    await expect(t.store.exportJobs.createScoped(ALICE, CAROL_JOB)).rejects.toThrow(ScopeError);
    await expect(t.store.exportJobs.createScoped(ACME, { ...CAROL_JOB, format: "xml" as never })).rejects.toThrow(DbInputError);
    expect((await t.store.exportJobs.createScoped(ALICE, { ...CAROL_JOB, requestedBy: "u_alice", rowScope: ALICE })).scope).toEqual(ALICE);
  });

  test("another tenant's job reads as missing; injections are inert; tenantOf names it for monitoring", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(await t.store.exportJobs.getScoped(job.id, GLOBEX)).toBeUndefined();
    for (const attack of INJECTIONS) expect(await t.store.exportJobs.getScoped(attack, ACME)).toBeUndefined();
    expect(await t.store.exportJobs.tenantOf(job.id)).toBe("t_acme");
    expect(await t.store.exportJobs.tenantOf("exp_missing")).toBeUndefined();
  });

  test("claimNextScoped takes the scope's oldest queued job, once", async () => {
    const first = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    const second = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(await t.store.exportJobs.claimNextScoped(GLOBEX)).toBeUndefined();
    const claimed = await t.store.exportJobs.claimNextScoped(ACME);
    expect(claimed).toMatchObject({ id: first.id, status: "running", started_at: expect.stringMatching(/Z$/) });
    expect((await t.store.exportJobs.claimNextScoped(ACME))?.id).toBe(second.id);
    expect(await t.store.exportJobs.claimNextScoped(ACME)).toBeUndefined();
  });

  test("two runners claiming at once never get the same job", async () => {
    await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    const claims = await Promise.all([t.store.exportJobs.claimNextScoped(ACME), t.store.exportJobs.claimNextScoped(ACME)]);
    expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
  });

  test("complete, fail and requeue change a running job of the scope only", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, { result: "x", rowCount: 1 })).toBe(false);
    await t.store.exportJobs.claimNextScoped(ACME);
    expect(await t.store.exportJobs.completeScoped(job.id, GLOBEX, { result: "x", rowCount: 1 })).toBe(false);
    expect(await t.store.exportJobs.failScoped(job.id, GLOBEX, "export_failed")).toBe(false);
    expect(await t.store.exportJobs.requeueScoped(job.id, GLOBEX)).toBe(false);
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, { result: "id\r\n", rowCount: 0 })).toBe(true);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({
      status: "done",
      result: "id\r\n",
      row_count: 0,
      error: null,
      finished_at: expect.stringMatching(/Z$/),
    });
    expect(await t.store.exportJobs.failScoped(job.id, ACME, "export_failed")).toBe(false);
    await expect(t.store.exportJobs.completeScoped(job.id, ACME, { result: "x", rowCount: -1 })).rejects.toThrow(DbInputError);
  });

  test("requeueRunningScoped puts the scope's running jobs back, nobody else's", async () => {
    const acme = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    await t.store.exportJobs.createScoped(GLOBEX, { ...CAROL_JOB, requestedBy: "u_erin", rowScope: GLOBEX });
    await t.store.exportJobs.claimNextScoped(ACME);
    await t.store.exportJobs.claimNextScoped(GLOBEX);
    expect(await t.store.exportJobs.requeueRunningScoped(ACME)).toBe(1);
    expect(await t.store.exportJobs.getScoped(acme.id, ACME)).toMatchObject({ status: "queued", started_at: null });
    expect(await t.store.exportJobs.claimNextScoped(GLOBEX)).toBeUndefined();
  });
});
