/**
 * Contract: the export jobs repository, the same tests on SQLite and
 * PostgreSQL (backends.ts): created in scope with the decision's fields and
 * row scope, claimed oldest first and once under a runner's lease, moved
 * only from `running` and only by the holder of an unexpired lease; a job
 * under an expired lease is any runner's to claim.
 */
import { DbInputError, ScopeError, type NewExportJob } from "../../../db";
import { ACME, ALICE, GLOBEX, INJECTIONS } from "../helpers";
import { BACKENDS, useBackend } from "./backends";

const CAROL_JOB: NewExportJob = { requestedBy: "u_carol", format: "csv", readFields: ["id", "number"], rowScope: ACME };
/** Two runners (two instances), each with a 30 s lease. */
const A = { runner: "runner-a", ms: 30_000 };
const B = { runner: "runner-b", ms: 30_000 };

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

  test("claimNextScoped takes the scope's oldest queued job, once, under the runner's lease", async () => {
    const first = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    const second = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(await t.store.exportJobs.claimNextScoped(GLOBEX, A)).toBeUndefined();
    const claimed = await t.store.exportJobs.claimNextScoped(ACME, A);
    expect(claimed).toMatchObject({ id: first.id, status: "running", started_at: expect.stringMatching(/Z$/), lease_owner: "runner-a" });
    // Thirty seconds on the database's clock from the claim (both timestamps are the database's).
    expect(Date.parse(claimed!.lease_expires_at!) - Date.parse(claimed!.started_at!)).toBe(30_000);
    expect((await t.store.exportJobs.claimNextScoped(ACME, B))?.id).toBe(second.id);
    expect(await t.store.exportJobs.claimNextScoped(ACME, A)).toBeUndefined();
    expect(await t.store.exportJobs.claimNextScoped(ACME, B)).toBeUndefined();
  });

  test("two runners claiming at once never get the same job", async () => {
    await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    const claims = await Promise.all([t.store.exportJobs.claimNextScoped(ACME, A), t.store.exportJobs.claimNextScoped(ACME, B)]);
    expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
  });

  test("complete, fail and requeue change a running job of the scope only, and only by its lease holder", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, A.runner, { result: "x", rowCount: 1 })).toBe(false);
    await t.store.exportJobs.claimNextScoped(ACME, A);
    expect(await t.store.exportJobs.completeScoped(job.id, GLOBEX, A.runner, { result: "x", rowCount: 1 })).toBe(false);
    expect(await t.store.exportJobs.failScoped(job.id, GLOBEX, A.runner, "export_failed")).toBe(false);
    expect(await t.store.exportJobs.requeueScoped(job.id, GLOBEX, A.runner)).toBe(false);
    // Another runner (it never claimed the job) changes nothing.
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, B.runner, { result: "x", rowCount: 1 })).toBe(false);
    expect(await t.store.exportJobs.failScoped(job.id, ACME, B.runner, "export_failed")).toBe(false);
    expect(await t.store.exportJobs.requeueScoped(job.id, ACME, B.runner)).toBe(false);
    expect(await t.store.exportJobs.renewLeaseScoped(job.id, ACME, B)).toBe(false);
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, A.runner, { result: "id\r\n", rowCount: 0 })).toBe(true);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({
      status: "done",
      result: "id\r\n",
      row_count: 0,
      error: null,
      finished_at: expect.stringMatching(/Z$/),
      lease_owner: null,
      lease_expires_at: null,
    });
    expect(await t.store.exportJobs.failScoped(job.id, ACME, A.runner, "export_failed")).toBe(false);
    await expect(t.store.exportJobs.completeScoped(job.id, ACME, A.runner, { result: "x", rowCount: -1 })).rejects.toThrow(DbInputError);
  });

  test("a job under an unexpired lease is nobody else's; under an expired one, any runner claims it", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    await t.store.exportJobs.claimNextScoped(ACME, A);
    expect(await t.store.exportJobs.claimNextScoped(ACME, B)).toBeUndefined();
    expect(await t.store.exportJobs.claimableTenants()).toEqual([]);

    // A runner whose lease has run out (0 ms: expired as soon as taken) stalled, crashed or lost the database.
    const other = await t.store.exportJobs.createScoped(GLOBEX, { ...CAROL_JOB, requestedBy: "u_erin", rowScope: GLOBEX });
    await t.store.exportJobs.claimNextScoped(GLOBEX, { runner: "runner-stalled", ms: 0 });
    expect(await t.store.exportJobs.claimableTenants()).toEqual(["t_globex"]);
    const taken = await t.store.exportJobs.claimNextScoped(GLOBEX, B);
    expect(taken).toMatchObject({ id: other.id, status: "running", lease_owner: "runner-b", result: null });
    expect(await t.store.exportJobs.claimableTenants()).toEqual([]);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "running", lease_owner: "runner-a" });
  });

  test("a runner that lost its lease is fenced: no complete, fail, requeue or renewal over the new holder's run", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    const stale = { runner: "runner-stale", ms: 0 };
    await t.store.exportJobs.claimNextScoped(ACME, stale);
    // Expired, not yet taken: the stale runner still cannot write (its lease is over, whoever comes next).
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, stale.runner, { result: "stale", rowCount: 1 })).toBe(false);
    expect(await t.store.exportJobs.renewLeaseScoped(job.id, ACME, { ...stale, ms: 30_000 })).toBe(false);
    await t.store.exportJobs.claimNextScoped(ACME, B);
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, stale.runner, { result: "stale", rowCount: 1 })).toBe(false);
    expect(await t.store.exportJobs.failScoped(job.id, ACME, stale.runner, "export_failed")).toBe(false);
    expect(await t.store.exportJobs.requeueScoped(job.id, ACME, stale.runner)).toBe(false);
    expect(await t.store.exportJobs.renewLeaseScoped(job.id, ACME, { ...stale, ms: 30_000 })).toBe(false);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "running", lease_owner: "runner-b", result: null, error: null });
    expect(await t.store.exportJobs.completeScoped(job.id, ACME, B.runner, { result: "fresh", rowCount: 2 })).toBe(true);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "done", result: "fresh", row_count: 2 });
  });

  test("renewLeaseScoped moves the holder's expiry forward, in scope only", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    const claimed = (await t.store.exportJobs.claimNextScoped(ACME, { runner: A.runner, ms: 1_000 }))!;
    expect(await t.store.exportJobs.renewLeaseScoped(job.id, GLOBEX, { runner: A.runner, ms: 600_000 })).toBe(false);
    expect(await t.store.exportJobs.renewLeaseScoped(job.id, ACME, { runner: A.runner, ms: 600_000 })).toBe(true);
    const renewed = (await t.store.exportJobs.getScoped(job.id, ACME))!;
    expect(renewed).toMatchObject({ status: "running", lease_owner: "runner-a", started_at: claimed.started_at });
    expect(Date.parse(renewed.lease_expires_at!) - Date.parse(claimed.lease_expires_at!)).toBeGreaterThanOrEqual(599_000);
    expect(await t.store.exportJobs.claimNextScoped(ACME, B)).toBeUndefined();
  });

  test("requeueScoped releases the job at once: queued, no lease, claimable by any runner", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    await t.store.exportJobs.claimNextScoped(ACME, A);
    expect(await t.store.exportJobs.requeueScoped(job.id, ACME, A.runner)).toBe(true);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({ status: "queued", started_at: null, lease_owner: null, lease_expires_at: null });
    expect(await t.store.exportJobs.claimableTenants()).toEqual(["t_acme"]);
    expect(await t.store.exportJobs.claimNextScoped(ACME, B)).toMatchObject({ id: job.id, lease_owner: "runner-b" });
  });

  test("claimableTenants names the tenants with a queued job, never one only finished or held jobs", async () => {
    expect(await t.store.exportJobs.claimableTenants()).toEqual([]);
    const acme = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    await t.store.exportJobs.createScoped(GLOBEX, { ...CAROL_JOB, requestedBy: "u_erin", rowScope: GLOBEX });
    expect(await t.store.exportJobs.claimableTenants()).toEqual(["t_acme", "t_globex"]);
    await t.store.exportJobs.claimNextScoped(ACME, A);
    await t.store.exportJobs.completeScoped(acme.id, ACME, A.runner, { result: "x", rowCount: 1 });
    expect(await t.store.exportJobs.claimableTenants()).toEqual(["t_globex"]);
  });

  test("attempts count the claims a job did not hand back; after maxAttempts expired ones it is failed, not claimed again", async () => {
    const job = await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    expect(job.attempts).toBe(0);
    expect((await t.store.exportJobs.claimNextScoped(ACME, A))?.attempts).toBe(1);
    expect(await t.store.exportJobs.requeueScoped(job.id, ACME, A.runner)).toBe(true); // a release (shutdown) is no attempt
    expect((await t.store.exportJobs.getScoped(job.id, ACME))?.attempts).toBe(0);

    // Two runners in a row took it and died (0 ms: their leases expired at once).
    const dead = { runner: "runner-dead", ms: 0 };
    await t.store.exportJobs.claimNextScoped(ACME, dead);
    expect(await t.store.exportJobs.abandonExhaustedScoped(ACME, 2)).toEqual([]); // one expired claim: not yet
    expect((await t.store.exportJobs.claimNextScoped(ACME, dead))?.attempts).toBe(2);
    // Another tenant's exhausted job, and one of this tenant still held: neither is touched.
    const globex = await t.store.exportJobs.createScoped(GLOBEX, { ...CAROL_JOB, requestedBy: "u_erin", rowScope: GLOBEX });
    await t.store.exportJobs.claimNextScoped(GLOBEX, dead);
    const held = await t.store.exportJobs.createScoped(ALICE, { ...CAROL_JOB, requestedBy: "u_alice", rowScope: ALICE });
    expect((await t.store.exportJobs.claimNextScoped(ALICE, A))?.id).toBe(held.id); // Alice's scope: her job only

    expect(await t.store.exportJobs.abandonExhaustedScoped(ACME, 2)).toEqual([job.id]);
    expect(await t.store.exportJobs.getScoped(job.id, ACME)).toMatchObject({
      status: "failed",
      error: "export_failed",
      result: null,
      finished_at: expect.stringMatching(/Z$/),
      lease_owner: null,
      attempts: 2,
    });
    expect(await t.store.exportJobs.getScoped(held.id, ACME)).toMatchObject({ status: "running", lease_owner: "runner-a" });
    expect(await t.store.exportJobs.getScoped(globex.id, GLOBEX)).toMatchObject({ status: "running", lease_owner: "runner-dead" });
    await expect(t.store.exportJobs.abandonExhaustedScoped(ACME, 0)).rejects.toThrow(DbInputError);
  });

  test("a lease must name its runner and last 0 to 3 600 000 ms", async () => {
    await t.store.exportJobs.createScoped(ACME, CAROL_JOB);
    for (const bad of [
      { runner: "", ms: 1 },
      { runner: "x".repeat(101), ms: 1 },
      { runner: "r", ms: -1 },
      { runner: "r", ms: 1.5 },
      { runner: "r", ms: 3_600_001 },
      null,
    ]) {
      await expect(t.store.exportJobs.claimNextScoped(ACME, bad as never)).rejects.toThrow(DbInputError);
    }
    expect(await t.store.exportJobs.claimableTenants()).toEqual(["t_acme"]); // nothing was claimed
  });
});
