/**
 * The decision log's worker mode (the default for SQLite/console logs): the
 * deciding bundle's own mask and drop policies evaluated in the worker,
 * each bundle by its own revision after a reload, every record accounted
 * for at any moment, and the same results as the in-thread log.
 */
import * as path from "node:path";
import type { Worker } from "node:worker_threads";
import { decisionLogHealth } from "../../../api/health";
import { decide } from "../../../pdp/decide";
import { Engine } from "../../../pdp/engine";
import { createDecisionLog } from "../../../pdp/log";
import { queryDecisions } from "../../../pdp/log/store/query";
import { createWorkerDecisionLog } from "../../../pdp/log/pipelines/worker-log";
import { openForRead } from "../../../pdp/log/store/sqlite-store";
import { clonePgDatabase } from "../../db/contract/backends";
import { bundleOf, capturingLogger, DECISION_REGO, member } from "../fixtures";
import { ownerQuery } from "./backends";
import { tempDir } from "./fixtures";

const ERASE_ACTION = `package system.log

mask contains "/input/action"
`;

async function logged(file: string) {
  const db = openForRead(file);
  const entries = queryDecisions(db, { limit: 1000 });
  db.close();
  return new Map(entries.map((e) => [e.decision_id, e]));
}

test("each event is masked by the bundle that decided it, across a reload, in the worker", async () => {
  const file = path.join(tempDir(), "decisions.db");
  const log = createDecisionLog({ db: file });
  const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
  const first = await Engine.load(bundleOf({ revision: "r-1" }), "first");
  const second = await Engine.load(bundleOf({ revision: "r-2", rego: [DECISION_REGO, ERASE_ACTION] }), "second");
  const a = decide(first, deps, member());
  const b = decide(second, deps, member());
  const c = decide(first, deps, member({ route: { id: "health.get", method: "GET", version: "v1" } }));
  await log.flush();
  expect(log.stats()).toEqual(expect.objectContaining({ recorded: 3, logged: 2, droppedByPolicy: 1, failSafe: 0, internalErrors: 0, queued: 0 }));
  await log.close();

  const byId = await logged(file);
  expect(byId.has(c.decisionId)).toBe(false);
  expect(byId.get(a.decisionId)!.event!.erased).toEqual(["/input/actor/id"]);
  expect(byId.get(a.decisionId)!.revision).toBe("r-1");
  expect(byId.get(b.decisionId)!.event!.erased).toEqual(["/input/action"]);
  expect(byId.get(b.decisionId)!.actor_id).toBe("u_alice");
});

