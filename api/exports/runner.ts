/**
 * The export runner: runs stored export jobs in this process, one at a
 * time, never on the stack of the request that queued them. Each instance
 * of the service has one; all of them may share one database (PostgreSQL).
 *
 *   const runner = createExportRunner({ db, logger });
 *   runner.resume();                 // once up: claims what is claimable, then polls for more
 *   runner.enqueue(job);             // POST /api/admin/export, after storing the job
 *   await runner.stop();             // shutdown, before the database closes
 *
 * The queue is the export_jobs table itself: the runner only remembers which
 * tenants may have claimable jobs and claims the oldest one of each in turn
 * (one conditional UPDATE), so tenants share the runner fairly and nothing
 * is lost with the process. A claim takes a LEASE (db/exports.ts): this
 * runner's name and an expiry `leaseMs` ahead on the database's clock,
 * renewed between pages once a third of it has passed; every write of the
 * job is fenced by it. A job is claimable while queued, or while running
 * under an expired lease: whoever ran it crashed, stalled or lost the
 * database, and any live runner takes it over. Nothing is requeued at
 * start-up (another instance may be running those jobs right now); instead
 * every runner looks for claimable jobs of every tenant at resume() and then
 * every `pollIntervalMs` (a timer that keeps no process alive), so a job
 * orphaned by a dead instance runs again within about a lease and a poll
 * interval, on whichever instances are left. A job whose lease expired
 * after `maxAttempts` claims (every runner that took it died or stalled:
 * an export that crashes its process, say) is failed with `export_failed`
 * instead of going round the fleet forever.
 *
 * Its writes never sleep in SQLite (the service's connection has no busy
 * timeout): one refused by another connection's lock is tried again on
 * timers until it succeeds or the runner stops.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { DatabaseBusyError, retryWhileBusy, type ExportJobRow } from "../../db";
import type { DataStore } from "../../db/store";
import type { ApiLogger } from "../deps";
import { runExportJob } from "./job";

export const DEFAULT_MAX_EXPORT_ROWS = 10_000;
/** How long a claim holds without renewal: a dead runner's job waits about this long before another takes it. */
export const DEFAULT_EXPORT_LEASE_MS = 30_000;
/** How often an idle runner looks for claimable jobs (queued by another instance, or orphaned). */
export const DEFAULT_EXPORT_POLL_INTERVAL_MS = 5_000;
/** Claims a job may take without ever handing its lease back (its runners died or stalled) before it is failed. */
export const DEFAULT_EXPORT_MAX_ATTEMPTS = 3;

export interface ExportRunnerOptions {
  db: DataStore;
  logger: ApiLogger;
  /** The most rows one export may hold; beyond it the job fails with `row_limit_exceeded` (default 10 000). */
  maxRows?: number;
  /** The lease a claim takes, renewed while the job runs (default 30 s). */
  leaseMs?: number;
  /** The pause between two looks for claimable jobs (default 5 s). */
  pollIntervalMs?: number;
  /** Claims a job may take without finishing before it is failed with `export_failed` instead of claimed again (default 3). */
  maxAttempts?: number;
  /** This runner's name in `lease_owner` (default: host, process id and a random part, unique per runner). */
  runnerId?: string;
  /** The clock that decides when a lease is due for renewal (default Date.now); expiry itself is the database's. */
  now?: () => number;
}

export interface ExportRunner {
  /** This runner's name, as `lease_owner` holds it on the jobs it runs. */
  readonly id: string;
  /** A queued job was stored for this tenant: run it soon. Returns at once. */
  enqueue(job: Pick<ExportJobRow, "tenant_id">): void;
  /** Once up: claims every tenant's claimable jobs, then looks again every pollIntervalMs until stop(). */
  resume(): void;
  /** Resolves once no job is running (or waiting to be claimed) and no look for jobs is under way. */
  idle(): Promise<void>;
  /**
   * Takes no more jobs and stops polling. A job in progress stops before its
   * next page and is released (queued again, lease ended) for any runner at
   * once; resolves once it has, so the database can be closed.
   */
  stop(): Promise<void>;
}

