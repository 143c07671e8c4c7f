/**
 * Custom builtins from the command line: `--capabilities caps.json` (OPA's
 * capabilities JSON) declares them, `--builtins impl.mjs` implements them.
 * The fixture folder (test/fixtures/custom-builtins) is a policy and its
 * _test.rego calling a scanner's result constructor and a Regal-style
 * namespaced builtin; its caps.json lists the standard builtins it uses too
 * (a capabilities file says which builtins a policy may call at all).
 *
 * Loading an ES module needs Node's own import(), which Jest's module system
 * does not offer: the commands that take `--builtins` run the real CLI from
 * the sources as a child process (test/api/support/serve-child.js). The
 * rest run in-process.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { main } from "../../cli";
import { cliSandbox } from "./support/sandbox";

const FIXTURE = path.join(__dirname, "..", "fixtures", "custom-builtins");
const CAPS = path.join(FIXTURE, "caps.json");
const IMPL = path.join(FIXTURE, "impl.mjs");
const POLICY = path.join(FIXTURE, "policy");
const CLI_CHILD = path.join(__dirname, "..", "api", "support", "serve-child.js");

const sb = cliSandbox("portcullis-builtins-");

/** The real CLI as a child process: its exit code and everything it printed. */
function cli(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [CLI_CHILD, ...args], { encoding: "utf8", timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test("rego test --capabilities caps.json --builtins impl.mjs runs a suite that needs custom builtins", () => {
  const r = cli(["rego", "test", "-v", "--capabilities", CAPS, "--builtins", IMPL, POLICY]);
  expect(r.out).toContain("PASS");
  expect(r.out).toMatch(/test_constructor_called_directly/);
  expect(r.out.trim().split("\n").at(-1)).toBe("5 passed, 0 failed");
  expect(r.status).toBe(0);
});

test("what the implementation answers is what the policy sees: a wrong answer fails the suite", () => {
  const impl = sb.write("impl.mjs", 'export default { "regal.last": (a) => a[0], "scanner.result": (r, s) => ({ rule_id: r }) };\n');
  const r = cli(["rego", "test", "--capabilities", CAPS, "--builtins", impl, POLICY]);
  expect(r.out).toMatch(/FAIL .*scan_test\.rego:15: data\.scan_test\.test_last_segment/);
  expect(r.out).toMatch(/FAIL .*scan_test\.rego:5: data\.scan_test\.test_admin_path_is_flagged/);
  expect(r.status).toBe(1);
});

test("rego eval -p and a bundle built with --capabilities evaluate through the implementation", async () => {
  const input = sb.write("input.json", JSON.stringify({ path: "/debug/x" }));
  const fromSources = cli(["rego", "eval", "--capabilities", CAPS, "--builtins", IMPL, "-p", POLICY, "-i", input, "scan/findings"]);
  expect(fromSources.status).toBe(0);
  expect(JSON.parse(fromSources.out)).toEqual([{ result: [{ rule_id: "/debug", severity: "high", source: "impl.mjs" }] }]);

  const bundle = path.join(sb.dir, "b.tar.gz");
  expect(await main(["rego", "build", "--capabilities", CAPS, "-e", "scan/last_segment", "-o", bundle, POLICY])).toBe(0);
  const fromBundle = cli(["rego", "eval", "--capabilities", CAPS, "--builtins", IMPL, "-b", bundle, "-i", input, "scan/last_segment"]);
  expect(fromBundle.status).toBe(0);
  expect(JSON.parse(fromBundle.out)).toEqual([{ result: "x" }]);
});

test("without --capabilities a custom builtin is a positioned compile error", async () => {
  expect(await main(["rego", "test", POLICY])).toBe(1);
  const out = sb.out.join("\n");
  expect(out).toContain(`${path.join(POLICY, "scan.rego")}:4:19: rego_type_error: undefined function scanner.result`);
  expect(out).toContain(`${path.join(POLICY, "scan.rego")}:10:17: rego_type_error: undefined function regal.last`);
});

test("a declared builtin the policy calls but no module implements is refused before any test runs", async () => {
  expect(await main(["rego", "test", "--capabilities", CAPS, POLICY])).toBe(1);
  expect(sb.out.join("\n")).toContain(
    `custom builtin(s) scanner.result, regal.last declared in ${CAPS} and called by the policy, but no --builtins module implements them`,
  );
  expect(sb.out.join("\n")).not.toMatch(/passed/);

  const partial = sb.write("partial.mjs", 'export default { "regal.last": (a) => a.at(-1) };\n');
  const r = cli(["rego", "test", "--capabilities", CAPS, "--builtins", partial, POLICY]);
  expect(r.status).toBe(1);
  expect(r.out).toContain(`declared in ${CAPS} and called by the policy, but ${partial} does not export them`);
});

test("an implementation of a name the capabilities do not declare is refused, standard builtins too", () => {
  const typo = sb.write("typo.mjs", 'export default { "regal.lats": (a) => a.at(-1) };\n');
  const r = cli(["rego", "test", "--capabilities", CAPS, "--builtins", typo, POLICY]);
  expect(r.status).toBe(1);
  expect(r.out).toContain(`${typo}: implements "regal.lats": not declared in ${CAPS}`);

  const takeover = sb.write("takeover.mjs", 'export default { "count": () => 0 };\n');
  const t = cli(["rego", "test", "--capabilities", CAPS, "--builtins", takeover, POLICY]);
  expect(t.status).toBe(1);
  expect(t.out).toContain(`${takeover}: implements "count": a standard builtin, which a module may not replace`);
});

test("--builtins without --capabilities is a usage error", async () => {
  expect(await main(["rego", "test", "--builtins", IMPL, POLICY])).toBe(2);
  expect(sb.out.join("\n")).toContain("--builtins needs --capabilities declaring the builtins it implements");
});

test("calls are checked against the declared arity and literal operand types", async () => {
  const rule = (body: string) => sb.write("p/p.rego", `package p\n\nx := ${body}\n`);
  rule('scanner.result("r1", true)');
  expect(await main(["rego", "build", "--capabilities", CAPS, "-e", "p/x", "-o", path.join(sb.dir, "b.tar.gz"), path.join(sb.dir, "p")])).toBe(1);
  expect(sb.out.join("\n")).toContain("p.rego:3:27: rego_type_error: scanner.result: invalid argument(s): operand 2 is boolean, want any<string, number>");

  sb.out = [];
  rule("regal.last({1, 2})");
  expect(await main(["rego", "build", "--capabilities", CAPS, "-e", "p/x", "-o", path.join(sb.dir, "b.tar.gz"), path.join(sb.dir, "p")])).toBe(1);
  expect(sb.out.join("\n")).toContain("p.rego:3:17: rego_type_error: regal.last: invalid argument(s): operand 1 is set, want array");

  sb.out = [];
  rule('scanner.result("r1")');
  expect(await main(["rego", "build", "--capabilities", CAPS, "-e", "p/x", "-o", path.join(sb.dir, "b.tar.gz"), path.join(sb.dir, "p")])).toBe(1);
  expect(sb.out.join("\n")).toContain("p.rego:3:6: rego_type_error: scanner.result: arity mismatch");
  expect(fs.existsSync(path.join(sb.dir, "b.tar.gz"))).toBe(false);
});

test("a capabilities file that is not one is refused, naming the file and entry", async () => {
  sb.write("p/p.rego", "package p\n\nx := 1\n");
  const build = (caps: string) => main(["rego", "build", "--capabilities", caps, "-e", "p/x", "-o", path.join(sb.dir, "b.tar.gz"), path.join(sb.dir, "p")]);
  const bad = sb.write("bad.json", JSON.stringify({ builtins: [{ name: "x.y", decl: { type: "function", args: [{ type: "strnig" }] } }] }));
  expect(await build(bad)).toBe(1);
  expect(sb.out.join("\n")).toContain(`${bad}: builtins[0] (x.y): unknown type "strnig"`);
  const variadic = sb.write("v.json", JSON.stringify({ builtins: [{ name: "x.v", decl: { type: "function", args: [], variadic: { type: "any" } } }] }));
  expect(await build(variadic)).toBe(1);
  expect(sb.out.join("\n")).toContain("variadic builtins cannot be hosted");
  const notCaps = sb.write("n.json", "[]");
  expect(await build(notCaps)).toBe(1);
  expect(sb.out.join("\n")).toContain(`${notCaps}: not an OPA capabilities file`);
});

test("the capabilities say which builtins a policy may call at all, as OPA's do", async () => {
  sb.write("p/p.rego", 'package p\n\nx := upper("a")\n\ny := http.send({"method": "get", "url": "http://127.0.0.1:1"})\n\nz := count([1])\n');
  const build = (extra: string[]) => main(["rego", "build", ...extra, "-e", "p/z", "-o", path.join(sb.dir, "b.tar.gz"), path.join(sb.dir, "p")]);
  expect(await build(["--capabilities", CAPS])).toBe(1);
  const out = sb.out.join("\n");
  expect(out).toContain("p.rego:3:6: rego_type_error: undefined function upper");
  expect(out).toContain("p.rego:5:6: rego_type_error: undefined function http.send");
  expect(out).not.toContain("count");
  sb.out = [];
  expect(await build([])).toBe(0); // without --capabilities: every builtin the compiler knows
});