test("stats account for every record at any moment, and match the in-thread log once flushed", async () => {
  const engine = await Engine.load(bundleOf(), "test");
  const run = async (worker: boolean) => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    for (let i = 0; i < 300; i++) {
      decide(engine, deps, i % 10 === 0 ? member({ route: { id: "health.get", method: "GET", version: "v1" } }) : member());
      if (i % 50 === 0) {
        await new Promise(setImmediate);
        const s = log.stats();
        expect(s.logged + s.droppedByPolicy + s.internalErrors + s.queued).toBe(s.recorded);
      }
    }
    await log.close();
    const rows = [...(await logged(file)).values()].map((e) => ({ ...e.event, decision_id: "", timestamp: "", labels: {} }));
    return { stats: log.stats(), rows };
  };
  const [inWorker, inThread] = [await run(true), await run(false)];
  expect(inWorker.stats).toEqual(expect.objectContaining({ recorded: 300, logged: 270, droppedByPolicy: 30, queued: 0 }));
  expect(inWorker.stats.sinks.sqlite).toEqual({ written: 270, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
  expect(inWorker.stats).toEqual(inThread.stats);
  expect(inWorker.rows.map((r) => JSON.stringify({ ...r, metrics: {} }))).toEqual(inThread.rows.map((r) => JSON.stringify({ ...r, metrics: {} })));
});

test("more bundles than the worker keeps: released ones are sent again when a later decision needs them", async () => {
  const file = path.join(tempDir(), "decisions.db");
  const log = createDecisionLog({ db: file });
  const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
  const engines = await Promise.all(["a", "b", "c", "d", "e", "f"].map((r) => Engine.load(bundleOf({ revision: r }), r)));
  const order = [0, 1, 2, 3, 4, 5, 0, 3, 5, 1];
  const decisions = order.map((i) => decide(engines[i], deps, member()));
  await log.close();
  expect(log.stats()).toEqual(expect.objectContaining({ recorded: 10, logged: 10, failSafe: 0, internalErrors: 0, queued: 0 }));
  const byId = await logged(file);
  decisions.forEach((d, n) => {
    expect(byId.get(d.decisionId)!.revision).toBe(engines[order[n]].revision);
    expect(byId.get(d.decisionId)!.event!.erased).toEqual(["/input/actor/id"]); // masked by its own bundle, not failed safe
  });
});

test("an event the worker builds from a decision's parts is the event the recording thread would have built", async () => {
  const engine = await Engine.load(bundleOf({ revision: "r-parts" }), "test");
  const run = async (worker: boolean) => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker, instanceId: "instance-1", labels: { team: "security" } });
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    const context = (n: number) => ({ requestedBy: "10.0.0.7:51234", reqId: n, decisionId: `d-${n}` });
    decide(engine, deps, member(), context(1)); // allowed: travels as parts
    decide(engine, deps, member({ actor: { id: "u_mallory", tenant: "t_acme", roles: [] } }), context(2)); // denied: parts
    decide(engine, deps, member({ fields: { submitted: ["password"] } }), { reqId: 3, decisionId: "d-3" }); // redacted in the worker
    decide(null, deps, member(), context(4)); // no bundle: the PDP's own deny, an error, travels as its snapshot
    await log.close();
    // The time is read at record(), separately in each run; everything else must match to the byte.
    const events = [...(await logged(file)).values()].sort((a, b) => (a.decision_id < b.decision_id ? -1 : 1));
    return events.map((e) => JSON.stringify({ ...e.event, timestamp: "", metrics: {} }));
  };
  const [inWorker, inThread] = [await run(true), await run(false)];
  expect(inWorker).toHaveLength(4);
  expect(inWorker).toEqual(inThread);
  const first = JSON.parse(inWorker[0]) as Record<string, unknown>;
  expect(first).toEqual(
    expect.objectContaining({
      decision_id: "d-1",
      labels: { team: "security", id: "instance-1", version: expect.any(String) },
      path: "portcullis/decision",
      bundles: { portcullis: { revision: "r-parts" } },
      requested_by: "10.0.0.7:51234",
      req_id: 1,
    }),
  );
});

test("through a small ring: wraps, a full ring, events larger than it takes and reloads, each event logged once and in order", async () => {
  const file = path.join(tempDir(), "decisions.db");
  const source = { instanceId: "i-1", version: "0.0.0", labels: {}, bundleName: "portcullis" };
  const maskOptions = { maskEntrypoint: "system/log/mask", dropEntrypoint: "system/log/drop" };
  const errors: string[] = [];
  // 8 KiB: events over ~2 KiB go by message; a few hundred ordinary ones fill it.
  const log = createWorkerDecisionLog({ db: file }, source, maskOptions, (e) => void errors.push(e.message), 8192);
  const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
  const engines = [
    await Engine.load(bundleOf({ revision: "r-a" }), "a"),
    await Engine.load(bundleOf({ revision: "r-b", rego: [DECISION_REGO, ERASE_ACTION] }), "b"),
  ];
  const ids: string[] = [];
  for (let i = 0; i < 1200; i++) {
    // Every 97th input is ~6 KB (multi-byte names): it cannot go through the ring.
    const submitted = i % 97 === 0 ? Array.from({ length: 300 }, (_, n) => `champ_é${n}`) : [];
    const engine = engines[Math.floor(i / 300) % 2]; // a reload every 300 decisions
    ids.push(decide(engine, deps, member({ fields: { submitted } }), { decisionId: `d-${String(i).padStart(4, "0")}` }).decisionId);
    if (i % 40 === 0) await new Promise(setImmediate);
    if (i === 600) expect(log.stats().recorded).toBe(601);
  }
  await log.flush();
  expect(log.stats()).toEqual(expect.objectContaining({ recorded: 1200, logged: 1200, droppedByPolicy: 0, failSafe: 0, internalErrors: 0, queued: 0 }));
  await log.close();
  expect(errors).toEqual([]);

  const db = openForRead(file);
  const rows = db.prepare("SELECT decision_id, revision, event FROM decisions ORDER BY seq").all() as Array<{
    decision_id: string;
    revision: string;
    event: string;
  }>;
  db.close();
  expect(rows.map((r) => r.decision_id)).toEqual(ids);
  rows.forEach((row, i) => {
    const event = JSON.parse(row.event) as { erased: string[]; input: { fields: { submitted: string[] } } };
    const a = Math.floor(i / 300) % 2 === 0;
    expect(row.revision).toBe(a ? "r-a" : "r-b");
    expect(event.erased).toEqual([a ? "/input/actor/id" : "/input/action"]); // masked by its own bundle
    expect(event.input.fields.submitted).toHaveLength(i % 97 === 0 ? 300 : 0);
  });
});

