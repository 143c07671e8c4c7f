/** Bundle write/read round trips, archives from other writers (GNU tar, pax), and rejection of corrupt input. */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { BundleError, readBundle, writeBundle } from "../../../compiler/bundle";
import { readTar, writeTar } from "../../../compiler/bundle/tar";

const wasm = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const manifest = {
  revision: "r1",
  roots: [""],
  rego_version: 1,
  wasm: [{ entrypoint: "authz/allow", module: "/policy.wasm" }],
};

function sample(): Buffer {
  return writeBundle({
    wasm,
    data: { roles: { admin: ["alice"] } },
    manifest,
    sources: [
      { path: "policies/authz.rego", content: "package authz\n" },
      { path: "./ü/x.rego", content: "package x\n" },
    ],
  });
}

describe("bundle", () => {
  test("round trip", () => {
    const b = readBundle(sample());
    expect(b.wasm).toEqual(wasm);
    expect(b.data).toEqual({ roles: { admin: ["alice"] } });
    expect(b.manifest).toEqual(manifest);
    expect([...b.files.keys()].sort()).toEqual(["/.manifest", "/data.json", "/policies/authz.rego", "/policy.wasm", "/ü/x.rego"]);
    expect(new TextDecoder().decode(b.files.get("/policies/authz.rego"))).toBe("package authz\n");
  });

  test("output is deterministic and uses OPA's absolute entry names", () => {
    expect(sample().equals(sample())).toBe(true);
    const names = readTar(zlib.gunzipSync(sample())).map((e) => e.name);
    expect(names).toEqual(["/data.json", "/policies/authz.rego", "/ü/x.rego", "/policy.wasm", "/.manifest"]);
  });

  test("the system tar lists and extracts what we write", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bundle-"));
    try {
      const file = path.join(dir, "b.tar.gz");
      fs.writeFileSync(file, sample());
      const listed = execFileSync("tar", ["-tzf", file], { encoding: "utf8" }).trim().split("\n");
      expect(listed).toContain("/policy.wasm");
      execFileSync("tar", ["-xzf", file, "-C", dir]);
      expect(fs.readFileSync(path.join(dir, "policy.wasm"))).toEqual(Buffer.from(wasm));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each(["gnu", "pax", "ustar", "v7"])("reads archives written by GNU tar --format=%s, names without a leading slash", (format) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bundle-"));
    try {
      const long = "d".repeat(60) + "/" + "e".repeat(60) + "/" + "f".repeat(50) + ".rego";
      fs.mkdirSync(path.join(dir, "src", path.dirname(format === "v7" ? "a/x.rego" : long)), { recursive: true });
      fs.writeFileSync(path.join(dir, "src", "policy.wasm"), wasm);
      fs.writeFileSync(path.join(dir, "src", "data.json"), '{"a": 1}');
      fs.mkdirSync(path.join(dir, "src", "sub"));
      fs.writeFileSync(path.join(dir, "src", "sub", "data.json"), '{"b": [2]}');
      fs.writeFileSync(path.join(dir, "src", ".manifest"), JSON.stringify(manifest));
      const regoName = format === "v7" ? "a/x.rego" : long;
      fs.writeFileSync(path.join(dir, "src", regoName), "package p\n");
      const file = path.join(dir, "b.tar.gz");
      execFileSync("tar", [`--format=${format}`, "-czf", file, "-C", path.join(dir, "src"), "."]);
      const b = readBundle(fs.readFileSync(file));
      expect(b.wasm).toEqual(wasm);
      expect(b.data).toEqual({ a: 1, sub: { b: [2] } });
      expect(b.manifest).toEqual(manifest);
      expect(b.files.has("/" + regoName)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("long names survive our own writer (ustar prefix and pax)", () => {
    const viaPrefix = "p".repeat(120) + "/" + "n".repeat(90);
    const viaPax = "q".repeat(300);
    const entries = readTar(
      writeTar([
        { name: viaPrefix, data: wasm },
        { name: viaPax, data: wasm },
      ]),
    );
    expect(entries.map((e) => e.name)).toEqual([viaPrefix, viaPax]);
  });

  test("a missing manifest gets OPA's defaults; missing data is {}", () => {
    const tar = writeTar([{ name: "policy.wasm", data: wasm }]);
    const b = readBundle(zlib.gzipSync(tar));
    expect(b.manifest).toEqual({ revision: "", roots: [""] });
    expect(b.data).toEqual({});
  });

  describe("rejects malformed input", () => {
    const reject = (buf: Uint8Array, message: RegExp) => {
      expect(() => readBundle(buf)).toThrow(BundleError);
      expect(() => readBundle(buf)).toThrow(message);
    };
    const gz = (entries: Array<{ name: string; data: string | Uint8Array }>) =>
      zlib.gzipSync(writeTar(entries.map((e) => ({ name: e.name, data: typeof e.data === "string" ? new TextEncoder().encode(e.data) : e.data }))));

    test("not gzip", () => reject(Buffer.from("hello"), /not gzip/));
    test("truncated gzip", () => reject(sample().subarray(0, 100), /not gzip/));
    test("corrupt header checksum", () => {
      const tar = zlib.gunzipSync(sample());
      tar[0] ^= 0xff;
      reject(zlib.gzipSync(tar), /checksum/);
    });
    test("entry running past the end", () => {
      const tar = zlib.gunzipSync(sample());
      reject(zlib.gzipSync(tar.subarray(0, 600)), /past the end/);
    });
    test("truncated header", () => {
      const tar = zlib.gunzipSync(sample());
      reject(zlib.gzipSync(tar.subarray(0, 1024 + 100)), /truncated header/);
    });
    test("no policy.wasm", () => reject(gz([{ name: "/data.json", data: "{}" }]), /no \/policy.wasm/));
    test("bad data.json", () =>
      reject(
        gz([
          { name: "/policy.wasm", data: wasm },
          { name: "/data.json", data: "{" },
        ]),
        /data.json/,
      ));
    test("non-object root data", () =>
      reject(
        gz([
          { name: "/policy.wasm", data: wasm },
          { name: "/data.json", data: "[1]" },
        ]),
        /JSON object/,
      ));
    test("bad manifest", () =>
      reject(
        gz([
          { name: "/policy.wasm", data: wasm },
          { name: "/.manifest", data: '{"roots": "x"}' },
        ]),
        /roots/,
      ));
    test("manifest naming a missing module", () =>
      reject(
        gz([
          { name: "/policy.wasm", data: wasm },
          { name: "/.manifest", data: JSON.stringify({ ...manifest, wasm: [{ entrypoint: "a", module: "/x.wasm" }] }) },
        ]),
        /x.wasm/,
      ));
    test("duplicate entries", () =>
      reject(
        gz([
          { name: "/policy.wasm", data: wasm },
          { name: "policy.wasm", data: wasm },
        ]),
        /duplicate/,
      ));
    test("path traversal", () =>
      reject(
        gz([
          { name: "/policy.wasm", data: wasm },
          { name: "../x.rego", data: "" },
        ]),
        /leaves the bundle root/,
      ));
    test("conflicting data files", () =>
      reject(
        gz([
          { name: "/policy.wasm", data: wasm },
          { name: "/data.json", data: '{"a": 1}' },
          { name: "/a/data.json", data: "{}" },
        ]),
        /conflicts/,
      ));
    test("symlink entries", () => {
      const tar = writeTar([{ name: "/policy.wasm", data: wasm }]);
      tar[156] = "2".charCodeAt(0);
      let sum = 0;
      tar.fill(0x20, 148, 156);
      for (let i = 0; i < 512; i++) sum += tar[i];
      tar.set(new TextEncoder().encode(sum.toString(8).padStart(6, "0") + "\0"), 148);
      reject(zlib.gzipSync(tar), /unsupported entry type '2'/);
    });
  });

  test("writeBundle refuses non-object data and clashing source names", () => {
    expect(() => writeBundle({ wasm, data: [], manifest, sources: [] })).toThrow(/data must be a JSON object/);
    expect(() =>
      writeBundle({
        wasm,
        data: {},
        manifest,
        sources: [
          { path: "a.rego", content: "" },
          { path: "./a.rego", content: "" },
        ],
      }),
    ).toThrow(/two files/);
  });
});
