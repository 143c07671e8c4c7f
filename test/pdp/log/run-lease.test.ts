/**
 * The PostgreSQL run lease (pdp/log/store/runs.ts PgRun) when its
 * connection is lost while the run lives: the run retakes it, so an
 * instance starting afterwards does not record the live run as
 * interrupted; a start that came in the gap (no connection held the lease)
 * is answered by a `resumed` start row; a run that ends without a clean
 * stop is still reported by the next start. Real server
 * (scripts/services/postgres.sh), a database of this file's own; the lease
 * connection is ended from the server side (pg_terminate_backend), as a
 * database restart or an administrator would. Every wait is on a state seen
 * in pg_locks or log_runs, never on timing.
 */
import pg from "pg";
import { openDecisionLog, type DecisionLogError, type ManagedDecisionLog } from "../../../pdp/log";
import { PgRun } from "../../../pdp/log/store/runs";
import { clonePgDatabase, type PgUrls } from "../../db/contract/backends";

/** The lock every start and retake holds (store/runs.ts STARTS_LOCK): "pdplog" in ASCII. */
const STARTS_LOCK = String(0x70646c6f67);

let db: { urls: PgUrls; drop(): Promise<void> };
const open: ManagedDecisionLog[] = [];
beforeAll(async () => {
  db = await clonePgDatabase();
});
afterAll(async () => {
  for (const log of open) await log.close().catch(() => undefined);
  await db?.drop();
});

async function query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: db.urls.app });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

async function logOn(runId: string, errors: DecisionLogError[]): Promise<ManagedDecisionLog> {
  const log = await openDecisionLog({ postgres: { url: db.urls.app }, instanceId: runId, worker: false, onError: (e) => errors.push(e) });
  open.push(log);
  return log;
}

/** The backend holding a run's lease (the key its start row names), or null when none does. */
async function leaseHolder(runId: string): Promise<number | null> {
  const rows = await query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND (l.classid::bigint << 32) | l.objid::bigint =
            (SELECT (detail->>'lease')::bigint FROM log_runs WHERE run_id = $1 AND kind = 'start' ORDER BY seq LIMIT 1)`,
    [runId],
  );
  return rows[0]?.pid ?? null;
}

/** Ends the session holding the run's lease, from the server side. */
async function endLeaseSession(runId: string): Promise<number> {
  const pid = await leaseHolder(runId);
  expect(pid).not.toBeNull();
  await query("SELECT pg_terminate_backend($1, 10000)", [pid]);
  return pid!;
}

/** Polls a state of the database; fails with what never came (within 20 s: a bound, not a measure) instead of hanging. */
async function until(what: string, holds: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`never came: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const retaken = (runId: string, lostPid: number) => async (): Promise<boolean> => {
  const pid = await leaseHolder(runId);
  return pid !== null && pid !== lostPid;
};

const runRows = (runId: string) =>
  query<{ seq: string; kind: string; at: string; detail: Record<string, unknown> }>(
    "SELECT seq, kind, at, detail FROM log_runs WHERE run_id = $1 ORDER BY seq",
    [runId],
  );

test("a live run whose lease session is ended retakes it: an instance starting afterwards finds nothing interrupted, and the run still stops cleanly", async () => {
  const errors: DecisionLogError[] = [];
  const a = await logOn("lease-live-a", errors);
  const lostPid = await endLeaseSession("lease-live-a");
  await until("run A holds its lease again", retaken("lease-live-a", lostPid));

  const b = await logOn("lease-live-b", []);
  expect(b.interruptedRuns).toEqual([]);
  expect((await runRows("lease-live-a")).map((r) => r.kind)).toEqual(["start"]);
  expect(errors.map((e) => e.code)).toEqual(["log_run_marker_failed", "log_run_lease_retaken"]);
  expect(errors[1].message).toMatch(/no start took this run for interrupted/);

  // Lost and retaken twice over: still one run, still retaken.
  const lostAgain = await endLeaseSession("lease-live-a");
  await until("run A holds its lease again (second loss)", retaken("lease-live-a", lostAgain));

  await a.close();
  expect((await runRows("lease-live-a")).map((r) => r.kind)).toEqual(["start", "clean_stop"]);
  expect(await leaseHolder("lease-live-a")).toBeNull();
});

test("a run that retook its lease and then ends without a clean stop is reported by the next start", async () => {
  const errors: DecisionLogError[] = [];
  const run = await PgRun.begin(db.urls.app, { runId: "lease-dead-a", pid: 4242 }, (e) => errors.push(e));
  const lostPid = await endLeaseSession("lease-dead-a");
  await until("run A holds its lease again", retaken("lease-dead-a", lostPid));
  await run.end(); // no counts: it lost events, or its process is going away without a clean stop

  const next = await logOn("lease-dead-b", []);
  expect(next.interruptedRuns.map((r) => r.runId)).toEqual(["lease-dead-a"]);
  expect((await runRows("lease-dead-a")).map((r) => r.kind)).toEqual(["start", "interrupted"]);
});

/**
 * Run `runId` loses its lease connection while the instance `starterId` starts, and the start
 * decides first: the starts' lock is held meanwhile, so the start queues first and the run's
 * retake behind it. Returns the starter's log once the run holds its lease again.
 */
async function startInTheGap(runId: string, starterId: string): Promise<ManagedDecisionLog> {
  const waiting = async (n: number): Promise<boolean> =>
    (await query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))[0].n === n;
  const holder = new pg.Client({ connectionString: db.urls.app });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT pg_advisory_xact_lock($1)", [STARTS_LOCK]);
  const starting = logOn(starterId, []);
  await until(`${starterId}'s start waits for the starts' lock`, () => waiting(1));
  const lostPid = await endLeaseSession(runId);
  await until(`${runId}'s retake waits behind ${starterId}'s start`, () => waiting(2));
  await holder.query("COMMIT");
  await holder.end();
  const starter = await starting;
  await until(`${runId} holds its lease again`, retaken(runId, lostPid));
  return starter;
}

