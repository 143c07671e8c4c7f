/**
 * Shared fixtures for the decision-log tests: the two pipelines every
 * contract suite runs on, decision records shaped like the PDP's, temp
 * directories, and real mask/drop policies compiled with the project's
 * compiler: loaded through @open-policy-agent/opa-wasm and wrapped the way
 * the PDP wraps its bundle (result value, undefined when empty), or as a
 * bundle the PDP's own engine loaded (logBundle), which the worker loads
 * too.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "@portcullis/rego-wasm";
import { Engine } from "../../../pdp/engine";
import type { DecisionRecord, PolicyEvaluator } from "../../../pdp/types";
import { bundleOf } from "../fixtures";

/**
 * The decision log's two pipelines (pdp/log/README.md, "Where it runs"):
 * one contract, two implementations, so the suites run on both.
 *
 *   describe.each(PIPELINES)("$name", ({ worker }) => { ... createDecisionLog({ db, worker }) ... });
 */
export const PIPELINES = [
  { name: "in a worker", worker: true },
  { name: "in-thread", worker: false },
] as const;

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-log-"));
}

export function makeRecord(overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    decisionId: randomUUID(),
    path: "portcullis/decision",
    input: {
      actor: { id: "u_alice", tenant: "t_acme", roles: ["member"] },
      action: "read",
      resource: { type: "invoice", id: "inv_1" },
      route: { id: "invoices.get", method: "GET", version: "v2" },
      params: ["q", "sort"],
    },
    result: { allow: true, status: 200, reason: "allowed", scope: { tenant_id: "t_acme", owner_id: "u_alice" }, fields: { read: ["id"], write: [] } },
    revision: "rev-42",
    context: { requestedBy: "127.0.0.1:50000", reqId: 7 },
    evalNs: 12345,
    evaluate: null,
    ...overrides,
  };
}

export const DENIED_RESULT = { allow: false, status: 403, reason: "role_required", scope: {}, fields: { read: [], write: [] } };

/** Compiles Rego into a Wasm policy exposing system/log/mask and system/log/drop, as the PDP would see it. */
export async function compileLogPolicy(source: string | Array<{ file: string; source: string }>): Promise<PolicyEvaluator> {
  const files = typeof source === "string" ? [{ file: "log.rego", source }] : source;
  const { wasm } = compile(files, { entrypoints: ["system/log/mask", "system/log/drop"] });
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return (entrypoint, input) => {
    const resultSet = policy.evaluate(input, entrypoint) as Array<{ result: unknown }>;
    return resultSet.length > 0 ? resultSet[0].result : undefined;
  };
}

/**
 * The mask and drop policies as a bundle loaded by the PDP's engine: a
 * record carrying them (`makeRecord({ ...await logBundle(rego) })`) is
 * masked where the pipeline masks the PDP's decisions: in the worker, on
 * its own load of the same bytes, or on the recording thread.
 */
export async function logBundle(source: string | Array<{ file: string; source: string }>): Promise<Pick<DecisionRecord, "evaluate" | "bundle">> {
  const sources = typeof source === "string" ? [source] : source.map((s) => s.source);
  const engine = await Engine.load(bundleOf({ rego: sources, entrypoints: ["system/log/mask", "system/log/drop"] }), "log policy bundle");
  return { evaluate: engine.evaluator, bundle: engine.ref };
}

/** Erases and rewrites parts of the event; drops health checks. */
export const MASK_POLICY = `package system.log

# erase a field
mask contains "/input/resource/id"

# erase an array element by index
mask contains "/input/params/0"

# a pointer to something absent is ignored (and not listed)
mask contains "/input/no/such/field"

# rewrite a field
mask contains {"op": "upsert", "path": "/input/actor/tenant", "value": "t_masked"} if {
	input.input.actor.tenant
}

# an upsert on an absent path adds it
mask contains {"op": "upsert", "path": "/input/audit/note", "value": "masked by policy"}

# the result can be masked too
mask contains {"op": "remove", "path": "/result/scope/owner_id"}

drop if input.input.route.id == "health.get"
`;
