/**
 * Masking and dropping by REAL compiled policies (system/log/mask and
 * system/log/drop built with the project's compiler into a bundle the PDP's
 * engine loaded), through the decision log into a real SQLite file: erase +
 * upsert with the pointers listed, drop counted, fail-safe erasure when the
 * mask policy fails, and the credential-name redaction that applies with or
 * without a policy. On both pipelines: in the worker, the policies run on
 * the worker's own load of the bundle.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createDecisionLog, type DecisionLogError } from "../../../pdp/log";
import { openForRead } from "../../../pdp/log/store/sqlite-store";
import { queryDecisions } from "../../../pdp/log/store/query";
import type { DecisionRecord } from "../../../pdp/types";
import { logBundle, makeRecord, MASK_POLICY, PIPELINES, tempDir } from "./fixtures";

describe.each(PIPELINES)("$name", ({ worker }) => {
  async function logAll(records: DecisionRecord[]) {
    const file = path.join(tempDir(), "decisions.db");
    const errors: DecisionLogError[] = [];
    const log = createDecisionLog({ db: file, worker, onError: (e) => errors.push(e) });
    for (const r of records) log.record(r);
    await log.close();
    const db = openForRead(file);
    const entries = queryDecisions(db, { limit: 1000 });
    db.close();
    return { entries, stats: log.stats(), errors, byId: new Map(entries.map((e) => [e.decision_id, e.event])) };
  }

  test("a compiled mask policy erases and upserts, and lists the pointers it changed", async () => {
    const policy = await logBundle(MASK_POLICY);
    const record = makeRecord({ ...policy });
    const { byId, stats } = await logAll([record]);
    const event = byId.get(record.decisionId)!;

    expect(event.input).toEqual({
      actor: { id: "u_alice", tenant: "t_masked", roles: ["member"] },
      action: "read",
      resource: { type: "invoice" },
      route: { id: "invoices.get", method: "GET", version: "v2" },
      params: ["sort"],
      audit: { note: "masked by policy" },
    });
    expect(event.result).toEqual(expect.objectContaining({ scope: { tenant_id: "t_acme" } }));
    expect([...event.erased!].sort()).toEqual(["/input/params/0", "/input/resource/id", "/result/scope/owner_id"]);
    expect([...event.masked!].sort()).toEqual(["/input/actor/tenant", "/input/audit/note"]);
    expect(stats.failSafe).toBe(0);
    // The PDP's own input object is untouched: the log masks a copy.
    expect((record.input.resource as { id?: string }).id).toBe("inv_1");
  });

  test("the drop policy drops matching events, counts them, and logs the rest", async () => {
    const policy = await logBundle(MASK_POLICY);
    const health = makeRecord({ ...policy, input: { ...makeRecord().input, route: { id: "health.get", method: "GET", version: "v2" } } });
    const kept = makeRecord({ ...policy });
    const { byId, stats } = await logAll([health, kept]);
    expect([...byId.keys()]).toEqual([kept.decisionId]);
    expect(stats).toEqual(expect.objectContaining({ recorded: 2, logged: 1, droppedByPolicy: 1 }));
  });

  test("a mask policy that fails to evaluate logs the event with its input fully erased", async () => {
    // Two values for one complete rule: evaluation aborts with eval_conflict_error.
    const policy = await logBundle(`package system.log

mask := ["/input/action"] if input.input.action == "read"

mask := ["/input/route"] if input.input.resource.type == "invoice"
`);
    const record = makeRecord({ ...policy });
    const { byId, stats, errors } = await logAll([record]);
    const event = byId.get(record.decisionId)!;
    expect(event.input).toBeUndefined();
    expect(event.erased).toEqual(["/input"]);
    expect(event.result).toEqual(record.result); // the decision itself stays on the record
    expect(event.custom).toEqual({ log_error: expect.objectContaining({ code: "mask_eval_error" }) });
    expect(stats.failSafe).toBe(1);
    expect(errors.map((e) => e.code)).toEqual(["mask_eval_error"]);
  });

  test("a mask rule outside /input, /result, /nd_builtin_cache is refused and fails safe", async () => {
    const policy = await logBundle(`package system.log

mask contains "/labels/id"
`);
    const record = makeRecord({ ...policy });
    const { byId, errors } = await logAll([record]);
    expect(byId.get(record.decisionId)!.input).toBeUndefined();
    expect(byId.get(record.decisionId)!.labels.id).toBeDefined();
    expect(errors.map((e) => e.code)).toEqual(["mask_invalid_rule"]);
  });

  test("a drop policy that fails does not lose the event: logged, input erased, counted", async () => {
    const policy = await logBundle(`package system.log

drop := true if input.input.action == "read"

drop := false if input.input.resource.type == "invoice"
`);
    const record = makeRecord({ ...policy });
    const { byId, stats, errors } = await logAll([record]);
    expect(byId.get(record.decisionId)!.input).toBeUndefined();
    expect(stats).toEqual(expect.objectContaining({ logged: 1, droppedByPolicy: 0, failSafe: 1 }));
    expect(errors.map((e) => e.code)).toEqual(["drop_eval_error"]);
  });

  test("without an evaluator, fields named like credentials are still never written", async () => {
    const input = {
      ...makeRecord().input,
      headers: { Authorization: "Bearer abc.def", "x-api-key": "k-123", accept: "json" },
      body: { password: "hunter2", items: [{ clientSecret: "s3", name: "ok" }], refresh_token: "rt" },
    };
    const record = makeRecord({ input: input as DecisionRecord["input"] });
    const { byId, entries } = await logAll([record]);
    const event = byId.get(record.decisionId)!;
    const text = JSON.stringify(entries[0].event);
    for (const secret of ["abc.def", "k-123", "hunter2", "s3", '"rt"']) expect(text).not.toContain(secret);
    expect((event.input as { headers: unknown }).headers).toEqual({ accept: "json" });
    expect((event.input as { body: unknown }).body).toEqual({ items: [{ name: "ok" }] });
    expect([...event.erased!].sort()).toEqual([
      "/input/body/items/0/clientSecret",
      "/input/body/password",
      "/input/body/refresh_token",
      "/input/headers/Authorization",
      "/input/headers/x-api-key",
    ]);
  });

  test("pointers mean what they meant in the event the policy saw: two array indexes erase those two elements", async () => {
    const policy = await logBundle(`package system.log

mask contains "/input/params/0"

mask contains "/input/params/1"

mask contains {"op": "upsert", "path": "/input/params/2", "value": "[REDACTED]"}
`);
    const record = makeRecord({ ...policy, input: { ...makeRecord().input, params: ["a", "b", "c", "d"] } });
    const { byId } = await logAll([record]);
    const event = byId.get(record.decisionId)!;
    expect((event.input as { params: string[] }).params).toEqual(["[REDACTED]", "d"]);
    expect([...event.erased!].sort()).toEqual(["/input/params/0", "/input/params/1"]);
    expect(event.masked).toEqual(["/input/params/2"]);
  });

  test("the project's own rego/system/log policies: secrets masked, anonymous health checks dropped", async () => {
    const dir = path.join(__dirname, "../../../rego/system/log");
    const policy = await logBundle(["mask.rego", "drop.rego"].map((file) => ({ file, source: fs.readFileSync(path.join(dir, file), "utf8") })));
    const anonymous = { id: "anonymous", tenant: null, roles: [] };
    const health = makeRecord({
      ...policy,
      input: { actor: anonymous as never, action: "read", resource: { type: "health" }, route: { id: "health.get", method: "GET", version: "v1" } },
      result: { allow: true, status: 200, reason: "allowed", scope: {}, fields: { read: ["status"], write: [] } },
    });
    const leaky = makeRecord({
      ...policy,
      input: { ...makeRecord().input, fields: { submitted: ["displayName", "password"] }, note: "Bearer abc.def.ghi", accessToken: "t-1" } as never,
    });
    const { byId, stats } = await logAll([health, leaky]);
    expect(stats.droppedByPolicy).toBe(1);
    expect([...byId.keys()]).toEqual([leaky.decisionId]);
    const event = byId.get(leaky.decisionId)!;
    const input = event.input as Record<string, unknown>;
    expect(input.accessToken).toBeUndefined();
    expect(input.note).toBe("[REDACTED]");
    expect(input.fields).toEqual({ submitted: ["displayName", "[REDACTED]"] });
    expect(input.actor).toEqual(makeRecord().input.actor);
    expect(event.erased).toEqual(["/input/accessToken"]);
    expect([...event.masked!].sort()).toEqual(["/input/fields/submitted/1", "/input/note"]);
  });

  test("an input JSON cannot carry is not lost: the decision is logged without it, counted and reported", async () => {
    const input = { ...makeRecord().input } as Record<string, unknown>;
    input.self = input; // a cycle
    const record = makeRecord({ input: input as never });
    const { byId, stats, errors } = await logAll([record]);
    const event = byId.get(record.decisionId)!;
    expect(event.input).toBeUndefined();
    expect(event.result).toBeUndefined();
    expect(event.erased).toEqual(["/input", "/result"]);
    expect(event.bundles).toEqual({ portcullis: { revision: "rev-42" } });
    expect(stats).toEqual(expect.objectContaining({ recorded: 1, logged: 1, failSafe: 1, internalErrors: 0 }));
    expect(errors.map((e) => e.code)).toEqual(["event_build_error"]);
  });
});
