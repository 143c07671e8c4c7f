/**
 * `--v0-compatible` on every `rego` command and the bundle manifest's
 * `rego_version` / `file_rego_versions`, run in-process on real files:
 * the v0 fixture folder (test/fixtures/rego-v0) with its _test.rego file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readBundle } from "@portcullis/rego-wasm";
import { main } from "../../cli";
import { cliSandbox } from "./support/sandbox";

const FIXTURE = path.join(__dirname, "..", "fixtures", "rego-v0");

const sb = cliSandbox("portcullis-v0-");
const write = sb.write;

const V0_POLICY = 'package authz\n\ndefault allow = false\n\nallow {\n\tinput.user == "ann"\n}\n';
const V1_POLICY = 'package other\n\nok if input.user == "ann"\n';

test("rego test --v0-compatible runs the v0 fixture folder with its _test.rego file", async () => {
  expect(await main(["rego", "test", "--v0-compatible", FIXTURE])).toBe(0);
  expect(sb.out.at(-1)).toBe("7 passed, 0 failed");
});

test("without the flag the v0 folder is refused with file:line:col parse errors", async () => {
  expect(await main(["rego", "test", FIXTURE])).toBe(1);
  expect(sb.out.join("\n")).toMatch(/authz(_test)?\.rego:\d+:\d+: rego_parse_error: `if` keyword is required before rule body/);
});

test("rego build --v0-compatible compiles v0 and says so in the manifest; eval evaluates it", async () => {
  write("policy/authz.rego", V0_POLICY);
  const bundlePath = path.join(sb.dir, "b.tar.gz");
  expect(await main(["rego", "build", "--v0-compatible", "-e", "authz/allow", "-o", bundlePath, path.join(sb.dir, "policy")])).toBe(0);
  expect(readBundle(fs.readFileSync(bundlePath)).manifest.rego_version).toBe(0);
  const input = write("input.json", JSON.stringify({ user: "ann" }));
  sb.out = [];
  expect(await main(["rego", "eval", "-b", bundlePath, "-i", input, "authz/allow"])).toBe(0);
  expect(JSON.parse(sb.out.join("\n"))).toEqual([{ result: true }]);
});

test("rego eval -p and rego plan take --v0-compatible", async () => {
  const policy = write("policy/authz.rego", V0_POLICY);
  const input = write("input.json", JSON.stringify({ user: "bob" }));
  expect(await main(["rego", "eval", "--v0-compatible", "-p", policy, "-i", input, "authz/allow"])).toBe(0);
  expect(JSON.parse(sb.out.join("\n"))).toEqual([{ result: false }]);
  expect(await main(["rego", "eval", "-p", policy, "-i", input, "authz/allow"])).toBe(1);
  expect(sb.out.join("\n")).toMatch(/rego_parse_error/);
  sb.out = [];
  expect(await main(["rego", "plan", "--v0-compatible", "-e", "authz/allow", policy])).toBe(0);
  expect(sb.out.join("\n")).toContain("authz/allow");
});

test("a directory's .manifest rego_version 0 makes its files v0 without the flag", async () => {
  write("bundle/.manifest", JSON.stringify({ revision: "r", roots: [""], rego_version: 0 }));
  write("bundle/authz.rego", V0_POLICY);
  write("bundle/authz_test.rego", 'package authz\n\ntest_ann {\n\tallow with input as {"user": "ann"}\n}\n');
  expect(await main(["rego", "test", path.join(sb.dir, "bundle")])).toBe(0);
  expect(sb.out.at(-1)).toBe("1 passed, 0 failed");
});

test("file_rego_versions sets one file's syntax; the build records the differing files", async () => {
  write("bundle/.manifest", JSON.stringify({ revision: "r", roots: [""], file_rego_versions: { "/legacy/*.rego": 0 } }));
  write("bundle/legacy/authz.rego", V0_POLICY);
  write("bundle/other.rego", V1_POLICY);
  const bundlePath = path.join(sb.dir, "b.tar.gz");
  expect(await main(["rego", "build", "-e", "authz/allow", "-e", "other/ok", "-o", bundlePath, path.join(sb.dir, "bundle")])).toBe(0);
  const manifest = readBundle(fs.readFileSync(bundlePath)).manifest;
  expect(manifest.rego_version).toBe(1);
  expect(manifest.file_rego_versions).toEqual({
    [`/${path
      .relative("/", path.join(sb.dir, "bundle", "legacy", "authz.rego"))
      .split(path.sep)
      .join("/")}`]: 0,
  });
  // The v1 file is still v1: under --v0-compatible the manifest's pattern does not reach it, so it would be v0 and fail.
  expect(await main(["rego", "build", "--v0-compatible", "-e", "other/ok", "-o", bundlePath, path.join(sb.dir, "bundle")])).toBe(1);
  expect(sb.out.join("\n")).toMatch(/other\.rego:3:\d+: rego_parse_error/);
});

test("a manifest rego_version other than 0 or 1 is refused", async () => {
  write("bundle/.manifest", JSON.stringify({ rego_version: 2 }));
  write("bundle/authz.rego", V0_POLICY);
  expect(await main(["rego", "test", path.join(sb.dir, "bundle")])).toBe(1);
  expect(sb.out.join("\n")).toMatch(/rego_version must be 0 or 1, got 2/);
});

test("rego conformance --v0-compatible runs cases in v0 syntax", async () => {
  const cases = { cases: [{ note: "v0/partial set", modules: ["package t\ns[x] { x := [1, 2][_] }"], query: "data.t.s = x", want_result: [{ x: [1, 2] }] }] };
  write("cases/v0/case.yaml", JSON.stringify(cases));
  expect(await main(["rego", "conformance", "--v0-compatible", path.join(sb.dir, "cases")])).toBe(0);
  expect(sb.out.at(-1)).toBe("1 passed, 0 failed, 0 skipped");
  sb.out = [];
  await main(["rego", "conformance", path.join(sb.dir, "cases")]);
  expect(sb.out.at(-1)).toBe("0 passed, 1 failed, 0 skipped");
});