test("an event too large for the ring is logged after the ones recorded before it, while the worker sleeps", async () => {
  const file = path.join(tempDir(), "decisions.db");
  const source = { instanceId: "i-1", version: "0.0.0", labels: {}, bundleName: "portcullis" };
  const maskOptions = { maskEntrypoint: "system/log/mask", dropEntrypoint: "system/log/drop" };
  const log = createWorkerDecisionLog({ db: file }, source, maskOptions, () => {}, 8192);
  const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
  const engine = await Engine.load(bundleOf(), "a");
  decide(engine, deps, member(), { decisionId: "d-0" });
  await log.flush(); // the worker has the bundle, has read the ring and sleeps
  // A few small events (too few to wake the worker at once), then one that goes by message, in one turn.
  const big = member({ fields: { submitted: Array.from({ length: 400 }, (_, n) => `field_${n}`) } });
  const ids = ["d-0", ...[1, 2, 3, 4].map((n) => decide(engine, deps, n === 4 ? big : member(), { decisionId: `d-${n}` }).decisionId)];
  await log.close();
  const db = openForRead(file);
  const rows = db.prepare("SELECT decision_id FROM decisions ORDER BY seq").all() as Array<{ decision_id: string }>;
  db.close();
  expect(rows.map((r) => r.decision_id)).toEqual(ids);
});

