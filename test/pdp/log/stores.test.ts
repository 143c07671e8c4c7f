/**
 * ONE contract for the decision log's two stores, SQLite and PostgreSQL
 * (backends.ts), through the worker and the in-thread pipeline alike:
 * durable() answers only once a decision is stored (read back on another
 * connection); outcomes sit beside their decisions, once; every filter of
 * `portcullis decisions` answers the same; the mask and drop policies
 * apply; a store that cannot be written makes the log say so (health),
 * durable() refuse, the buffer stay within its bound with every drop
 * counted and reported once, and the log recover; a clean close is on
 * record as such. Then what only PostgreSQL has: a row it refuses for its
 * contents is isolated and dropped without stopping the trail, and a
 * store or role the log must not use is refused at open.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { openDecisionLog, type ManagedDecisionLog } from "../../../pdp/log";
import { queryDecisionsPg } from "../../../pdp/log/store/query";
import type { RequestOutcome } from "../../../pdp/types";
import { LOG_STORES, ownerQuery, POSTGRES_LOG, SQLITE_LOG, useLogStore, type OpenStore } from "./backends";
import { compileLogPolicy, DENIED_RESULT, makeRecord, MASK_POLICY, PIPELINES } from "./fixtures";

const quiet = () => undefined;

/** Waits (polling, bounded by jest's timeout) until `done` holds. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 10));
}

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

/** Makes the store refuse writes until the returned function is called. */
async function breakStore(store: OpenStore): Promise<() => Promise<void>> {
  if (store.urls) {
    // The service role loses INSERT: every write fails (42501), as a store that cannot take writes would.
    await ownerQuery(store.urls.owner, "REVOKE INSERT ON decisions, outcomes FROM portcullis_app");
    return async () => void (await ownerQuery(store.urls!.owner, "GRANT INSERT ON decisions, outcomes TO portcullis_app"));
  }
  // A second connection holds the write lock: the log's writes fail after its busy timeout.
  const holder = new Database(store.file!);
  holder.exec("BEGIN IMMEDIATE");
  return async () => {
    holder.exec("ROLLBACK");
    holder.close();
  };
}

