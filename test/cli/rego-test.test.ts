/**
 * `rego test` as OPA users know it, run in-process on real files: `-r`,
 * `-v` with times, `--format json` (OPA's result array), `--timeout`,
 * `--bench`, every rule its own test (`test_x#01`), parameterized tests
 * (`test_x[case]`, OPA v1's sub-results), `todo_test_` skipped, failures with
 * the failing expression, and `--coverage` (OPA's coverage report) with
 * `--threshold`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readBundle } from "@portcullis/rego-wasm";
import { main } from "../../cli";
import { all, parseXmlFile } from "../report/xml";
import { cliSandbox } from "./support/sandbox";

const sb = cliSandbox("portcullis-regotest-");

const POLICY = `package p

allow if {
	input.user == "alice"
}

role := r if {
	r := data.p.roles[input.user]
}

level(n) := "high" if n > 10

level(n) := "low" if n <= 10
`;

const TESTS = `package p_test

import data.p

test_alice if p.allow with input.user as "alice"

test_alice if p.allow with input.user as "bob"

test_bob_denied if {
	not p.allow with input.user as "bob"
}

test_bob_allowed if {
	x := 1
	p.allow with input.user as "bob"
	x == 1
}

todo_test_later if false

test_levels[tc.note] if {
	some tc in [
		{"note": "ten", "n": 10, "want": "low"},
		{"note": "eleven", "n": 11, "want": "high"},
		{"note": "wrong", "n": 1, "want": "high"},
	]
	p.level(tc.n) == tc.want
}
`;

function suite(tests = TESTS): string {
  sb.write("s/p.rego", POLICY);
  sb.write("s/p_test.rego", tests);
  return path.join(sb.dir, "s");
}

const testFile = () => path.join(sb.dir, "s", "p_test.rego");

test("every rule is its own test, failures show the failing expression, todo_test_ is skipped, cases are counted", async () => {
  expect(await main(["rego", "test", suite()])).toBe(1);
  const out = sb.out;
  const file = testFile();
  // The second test_alice is test_alice#01, as OPA renames it: its failure is not hidden by the first's pass.
  expect(out.find((l) => l.startsWith(`FAIL ${file}:7: data.p_test.test_alice#01: undefined (`))).toBeDefined();
  const bob = out.findIndex((l) => l.startsWith(`FAIL ${file}:13: data.p_test.test_bob_allowed: undefined (`));
  expect(out.slice(bob + 1, bob + 3)).toEqual([`  ${file}:15:`, '    p.allow with input.user as "bob"']);
  expect(out).toContain(`SKIP ${file}:19: data.p_test.todo_test_later`);
  const levels = out.findIndex((l) => l.startsWith(`FAIL ${file}:21: data.p_test.test_levels: a case failed (`));
  expect(out.slice(levels + 1)).toContain("  wrong: FAIL");
  expect(out).not.toContain("  ten: PASS"); // passing cases only with -v
  // Passed: test_alice, test_bob_denied, cases ten and eleven; failed: test_alice#01, test_bob_allowed, case wrong.
  expect(out.at(-1)).toBe("4 passed, 3 failed, 1 skipped");
});

test("-v prints every test with its time and every case; -r runs only the tests whose full name matches", async () => {
  expect(await main(["rego", "test", "-v", "-r", "levels|denied", suite()])).toBe(1);
  const file = testFile();
  expect(sb.out.some((l) => /^PASS .*p_test\.rego:9: data\.p_test\.test_bob_denied \(\d+(\.\d+)?(ns|µs|ms|s)\)$/.test(l))).toBe(true);
  expect(sb.out).toEqual(expect.arrayContaining(["  eleven: PASS", "  ten: PASS", "  wrong: FAIL"]));
  expect(sb.out.join("\n")).not.toMatch(/test_alice|test_bob_allowed|todo_test_later/);
  expect(sb.out.at(-1)).toBe("3 passed, 1 failed");

  sb.out = [];
  expect(await main(["rego", "test", "--run", "^data\\.p_test\\.test_alice$", suite()])).toBe(0);
  expect(sb.out.at(-1)).toBe("1 passed, 0 failed");
  expect(sb.out).not.toContain(`SKIP ${file}:19: data.p_test.todo_test_later`);
});

test("a case whose body fails after the case is known is reported failed, not silently absent", async () => {
  const tests = `package p_test

import data.p

test_users[user] if {
	some user in ["alice", "bob"]
	p.allow with input.user as user
}
`;
  expect(await main(["rego", "test", "-v", suite(tests)])).toBe(1);
  expect(sb.out).toEqual(expect.arrayContaining(["  alice: PASS", "  bob: FAIL"]));
  expect(sb.out.at(-1)).toBe("1 passed, 1 failed");
});

test("--format json prints OPA's result array and nothing else", async () => {
  expect(await main(["rego", "test", "--format", "json", "-r", "levels|later|denied", suite()])).toBe(1);
  const results = JSON.parse(sb.out.join("\n")) as Array<Record<string, unknown>>;
  const file = testFile();
  expect(results.map((r) => r.name)).toEqual(["test_bob_denied", "todo_test_later", "test_levels"]);
  expect(results[0]).toEqual({ location: { file, row: 9, col: 1 }, package: "data.p_test", name: "test_bob_denied", duration: expect.any(Number) });
  expect(results[1]).toEqual({ location: { file, row: 19, col: 1 }, package: "data.p_test", name: "todo_test_later", skip: true, duration: 0 });
  expect(results[2]).toMatchObject({
    package: "data.p_test",
    name: "test_levels",
    fail: true,
    failed_at: { location: { file, row: 27, col: 2 } },
    sub_results: { eleven: { name: "eleven" }, ten: { name: "ten" }, wrong: { name: "wrong", fail: true } },
  });
});

test("--timeout aborts a test that runs past it, as an error", async () => {
  const tests = `package p_test

test_slow if {
	count([x | some x in numbers.range(1, 200000); x % 7 == 0]) > 0
	count([x | some x in numbers.range(1, 200000); x % 5 == 0]) > 0
}
`;
  expect(await main(["rego", "test", "--timeout", "1ns", suite(tests)])).toBe(1);
  expect(sb.out.some((l) => l.startsWith(`ERROR ${testFile()}:3: data.p_test.test_slow: eval_cancel_error: timed out after 1ns (--timeout)`))).toBe(true);
  expect(sb.out.at(-1)).toBe("0 passed, 1 failed");
  sb.out = [];
  expect(await main(["rego", "test", "--timeout", "1m", suite(tests)])).toBe(0);
  expect(await main(["rego", "test", "--timeout", "soon", suite(tests)])).toBe(2);
});

test("--bench runs each passing test repeatedly and prints Go's benchmark line", async () => {
  expect(await main(["rego", "test", "--bench", "-r", "test_bob_denied", suite()])).toBe(0);
  expect(sb.out[0]).toMatch(/^data\.p_test\.test_bob_denied\t +\d+\t +\d+(\.\d+)? ns\/op$/);
  sb.out = [];
  expect(await main(["rego", "test", "--bench", "--format", "json", "-r", "test_bob_denied", suite()])).toBe(0);
  const [result] = JSON.parse(sb.out.join("\n")) as Array<{ benchmark_result: { N: number; T: number } }>;
  expect(result!.benchmark_result.N).toBeGreaterThan(1);
  expect(result!.benchmark_result.T).toBeGreaterThan(0);
});

test("--coverage prints OPA's coverage report: covered and not covered line ranges per file, and percentages", async () => {
  const tests = `package p_test

import data.p

test_alice if p.allow with input.user as "alice"

test_low if p.level(3) == "low"
`;
  expect(await main(["rego", "test", "--coverage", suite(tests)])).toBe(0);
  const stdout = sb.out.filter((l) => l !== "2 passed, 0 failed").join("\n");
  const report = JSON.parse(stdout);
  const policy = path.join(sb.dir, "s", "p.rego");
  // allow (3, 4) ran; role (7, 8) never did; of the two level bodies only the second (13) ran,
  // the first's head was reached as an expression (n > 10) but never succeeded.
  expect(report.files[policy]).toEqual({
    covered: [
      { start: { row: 3 }, end: { row: 4 } },
      { start: { row: 11 }, end: { row: 11 } },
      { start: { row: 13 }, end: { row: 13 } },
    ],
    not_covered: [{ start: { row: 7 }, end: { row: 8 } }],
    covered_lines: 4,
    not_covered_lines: 2,
    coverage: 66.65, // 66.67 as OPA rounds it: to steps of 0.05
  });
  expect(report.files[testFile()]).toEqual({
    covered: [
      { start: { row: 5 }, end: { row: 5 } },
      { start: { row: 7 }, end: { row: 7 } },
    ],
    covered_lines: 2,
    coverage: 100,
  });
  expect(report.covered_lines).toBe(6);
  expect(report.not_covered_lines).toBe(2);
  expect(report.coverage).toBe(75);
  expect(sb.out).toContain("2 passed, 0 failed");
});

test("--threshold fails below it; failures are reported instead of a coverage report", async () => {
  const tests = `package p_test

import data.p

test_alice if p.allow with input.user as "alice"
`;
  expect(await main(["rego", "test", "--coverage", "--threshold", "90", suite(tests)])).toBe(1);
  expect(sb.out).toContain("Code coverage threshold not met: got 42.85 instead of 90.00");
  sb.out = [];
  expect(await main(["rego", "test", "--coverage", "--threshold", "40", suite(tests)])).toBe(0);

  sb.out = [];
  expect(await main(["rego", "test", "--coverage", suite()])).toBe(1);
  expect(sb.out.some((l) => l.startsWith("FAIL "))).toBe(true);
  expect(sb.out.join("\n")).not.toContain('"files"');
  // As in OPA, a threshold alone asks for coverage.
  sb.out = [];
  expect(await main(["rego", "test", "--threshold", "40", suite(tests)])).toBe(0);
  expect(JSON.parse(sb.out.filter((l) => !l.includes("passed")).join("\n")).coverage).toBe(42.85);
  expect(await main(["rego", "test", "--coverage", "--threshold", "101", suite(tests)])).toBe(2);
});

test("skipped tests fail the run as in OPA, unless -z (--exit-zero-on-skipped)", async () => {
  const tests = `package p_test

import data.p

test_alice if p.allow with input.user as "alice"

todo_test_later if false
`;
  expect(await main(["rego", "test", suite(tests)])).toBe(1);
  expect(sb.out.at(-1)).toBe("1 passed, 0 failed, 1 skipped");
  expect(await main(["rego", "test", "-z", suite(tests)])).toBe(0);
  expect(await main(["rego", "test", "--exit-zero-on-skipped", "--coverage", suite(tests)])).toBe(0);
});

test("the bundle rego build writes carries no probes: instrumentation is for test compilations only", async () => {
  sb.write("s/p.rego", POLICY);
  const bundle = path.join(sb.dir, "b.tar.gz");
  expect(await main(["rego", "build", "-e", "p/allow", "-o", bundle, path.join(sb.dir, "s")])).toBe(0);
  const wasm = readBundle(fs.readFileSync(bundle)).wasm;
  expect(Buffer.from(wasm).includes(Buffer.from("internal.probe"))).toBe(false);
});

test("print() output is the test's: under a failing test (all with -v), base64 in JSON, never mixed into a report", async () => {
  const tests = `package p_test

import data.p

test_prints_and_fails if {
	print("checking", input.user)
	p.allow with input.user as "bob"
}

test_prints_and_passes if {
	print("fine")
}
`;
  expect(await main(["rego", "test", suite(tests)])).toBe(1);
  const fail = sb.out.findIndex((l) => l.startsWith("FAIL ") && l.includes("test_prints_and_fails"));
  expect(sb.out.slice(fail + 3)).toContain("  | checking <undefined>");
  expect(sb.out).not.toContain("  | fine");

  sb.out = [];
  expect(await main(["rego", "test", "--format", "json", suite(tests)])).toBe(1);
  const results = JSON.parse(sb.out.join("\n")) as Array<{ name: string; output?: string }>;
  expect(Buffer.from(results[0]!.output!, "base64").toString()).toBe("checking <undefined>\n");
  expect(Buffer.from(results[1]!.output!, "base64").toString()).toBe("fine\n");

  sb.out = [];
  expect(await main(["rego", "test", "--coverage", "-r", "passes", suite(tests)])).toBe(0);
  expect(JSON.parse(sb.out.filter((l) => !l.includes("passed")).join("\n")).files).toBeDefined();
});

test("--junit FILE: a testsuite per package, a testcase per test and per case, failures with the expression and the output", async () => {
  const tests = TESTS.replace(
    "todo_test_later if false",
    'todo_test_later if false\n\ntest_prints_and_fails if {\n\tprint("checking", input.user)\n\tp.allow with input.user as "bob"\n}',
  );
  const file = path.join(sb.dir, "junit", "rego.xml");
  expect(await main(["rego", "test", "--junit", file, suite(tests)])).toBe(1);
  expect(sb.out.at(-1)).toBe("4 passed, 4 failed, 1 skipped");
  const root = parseXmlFile(file);
  expect(root.attrs).toMatchObject({ tests: "9", failures: "4", skipped: "1" });
  expect(all(root, "testsuite").map((s) => s.attrs.name)).toEqual(["data.p_test"]);
  const cases = all(root, "testcase").map((c) => `${c.attrs.name}${c.children[0] ? ` ${c.children[0].tag}` : ""}`);
  expect(cases).toEqual([
    "test_alice",
    "test_alice#01 failure",
    "test_bob_denied",
    "test_bob_allowed failure",
    "todo_test_later skipped",
    "test_prints_and_fails failure",
    "test_levels/eleven",
    "test_levels/ten",
    "test_levels/wrong failure",
  ]);
  const failure = (name: string) => all(root, "testcase").find((c) => c.attrs.name === name)!.children[0];
  expect(failure("test_bob_allowed").text).toContain(`failing expression at ${testFile()}:15:\n  p.allow with input.user as "bob"`);
  expect(failure("test_prints_and_fails").text).toContain("printed:\n  | checking <undefined>");
  expect(failure("test_levels/wrong").attrs.message).toBe("case wrong failed");

  // Written whatever is printed: with --format json too.
  sb.out = [];
  fs.rmSync(file);
  expect(await main(["rego", "test", "--format", "json", "--junit", file, "-r", "bob_denied", suite(tests)])).toBe(0);
  expect(parseXmlFile(file).attrs).toMatchObject({ tests: "1", failures: "0" });
});
