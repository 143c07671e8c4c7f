/**
 * The decision log behind the real PDP: decide() on a real bundle (decision,
 * mask and drop policies compiled by the project's compiler) hands its
 * records to createDecisionLog, which masks and drops them with the bundle
 * that decided and writes them to SQLite. Also the PDP's own denial (no
 * bundle active) on the record with its error. On both pipelines: in the
 * worker, the policies run on the worker's own load of the bundle.
 */
import * as path from "node:path";
import { decide } from "../../../pdp/decide";
import { Engine } from "../../../pdp/engine";
import { createDecisionLog } from "../../../pdp/log";
import { queryDecisions } from "../../../pdp/log/store/query";
import { openForRead } from "../../../pdp/log/store/sqlite-store";
import { bundleOf, capturingLogger, member } from "../fixtures";
import { PIPELINES, tempDir } from "./fixtures";

describe.each(PIPELINES)("$name", ({ worker }) => {
  test("decisions made by decide() are logged once each, masked and dropped by the deciding bundle", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker });
    const engine = await Engine.load(bundleOf({ revision: "r-77" }), "test bundle");
    const deps = { entrypoint: "portcullis/decision", log, logger: capturingLogger() };

    const allowed = decide(engine, deps, member(), { requestedBy: "10.1.2.3:4444", reqId: 1 });
    const denied = decide(engine, deps, member({ actor: { id: "u_bob", tenant: "t_acme", roles: [] } }), { reqId: 2 });
    decide(engine, deps, member({ route: { id: "health.get", method: "GET", version: "v1" } }), { reqId: 3 });
    const unavailable = decide(null, deps, member(), { reqId: 4 });
    await log.close();

    expect(log.stats()).toEqual(expect.objectContaining({ recorded: 4, logged: 3, droppedByPolicy: 1, failSafe: 0 }));
    const db = openForRead(file);
    const entries = queryDecisions(db, {});
    db.close();
    expect(entries.map((e) => e.decision_id).sort()).toEqual([allowed.decisionId, denied.decisionId, unavailable.decisionId].sort());

    const byId = new Map(entries.map((e) => [e.decision_id, e]));
    const first = byId.get(allowed.decisionId)!;
    expect(first).toEqual(expect.objectContaining({ allowed: true, status: 200, reason: "member", revision: "r-77", path: "portcullis/decision" }));
    // The bundle's mask policy erased the actor id: the indexed column follows the masked event.
    expect(first.actor_id).toBeNull();
    expect(first.event!.erased).toEqual(["/input/actor/id"]);
    expect(first.event).toEqual(expect.objectContaining({ requested_by: "10.1.2.3:4444", req_id: 1, bundles: { portcullis: { revision: "r-77" } } }));
    expect(first.event!.metrics!.timer_rego_query_eval_ns).toBeGreaterThan(0);

    expect(byId.get(denied.decisionId)).toEqual(expect.objectContaining({ allowed: false, status: 403, reason: "role_required" }));
    const pdpDenial = byId.get(unavailable.decisionId)!;
    expect(pdpDenial).toEqual(expect.objectContaining({ allowed: false, reason: "policy_unavailable", revision: null }));
    expect(pdpDenial.event!.error).toEqual({ code: "policy_unavailable", message: "no policy bundle is active" });
    expect(pdpDenial.event!.input).toEqual(member()); // no bundle, no mask policy: logged as is (no credential-named fields)
  });
});
