/**
 * graph.reachable, graph.reachable_paths and the crypto hash/HMAC builtins,
 * compiled natively into the runtime: results as OPA gives them, undefined
 * where OPA raises a (non-strict) builtin error.
 */
import { createHash, createHmac } from "crypto";
import { resultSet } from "./evaluate-rego";

const evaluate = resultSet;

/** The value of p for input, or undefined when p is undefined. */
async function p(source: string, input: unknown = {}): Promise<unknown> {
  const r = (await evaluate(`package t\n${source}`, input)) as Array<{ x: unknown }>;
  return r.length === 0 ? undefined : r[0].x;
}

describe("graph.reachable", () => {
  const rule = "p := graph.reachable(input.g, input.init)";

  test("follows arrays and sets of neighbours, through cycles", async () => {
    const g = { a: ["b", "c"], b: ["d"], c: ["d"], d: [], e: ["f"], f: ["e"], x: ["x"] };
    expect(await p(rule, { g, init: ["b", "e"] })).toEqual(["b", "d", "e", "f"]);
    expect(await p(rule, { g, init: ["a"] })).toEqual(["a", "b", "c", "d"]);
    expect(await p('p := graph.reachable({"a": {"b"}, "b": {"a"}}, {"b"})')).toEqual(["a", "b"]);
  });

  test("a node not in the graph is not reached; a node whose value is not a collection is reached but leads nowhere", async () => {
    expect(await p(rule, { g: { a: ["b", "zz"], b: null }, init: ["a", "nope"] })).toEqual(["a", "b"]);
    expect(await p(rule, { g: { a: 1 }, init: ["a"] })).toEqual(["a"]);
    expect(await p(rule, { g: {}, init: ["a"] })).toEqual([]);
    expect(await p(rule, { g: { a: ["b"] }, init: [] })).toEqual([]);
  });

  test("non-string nodes", async () => {
    expect(await p("p := graph.reachable({1: [2], 2: [[3]], [3]: []}, [1])")).toEqual([1, 2, [3]]);
  });

  test("a graph that is not an object, or initial nodes not an array or set, is undefined", async () => {
    expect(await p(rule, { g: 1, init: ["a"] })).toBeUndefined();
    expect(await p(rule, { g: { a: [] }, init: "a" })).toBeUndefined();
    expect(await p(rule, { g: { a: [] }, init: { a: true } })).toBeUndefined();
  });
});

describe("graph.reachable_paths", () => {
  const rule = "p := graph.reachable_paths(input.g, input.init)";

  test("every maximal path; a cycle ends the path before the repeated node", async () => {
    expect(await p(rule, { g: { a: ["b"], b: ["c"], c: ["a"] }, init: ["a"] })).toEqual([["a", "b", "c"]]);
    expect(await p(rule, { g: { a: ["b", "c"], b: ["c"], c: [] }, init: ["a"] })).toEqual([
      ["a", "b", "c"],
      ["a", "c"],
    ]);
  });

  test("a neighbour not in the graph ends the path without it; initial nodes not in the graph give nothing", async () => {
    expect(await p(rule, { g: { a: ["b"], b: ["nonexistent"] }, init: ["a", "b", "q"] })).toEqual([["a", "b"], ["b"]]);
    expect(await p(rule, { g: { a: null }, init: ["a"] })).toEqual([["a"]]);
    expect(await p(rule, { g: {}, init: ["a"] })).toEqual([]);
  });

  test("a self-loop on an initial node repeats it once, as OPA", async () => {
    expect(await p(rule, { g: { x: ["x"] }, init: ["x"] })).toEqual([["x", "x"]]);
    expect(await p(rule, { g: { a: ["x"], x: ["x"] }, init: ["a"] })).toEqual([["a", "x"]]);
  });

  test("type errors are undefined", async () => {
    expect(await p(rule, { g: 1, init: [1] })).toBeUndefined();
    expect(await p(rule, { g: { a: [] }, init: "a" })).toBeUndefined();
  });
});

