/**
 * `decisions --id ID --explain --bundle FILE`: the rule that decided, by
 * name and file:line, for decisions the real app made (test/api/harness.ts:
 * the project's compiled policy, SQLite decision log): an allow and each
 * kind of deny, found by reading decision.rego itself (not hard-coded
 * lines). A refusal made before the policy says no rule decided; a bundle
 * of another revision is refused.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import request from "supertest";
import { runCli } from "../inventory/cli-helper";
import { policyBundle, startHarness, type Harness } from "../api/harness";

let h: Harness;
const ids: Record<string, string> = {};
const source = fs.readFileSync(path.join(__dirname, "../../rego/portcullis/decision.rego"), "utf8").split("\n");
/** The 1-based row of the first line matching. */
const rowOf = (test: (line: string, i: number) => boolean) => source.findIndex(test) + 1;

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const run = await runCli(argv);
  return { code: run.code, out: run.stdout.replace(/\n$/, ""), err: run.stderr.replace(/\n$/, "") };
}

const explain = (id: string) =>
  cli("decisions", "--db", path.join(h.dir, "decisions.db"), "--id", id, "--explain", "--bundle", path.join(h.dir, "bundle.tar.gz"));

beforeAll(async () => {
  h = await startHarness();
  const alice = await h.auth("u_alice");
  const get = async (name: string, p: string, headers: Record<string, string>, status: number) => {
    const res = await request(h.app).get(p).set(headers);
    expect(res.status).toBe(status);
    ids[name] = res.headers["decision-id"];
  };
  await get("allow", "/invoices/inv_alice_1", alice, 200);
  await get("role", "/metrics", alice, 403);
  await get("anonymous", "/invoices/inv_alice_1", {}, 401);
  await get("refused", "/invoices/inv_alice_1", { authorization: "Bearer not-a-token" }, 401);
  await h.log.flush();
}, 120_000);

afterAll(() => h?.close());

test("an allow: the allow body of data.portcullis.decision, with its file and line", async () => {
  const r = await explain(ids.allow);
  expect(r.code).toBe(0);
  const allowRow = rowOf((l, i) => l.startsWith("decision := {") && source[i + 1].includes('"allow": true'));
  expect(r.out).toContain("recorded: allow 200 allowed");
  expect(r.out).toContain(`decided by:\n  data.portcullis.decision  rego/portcullis/decision.rego:${allowRow}\n    ${allowRow} | decision := {`);
  expect(r.out).not.toContain("WARNING");
});

test("each kind of deny: the deny body of the decision, and the outcome branch that gave the reason", async () => {
  const denyRow = rowOf((l, i) => l.startsWith("decision := {") && source[i + 1].includes('"allow": false'));
  for (const [name, reason, status] of [
    ["role", "role_required", 403],
    ["anonymous", "authentication_required", 401],
  ] as const) {
    const r = await explain(ids[name]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`recorded: deny ${status} ${reason}`);
    expect(r.out).toContain(`decided by:\n  data.portcullis.decision  rego/portcullis/decision.rego:${denyRow}`);
    const branch = rowOf((l) => l.includes(`"reason": "${reason}"`) && /outcome :=|else :=/.test(l));
    expect(branch).toBeGreaterThan(0);
    expect(r.out).toContain(`  data.portcullis.outcome  rego/portcullis/decision.rego:${branch}\n    ${branch} | `);
  }
});

test("a refusal before the policy: no rule decided; another revision's bundle is refused", async () => {
  const r = await explain(ids.refused);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/refused before the policy was asked, no rule decided: .*"stage"/);
  const other = path.join(h.dir, "other.tar.gz");
  fs.writeFileSync(other, policyBundle("another-revision"));
  const bad = await cli("decisions", "--db", path.join(h.dir, "decisions.db"), "--id", ids.allow, "--explain", "--bundle", other);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('is revision "another-revision"; the decision was made by "api-test"');
  expect((await cli("decisions", "--db", path.join(h.dir, "decisions.db"), "--explain")).code).toBe(2);
});
