/**
 * Request outcomes and refusals made before the policy was asked, in the
 * real SQLite decision log, through the worker and the in-thread log alike:
 * an outcome is stored beside its decision (same id, joined by the query),
 * append-only and kept once; a refusal is an OPA-shaped event marked as not
 * evaluated; a store made before outcomes existed gains the table on open
 * and is still readable read-only before that.
 */
import * as path from "node:path";
import Database from "better-sqlite3";
import { createDecisionLog } from "../../../pdp/log";
import { openForAppend, openForRead } from "../../../pdp/log/store/sqlite-store";
import { queryDecisions } from "../../../pdp/log/store/query";
import type { RequestOutcome } from "../../../pdp/types";
import { makeRecord, PIPELINES, tempDir } from "./fixtures";

function outcomeOf(decisionId: string, overrides: Partial<RequestOutcome> = {}): RequestOutcome {
  return {
    decisionId,
    method: "GET",
    path: "/invoices/inv_1",
    routeId: "invoices.get",
    version: "v2",
    actorId: "u_alice",
    status: 404,
    problem: "not_found",
    scopeFound: false,
    testRun: null,
    aborted: false,
    ...overrides,
  };
}

describe.each(PIPELINES)("outcomes $name", ({ worker }) => {
  test("an outcome is stored beside its decision, once; --denied finds an allowed decision that ended in 404", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    const allowed = makeRecord();
    const served = makeRecord();
    const crashed = makeRecord(); // a decision whose request never finished
    for (const r of [allowed, served, crashed]) log.record(r);
    log.recordOutcome(outcomeOf(allowed.decisionId));
    log.recordOutcome(outcomeOf(allowed.decisionId, { status: 200, problem: null })); // a second outcome for the id: ignored
    log.recordOutcome(outcomeOf(served.decisionId, { status: 200, problem: null, scopeFound: true, testRun: "run-1" }));
    const orphan = outcomeOf("0190aaaa-0000-7000-8000-000000000001", { routeId: "health.get", status: 200, problem: null, scopeFound: null }); // its event was dropped
    log.recordOutcome(orphan);
    await log.close();
    expect(log.stats()).toEqual(expect.objectContaining({ recorded: 7, logged: 3, outcomes: 4, internalErrors: 0, queued: 0 }));
    expect(log.stats().sinks.sqlite).toEqual(expect.objectContaining({ written: 6, duplicates: 1, dropped: 0 }));

    const db = openForRead(file);
    const [entry] = queryDecisions(db, { id: allowed.decisionId });
    expect(entry).toMatchObject({ allowed: true, status: 200 });
    expect(entry.outcome).toMatchObject({
      method: "GET",
      http_path: "/invoices/inv_1",
      route_id: "invoices.get",
      version: "v2",
      status: 404,
      problem: "not_found",
      scope_found: false,
      test_run: null,
      aborted: false,
    });
    expect(queryDecisions(db, { id: crashed.decisionId })[0].outcome).toBeNull();
    const lone = queryDecisions(db, { id: orphan.decisionId });
    expect(lone).toHaveLength(1);
    expect(lone[0]).toMatchObject({ event: null, allowed: null, actor_id: "u_alice" });
    expect(queryDecisions(db, { denied: true }).map((e) => e.decision_id)).toEqual([allowed.decisionId]);
    expect(queryDecisions(db, { testRun: "run-1" }).map((e) => e.decision_id)).toEqual([served.decisionId]);
    expect(
      queryDecisions(db, { excludeTestRuns: true })
        .map((e) => e.decision_id)
        .sort(),
    ).toEqual([allowed.decisionId, crashed.decisionId, orphan.decisionId].sort());
    expect(queryDecisions(db, { path: "health.get" }).map((e) => e.decision_id)).toEqual([orphan.decisionId]);
    db.close();
  });

  test("a refusal made before the policy: no result, no bundles, no timer, marked not evaluated; a denial in the columns", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    const refusal = makeRecord({
      path: "",
      result: undefined,
      revision: "",
      evalNs: Number.NaN,
      input: { actor: { id: "anonymous", tenant: null, roles: [] }, action: null, resource: null, route: null, fields: { submitted: [] }, params: [] },
      refusal: { stage: "authenticate", status: 401, problem: "invalid_token" },
    });
    log.record(refusal);
    await log.close();
    const db = openForRead(file);
    const [entry] = queryDecisions(db, { id: refusal.decisionId });
    expect(entry).toMatchObject({ allowed: false, status: 401, reason: "invalid_token", revision: null, path: null, actor_id: "anonymous" });
    expect(Object.keys(entry.event!).sort()).toEqual(["custom", "decision_id", "input", "labels", "req_id", "requested_by", "timestamp"]);
    expect(entry.event!.custom).toEqual({ policy_evaluated: false, refusal: { stage: "authenticate", status: 401, problem: "invalid_token" } });
    db.close();
  });
});

test("outcomes are append-only: UPDATE and DELETE are refused", () => {
  const db = openForAppend(path.join(tempDir(), "decisions.db"));
  db.prepare("INSERT INTO outcomes (decision_id, timestamp, method, http_path, actor_id, status, aborted) VALUES ('d', 't', 'GET', '/', 'a', 200, 0)").run();
  expect(() => db.prepare("UPDATE outcomes SET status = 404").run()).toThrow(/append-only/);
  expect(() => db.prepare("DELETE FROM outcomes").run()).toThrow(/append-only/);
  db.prepare(
    "INSERT OR REPLACE INTO outcomes (decision_id, timestamp, method, http_path, actor_id, status, aborted) VALUES ('d', 't', 'GET', '/', 'a', 500, 0)",
  ).run();
  expect(db.prepare("SELECT status FROM outcomes").all()).toEqual([{ status: 200 }]);
  db.close();
});

test("a store made before outcomes: readable read-only as it is, and given the table when opened for appending", () => {
  const file = path.join(tempDir(), "decisions.db");
  const old = new Database(file);
  old.exec(`CREATE TABLE decisions (seq INTEGER PRIMARY KEY, decision_id TEXT NOT NULL UNIQUE, timestamp TEXT NOT NULL, path TEXT, actor_id TEXT,
    allowed INTEGER NOT NULL, status INTEGER, reason TEXT, revision TEXT, event TEXT NOT NULL)`);
  old
    .prepare(
      "INSERT INTO decisions (decision_id, timestamp, path, actor_id, allowed, status, reason, revision, event) VALUES ('d-1', '2026-01-01T00:00:00.000000000Z', 'portcullis/decision', 'u_alice', 1, 200, 'allowed', 'r', '{}')",
    )
    .run();
  old.close();
  const reader = openForRead(file);
  expect(queryDecisions(reader, {}).map((e) => [e.decision_id, e.outcome])).toEqual([["d-1", null]]);
  reader.close();
  openForAppend(file).close();
  const after = new Database(file, { readonly: true });
  expect(after.prepare("SELECT count(*) AS n FROM outcomes").get()).toEqual({ n: 0 });
  after.close();
});
