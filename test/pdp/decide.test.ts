/**
 * decide() against real compiled bundles loaded from real files: allows,
 * denies, the record handed to the decision log, the revision, and a 503
 * deny for every way the PDP can fail.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readBundle, writeBundle } from "@portcullis/rego-wasm";
import { createPdp, type Pdp } from "../../pdp";
import { bundleOf, capturingLogger, member, RecordingLog, tempDir } from "./fixtures";

/** Valid for the smoke input (an anonymous read), broken for chosen actions. */
const FAULTY_REGO = `package portcullis

decision := {"allow": false, "status": 403, "reason": "denied", "scope": {}, "fields": {"read": [], "write": []}} if input.action == "read"

decision := {"allow": true, "status": 200, "reason": "unscoped", "scope": {}, "fields": {"read": [], "write": []}} if input.action == "unscoped"

decision := {"allow": "yes"} if input.action == "shape"

decision := {"allow": false, "status": 403, "reason": "a", "scope": {}, "fields": {"read": [], "write": []}} if input.action == "boom"

decision := {"allow": false, "status": 403, "reason": "b", "scope": {}, "fields": {"read": [], "write": []}} if input.action == "boom"
`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let dir: string;
let pdp: Pdp | undefined;
beforeEach(() => {
  dir = tempDir();
});
afterEach(async () => {
  await pdp?.close();
  pdp = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function pdpWith(bytes: Uint8Array | null, log = new RecordingLog(), logger = capturingLogger()) {
  const file = path.join(dir, "bundle.tar.gz");
  if (bytes) fs.writeFileSync(file, bytes);
  pdp = await createPdp({ bundle: { file }, log, logger });
  return { pdp, log, logger, file };
}

describe("decide", () => {
  test("an allow carries the policy's scope and fields, the bundle revision and a fresh decision id", async () => {
    const { pdp, log } = await pdpWith(bundleOf({ revision: "2026-11-21.1" }));
    const d = pdp.decide(member(), { requestedBy: "127.0.0.1:5000", reqId: 3 });
    expect(d).toEqual({
      allow: true,
      status: 200,
      reason: "member",
      scope: { tenant_id: "t_acme" },
      fields: { read: ["id", "amount_cents"], write: [] },
      decisionId: expect.stringMatching(UUID),
      revision: "2026-11-21.1",
    });
    expect(pdp.decide(member()).decisionId).not.toBe(d.decisionId);
    expect(log.records).toHaveLength(2);
  });

  test("a caller's own decision id (the API's request id) is the decision's and the log's", async () => {
    const { pdp, log } = await pdpWith(bundleOf());
    const d = pdp.decide(member(), { decisionId: "01a1feea-0041-77a6-9b97-f7c9d35afd51" });
    expect(d.decisionId).toBe("01a1feea-0041-77a6-9b97-f7c9d35afd51");
    expect(log.records[0].decisionId).toBe("01a1feea-0041-77a6-9b97-f7c9d35afd51");
    expect(pdp.decide(member(), { decisionId: "" }).decisionId).toMatch(UUID);
  });

  test("a deny from the policy is the policy's status and reason", async () => {
    const { pdp } = await pdpWith(bundleOf());
    const d = pdp.decide(member({ actor: { id: "u_bob", tenant: "t_acme", roles: ["guest"] } }));
    expect(d).toMatchObject({ allow: false, status: 403, reason: "role_required", scope: {}, revision: "r1" });
  });

  test("every decision is recorded once, with the evaluator of the bundle that decided", async () => {
    const { pdp, log } = await pdpWith(bundleOf({ revision: "r7" }));
    const input = member();
    const d = pdp.decide(input, { requestedBy: "10.0.0.1:443", reqId: 9 });
    expect(log.records).toHaveLength(1);
    const r = log.records[0];
    expect(r).toMatchObject({
      decisionId: d.decisionId,
      path: "portcullis/decision",
      input,
      revision: "r7",
      context: { requestedBy: "10.0.0.1:443", reqId: 9 },
    });
    expect(r.result).toMatchObject({ allow: true, scope: { tenant_id: "t_acme" } });
    expect(r.error).toBeUndefined();
    expect(r.evalNs).toBeGreaterThan(0);
    const event = { decision_id: d.decisionId, input, result: r.result };
    expect(r.evaluate!("system/log/mask", event)).toEqual(["/input/actor/id"]);
    expect(r.evaluate!("system/log/drop", event)).toBeUndefined();
    expect(r.evaluate!("system/log/drop", { input: { route: { id: "health.get" } } })).toBe(true);
    expect(r.evaluate!("no/such/entrypoint", event)).toBeUndefined();
  });

  test("a data.pkg.rule entrypoint name works as well as pkg/rule", async () => {
    const file = path.join(dir, "b.tar.gz");
    fs.writeFileSync(file, bundleOf());
    pdp = await createPdp({ bundle: { file }, log: new RecordingLog(), logger: capturingLogger(), entrypoint: "data.portcullis.decision" });
    expect(pdp.decide(member()).allow).toBe(true);
  });
});

describe("fail closed: a 503 deny with a stable reason, recorded and logged", () => {
  const DENY_503 = { allow: false, status: 503, scope: {}, fields: { read: [], write: [] } };

  test("no bundle at all: policy_unavailable", async () => {
    const { pdp, log, logger } = await pdpWith(null);
    const d = pdp.decide(member());
    expect(d).toMatchObject({ ...DENY_503, reason: "policy_unavailable", revision: "" });
    expect(log.records).toHaveLength(1);
    expect(log.records[0]).toMatchObject({ decisionId: d.decisionId, revision: "", evaluate: null, evalNs: 0, error: { code: "policy_unavailable" } });
    expect(pdp.status()).toMatchObject({ active: null, lastError: { code: "bundle_unavailable" }, reloads: 0, failures: 1 });
    expect(logger.entries.map((e) => [e.event, e.code])).toEqual([
      ["pdp.bundle_load_failed", "bundle_unavailable"],
      ["pdp.decision_failed", "policy_unavailable"],
    ]);
  });

  test.each([
    ["not gzip", Buffer.from("definitely not a bundle"), "bundle_invalid"],
    ["truncated", bundleOf().subarray(0, 200), "bundle_invalid"],
    ["missing entrypoint", bundleOf({ entrypoints: ["system/log/mask"] }), "entrypoint_missing"],
  ])("corrupt bundle (%s): policy_unavailable, the load error in status()", async (_name, bytes, code) => {
    const { pdp, log } = await pdpWith(bytes);
    expect(pdp.decide(member())).toMatchObject({ ...DENY_503, reason: "policy_unavailable" });
    expect(log.records[0].error?.code).toBe("policy_unavailable");
    expect(pdp.status()).toMatchObject({ active: null, lastError: { code }, failures: 1 });
  });

  test("a wasm that is not a module: bundle_invalid", async () => {
    const good = bundleOf();
    const b = readBundle(good);
    const bad = writeBundle({ wasm: Uint8Array.from([0, 0x61, 0x73, 0x6d, 9, 9]), data: b.data, manifest: b.manifest, sources: [] });
    const { pdp } = await pdpWith(bad);
    expect(pdp.status().lastError).toMatchObject({ code: "bundle_invalid", message: expect.stringContaining("policy.wasm does not load") });
    expect(pdp.decide(member()).reason).toBe("policy_unavailable");
  });

  const faulty = () => bundleOf({ rego: [FAULTY_REGO], entrypoints: ["portcullis/decision"], revision: "faulty-1" });

  test.each([
    ["undefined result", "nothing", "invalid_decision", "undefined"],
    ["wrong shape", "shape", "invalid_decision", "allow must be a boolean"],
    ["allow without a tenant scope for a tenant-bound actor", "unscoped", "invalid_decision", "scope.tenant_id"],
    ["evaluation error (conflicting values abort)", "boom", "policy_error", "evaluating portcullis/decision"],
  ])("%s: %s", async (_name, action, reason, message) => {
    const { pdp, log, logger } = await pdpWith(faulty());
    expect(pdp.status().active?.revision).toBe("faulty-1");
    const d = pdp.decide(member({ action }));
    expect(d).toMatchObject({ ...DENY_503, reason, revision: "faulty-1" });
    expect(log.records).toHaveLength(1);
    expect(log.records[0].error).toEqual({ code: reason, message: expect.stringContaining(message) });
    expect(log.records[0].revision).toBe("faulty-1");
    expect(logger.entries.at(-1)).toMatchObject({ level: "error", event: "pdp.decision_failed", code: reason, decision_id: d.decisionId });
    // The engine is still sound afterwards: the next decision is the policy's.
    expect(pdp.decide(member({ action: "read" }))).toMatchObject({ allow: false, status: 403, reason: "denied" });
  });

  test("the raw invalid result is on the record for the audit", async () => {
    const { pdp, log } = await pdpWith(faulty());
    pdp.decide(member({ action: "shape" }));
    expect(log.records[0].result).toEqual({ allow: "yes" });
  });

  test("an input that cannot be serialised: policy_error, decide does not throw", async () => {
    const { pdp } = await pdpWith(bundleOf());
    const input = member() as unknown as Record<string, unknown>;
    input.self = input;
    expect(pdp.decide(input as never)).toMatchObject({ ...DENY_503, reason: "policy_error" });
  });

  test("a decision log that throws does not change the decision or escape decide", async () => {
    const log = new RecordingLog();
    log.record = () => {
      throw new Error("disk full");
    };
    const { pdp, logger } = await pdpWith(bundleOf(), log);
    expect(pdp.decide(member())).toMatchObject({ allow: true, status: 200 });
    expect(logger.entries.at(-1)).toMatchObject({ event: "pdp.decision_log_failed", message: "disk full" });
  });
});

describe("configuration", () => {
  test.each<[string, unknown]>([
    ["neither file nor url", { bundle: {} }],
    ["both file and url", { bundle: { file: "b.tar.gz", url: "http://127.0.0.1/b" } }],
    ["a non-http url", { bundle: { url: "file:///etc/passwd" } }],
    ["a negative poll interval", { bundle: { file: "b.tar.gz", pollIntervalMs: -1 } }],
    ["max delay below min delay", { bundle: { url: "http://127.0.0.1/b", minDelayMs: 10, maxDelayMs: 5 } }],
    ["no decision log", { bundle: { file: "b.tar.gz" }, log: undefined }],
    ["an empty entrypoint", { bundle: { file: "b.tar.gz" }, entrypoint: "data." }],
  ])("%s is refused at start-up with config_invalid", async (_name, options) => {
    const opts = { log: new RecordingLog(), logger: capturingLogger(), ...(options as object) };
    await expect(createPdp(opts as never)).rejects.toMatchObject({ name: "PdpError", code: "config_invalid" });
  });
});

describe("close", () => {
  test("flushes the decision log once, and is idempotent", async () => {
    const { pdp, log } = await pdpWith(bundleOf());
    await pdp.close();
    await pdp.close();
    expect(log.flushes).toBe(1);
  });
});
