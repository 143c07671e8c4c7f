/**
 * Large policies and large data (issue 21, item 2): a thousand-rule policy
 * whose static data is past the SDK's default 5 memory pages, with several
 * megabytes of data.json, built by `rego build`, loaded in the PDP and
 * deciding; `rego eval` and `rego test` load it too; a configured memory
 * limit that is too small is a `memory_limit_exceeded` refusal naming the
 * needed and allowed sizes. Everything is generated here, nothing big is
 * committed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { importedMemoryPages, readBundle } from "@portcullis/rego-wasm";
import { main } from "../../cli";
import { createPdp, type Pdp } from "../../pdp";
import { capturingLogger, member, RecordingLog, tempDir } from "./fixtures";

const RULES = 1000;
const MODULES = 20;
const USERS = 25_000;

/** Module m holds rules m*50 .. m*50+49: each grants one resource id and carries a distinct 400-character note (static data). */
function ruleModule(m: number): string {
  const per = RULES / MODULES;
  const rules: string[] = [];
  for (let i = m * per; i < (m + 1) * per; i++) {
    rules.push(`grant contains ${JSON.stringify(`note_${i}_${"n".repeat(400)}`)} if {\n\tinput.resource.id == "res_${i}"\n}\n`);
  }
  return `package portcullis.grants\n\n${rules.join("\n")}`;
}

const DECISION = `package portcullis

import data.portcullis.grants

user := data.directory.users[input.actor.id]

default decision := {"allow": false, "status": 403, "reason": "no_grant", "scope": {}, "fields": {"read": [], "write": []}}

decision := {"allow": true, "status": 200, "reason": "granted", "scope": {"tenant_id": user.tenant}, "fields": {"read": ["id"], "write": []}} if {
	count(grants.grant) == 1
	user.active
}
`;

const TESTS = `package portcullis_test

import data.portcullis

test_granted if {
	portcullis.decision.allow with input as {"actor": {"id": "u_24999"}, "resource": {"id": "res_999"}}
}
`;

/** Several MB of directory data: USERS users, each with an attribute blob. */
function directory(): unknown {
  const users: Record<string, unknown> = {};
  for (let i = 0; i < USERS; i++) {
    users[`u_${i}`] = { tenant: `t_${i % 97}`, active: i % 2 === 1, attributes: { department: `dept_${i % 31}`, badge: `b${"0".repeat(120)}${i}` } };
  }
  return { users };
}

let dir: string;
let bundlePath: string;
let pdp: Pdp | undefined;
let out: string[] = [];

beforeAll(async () => {
  dir = tempDir();
  const policy = path.join(dir, "policy");
  fs.mkdirSync(path.join(policy, "directory"), { recursive: true });
  for (let m = 0; m < MODULES; m++) fs.writeFileSync(path.join(policy, `grants_${m}.rego`), ruleModule(m));
  fs.writeFileSync(path.join(policy, "decision.rego"), DECISION);
  fs.writeFileSync(path.join(policy, "decision_test.rego"), TESTS);
  fs.writeFileSync(path.join(policy, "directory", "data.json"), JSON.stringify(directory()));
  bundlePath = path.join(dir, "bundle.tar.gz");
  jest.spyOn(console, "log").mockImplementation((...args: unknown[]) => void out.push(args.join(" ")));
  const code = await main(["rego", "build", "-e", "portcullis/decision", "-o", bundlePath, "--revision", "big", policy]);
  jest.restoreAllMocks();
  expect(code).toBe(0);
}, 300_000);

afterEach(async () => {
  await pdp?.close();
  pdp = undefined;
  jest.restoreAllMocks();
  out = [];
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the bundle is large: static data past the SDK's 5 pages, several MB of data", () => {
  const bundle = readBundle(fs.readFileSync(bundlePath));
  expect(importedMemoryPages(bundle.wasm)).toBeGreaterThan(5);
  expect(JSON.stringify(bundle.data).length).toBeGreaterThan(4 * 1024 * 1024);
});

