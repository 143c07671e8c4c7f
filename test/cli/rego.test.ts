/**
 * The `portcullis rego` commands, run in-process on real files: build writes
 * an OPA-layout bundle, eval runs it through the SDK, test reports like
 * `opa test`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readBundle } from "@portcullis/rego-wasm";
import { main } from "../../cli";
import { cliSandbox } from "./support/sandbox";

const sb = cliSandbox("portcullis-cli-");
const write = sb.write;

const POLICY = `package authz

default allow := false

allow if {
	input.user in data.authz.admins
}
`;

test("rego build writes /policy.wasm, /data.json, /.manifest and the sources", async () => {
  write("policy/authz.rego", POLICY);
  write("policy/authz/data.json", JSON.stringify({ admins: ["alice"] }));
  const bundlePath = path.join(sb.dir, "bundle.tar.gz");
  expect(await main(["rego", "build", "-e", "authz/allow", "-o", bundlePath, "--revision", "r1", path.join(sb.dir, "policy")])).toBe(0);

  const bundle = readBundle(fs.readFileSync(bundlePath));
  expect(bundle.manifest.revision).toBe("r1");
  expect(bundle.manifest.wasm).toEqual([{ entrypoint: "authz/allow", module: "/policy.wasm" }]);
  expect(bundle.data).toEqual({ authz: { admins: ["alice"] } });
  expect(WebAssembly.validate(new Uint8Array(bundle.wasm))).toBe(true);
});

test("without --revision the bundle's revision is a hash of its content", async () => {
  write("policy/authz.rego", POLICY);
  const first = path.join(sb.dir, "a.tar.gz");
  const again = path.join(sb.dir, "b.tar.gz");
  const changed = path.join(sb.dir, "c.tar.gz");
  await main(["rego", "build", "-e", "authz/allow", "-o", first, path.join(sb.dir, "policy")]);
  await main(["rego", "build", "-e", "authz/allow", "-o", again, path.join(sb.dir, "policy")]);
  write("policy/authz/data.json", JSON.stringify({ admins: ["alice"] }));
  await main(["rego", "build", "-e", "authz/allow", "-o", changed, path.join(sb.dir, "policy")]);
  const revision = (file: string) => readBundle(fs.readFileSync(file)).manifest.revision;
  expect(revision(first)).toMatch(/^sha256:[0-9a-f]{16}$/);
  expect(revision(again)).toBe(revision(first));
  expect(revision(changed)).not.toBe(revision(first));
});

test("rego eval prints the result set of an entrypoint", async () => {
  write("policy/authz.rego", POLICY);
  write("policy/authz/data.json", JSON.stringify({ admins: ["alice"] }));
  const bundlePath = path.join(sb.dir, "bundle.tar.gz");
  await main(["rego", "build", "-e", "authz/allow", "-o", bundlePath, path.join(sb.dir, "policy")]);
  const input = write("input.json", JSON.stringify({ user: "alice" }));
  sb.out = [];
  expect(await main(["rego", "eval", "-b", bundlePath, "-i", input, "authz/allow"])).toBe(0);
  expect(JSON.parse(sb.out.join("\n"))).toEqual([{ result: true }]);

  const other = write("other.json", JSON.stringify({ user: "mallory" }));
  sb.out = [];
  await main(["rego", "eval", "-b", bundlePath, "-i", other, "data.authz.allow"]);
  expect(JSON.parse(sb.out.join("\n"))).toEqual([{ result: false }]);
});

test("rego test reports failures with file:line and ends with N passed, N failed", async () => {
  write("p/authz.rego", POLICY);
  const testFile = write(
    "p/authz_test.rego",
    `package authz_test

import data.authz

test_admin_allowed if {
	authz.allow with input as {"user": "alice"} with data.authz.admins as ["alice"]
}

test_wrongly_expects_allow if {
	authz.allow with input as {"user": "bob"} with data.authz.admins as ["alice"]
}

todo_test_later if {
	false
}
`,
  );
  expect(await main(["rego", "test", path.join(sb.dir, "p")])).toBe(1);
  const fail = sb.out.findIndex((l) => l.startsWith(`FAIL ${testFile}:9: data.authz_test.test_wrongly_expects_allow: undefined (`));
  expect(fail).toBeGreaterThanOrEqual(0);
  // The failing expression, with its file:row.
  expect(sb.out.slice(fail + 1, fail + 3)).toEqual([`  ${testFile}:10:`, '    authz.allow with input as {"user": "bob"} with data.authz.admins as ["alice"]']);
  expect(sb.out).toContain(`SKIP ${testFile}:13: data.authz_test.todo_test_later`);
  expect(sb.out[sb.out.length - 1]).toBe("1 passed, 1 failed, 1 skipped");
});

test("a build with a policy error exits non-zero and writes no bundle", async () => {
  write("bad/authz.rego", "package authz\n\nallow if {\n\tx > 1\n}\n");
  const bundlePath = path.join(sb.dir, "bundle.tar.gz");
  expect(await main(["rego", "build", "-e", "authz/allow", "-o", bundlePath, path.join(sb.dir, "bad")])).toBe(1);
  expect(sb.out.join("\n")).toMatch(/authz\.rego:4:2: rego_unsafe_var_error: var x is unsafe/);
  expect(fs.existsSync(bundlePath)).toBe(false);
});

test("unknown options are usage errors", async () => {
  expect(await main(["rego", "build", "--no-such-flag"])).toBe(2);
});
