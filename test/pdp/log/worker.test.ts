/**
 * The decision log's worker mode (the default for SQLite/console logs): the
 * deciding bundle's own mask and drop policies evaluated in the worker,
 * each bundle by its own revision after a reload, every record accounted
 * for at any moment, and the same results as the in-thread log.
 */
import * as path from "node:path";
import type { Worker } from "node:worker_threads";
import { decide } from "../../../pdp/decide";
import { Engine } from "../../../pdp/engine";
import { createDecisionLog } from "../../../pdp/log";
import { queryDecisions } from "../../../pdp/log/store/query";
import { createWorkerDecisionLog } from "../../../pdp/log/pipelines/worker-log";
import { openForRead } from "../../../pdp/log/store/sqlite-store";
import { bundleOf, capturingLogger, DECISION_REGO, member } from "../fixtures";
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

  /** `holdWrites`: the SQLite sink commits only at flush or close, so what it holds at a crash is known. */
  function crashable(file: string, holdWrites = false) {
    const errors: Array<{ code: string; message: string }> = [];
    let worker: Worker | undefined;
    const db = holdWrites ? { file, flushIntervalMs: 60_000, batchSize: 100_000 } : file;
    const log = createWorkerDecisionLog(
      { db },
      source,
      maskOptions,
      (e) => void errors.push({ code: e.code, message: e.message }),
      undefined,
      (w) => (worker = w),
    );
    // terminate() stops the thread as a crash would: no flush, no close, whatever it held is gone.
    const crash = async () => {
      const exited = new Promise((resolve) => worker!.once("exit", resolve));
      await worker!.terminate();
      await exited;
    };
    return { log, errors, crash };
  }

  function rows(file: string): string[] {
    const db = openForRead(file);
    const ids = (db.prepare("SELECT decision_id FROM decisions ORDER BY seq").all() as Array<{ decision_id: string }>).map((r) => r.decision_id);
    db.close();
    return ids;
  }

  test("after a flush: nothing is lost, the failure is reported, and later decisions are logged in-thread", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const { log, errors, crash } = crashable(file);
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    const engine = await Engine.load(bundleOf(), "test");
    const ids = Array.from({ length: 50 }, (_, i) => decide(engine, deps, member(), { decisionId: `d-${String(i).padStart(3, "0")}` }).decisionId);
    await log.flush();
    await crash();
    expect(errors).toEqual([
      {
        code: "log_worker_failed",
        message: expect.stringContaining(
          "not confirmed written: 0 events it had not processed (counted as internal errors) and the events its sinks held (counted as dropped: sqlite 0)",
        ),
      },
    ]);
    for (let i = 50; i < 80; i++) ids.push(decide(engine, deps, member(), { decisionId: `d-${String(i).padStart(3, "0")}` }).decisionId);
    await log.flush();
    expect(log.stats()).toEqual(expect.objectContaining({ recorded: 80, logged: 80, failSafe: 0, internalErrors: 0, queued: 0 }));
    expect(log.stats().sinks.sqlite).toEqual({ written: 80, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
    await log.close();
    expect(rows(file)).toEqual(ids);
  });

  test("while it holds events: each record is accounted for once, none counted as written that the store lacks", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const { log, errors, crash } = crashable(file, true);
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };
    const engine = await Engine.load(bundleOf(), "test");
    for (let i = 0; i < 600; i++) {
      decide(engine, deps, member(), { decisionId: `d-${String(i).padStart(3, "0")}` });
      if (i % 50 === 49) await new Promise(setImmediate);
    }
    // The worker has processed (and reported) some events, its sink holds them uncommitted, more wait in the ring.
    while (log.stats().logged < 100) await new Promise((resolve) => setTimeout(resolve, 1));
    const flushing = log.flush();
    await crash();
    await flushing; // a flush that waited for the dead worker settles
    const after = Array.from({ length: 20 }, (_, i) => decide(engine, deps, member(), { decisionId: `e-${i}` }).decisionId);
    await log.close();

    const stats = log.stats();
    const sqlite = stats.sinks.sqlite!;
    const unprocessed = stats.internalErrors;
    const held = sqlite.dropped;
    expect(held).toBeGreaterThanOrEqual(100);
    expect(stats).toEqual(expect.objectContaining({ recorded: 620, logged: 620 - unprocessed, droppedByPolicy: 0, failSafe: 0, queued: 0 }));
    expect(sqlite).toEqual({ written: 20, pending: 0, dropped: held, failures: 0, duplicates: 0 });
    expect(sqlite.written + sqlite.dropped).toBe(stats.logged);
    expect(errors).toEqual([
      {
        code: "log_worker_failed",
        message: expect.stringContaining(
          `not confirmed written: ${unprocessed} events it had not processed (counted as internal errors) and the events its sinks held (counted as dropped: sqlite ${held})`,
        ),
      },
    ]);
    expect(rows(file)).toEqual(after); // the later decisions, in-thread; the worker committed nothing
  });
});