describe.each(LOG_STORES)("the decision log on $name", (backend) => {
  const store = useLogStore(backend);

  describe.each(PIPELINES)("$name", ({ worker }) => {
    test("durable() resolves once every decision recorded before it is stored; concurrent callers share commits", async () => {
      // A long batch timer: without durable() nothing would reach the store for a minute.
      const log = await store.open({ worker, onError: quiet, batching: { flushIntervalMs: 60_000, batchSize: 100_000 } });
      const records = Array.from({ length: 25 }, () => makeRecord());
      for (const r of records) log.record(r);
      expect((await store.storedIds()).size).toBe(0);
      await log.durable();
      const stored = await store.storedIds();
      for (const r of records) expect(stored.has(r.decisionId)).toBe(true);
      const more = Array.from({ length: 40 }, () => makeRecord());
      await Promise.all(
        more.map(async (r) => {
          log.record(r);
          await log.durable();
          expect((await store.storedIds()).has(r.decisionId)).toBe(true);
        }),
      );
      expect(log.health()).toEqual({ persisting: true });
      await log.close();
      expect(log.lost()).toBe(0);
      expect(log.stats().sinks[store.sink]).toEqual(expect.objectContaining({ written: 65, pending: 0, dropped: 0 }));
      await expect(log.durable()).rejects.toThrow(/log_not_durable/);
    });

    test("outcomes beside their decisions, once; every filter of `portcullis decisions` answers alike", async () => {
      const log = await store.open({ worker, onError: quiet });
      const allowed = makeRecord();
      const denied = makeRecord({ result: DENIED_RESULT, input: { ...makeRecord().input, actor: { id: "u_bob", tenant: "t_acme", roles: ["member"] } } });
      const served = makeRecord();
      const crashed = makeRecord(); // a decision whose request never finished
      for (const r of [allowed, denied, served, crashed]) log.record(r);
      log.recordOutcome(outcomeOf(allowed.decisionId));
      log.recordOutcome(outcomeOf(allowed.decisionId, { status: 200, problem: null })); // a second outcome for the id: ignored
      log.recordOutcome(outcomeOf(denied.decisionId, { actorId: "u_bob", status: 403, problem: "role_required", scopeFound: null }));
      log.recordOutcome(outcomeOf(served.decisionId, { status: 200, problem: null, scopeFound: true, testRun: "run-1" }));
      const orphan = outcomeOf("0190aaaa-0000-7000-8000-000000000001", {
        routeId: "health.get",
        path: "/health",
        status: 200,
        problem: null,
        scopeFound: null,
      });
      log.recordOutcome(orphan); // its event was dropped
      await log.close();
      expect(log.stats().sinks[store.sink]).toEqual(expect.objectContaining({ written: 8, duplicates: 1, dropped: 0 }));

      const ids = async (q: Parameters<OpenStore["query"]>[0]) => (await store.query(q)).map((e) => e.decision_id).sort();
      const [entry] = await store.query({ id: allowed.decisionId });
      expect(entry).toMatchObject({ allowed: true, status: 200, reason: "allowed", revision: "rev-42", path: "portcullis/decision", actor_id: "u_alice" });
      expect(entry.event).toMatchObject({ decision_id: allowed.decisionId, input: allowed.input, result: allowed.result });
      expect(entry.outcome).toEqual({
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/),
        method: "GET",
        http_path: "/invoices/inv_1",
        route_id: "invoices.get",
        version: "v2",
        actor_id: "u_alice",
        status: 404,
        problem: "not_found",
        scope_found: false,
        test_run: null,
        aborted: false,
      });
      expect((await store.query({ id: crashed.decisionId }))[0].outcome).toBeNull();
      expect(await store.query({ id: orphan.decisionId })).toEqual([expect.objectContaining({ event: null, allowed: null, actor_id: "u_alice" })]);
      expect(await ids({ denied: true })).toEqual([allowed.decisionId, denied.decisionId].sort());
      expect(await ids({ actor: "u_bob" })).toEqual([denied.decisionId]);
      expect(await ids({ testRun: "run-1" })).toEqual([served.decisionId]);
      expect(await ids({ excludeTestRuns: true })).toEqual([allowed.decisionId, denied.decisionId, crashed.decisionId, orphan.decisionId].sort());
      expect(await ids({ path: "health.get" })).toEqual([orphan.decisionId]);
      expect(await ids({ path: "/invoices/inv_1" })).toEqual([allowed.decisionId, denied.decisionId, served.decisionId].sort());
      expect(await ids({ path: "portcullis" })).toEqual([allowed.decisionId, denied.decisionId, served.decisionId, crashed.decisionId].sort());
      expect(await ids({ path: "portcullis%" })).toEqual([]); // LIKE characters are literal
      expect(await ids({ since: "2999-01-01T00:00:00.000000000Z" })).toEqual([]);
      // Newest first, the limit cutting across decisions and outcomes alone.
      const newest = await store.query({ limit: 2 });
      expect(newest).toHaveLength(2);
      const all = await store.query({});
      expect(all.map((e) => e.decision_id).slice(0, 2)).toEqual(newest.map((e) => e.decision_id));
      expect(all.map((e) => e.timestamp)).toEqual([...all.map((e) => e.timestamp)].sort().reverse());
      expect(all).toHaveLength(5);
    });

    test("the mask and drop policies apply before the store", async () => {
      const evaluate = await compileLogPolicy(MASK_POLICY);
      const log = await store.open({ worker, onError: quiet });
      const kept = makeRecord({ evaluate });
      const health = makeRecord({ evaluate, input: { ...makeRecord().input, route: { id: "health.get", method: "GET", version: "v2" } } });
      log.record(kept);
      log.record(health);
      await log.close();
      expect(log.stats()).toEqual(expect.objectContaining({ logged: 1, droppedByPolicy: 1 }));
      expect(await store.storedIds()).toEqual(new Set([kept.decisionId]));
      const [entry] = await store.query({ id: kept.decisionId });
      const input = entry.event!.input as Record<string, Record<string, unknown>>;
      expect(input.resource.id).toBeUndefined();
      expect(input.actor.tenant).toBe("t_masked");
      expect(entry.event!.erased).toEqual(expect.arrayContaining(["/input/resource/id", "/result/scope/owner_id"]));
    });

    test("a store that cannot be written: health says so, durable() refuses, the buffer keeps its bound, drops are counted, reported once, and it recovers", async () => {
      const errors: string[] = [];
      const log = await store.open({ worker, onError: (e) => void errors.push(e.code), batching: { bufferLimit: 200, batchSize: 50, flushIntervalMs: 20 } });
      const repair = await breakStore(store);
      for (let i = 0; i < 1000; i++) log.record(makeRecord());
      await expect(log.durable()).rejects.toThrow(/log_not_durable/);
      await until(() => !log.health().persisting);
      expect(log.health()).toEqual({ persisting: false, failingSince: expect.stringMatching(/^\d{4}-/), error: expect.any(String) });
      await log.flush();
      const failing = log.stats().sinks[store.sink];
      expect(failing.pending).toBeLessThanOrEqual(200);
      expect(failing.written + failing.pending + failing.dropped).toBe(1000);
      expect(failing.dropped).toBeGreaterThanOrEqual(800);
      expect(errors.filter((c) => c === `${store.sink}_write_failed`)).toHaveLength(1); // once, not at every retry
      await repair();
      await until(() => log.health().persisting);
      // The events still held are written; those dropped are lost, and durable() says a drop happened once.
      const kept = makeRecord();
      log.record(kept);
      await log.durable().catch(() => log.durable());
      expect((await store.storedIds()).has(kept.decisionId)).toBe(true);
      expect(errors).toEqual(expect.arrayContaining([`${store.sink}_write_failed`, `${store.sink}_write_recovered`]));
      await log.close();
      const after = log.stats().sinks[store.sink];
      expect(after.written + after.dropped).toBe(1001);
      expect(log.lost()).toBe(after.dropped);
      expect((await store.storedIds()).size).toBe(after.written);
    });
  });

  test("a clean close is recorded as one; the next start finds nothing interrupted", async () => {
    const first = await store.open({ instanceId: "run-1", onError: quiet });
    first.record(makeRecord());
    await first.close();
    const second: ManagedDecisionLog = await store.open({ instanceId: "run-2", onError: quiet });
    expect(second.interruptedRuns).toEqual([]);
    await second.close();
    expect((await store.runs()).map((r) => `${r.run_id}:${r.kind}`)).toEqual(["run-1:start", "run-1:clean_stop", "run-2:start", "run-2:clean_stop"]);
    expect((await store.runs())[1].detail).toEqual({ written: 1, lost: 0 });
  });
});