test("the PDP loads it and decides from the rules and the data", async () => {
  const log = new RecordingLog();
  pdp = await createPdp({ bundle: { file: bundlePath }, log, logger: capturingLogger() });
  expect(pdp.status().lastError).toBeNull();
  expect(pdp.status().active?.revision).toBe("big");
  const granted = pdp.decide(member({ actor: { id: "u_24999", tenant: "t_74", roles: [] }, resource: { type: "doc", id: "res_999" } }));
  expect(granted).toMatchObject({ allow: true, status: 200, reason: "granted", scope: { tenant_id: `t_${24999 % 97}` } });
  // An inactive user, a resource no rule grants, a user the data lacks: all denied.
  expect(pdp.decide(member({ actor: { id: "u_24998", tenant: "t_73", roles: [] }, resource: { type: "doc", id: "res_999" } }))).toMatchObject({
    allow: false,
    reason: "no_grant",
  });
  expect(pdp.decide(member({ actor: { id: "u_24999", tenant: "t_74", roles: [] }, resource: { type: "doc", id: "res_1000" } }))).toMatchObject({
    allow: false,
    reason: "no_grant",
  });
  expect(pdp.decide(member({ actor: { id: "u_nobody", tenant: "t_74", roles: [] }, resource: { type: "doc", id: "res_0" } }))).toMatchObject({
    allow: false,
    reason: "no_grant",
  });
}, 120_000);

test("a memory limit below what the data needs refuses the bundle with memory_limit_exceeded, both sizes named", async () => {
  const logger = capturingLogger();
  const modulePages = importedMemoryPages(readBundle(fs.readFileSync(bundlePath)).wasm);
  pdp = await createPdp({ bundle: { file: bundlePath }, log: new RecordingLog(), logger, maxMemoryPages: modulePages + 2 });
  const error = pdp.status().lastError;
  expect(error?.code).toBe("memory_limit_exceeded");
  expect(error?.message).toMatch(new RegExp(`policy.wasm with the bundle's data needs \\d+ pages \\([\\d.]+ MiB\\); the limit is ${modulePages + 2} pages`));
  const needed = Number(/data needs (\d+) pages/.exec(error!.message)![1]);
  expect(needed).toBeGreaterThan(modulePages + 2);
  expect(pdp.decide(member()).allow).toBe(false);
  expect(logger.entries.some((e) => e.event === "pdp.bundle_load_failed" && e.code === "memory_limit_exceeded")).toBe(true);
}, 120_000);

test("a memory limit below the module's own static data is refused the same way", async () => {
  const modulePages = importedMemoryPages(readBundle(fs.readFileSync(bundlePath)).wasm);
  pdp = await createPdp({ bundle: { file: bundlePath }, log: new RecordingLog(), logger: capturingLogger(), maxMemoryPages: 5 });
  expect(pdp.status().lastError).toMatchObject({
    code: "memory_limit_exceeded",
    message: expect.stringContaining(`policy.wasm's static data needs ${modulePages} pages`),
  });
});

test("a limit outside 1..16384 pages is a configuration error", async () => {
  await expect(createPdp({ bundle: { file: bundlePath }, log: new RecordingLog(), maxMemoryPages: 16385 })).rejects.toMatchObject({ code: "config_invalid" });
  await expect(createPdp({ bundle: { file: bundlePath }, log: new RecordingLog(), maxMemoryPages: 0.5 })).rejects.toMatchObject({ code: "config_invalid" });
});

test("rego eval and rego test load it too", async () => {
  jest.spyOn(console, "log").mockImplementation((...args: unknown[]) => void out.push(args.join(" ")));
  const input = path.join(dir, "input.json");
  fs.writeFileSync(input, JSON.stringify({ actor: { id: "u_1" }, resource: { id: "res_500" } }));
  expect(await main(["rego", "eval", "-b", bundlePath, "-i", input, "portcullis/decision"])).toBe(0);
  expect(JSON.parse(out.join("\n"))).toMatchObject([{ result: { allow: true, scope: { tenant_id: "t_1" } } }]);
  out = [];
  expect(await main(["rego", "test", path.join(dir, "policy")])).toBe(0);
  expect(out.at(-1)).toBe("1 passed, 0 failed");
}, 300_000);