/** Host, process and 8 random hex digits: unique per runner, and tells an operator where a lease holder runs. */
function defaultRunnerId(): string {
  return `${hostname().slice(0, 60)}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

export function createExportRunner(options: ExportRunnerOptions): ExportRunner {
  const { db, logger } = options;
  const maxRows = options.maxRows ?? DEFAULT_MAX_EXPORT_ROWS;
  const leaseMs = options.leaseMs ?? DEFAULT_EXPORT_LEASE_MS;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_EXPORT_POLL_INTERVAL_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_EXPORT_MAX_ATTEMPTS;
  const now = options.now ?? Date.now;
  const id = options.runnerId ?? defaultRunnerId();
  const lease = { runner: id, ms: leaseMs };
  /** Tenants that may have claimable jobs, in the order they get their next turn. */
  const pending = new Set<string>();
  let draining: Promise<void> | undefined;
  /** The look for claimable jobs under way (resume() or the timer). */
  let looking: Promise<void> | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  /** A failed look is logged once, not at every poll while the database is away. */
  let lookFailing = false;
  let stopped = false;

  const failed = (err: unknown) => ({
    level: "error" as const,
    event: "export.runner_failed",
    runner: id,
    message: err instanceof Error ? err.message : String(err),
  });

  const wake = (): void => {
    if (draining || stopped) return;
    draining = drain().then(
      () => {
        draining = undefined;
        if (pending.size > 0) wake(); // a job queued while the last loop was ending
      },
      (err: unknown) => {
        // The database itself failed: the jobs stay claimable, and the next poll (here or elsewhere) finds them.
        draining = undefined;
        pending.clear();
        logger(failed(err));
      },
    );
  };

  /** Every tenant with a claimable job joins the line (one statement across tenants). */
  const look = async (): Promise<void> => {
    try {
      for (const tenant of await db.exportJobs.claimableTenants()) pending.add(tenant);
      lookFailing = false;
    } catch (err) {
      if (!lookFailing) logger(failed(err));
      lookFailing = true;
      return;
    }
    wake();
  };

  const schedule = (): void => {
    if (stopped) return;
    pollTimer = setTimeout(() => {
      looking = look().finally(() => {
        looking = undefined;
        schedule();
      });
    }, pollIntervalMs);
    pollTimer.unref(); // a runner alone never keeps the process alive
  };

  const claimNext = async (): Promise<ExportJobRow | undefined> => {
    for (const tenant of pending) {
      // A job whose every run died or stalled (a crash it causes, say) goes round the fleet no more.
      for (const jobId of await db.exportJobs.abandonExhaustedScoped({ tenant_id: tenant }, maxAttempts)) {
        logger({
          level: "error",
          event: "export.job",
          job_id: jobId,
          tenant,
          runner: id,
          status: "failed",
          error: "export_failed",
          message: `abandoned after ${maxAttempts} runs that never finished`,
        });
      }
      // Claimed before the tenant leaves the set: a claim refused by a lock held elsewhere loses no tenant.
      const job = await db.exportJobs.claimNextScoped({ tenant_id: tenant }, lease);
      pending.delete(tenant);
      if (job) {
        pending.add(tenant); // back of the line: the other tenants go first
        return job;
      }
    }
    return undefined;
  };

  // Background work waits for a lock held elsewhere on timers, for as long as it takes (db/busy.ts).
  const write = <T>(fn: () => Promise<T>): Promise<T> => retryWhileBusy(fn, { boundMs: Infinity, stopping: () => stopped });

  const drain = async (): Promise<void> => {
    // Never on the caller's stack: the request that queued the job has been answered first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (!stopped) {
        const job = await write(claimNext);
        if (!job) return;
        await run(job);
      }
    } catch (err) {
      // Stopped while the lock was held elsewhere: what is left stays claimable (a claimed job once its lease expires).
      if (err instanceof DatabaseBusyError && stopped) return;
      throw err;
    }
  };

  const run = async (job: ExportJobRow): Promise<void> => {
    const started = now();
    const scope = { tenant_id: job.tenant_id };
    let renewed = started;
    // Renewed once a third of the lease has passed: two chances more before it expires.
    const keepLease = async (): Promise<boolean> => {
      if (now() - renewed < leaseMs / 3) return true;
      if (!(await write(() => db.exportJobs.renewLeaseScoped(job.id, scope, lease)))) return false;
      renewed = now();
      return true;
    };
    const entry = { event: "export.job", job_id: job.id, tenant: job.tenant_id, format: job.format, runner: id };
    try {
      const outcome = await runExportJob(db, job, { maxRows, stopping: () => stopped, write, runner: id, keepLease });
      // Lost: this run stalled past its lease; another runner may be running the job (its result is the one kept).
      logger({ level: outcome.status === "lease_lost" ? "warn" : "info", ...entry, ...outcome, ms: now() - started });
    } catch (err) {
      if (err instanceof DatabaseBusyError) {
        // Stopping while the lock was held elsewhere: the job stays `running` until its lease expires, then any runner takes it.
        logger({ level: "warn", ...entry, status: "interrupted", message: err.message });
        return;
      }
      logger({ level: "error", ...entry, status: "failed", error: "export_failed", message: err instanceof Error ? err.message : String(err) });
      // Only the code is stored: messages may name internals the requester should not read. Fenced: a lost lease writes nothing.
      await write(() => db.exportJobs.failScoped(job.id, scope, id, "export_failed"));
    }
  };

  return {
    id,

    enqueue(job) {
      pending.add(job.tenant_id);
      wake();
    },

    resume() {
      if (stopped || looking || pollTimer) return;
      logger({ level: "info", event: "export.runner_started", runner: id, lease_ms: leaseMs, poll_interval_ms: pollIntervalMs });
      looking = look().finally(() => {
        looking = undefined;
        schedule();
      });
    },

    async idle() {
      await looking;
      while (draining) await draining;
    },

    async stop() {
      stopped = true;
      clearTimeout(pollTimer);
      await looking;
      while (draining) await draining;
    },
  };
}
