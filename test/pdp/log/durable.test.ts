/**
 * The decision log when it matters that a decision is kept: durable()
 * answers only once the decision is committed to the SQLite store (read
 * back through another connection), a store that cannot be written (full:
 * `maxBytes` sets PRAGMA max_page_count; locked: a second connection holds
 * BEGIN IMMEDIATE) makes the log say so (health), keeps its buffer within
 * its bound, counts every event it drops, and recovers when the store
 * takes writes again; run markers let the next start find a run that
 * stopped without a clean close. Worker and in-thread logs alike.
 */
import * as path from "node:path";
import Database from "better-sqlite3";
import { createDecisionLog, type ManagedDecisionLog } from "../../../pdp/log";
import { makeRecord, PIPELINES, tempDir } from "./fixtures";

const quiet = () => undefined;

function storedIds(file: string): Set<string> {
  const db = new Database(file, { readonly: true });
  try {
    return new Set((db.prepare("SELECT decision_id FROM decisions").all() as Array<{ decision_id: string }>).map((r) => r.decision_id));
  } finally {
    db.close();
  }
}

function runRows(file: string): Array<{ run_id: string; kind: string; detail: Record<string, unknown> }> {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT run_id, kind, detail FROM log_runs ORDER BY seq").all() as Array<{ run_id: string; kind: string; detail: string }>).map((r) => ({
      ...r,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
    }));
  } finally {
    db.close();
  }
}

/** Waits (by polling, without a deadline of its own: jest's timeout bounds it) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}

/** A store that holds about `pages` more pages than the empty schema needs. */
async function smallStore(dir: string, pages: number): Promise<{ file: string; maxBytes: number }> {
  const file = path.join(dir, "decisions.db");
  await createDecisionLog({ db: file, worker: false, onError: quiet }).close();
  const db = new Database(file);
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const size = (db.pragma("page_count", { simple: true }) as number) * pageSize;
  db.close();
  return { file, maxBytes: size + pages * pageSize };
}