test("a long run of events reaches the store while the worker reads it: the SQLite queue stays within one batch and a slice, nothing dropped", async () => {
  // Read in one go, a run of events queued every one of them in the sink until its bound, which then
  // dropped the oldest: here 3000 events against a bound of 120 (batches of 50, no timer write meanwhile).
  const file = path.join(tempDir(), "decisions.db");
  const log = createDecisionLog({ db: { file, batchSize: 50, bufferLimit: 120, flushIntervalMs: 60_000 } });
  const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
  const engine = await Engine.load(bundleOf(), "test");
  for (let i = 0; i < 3000; i++) decide(engine, deps, member());
  await log.flush();
  expect(log.stats()).toEqual(expect.objectContaining({ recorded: 3000, logged: 3000, internalErrors: 0, queued: 0 }));
  expect(log.stats().sinks.sqlite).toEqual({ written: 3000, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
  await log.close();
  expect((await logged(file)).size).toBe(1000); // queryDecisions' limit: the rows are there
});

describe("when the worker thread dies", () => {
  const source = { instanceId: "i-1", version: "0.0.0", labels: {}, bundleName: "portcullis" };
  const maskOptions = { maskEntrypoint: "system/log/mask", dropEntrypoint: "system/log/drop" };

  /**
   * `holdWrites`: the SQLite sink commits only at flush, durable() or close, so what it holds at a crash is
   * known. `dies(worker, n)`: called with each worker as it starts (n from 0), to make the new ones die too.
   */
  function crashable(file: string | { postgres: string }, holdWrites = false, dies?: (worker: Worker, n: number) => void) {
    const errors: Array<{ code: string; message: string }> = [];
    const workers: Worker[] = [];
    const hold = holdWrites ? { flushIntervalMs: 60_000, batchSize: 100_000 } : {};
    const log = createWorkerDecisionLog(
      {
        ...(typeof file === "string" ? { db: { file, ...hold } } : { postgres: { url: file.postgres, runId: "worker-restart", ...hold } }),
        // A new worker started from TypeScript sources compiles them first: slow on a loaded machine, and not what is tested.
        commitTimeoutMs: 60_000,
      },
      source,
      maskOptions,
      (e) => void errors.push({ code: e.code, message: e.message }),
      undefined,
      (w) => {
        workers.push(w);
        dies?.(w, workers.length - 1);
      },
    );
    // terminate() stops the thread as a crash would: no flush, no close, whatever it held in its memory is gone.
    const crash = async () => {
      const worker = workers.at(-1)!;
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      await worker.terminate();
      await exited;
    };
    return { log, errors, crash, workers };
  }

  function rows(file: string): string[] {
    const db = openForRead(file);
    const ids = (db.prepare("SELECT decision_id FROM decisions ORDER BY seq").all() as Array<{ decision_id: string }>).map((r) => r.decision_id);
    db.close();
    return ids;
  }

  const id = (prefix: string, i: number): string => `${prefix}-${String(i).padStart(3, "0")}`;

  test("after a flush: a new worker takes over, the death and the restart are reported and in health(), later decisions are stored by it", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const { log, errors, crash, workers } = crashable(file);
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    const engine = await Engine.load(bundleOf(), "test");
    const ids = Array.from({ length: 50 }, (_, i) => decide(engine, deps, member(), { decisionId: id("d", i) }).decisionId);
    await log.flush();
    await crash();
    expect(log.health()).toEqual({
      persisting: true,
      worker: { state: "restarting", restarts: 0, lastFailure: { at: expect.any(String), reason: "exited with code 1" } },
    });
    for (let i = 50; i < 80; i++) ids.push(decide(engine, deps, member(), { decisionId: id("d", i) }).decisionId);
    await log.flush(); // answered by the new worker
    expect(workers).toHaveLength(2);
    expect(errors).toEqual([
      { code: "log_worker_failed", message: expect.stringMatching(/exited with code 1; restarting it in 100 ms \(1 of 5 in a row\), replaying the 0 events/) },
      { code: "log_worker_restarted", message: expect.stringContaining("restart 1") },
    ]);
    expect(log.health()).toEqual({ persisting: true, worker: { state: "running", restarts: 1, lastFailure: expect.any(Object) } });
    expect(log.stats()).toEqual(expect.objectContaining({ recorded: 80, logged: 80, failSafe: 0, internalErrors: 0, queued: 0 }));
    expect(log.stats().sinks.sqlite).toEqual({ written: 80, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
    await log.close();
    expect(rows(file)).toEqual(ids);
  });

  test("while it holds events: every decision recorded is stored exactly once and in order, every record accounted for, and a durable() waiting across the death is kept", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const { log, errors, crash } = crashable(file, true);
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    const engine = await Engine.load(bundleOf(), "test");
    const ids: string[] = [];
    for (let i = 0; i < 600; i++) {
      ids.push(decide(engine, deps, member(), { decisionId: id("d", i) }).decisionId);
      if (i % 50 === 49) await new Promise(setImmediate);
    }
    // The worker has processed (and reported) some events, its sink holds them uncommitted, more wait in the ring.
    while (log.stats().logged < 100) await new Promise((resolve) => setTimeout(resolve, 1));
    await crash();
    expect(rows(file)).toEqual([]); // it had committed nothing
    // Recorded while the new worker is not there yet: they wait for it, after the replay.
    for (let i = 0; i < 20; i++) ids.push(decide(engine, deps, member(), { decisionId: id("e", i) }).decisionId);
    await log.durable(); // every decision recorded before it is in the store, through the new worker
    expect(rows(file)).toEqual(ids);
    await log.close();

    expect(rows(file)).toEqual(ids);
    const stats = log.stats();
    expect(stats).toEqual(expect.objectContaining({ recorded: 620, logged: 620, droppedByPolicy: 0, failSafe: 0, internalErrors: 0, queued: 0 }));
    expect(stats.sinks.sqlite).toEqual({ written: 620, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
    expect(errors.map((e) => e.code)).toEqual(["log_worker_failed", "log_worker_restarted"]);
    expect(errors[0].message).toMatch(/replaying the 600 events it had not settled/);
    expect(errors[1].message).toMatch(/600 events replayed/);
  });

  test("a worker that keeps dying is given up on after 5 restarts: what it had not settled is counted lost, later decisions are stored in-thread", async () => {
    const file = path.join(tempDir(), "decisions.db");
    // Every new worker dies as it starts, before it reads anything.
    const { log, errors, crash } = crashable(file, true, (w, n) => {
      if (n > 0) void w.terminate();
    });
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    const engine = await Engine.load(bundleOf(), "test");
    for (let i = 0; i < 30; i++) decide(engine, deps, member(), { decisionId: id("d", i) });
    // Processed, held by the sink, not committed: not settled.
    while (log.stats().logged < 30) await new Promise((resolve) => setTimeout(resolve, 1));
    await crash();
    while (log.health().worker?.state !== "in-thread") await new Promise((resolve) => setTimeout(resolve, 20));
    const later = Array.from({ length: 10 }, (_, i) => decide(engine, deps, member(), { decisionId: id("e", i) }).decisionId);
    await log.durable();
    await log.close();

    expect(errors.map((e) => e.code)).toEqual([...Array(5).fill(["log_worker_failed", "log_worker_restarted"]).flat(), "log_worker_failed"]);
    expect(errors.at(-1)!.message).toMatch(/6th death in a row: not restarted again; 30 events it had not settled are lost/);
    expect(log.health()).toEqual({ persisting: true, worker: { state: "in-thread", restarts: 5, lastFailure: expect.any(Object) } });
    // /health: degraded (200), every decision still stored, by the request thread.
    expect(decisionLogHealth({ decisionLog: log })).toEqual([
      {
        component: "decision_log",
        code: "decision_log_worker_failed",
        detail: expect.stringContaining("given up on"),
        since: log.health().worker!.lastFailure!.at,
      },
    ]);
    const stats = log.stats();
    expect(stats).toEqual(expect.objectContaining({ recorded: 40, logged: 10, internalErrors: 30, queued: 0 }));
    expect(stats.sinks.sqlite).toEqual(expect.objectContaining({ written: 10, pending: 0, dropped: 0 }));
    expect(rows(file)).toEqual(later);
  });

  test("while close() waits for it: a new worker takes the close over with the replay, close() resolves and every decision is stored once", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const { log, errors, crash, workers } = crashable(file, true);
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    const engine = await Engine.load(bundleOf(), "test");
    const ids = Array.from({ length: 600 }, (_, i) => decide(engine, deps, member(), { decisionId: id("d", i) }).decisionId);
    // The close reaches a worker with 600 events still to process and commit; it dies before it answers.
    const closed = log.close();
    await crash();
    await closed;

    expect(workers).toHaveLength(2);
    expect(errors.map((e) => e.code)).toEqual(["log_worker_failed", "log_worker_restarted"]);
    expect(errors[0].message).toMatch(/restarting it in 0 ms/);
    expect(rows(file)).toEqual(ids);
    expect(log.stats()).toEqual(expect.objectContaining({ recorded: 600, logged: 600, internalErrors: 0, queued: 0 }));
    expect(log.stats().sinks.sqlite).toEqual({ written: 600, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
    // After close, as before: a record is counted and dropped.
    decide(engine, deps, member(), { decisionId: "late" });
    expect(log.stats().sinks.sqlite.dropped).toBe(1);
  });

  test("on PostgreSQL too: every decision recorded is stored exactly once and in order across the death", async () => {
    const db = await clonePgDatabase();
    try {
      const { log, errors, crash } = crashable({ postgres: db.urls.app }, true);
      const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
      const engine = await Engine.load(bundleOf(), "test");
      const ids: string[] = [];
      for (let i = 0; i < 300; i++) {
        ids.push(decide(engine, deps, member(), { decisionId: id("p", i) }).decisionId);
        if (i % 50 === 49) await new Promise(setImmediate);
      }
      while (log.stats().logged < 50) await new Promise((resolve) => setTimeout(resolve, 1));
      await crash();
      for (let i = 0; i < 20; i++) ids.push(decide(engine, deps, member(), { decisionId: id("q", i) }).decisionId);
      await log.durable();
      await log.close();
      const stored = await ownerQuery<{ decision_id: string }>(db.urls.owner, "SELECT decision_id FROM decisions ORDER BY seq");
      expect(stored.map((r) => r.decision_id)).toEqual(ids);
      expect(log.stats()).toEqual(expect.objectContaining({ recorded: 320, logged: 320, internalErrors: 0, queued: 0 }));
      expect(log.stats().sinks.postgres).toEqual({ written: 320, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
      expect(errors.map((e) => e.code)).toEqual(["log_worker_failed", "log_worker_restarted"]);
    } finally {
      await db.drop();
    }
  });
});
