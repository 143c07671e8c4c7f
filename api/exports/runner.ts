/**
 * The export runner: runs stored export jobs in this process, one at a
 * time, never on the stack of the request that queued them.
 *
 *   const runner = createExportRunner({ db, logger });
 *   runner.resume();                 // start-up: interrupted and queued jobs
 *   runner.enqueue(job);             // POST /api/admin/export, after storing the job
 *   await runner.stop();             // shutdown, before the database closes
 *
 * The queue is the export_jobs table itself: the runner only remembers which
 * tenants may have queued jobs and claims the oldest one of each in turn
 * (one conditional UPDATE), so tenants share the runner fairly and nothing
 * is lost with the process. Jobs are `running` only while this process runs
 * them, so at start-up a `running` job was interrupted by a crash and is
 * queued again: one process per database file (SQLite's deployment; several
 * instances need a shared job queue).
 *
 * Its writes never sleep in SQLite (the service's connection has no busy
 * timeout): one refused by another connection's lock is tried again on
 * timers until it succeeds or the runner stops.
 */
import { DatabaseBusyError, retryWhileBusy, type ExportJobRow } from "../../db";
import type { DataStore } from "../../db/store";
import type { ApiLogger } from "../deps";
import { runExportJob } from "./job";

export const DEFAULT_MAX_EXPORT_ROWS = 10_000;

export interface ExportRunnerOptions {
  db: DataStore;
  logger: ApiLogger;
  /** The most rows one export may hold; beyond it the job fails with `row_limit_exceeded` (default 10 000). */
  maxRows?: number;
}

export interface ExportRunner {
  /** A queued job was stored for this tenant: run it soon. Returns at once. */
  enqueue(job: Pick<ExportJobRow, "tenant_id">): void;
  /** Start-up: puts jobs a crash left `running` back in the queue, then runs every tenant's queued jobs. */
  resume(): void;
  /** Resolves once no job is running (or waiting to be claimed). */
  idle(): Promise<void>;
  /**
   * Takes no more jobs. A job in progress stops before its next page and is
   * queued again (the next start-up runs it from scratch); resolves once it
   * has, so the database can be closed.
   */
  stop(): Promise<void>;
}

export function createExportRunner(options: ExportRunnerOptions): ExportRunner {
  const { db, logger } = options;
  const maxRows = options.maxRows ?? DEFAULT_MAX_EXPORT_ROWS;
  /** Tenants that may have queued jobs, in the order they get their next turn. */
  const pending = new Set<string>();
  let draining: Promise<void> | undefined;
  /** resume()'s read of the tenants, until their jobs are under way. */
  let resuming: Promise<void> | undefined;
  let stopped = false;

  const wake = (): void => {
    if (draining || stopped) return;
    draining = drain().then(
      () => {
        draining = undefined;
        if (pending.size > 0) wake(); // a job queued while the last loop was ending
      },
      (err: unknown) => {
        // The database itself failed: the jobs stay queued for the next start-up.
        draining = undefined;
        pending.clear();
        logger({ level: "error", event: "export.runner_failed", message: err instanceof Error ? err.message : String(err) });
      },
    );
  };

  const claimNext = async (): Promise<ExportJobRow | undefined> => {
    for (const tenant of pending) {
      // Claimed before the tenant leaves the set: a claim refused by a lock held elsewhere loses no tenant.
      const job = await db.exportJobs.claimNextScoped({ tenant_id: tenant });
      pending.delete(tenant);
      if (job) {
        pending.add(tenant); // back of the line: the other tenants go first
        return job;
      }
    }
    return undefined;
  };

  /** Jobs a crash left `running` go back to the queue before anything is claimed (resume()). */
  let requeueInterrupted = false;
  const requeue = async (): Promise<void> => {
    for (const tenant of pending) {
      const interrupted = await db.exportJobs.requeueRunningScoped({ tenant_id: tenant });
      if (interrupted > 0) logger({ level: "warn", event: "export.resumed", tenant, jobs: interrupted });
    }
    requeueInterrupted = false;
  };

  // Background work waits for a lock held elsewhere on timers, for as long as it takes (db/busy.ts).
  const write = <T>(fn: () => Promise<T>): Promise<T> => retryWhileBusy(fn, { boundMs: Infinity, stopping: () => stopped });

  const drain = async (): Promise<void> => {
    // Never on the caller's stack: the request that queued the job has been answered first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      if (requeueInterrupted) await write(requeue);
      while (!stopped) {
        const job = await write(claimNext);
        if (!job) return;
        await run(job);
      }
    } catch (err) {
      // Stopped while the lock was held elsewhere: what is left stays queued (or running, requeued at the next start).
      if (err instanceof DatabaseBusyError && stopped) return;
      throw err;
    }
  };

  const run = async (job: ExportJobRow): Promise<void> => {
    const started = Date.now();
    try {
      const outcome = await runExportJob(db, job, maxRows, () => stopped, write);
      logger({ level: "info", event: "export.job", job_id: job.id, tenant: job.tenant_id, format: job.format, ...outcome, ms: Date.now() - started });
    } catch (err) {
      if (err instanceof DatabaseBusyError) {
        // Stopping while the lock was held elsewhere: the job stays `running`, and the next start queues it again.
        logger({ level: "warn", event: "export.job", job_id: job.id, tenant: job.tenant_id, status: "interrupted", message: err.message });
        return;
      }
      logger({
        level: "error",
        event: "export.job",
        job_id: job.id,
        tenant: job.tenant_id,
        status: "failed",
        error: "export_failed",
        message: err instanceof Error ? err.message : String(err),
      });
      // Only the code is stored: messages may name internals the requester should not read.
      await write(() => db.exportJobs.failScoped(job.id, { tenant_id: job.tenant_id }, "export_failed"));
    }
  };

  return {
    enqueue(job) {
      pending.add(job.tenant_id);
      wake();
    },

    resume() {
      requeueInterrupted = true;
      resuming = db.tenants.list().then(
        (tenants) => {
          for (const tenant of tenants) pending.add(tenant.id);
          wake();
        },
        (err: unknown) => logger({ level: "error", event: "export.runner_failed", message: err instanceof Error ? err.message : String(err) }),
      );
    },

    async idle() {
      await resuming;
      while (draining) await draining;
    },

    async stop() {
      stopped = true;
      await resuming;
      while (draining) await draining;
    },
  };
}
