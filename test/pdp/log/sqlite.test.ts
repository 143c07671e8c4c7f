/**
 * The SQLite sink on real files: every record exactly once, batched writes
 * that record() never waits for, append-only triggers, WAL mode, the
 * indexes queries use, and a log that survives a close and reopen. On both
 * pipelines: the sink in the worker thread and on the recording thread.
 */
import * as path from "node:path";
import Database from "better-sqlite3";
import { createDecisionLog } from "../../../pdp/log";
import { openForRead, STORE_PAGE_SIZE } from "../../../pdp/log/store/sqlite-store";
import { queryDecisions } from "../../../pdp/log/store/query";
import { DENIED_RESULT, makeRecord, PIPELINES, tempDir } from "./fixtures";

function countRows(file: string): { rows: number; ids: number } {
  const db = openForRead(file);
  const counts = db.prepare("SELECT count(*) AS rows, count(DISTINCT decision_id) AS ids FROM decisions").get() as { rows: number; ids: number };
  db.close();
  return counts;
}

describe.each(PIPELINES)("$name", ({ worker }) => {
  test("N records become N rows with unique ids, written in batches after record() returns", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: { file, batchSize: 64 }, worker });
    const records = Array.from({ length: 300 }, (_, i) => makeRecord(i % 3 === 0 ? { result: DENIED_RESULT } : {}));
    for (const r of records.slice(0, 10)) log.record(r);
    // record() only queued: nothing has reached the file yet.
    expect(countRows(file)).toEqual({ rows: 0, ids: 0 });
    for (const r of records.slice(10)) log.record(r);
    await log.flush();
    expect(countRows(file)).toEqual({ rows: 300, ids: 300 });
    expect(log.stats()).toEqual(expect.objectContaining({ recorded: 300, logged: 300, internalErrors: 0 }));
    expect(log.stats().sinks.sqlite).toEqual({ written: 300, pending: 0, dropped: 0, failures: 0, duplicates: 0 });
    await log.close();

    const db = openForRead(file);
    const ids = (db.prepare("SELECT decision_id FROM decisions ORDER BY seq").all() as Array<{ decision_id: string }>).map((r) => r.decision_id);
    expect(ids).toEqual(records.map((r) => r.decisionId));
    const denied = db.prepare("SELECT count(*) AS n FROM decisions WHERE allowed = 0 AND status = 403 AND reason = 'role_required'").get() as { n: number };
    expect(denied.n).toBe(100);
    db.close();
  });

  test("the same decision id twice is kept once (the first event wins)", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    const first = makeRecord();
    log.record(first);
    log.record({ ...first, result: DENIED_RESULT });
    await log.close();
    expect(countRows(file)).toEqual({ rows: 1, ids: 1 });
    expect(log.stats().sinks.sqlite).toEqual(expect.objectContaining({ written: 1, duplicates: 1 }));
    const db = openForRead(file);
    expect(queryDecisions(db, { id: first.decisionId })[0].allowed).toBe(true);
    db.close();
  });

  test("repeated ids inside one multi-row insert and across batches: each kept once, the first wins, all counted", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: { file, batchSize: 200 }, worker });
    const originals = Array.from({ length: 120 }, () => makeRecord());
    const repeat = (i: number) => ({ ...originals[i], result: DENIED_RESULT });
    // Repeats of ids earlier in the same 50-row statement (rows 0-49 of the batch),
    // of the statement before (row 60), and in the single-row tail (rows 100-125).
    const sequence = [
      ...originals.slice(0, 20),
      repeat(3),
      repeat(7),
      repeat(7),
      ...originals.slice(20, 57),
      repeat(49),
      ...originals.slice(57),
      repeat(50),
      repeat(119),
    ];
    for (const r of sequence) log.record(r);
    await log.flush();
    // And of a batch already committed.
    for (const i of [0, 60]) log.record({ ...originals[i], result: DENIED_RESULT });
    await log.close();
    expect(countRows(file)).toEqual({ rows: 120, ids: 120 });
    expect(log.stats().sinks.sqlite).toEqual({ written: 120, pending: 0, dropped: 0, failures: 0, duplicates: 8 });
    const db = openForRead(file);
    const denied = db.prepare("SELECT count(*) AS n FROM decisions WHERE allowed = 0").get() as { n: number };
    expect(denied.n).toBe(0);
    db.close();
  });

  test("the table is append-only: UPDATE, DELETE and INSERT OR REPLACE are refused", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    const record = makeRecord();
    log.record(record);
    await log.close();

    const db = new Database(file);
    expect(() => db.prepare("UPDATE decisions SET allowed = 0").run()).toThrow(/append-only: UPDATE refused/);
    expect(() => db.prepare("DELETE FROM decisions").run()).toThrow(/append-only: DELETE refused/);
    db.prepare("INSERT OR REPLACE INTO decisions (decision_id, timestamp, allowed, event) VALUES (?, '2000-01-01T00:00:00.000000000Z', 0, '{}')").run(
      record.decisionId,
    );
    const rows = db.prepare("SELECT timestamp, allowed FROM decisions").all() as Array<{ timestamp: string; allowed: number }>;
    expect(rows).toHaveLength(1);
    expect(rows[0].allowed).toBe(1);
    expect(rows[0].timestamp).not.toBe("2000-01-01T00:00:00.000000000Z");
    db.close();
  });

  test("WAL mode, and the queries by actor, path, result and time use their indexes", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    log.record(makeRecord());
    await log.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const plan = (where: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM decisions WHERE ${where}`).all() as Array<{ detail: string }>).map((r) => r.detail).join(" ");
    expect(plan("actor_id = 'u_alice'")).toMatch(/decisions_by_actor/);
    expect(plan("path = 'portcullis/decision'")).toMatch(/decisions_by_path/);
    expect(plan("allowed = 0")).toMatch(/decisions_denied/);
    expect(plan("allowed = 0 AND timestamp >= '2026-01-01'")).toMatch(/decisions_denied/);
    expect(plan("timestamp >= '2026-01-01'")).toMatch(/decisions_by_time/);
    db.close();
  });

  test("a store made with the older full index on allowed gets the denials-only index, rows untouched", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const first = createDecisionLog({ db: file, worker });
    first.record(makeRecord());
    await first.close();
    const old = new Database(file);
    old.exec("DROP INDEX decisions_denied; CREATE INDEX decisions_by_allowed ON decisions (allowed, timestamp);");
    old.close();

    const reopened = createDecisionLog({ db: file, worker });
    reopened.record(makeRecord());
    await reopened.close();
    const db = new Database(file, { readonly: true });
    const indexes = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'decisions' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>
    )
      .map((r) => r.name)
      .sort();
    expect(indexes).toEqual(["decisions_by_actor", "decisions_by_path", "decisions_by_time", "decisions_denied"]);
    expect(db.prepare("SELECT count(*) AS n FROM decisions").get()).toEqual({ n: 2 });
    db.close();
  });

  test("a new store gets STORE_PAGE_SIZE pages; one made with SQLite's default 4 KiB keeps them, read and appended to", async () => {
    const fresh = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: fresh, worker });
    log.record(makeRecord());
    await log.close();
    let db = openForRead(fresh);
    expect(db.pragma("page_size", { simple: true })).toBe(STORE_PAGE_SIZE);
    db.close();

    // A store created before the log set its page size: the size is fixed once the file has a header.
    const older = path.join(tempDir(), "decisions.db");
    const made = new Database(older);
    made.pragma("page_size = 4096");
    made.pragma("journal_mode = WAL");
    made.close();
    const records = [makeRecord(), makeRecord({ result: DENIED_RESULT })];
    for (const record of records) {
      const reopened = createDecisionLog({ db: older, worker });
      reopened.record(record);
      await reopened.close();
    }
    db = openForRead(older);
    expect(db.pragma("page_size", { simple: true })).toBe(4096);
    expect(queryDecisions(db, {}).map((e) => [e.decision_id, e.allowed])).toEqual([
      [records[1].decisionId, false],
      [records[0].decisionId, true],
    ]);
    db.close();
  });

  test("the log survives a close and reopen: old events intact, new ones appended", async () => {
    const file = path.join(tempDir(), "nested", "dir", "decisions.db");
    const first = createDecisionLog({ db: file, worker });
    const before = Array.from({ length: 10 }, () => makeRecord());
    for (const r of before) first.record(r);
    await first.close();
    let db = openForRead(file);
    const snapshot = queryDecisions(db, { limit: 100 });
    db.close();

    const second = createDecisionLog({ db: file, worker });
    const after = Array.from({ length: 5 }, () => makeRecord({ result: DENIED_RESULT }));
    for (const r of after) second.record(r);
    await second.close();

    db = openForRead(file);
    const all = queryDecisions(db, { limit: 100 });
    db.close();
    expect(all).toHaveLength(15);
    expect(new Set(all.map((e) => e.decision_id))).toEqual(new Set([...before, ...after].map((r) => r.decisionId)));
    for (const old of snapshot) expect(all.find((e) => e.decision_id === old.decision_id)).toEqual(old);
  });

  test("records after close are counted as dropped, not lost silently", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    await log.close();
    log.record(makeRecord());
    await new Promise((resolve) => setImmediate(resolve)); // the batch that masks and writes it
    expect(log.stats().sinks.sqlite).toEqual(expect.objectContaining({ written: 0, dropped: 1 }));
  });
});