describe("only on SQLite", () => {
  const store = useLogStore(SQLITE_LOG);

  test("a row the store refuses for its contents is dropped, counted and reported; the rest of its batch and later events are stored", async () => {
    const errors: string[] = [];
    const log = await store.open({ onError: (e) => void errors.push(e.code) });
    const records = Array.from({ length: 10 }, () => makeRecord());
    // An input nested past SQLite's JSON depth limit (1000): the store's CHECK (json_valid(event)) refuses
    // the event, on every retry; before, its whole batch was retried until the buffer dropped events.
    let deep: unknown = "bottom";
    for (let i = 0; i < 1100; i++) deep = [deep];
    records[3] = makeRecord({ input: { ...makeRecord().input, params: deep as string[] } });
    for (const r of records) log.record(r);
    await expect(log.durable()).rejects.toThrow(/1 events were dropped/);
    const later = makeRecord();
    log.record(later);
    await log.durable();
    await log.close();
    expect(errors).toEqual(["sqlite_row_refused"]);
    expect(log.stats().sinks.sqlite).toEqual(expect.objectContaining({ written: 10, dropped: 1, pending: 0, failures: 0 }));
    const kept = [...records.filter((_, i) => i !== 3), later].map((r) => r.decisionId);
    expect(await store.storedIds()).toEqual(new Set(kept));
  });
});