describe("crypto hashes and HMACs agree with Node's crypto", () => {
  // Lengths around the 55/56/64-byte (MD5, SHA-1, SHA-256) and
  // 111/112/128-byte (SHA-512) padding boundaries, multi-block messages,
  // multi-byte UTF-8 and a lone surrogate (hashed as U+FFFD, like Go and Node).
  const lengths = [0, 1, 3, 54, 55, 56, 57, 63, 64, 65, 110, 111, 112, 113, 127, 128, 129, 200, 1000];
  const texts = [
    ...lengths.map((n) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join("")),
    "åäöçß🥲♙Ω",
    "秘密の".repeat(30),
    "\ud800x",
    "The quick brown fox jumps over the lazy dog",
  ];
  const keys = ["", "key", "k".repeat(64), "k".repeat(65), "K".repeat(128), "K".repeat(129), "秘密の", "x".repeat(300)];

  test("crypto.md5, crypto.sha1, crypto.sha256", async () => {
    const src = "p := [[crypto.md5(s), crypto.sha1(s), crypto.sha256(s)] | some s in input.texts]";
    const want = texts.map((s) => ["md5", "sha1", "sha256"].map((h) => createHash(h).update(s, "utf8").digest("hex")));
    expect(await p(src, { texts })).toEqual(want);
  });

  test("crypto.hmac.md5, sha1, sha256, sha512 (message first, then key)", async () => {
    const src = `p := [[crypto.hmac.md5(m, k), crypto.hmac.sha1(m, k), crypto.hmac.sha256(m, k), crypto.hmac.sha512(m, k)] |
      some m in input.texts; some k in input.keys]`;
    const want = texts.flatMap((m) =>
      keys.map((k) => ["md5", "sha1", "sha256", "sha512"].map((h) => createHmac(h, Buffer.from(k, "utf8")).update(m, "utf8").digest("hex"))),
    );
    expect(await p(src, { texts, keys })).toEqual(want);
  });

  test("OPA's documented values", async () => {
    expect(await p('p := crypto.hmac.sha512("foo", "bar")')).toBe(
      "24257d7210582a65c731ec55159c8184cc24c02489453e58587f71f44c23a2d61b4b72154a89d17b2d49448a8452ea066f4fc56a2bcead45c088572ffccdb3d8",
    );
    expect(await p('p := crypto.md5("")')).toBe("d41d8cd98f00b204e9800998ecf8427e");
  });

  test("a non-string operand is undefined", async () => {
    expect(await p("p := crypto.md5(input.x)", { x: 1 })).toBeUndefined();
    expect(await p("p := crypto.sha256(input.x)", { x: ["a"] })).toBeUndefined();
    expect(await p('p := crypto.hmac.sha256("m", input.x)', { x: null })).toBeUndefined();
    expect(await p('p := crypto.hmac.sha1(input.x, "k")', { x: true })).toBeUndefined();
  });
});

describe("crypto.hmac.equal", () => {
  const rule = "p := crypto.hmac.equal(input.a, input.b)";

  test("true only for equal strings", async () => {
    expect(await p(rule, { a: "31b6db9e5eb4addb", b: "31b6db9e5eb4addb" })).toBe(true);
    expect(await p(rule, { a: "31b6db9e5eb4addb", b: "31b6db9e5eb4addc" })).toBe(false);
    expect(await p(rule, { a: "31b6db9e5eb4addb42f1", b: "31b6db9e5eb4addb" })).toBe(false);
    expect(await p(rule, { a: "", b: "" })).toBe(true);
    expect(await p(rule, { a: "秘密", b: "秘密" })).toBe(true);
    expect(await p(rule, { a: "é", b: "e" })).toBe(false);
  });

  test("a non-string operand is undefined", async () => {
    expect(await p(rule, { a: 1, b: 1 })).toBeUndefined();
    expect(await p(rule, { a: "x", b: ["x"] })).toBeUndefined();
  });
});

