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
 */
import type { ExportJobRow, PortcullisDb } from "../../db";
import type { ApiLogger } from "../deps";
import { runExportJob } from "./job";

export const DEFAULT_MAX_EXPORT_ROWS = 10_000;

export interface ExportRunnerOptions {
  db: PortcullisDb;
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

  const claimNext = (): ExportJobRow | undefined => {
    for (const tenant of pending) {
      pending.delete(tenant);
      const job = db.exportJobs.claimNextScoped({ tenant_id: tenant });
      if (job) {
        pending.add(tenant); // back of the line: the other tenants go first
        return job;
      }
    }
    return undefined;
  };

  const drain = async (): Promise<void> => {
    // Never on the caller's stack: the request that queued the job has been answered first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (!stopped) {
      const job = claimNext();
      if (!job) return;
      await run(job);
    }
  };

  const run = async (job: ExportJobRow): Promise<void> => {
    const started = Date.now();
    try {
      const outcome = await runExportJob(db, job, maxRows, () => stopped);
      logger({ level: "info", event: "export.job", job_id: job.id, tenant: job.tenant_id, format: job.format, ...outcome, ms: Date.now() - started });
    } catch (err) {
      logger({ level: "error", event: "export.job", job_id: job.id, tenant: job.tenant_id, status: "failed", error: "export_failed", message: err instanceof Error ? err.message : String(err) });
      // Only the code is stored: messages may name internals the requester should not read.
      db.exportJobs.failScoped(job.id, { tenant_id: job.tenant_id }, "export_failed");
    }
  };

  return {
    enqueue(job) {
      pending.add(job.tenant_id);
      wake();
    },

    resume() {
      for (const tenant of db.tenants.list()) {
        const interrupted = db.exportJobs.requeueRunningScoped({ tenant_id: tenant.id });
        if (interrupted > 0) logger({ level: "warn", event: "export.resumed", tenant: tenant.id, jobs: interrupted });
        pending.add(tenant.id);
      }
      wake();
    },

    async idle() {
      while (draining) await draining;
    },

    async stop() {
      stopped = true;
      while (draining) await draining;
    },
  };
}