describe("only on PostgreSQL", () => {
  const store = useLogStore(POSTGRES_LOG);

  test("a row the store refuses for its contents is dropped, counted and reported; the rest of its batch and later events are stored", async () => {
    const errors: string[] = [];
    const log = await store.open({ onError: (e) => void errors.push(e.code) });
    const records = Array.from({ length: 10 }, () => makeRecord());
    for (const r of records) log.record(r);
    // A status past PostgreSQL's integer: SQLite would take it, PostgreSQL refuses it (22003) forever.
    log.recordOutcome(outcomeOf(records[3].decisionId, { status: 2 ** 40 }));
    log.recordOutcome(outcomeOf(records[4].decisionId));
    await expect(log.durable()).rejects.toThrow(/1 events were dropped/);
    const later = makeRecord({ input: { ...makeRecord().input, actor: { id: "u_\u0000nul", tenant: "t_acme", roles: [] } } });
    log.record(later);
    await log.durable();
    await log.close();
    expect(errors).toEqual(["postgres_row_refused"]);
    expect(log.stats().sinks.postgres).toEqual(expect.objectContaining({ written: 12, dropped: 1, pending: 0 }));
    expect(await store.storedIds()).toEqual(new Set([...records, later].map((r) => r.decisionId)));
    expect((await store.query({ id: records[4].decisionId }))[0].outcome).toMatchObject({ status: 404 });
    // PostgreSQL text holds no U+0000: the column gets U+FFFD, the event's JSON keeps the escape.
    const [nul] = await store.query({ id: later.decisionId });
    expect(nul.actor_id).toBe("u_\uFFFDnul");
    expect((nul.event!.input as { actor: { id: string } }).actor.id).toBe("u_\u0000nul");
  });

  test("a table locked elsewhere: durable() rejects within its timeout instead of hanging, and the events are written once the lock goes", async () => {
    const log = await store.open({ commitTimeoutMs: 1000, onError: quiet });
    const holder = new pg.Client({ connectionString: store.urls!.owner });
    await holder.connect();
    await holder.query("BEGIN; LOCK TABLE decisions IN ACCESS EXCLUSIVE MODE");
    const r = makeRecord();
    log.record(r);
    await expect(log.durable()).rejects.toThrow(/log_not_durable/);
    await holder.query("ROLLBACK");
    await holder.end();
    await until(async () => (await store.storedIds()).has(r.decisionId));
    await log.close();
  });

  test("the log refuses a role that could rewrite the trail, and a database at another schema version", async () => {
    await expect(openDecisionLog({ postgres: { url: store.urls!.owner }, onError: quiet })).rejects.toThrow(
      /log_store_refused: the decision log must not connect as a role that may UPDATE/,
    );
    await ownerQuery(store.urls!.owner, "INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')");
    await expect(openDecisionLog({ postgres: { url: store.urls!.app }, onError: quiet })).rejects.toThrow(/log_store_refused: database schema version is 999/);
  });

  test("queries read through any connection of the service role", async () => {
    const log = await store.open({ onError: quiet });
    const r = makeRecord();
    log.record(r);
    await log.close();
    const client = new pg.Client({ connectionString: store.urls!.app });
    await client.connect();
    try {
      expect((await queryDecisionsPg(client, { id: r.decisionId })).map((e) => e.decision_id)).toEqual([r.decisionId]);
    } finally {
      await client.end();
    }
  });
});