describe("io.jwt.decode and io.jwt.verify_hs*", () => {
  const b64url = (s: string | Buffer) => Buffer.from(s).toString("base64url");
  const token = (header: unknown, payload: unknown, sig: string | Buffer = "sig") =>
    `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}.${b64url(sig)}`;
  const decode = "p := io.jwt.decode(input.t)";

  test("decode: header, payload and the signature's bytes in hex", async () => {
    const sig = Buffer.from([0x00, 0xff, 0x80, 0x7f, 0xc3]); // not UTF-8: hex of the raw bytes
    expect(await p(decode, { t: token({ alg: "HS256", typ: "JWT" }, { sub: "0", n: [1, "x"], 秘: true }, sig) })).toEqual([
      { alg: "HS256", typ: "JWT" },
      { sub: "0", n: [1, "x"], 秘: true },
      "00ff807fc3",
    ]);
    expect(await p(decode, { t: token({}, {}, "") })).toEqual([{}, {}, ""]);
  });

  test("decode: a cty JWT payload is a (possibly quoted) nested token, whose result is returned", async () => {
    const inner = token({ alg: "HS256" }, { iss: "opa" }, "inner");
    expect(await p(decode, { t: `${b64url(JSON.stringify({ cty: "JWT" }))}.${b64url(JSON.stringify(inner))}.!!` })).toEqual([
      { alg: "HS256" },
      { iss: "opa" },
      Buffer.from("inner").toString("hex"),
    ]);
    expect(await p(decode, { t: `${b64url(JSON.stringify({ cty: "JWT" }))}.${b64url(inner)}.x` })).toEqual([
      { alg: "HS256" },
      { iss: "opa" },
      Buffer.from("inner").toString("hex"),
    ]);
    // Another content type: the payload is JSON as usual.
    expect(await p(decode, { t: token({ cty: "jwt" }, { a: 1 }, "s") })).toEqual([{ cty: "jwt" }, { a: 1 }, "73"]);
  });

  test("decode errors are undefined", async () => {
    const h = b64url(JSON.stringify({ alg: "HS256" }));
    const pl = b64url(JSON.stringify({ a: 1 }));
    for (const t of [
      `${h}${pl}`, // no periods
      `${h}.${pl}`, // two sections
      `${h}.${pl}.x.y`, // four
      `${h}^%.${pl}.x`, // bad base64url
      `${h}.${pl}/.x`,
      `${h}.${pl}.x/`,
      `${b64url("[1]")}.${pl}.x`, // header not an object
      `${h}.${b64url("nope")}.x`, // payload not JSON
      `${h}.${b64url('"str"')}.x`,
      token({ alg: "HS256", enc: "A128GCM" }, { a: 1 }), // JWE
      token({ cty: 1 }, { a: 1 }),
    ]) {
      expect(await p(decode, { t })).toBeUndefined();
    }
    expect(await p(decode, { t: 1 })).toBeUndefined();
  });

  test("verify_hs256/384/512 agree with Node's HMAC, across keys and message lengths", async () => {
    const secrets = ["secret", "", "秘密の", "k".repeat(64), "k".repeat(129)];
    const payloads = [{}, { user: "alice", long: "x".repeat(300) }];
    const cases: Array<{ t: string; k: string; alg: string; want: boolean }> = [];
    for (const [alg, h] of [
      ["hs256", "sha256"],
      ["hs384", "sha384"],
      ["hs512", "sha512"],
    ]) {
      for (const k of secrets) {
        for (const pl of payloads) {
          const unsigned = `${b64url(JSON.stringify({ alg }))}.${b64url(JSON.stringify(pl))}`;
          const sig = createHmac(h, Buffer.from(k, "utf8")).update(unsigned).digest();
          cases.push({ t: `${unsigned}.${sig.toString("base64url")}`, k, alg, want: true });
          cases.push({ t: `${unsigned}.${sig.toString("base64url")}`, k: `${k}x`, alg, want: false });
          const tampered = Buffer.from(sig);
          tampered[0] ^= 1;
          cases.push({ t: `${unsigned}.${tampered.toString("base64url")}`, k, alg, want: false });
        }
      }
    }
    const src = `p := [ok |
      some c in input.cases
      ok := {"hs256": io.jwt.verify_hs256(c.t, c.k), "hs384": io.jwt.verify_hs384(c.t, c.k), "hs512": io.jwt.verify_hs512(c.t, c.k)}[c.alg]
    ]`;
    expect(await p(src, { cases })).toEqual(cases.map((c) => c.want));
  });

  test("verify_hs* errors are undefined", async () => {
    const rule = "p := io.jwt.verify_hs256(input.t, input.k)";
    expect(await p(rule, { t: "a.b", k: "secret" })).toBeUndefined();
    expect(await p(rule, { t: "nodots", k: "secret" })).toBeUndefined();
    expect(await p(rule, { t: "a.b.!!", k: "secret" })).toBeUndefined();
    expect(await p(rule, { t: "a.b.c", k: 1 })).toBeUndefined();
    expect(await p(rule, { t: ["a.b.c"], k: "secret" })).toBeUndefined();
    // The header is not decoded: any three sections with a bad signature are just false.
    expect(await p(rule, { t: "not json.at all.AAAA", k: "secret" })).toBe(false);
  });
});