describe.each(PIPELINES)("the decision log $name", ({ worker }) => {
  test("durable() resolves once every decision recorded before it is committed to the store", async () => {
    const file = path.join(tempDir(), "decisions.db");
    // A long batch timer: without durable() nothing would reach the store for a minute.
    const log = createDecisionLog({ db: { file, flushIntervalMs: 60_000, batchSize: 100_000 }, worker, onError: quiet });
    const records = Array.from({ length: 25 }, () => makeRecord());
    for (const r of records) log.record(r);
    expect(storedIds(file).size).toBe(0);
    await log.durable();
    const stored = storedIds(file);
    for (const r of records) expect(stored.has(r.decisionId)).toBe(true);
    // Concurrent callers share commits and all resolve; each sees its own decision stored.
    const more = Array.from({ length: 40 }, () => makeRecord());
    await Promise.all(
      more.map((r) => {
        log.record(r);
        return log.durable().then(() => expect(storedIds(file).has(r.decisionId)).toBe(true));
      }),
    );
    expect(log.health()).toEqual({ persisting: true });
    await log.close();
    expect(log.lost()).toBe(0);
    await expect(log.durable()).rejects.toThrow(/log_not_durable/);
  });

  test("a full store: health says so, durable() refuses, the buffer stays within its bound, every dropped event is counted", async () => {
    const dir = tempDir();
    const { file, maxBytes } = await smallStore(dir, 4);
    const errors: string[] = [];
    const log = createDecisionLog({ db: { file, maxBytes, bufferLimit: 200, batchSize: 50 }, worker, onError: (e) => void errors.push(e.code) });
    expect(log.health().persisting).toBe(true);
    const big = { actor: { id: "u_alice", tenant: "t_acme", roles: ["member"], note: "x".repeat(2000) } };
    for (let i = 0; i < 1000; i++) log.record(makeRecord({ input: { ...makeRecord().input, ...big } }));
    await expect(log.durable()).rejects.toThrow(/log_not_durable: the decision store cannot be written: database or disk is full/);
    await until(() => !log.health().persisting);
    expect(log.health()).toEqual({
      persisting: false,
      failingSince: expect.stringMatching(/^\d{4}-/),
      error: expect.stringMatching(/database or disk is full/),
    });
    const sqlite = log.stats().sinks.sqlite;
    expect(sqlite.pending).toBeLessThanOrEqual(200);
    expect(sqlite.written + sqlite.pending + sqlite.dropped).toBe(1000);
    expect(sqlite.dropped).toBeGreaterThanOrEqual(1000 - 200 - sqlite.written);
    expect(errors.filter((c) => c === "sqlite_write_failed")).toHaveLength(1); // reported once, not at every retry
    await log.close();
    // What could not be written at close is counted too: every event is written or lost.
    expect(log.lost()).toBe(1000 - log.stats().sinks.sqlite.written);
    expect(storedIds(file).size).toBe(log.stats().sinks.sqlite.written);
    // A lossy close is no clean stop: the next start finds the run interrupted.
    const next = createDecisionLog({ db: file, worker, onError: quiet });
    expect(next.interruptedRuns).toEqual([expect.objectContaining({ committed: log.stats().sinks.sqlite.written, pid: process.pid })]);
    await next.close();
  });

  test("a store locked by another connection: not persisting while locked, persisting again (and nothing lost) once released", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const errors: string[] = [];
    const log = createDecisionLog({ db: { file, flushIntervalMs: 20 }, worker, onError: (e) => void errors.push(e.code) });
    const holder = new Database(file);
    holder.exec("BEGIN IMMEDIATE");
    const records = Array.from({ length: 30 }, () => makeRecord());
    for (const r of records) log.record(r);
    await expect(log.durable()).rejects.toThrow(/log_not_durable: the decision store cannot be written: database is locked/);
    await until(() => !log.health().persisting);
    holder.exec("ROLLBACK");
    holder.close();
    await until(() => log.health().persisting);
    await log.durable();
    expect(errors).toEqual(expect.arrayContaining(["sqlite_write_failed", "sqlite_write_recovered"]));
    const stored = storedIds(file);
    for (const r of records) expect(stored.has(r.decisionId)).toBe(true);
    await log.close();
    expect(log.lost()).toBe(0);
  });
});

describe("run markers", () => {
  test("a clean close leaves nothing to report; a run that never closed is found, with what it committed, and recorded", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const first = createDecisionLog({ db: file, instanceId: "run-1", onError: quiet });
    first.record(makeRecord());
    await first.close();
    const second: ManagedDecisionLog = createDecisionLog({ db: file, instanceId: "run-2", onError: quiet });
    expect(second.interruptedRuns).toEqual([]);
    const kept = Array.from({ length: 3 }, () => makeRecord());
    for (const r of kept) second.record(r);
    await second.durable();
    // run-2 is abandoned without close(), as a killed process would leave it.
    const third = createDecisionLog({ db: file, instanceId: "run-3", onError: quiet });
    expect(third.interruptedRuns).toEqual([
      {
        runId: "run-2",
        pid: process.pid,
        startedAt: expect.any(String),
        committed: 3,
        lastCommittedAt: expect.any(String),
        lastDecisionId: kept[2].decisionId,
      },
    ]);
    await third.close();
    await second.close();
    const kinds = runRows(file).map((r) => `${r.run_id}:${r.kind}`);
    expect(kinds).toEqual(["run-1:start", "run-1:clean_stop", "run-2:start", "run-2:interrupted", "run-3:start", "run-3:clean_stop", "run-2:clean_stop"]);
    expect(runRows(file).find((r) => r.kind === "interrupted")!.detail).toEqual(expect.objectContaining({ found_by: "run-3", committed: 3 }));
    // Found once: a later start does not report run-2 again.
    const fourth = createDecisionLog({ db: file, instanceId: "run-4", onError: quiet });
    expect(fourth.interruptedRuns).toEqual([]);
    await fourth.close();
  });
});