test("a start that came while no session held the lease records the live run interrupted; the run, retaking it, records that it resumed and says so", async () => {
  const errors: DecisionLogError[] = [];
  const a = await logOn("lease-gap-a", errors);
  const b = await startInTheGap("lease-gap-a", "lease-gap-b");
  // B saw a free lease: by what it could know, run A had died.
  expect(b.interruptedRuns.map((r) => r.runId)).toEqual(["lease-gap-a"]);
  const rows = await runRows("lease-gap-a");
  expect(rows.map((r) => r.kind)).toEqual(["start", "interrupted", "start"]);
  expect(rows[2].detail).toMatchObject({ resumed: true, reported_interrupted_by: "lease-gap-b" });
  expect(typeof rows[2].detail.lease_lost_at).toBe("string");
  expect(errors.map((e) => e.code)).toEqual(["log_run_marker_failed", "log_run_lease_retaken"]);
  expect(errors[1].message).toMatch(/recorded this live run as interrupted meanwhile/);

  // A later start finds nothing more: A holds its lease again.
  const c = await logOn("lease-gap-c", []);
  expect(c.interruptedRuns).toEqual([]);
  await a.close();
  expect((await runRows("lease-gap-a")).map((r) => r.kind)).toEqual(["start", "interrupted", "start", "clean_stop"]);
});

test("a run recorded interrupted in a lease gap that resumed, then ends without a clean stop, is reported again by the next start", async () => {
  const run = await PgRun.begin(db.urls.app, { runId: "lease-twice-a", pid: 4343 }, () => undefined);
  const b = await startInTheGap("lease-twice-a", "lease-twice-b");
  expect(b.interruptedRuns.map((r) => r.runId)).toEqual(["lease-twice-a"]);
  const resumed = (await runRows("lease-twice-a"))[2];
  expect(resumed).toMatchObject({ kind: "start", detail: { resumed: true } });
  await run.end(); // its second life ends without a clean stop

  const c = await logOn("lease-twice-c", []);
  expect(c.interruptedRuns).toEqual([expect.objectContaining({ runId: "lease-twice-a", pid: 4343, startedAt: resumed.at })]);
  const rows = await runRows("lease-twice-a");
  expect(rows.map((r) => r.kind)).toEqual(["start", "interrupted", "start", "interrupted"]);
  // Each interrupted row names the life it ended: its start row.
  expect([rows[1].detail.start_seq, rows[3].detail.start_seq]).toEqual([Number(rows[0].seq), Number(rows[2].seq)]);
  expect(rows[3].detail).toMatchObject({ found_by: "lease-twice-c" });

  // Reported once: a later start finds nothing.
  const d = await logOn("lease-twice-d", []);
  expect(d.interruptedRuns).toEqual([]);
});
