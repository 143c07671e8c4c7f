/**
 * Semantics of the evaluation-cost work (their speed is measured by
 * bench/eval-profile.bench.ts, never here): undefined rule values are
 * memoised per evaluation (frames grow past their first slots), constants
 * built once per instance survive heap rewinds, input strings the parser
 * takes from those constants read like any other, the parse stack holds
 * wide and deep inputs, and the fast string paths (contains, strings.count,
 * lower/upper, string-keyed lookups) agree with the plain definitions.
 */
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import { BinaryInputWriter, BINARY_EVAL_EXPORT, RESULT_CODE } from "../../../compiler/binary-input";

async function load(source: string, entrypoints: string[]): Promise<LoadedPolicy> {
  const policy = await loadPolicy(compile([{ file: "t.rego", source }], { entrypoints }).wasm);
  policy.setData({});
  return policy;
}

const result = (policy: LoadedPolicy, input: unknown, entrypoint: string): unknown =>
  (policy.evaluate(input, entrypoint) as Array<{ result: unknown }>)[0]?.result;

test("an undefined rule is evaluated once per evaluation, however often it is referenced", async () => {
  const policy = await load(
    `package t

x if {
	print("x evaluated")
	input.missing
}

y if {
	not x
	not x
	not x
}
`,
    ["t/y"],
  );
  const log = jest.spyOn(console, "log").mockImplementation(() => {});
  try {
    expect(result(policy, { a: 1 }, "t/y")).toBe(true);
    expect(log.mock.calls.filter(([line]) => line === "x evaluated")).toHaveLength(1);
    // The memo belongs to one evaluation: the next one evaluates x again.
    expect(result(policy, { a: 1 }, "t/y")).toBe(true);
    expect(log.mock.calls.filter(([line]) => line === "x evaluated")).toHaveLength(2);
  } finally {
    log.mockRestore();
  }
});

test("no evaluation sees the rule values memoised by the one before, whichever ABI path runs it", async () => {
  // deny and admin are memoised (deny referenced twice); a stale slot would
  // answer the previous input's value: an allow for the wrong user.
  const policy = await load(
    `package t

admin if input.user == "admin"

deny if not admin

allow if {
	not deny
	not deny
}
`,
    ["t/allow"],
  );
  const sdk = policy as unknown as {
    mem: WebAssembly.Memory;
    dataAddr: number;
    dataHeapPtr: number;
    wasmInstance: { exports: Record<string, (...args: number[]) => number> };
  };
  const ex = sdk.wasmInstance.exports;
  const writer = new BinaryInputWriter(sdk.mem);
  const cstring = (at: number) => {
    const bytes = new Uint8Array(sdk.mem.buffer);
    return Buffer.from(bytes.buffer).toString("utf8", at, bytes.indexOf(0, at));
  };
  const paths: Record<string, (input: unknown) => string> = {
    opa_eval: (input) => JSON.stringify(policy.evaluate(input, "t/allow")),
    eval: (input) => {
      ex.opa_heap_ptr_set!(sdk.dataHeapPtr);
      const text = Buffer.from(JSON.stringify(input));
      const at = ex.opa_malloc!(text.length);
      new Uint8Array(sdk.mem.buffer).set(text, at);
      const ctx = ex.opa_eval_ctx_new!();
      ex.opa_eval_ctx_set_input!(ctx, ex.opa_json_parse!(at, text.length));
      ex.opa_eval_ctx_set_data!(ctx, sdk.dataAddr);
      ex.eval!(ctx);
      return cstring(ex.opa_json_dump!(ex.opa_eval_ctx_get_result!(ctx)));
    },
    [BINARY_EVAL_EXPORT]: (input) => {
      const at = (sdk.dataHeapPtr + 3) & ~3;
      const length = writer.write(input, at);
      const code = ex[BINARY_EVAL_EXPORT]!(0, sdk.dataAddr, at, length, at + length);
      return code === RESULT_CODE.empty ? "[]" : code === RESULT_CODE.true ? '[{"result":true}]' : `code ${code}`;
    },
  };
  const names = Object.keys(paths);
  for (let i = 0; i < 18; i++) {
    const path = names[i % 3]!;
    const user = [0, 1, 3, 4, 8].includes(i % 9) ? "admin" : "bob";
    const want = user === "admin" ? '[{"result":true}]' : "[]";
    expect([i, path, user, paths[path]!({ user })]).toEqual([i, path, user, want]);
  }
});

test("an undefined rule stays undefined under with, and defined outside it", async () => {
  const policy = await load(
    `package t

x if input.flag

r := [a, b] if {
	a := x with input as {"flag": true}
	b := count([1 | x])
}
`,
    ["t/r"],
  );
  expect(result(policy, {}, "t/r")).toEqual([true, 0]);
});

test("constants built at instantiation survive heap rewinds and large inputs", async () => {
  const policy = await load(
    `package t

greeting := "hello, wörld"

out := {
	"s": greeting,
	"n": 1.5e3,
	"i": 42,
	"list": [greeting, "x"],
	"obj": {greeting: 7},
	"seen": input.big[0],
}
`,
    ["t/out"],
  );
  const want = { s: "hello, wörld", n: 1500, i: 42, list: ["hello, wörld", "x"], obj: { "hello, wörld": 7 } };
  for (let round = 0; round < 5; round++) {
    // A large input overwrites the heap above the rewind mark each time.
    const big = Array.from({ length: 2000 }, (_, i) => `value-${round}-${i}`);
    expect(result(policy, { big }, "t/out")).toEqual({ ...want, seen: `value-${round}-0` });
  }
});

test("composite constants are shared across uses and evaluations and never changed by what reads them", async () => {
  const policy = await load(
    `package t

base := {"b": [1, 2], "s": {"k", "j", "k"}, "a": {"x": 2}}

roles := ["admin", "member"]

# Every way a rule body may take a constant apart or build on it.
out := {
	"base": base,
	"again": {"b": [1, 2], "a": {"x": 2}, "s": {"j", "k"}},
	"union": object.union(base, {"a": {"y": 3}, "c": input.c}),
	"concat": array.concat(roles, [input.c]),
	"patched": json.patch(base, [{"op": "add", "path": "/b/-", "value": input.c}]),
	"removed": object.remove(base, ["s"]),
	"set": {r | some r in roles} | {input.c},
	"sorted": sort(array.concat([input.c], roles)),
	"under_with": under_with,
	"empty": [[], {}, set()],
	"extra": extra,
}

extra contains x if some x in roles

extra contains input.c

under_with := [b, e] if {
	b := base with input.c as "w"
	e := extra with input.c as "w"
}
`,
    ["t/out"],
  );
  const base = { a: { x: 2 }, b: [1, 2], s: ["j", "k"] };
  for (const c of ["zed", "admin", "0"]) {
    expect(result(policy, { c }, "t/out")).toEqual({
      base,
      again: base,
      union: { a: { x: 2, y: 3 }, b: [1, 2], c, s: ["j", "k"] },
      concat: ["admin", "member", c],
      patched: { ...base, b: [1, 2, c] },
      removed: { a: { x: 2 }, b: [1, 2] },
      set: [...new Set(["admin", "member", c])].sort(),
      sorted: [c, "admin", "member"].sort(),
      under_with: [base, ["admin", "member", "w"]],
      empty: [[], {}, []],
      extra: [...new Set(["admin", "member", c])].sort(),
    });
  }
});

test("contains and strings.count agree with a plain search at every offset and length", async () => {
  const policy = await load(
    `package t

r := [contains(input.s, input.n), strings.count(input.s, input.n)]
`,
    ["t/r"],
  );
  const units = ["a", "b", '"', "é", "😀"];
  const cases: Array<[string, string]> = [];
  for (let len = 0; len <= 13; len++) {
    const s = Array.from({ length: len }, (_, i) => units[(i * 7 + len) % 3]).join("");
    for (let n = 0; n <= 3; n++) for (let at = 0; at + n <= len; at++) cases.push([s, s.slice(at, at + n)]);
    cases.push([s, 'ba"'], [s, "zz"], [s + "é😀", "😀"], [s + "é😀", "é"]);
  }
  for (const [s, n] of cases) {
    const count = n === "" ? [...s].length + 1 : s.split(n).length - 1;
    expect([s, n, result(policy, { s, n }, "t/r")]).toEqual([s, n, [s.includes(n), count]]);
  }
});

test("lower and upper: ASCII fast path and the Unicode mapping", async () => {
  const policy = await load(`package t\n\nr := [lower(input.s), upper(input.s)]\n`, ["t/r"]);
  // (No special casing like ß -> SS: Go maps rune by rune, so JS is not the reference there.)
  for (const s of ["", "abc", "ABC", "MiXeD-Case_09", "ÉCOLE été", "x😀Y"]) {
    expect(result(policy, { s }, "t/r")).toEqual([s.toLowerCase(), s.toUpperCase()]);
  }
});

test("lookups by string key and set membership, with keys of mixed types", async () => {
  const policy = await load(
    `package t

obj := {1: "one", "a": "A", "ab": "AB", "abcdefgh": "long", "abcdefgi": "long2", null: "null", "": "empty"}

s := {1, "a", "abcdefgh", [1], null}

r := [obj.a, obj.ab, obj.abcdefgh, obj.abcdefgi, obj[""], obj[1], obj[null], "abcdefgh" in s, "abcdefgx" in s, 1 in s, [1] in s, object.get(obj, "zz", "none")]
`,
    ["t/r"],
  );
  expect(result(policy, {}, "t/r")).toEqual(["A", "AB", "long", "long2", "empty", "one", "null", true, false, true, true, "none"]);
});

test("string lookups in small and large objects and sets: the same key by address, by a copy, and missing", async () => {
  // Input keys the parser took from the policy's constants are found by
  // address; a key built at run time (concat) is an equal string elsewhere in
  // memory and must be found all the same, as must keys of collections built
  // by the policy. Sizes on both sides of the address scan's limit.
  const policy = await load(
    `package t

small_keys := ["actor", "route", "id", "member"]

big_keys := ["actor", "route", "id", "member", "k4", "k5", "k6", "k7", "k8", "k9"]

lookups(obj, set) := [obj.actor, obj[concat("", ["ac", "tor"])], obj.member, object.get(obj, "absent", "none"), object.get(obj, concat("", ["me", "mbe"]), "none"), "route" in set, concat("", ["ro", "ute"]) in set, "absent" in set, 1 in set]

r := {
	"input_small": lookups(input.small, {k | some k, _ in input.small}),
	"input_big": lookups(input.big, {k | some k, _ in input.big}),
	"built_small": lookups({k: upper(k) | some k in small_keys}, {k | some k in small_keys} | {1}),
	"built_big": lookups({k: upper(k) | some k in big_keys}, {k | some k in big_keys} | {1}),
}
`,
    ["t/r"],
  );
  const small = { actor: "ACTOR", route: "ROUTE", id: "ID", member: "MEMBER", 1: "number-like key" };
  const big = { ...small, k4: 4, k5: 5, k6: 6, k7: 7, k8: 8, k9: 9 };
  const got = result(policy, { small, big }, "t/r");
  const fromInput = ["ACTOR", "ACTOR", "MEMBER", "none", "none", true, true, false, false];
  const built = ["ACTOR", "ACTOR", "MEMBER", "none", "none", true, true, false, true];
  expect(got).toEqual({ input_small: fromInput, input_big: fromInput, built_small: built, built_big: built });
});

test("input strings spelled like the policy's constants are those constants, across evaluations and data changes", async () => {
  const policy = await load(
    `package t

names := {"actor": "A", "route": "R", "member": "M"}

r := {
	"lookups": [names[k] | some k in input.keys],
	"keyed": [input.obj.actor, input.obj.route, object.get(input.obj, "member", "none")],
	"equal": [input.keys[0] == "actor", input.keys[1] == "route", input.keys[2] == "member"],
	"data": [x | x := data.actor],
}
`,
    ["t/r"],
  );
  // Interned (ASCII, short), escaped, non-ASCII and long spellings of the same
  // or similar strings must all read alike: interning is an identity, never a meaning.
  const input = {
    keys: ["actor", "route", "member", "actors", "acto", "Actor"],
    obj: { route: 2, actor: 1, "memb\u00e9r": 3 },
  };
  const want = { lookups: ["A", "R", "M"], keyed: [1, 2, "none"], equal: [true, true, true], data: [] };
  for (let round = 0; round < 3; round++) {
    expect(result(policy, input, "t/r")).toEqual(want);
    // The same text with escapes: not interned, equal all the same.
    const escaped = new TextEncoder().encode(JSON.stringify(input).replace('"actor"', '"\\u0061ctor"').replace('"route"', '"rout\\u0065"'));
    expect((policy.evaluate(escaped.buffer, "t/r") as Array<{ result: unknown }>)[0].result).toEqual(want);
    // New data rewinds the heap below the previous data: the constants (and their table) stay.
    policy.setData({ actor: `round ${round}`, filler: "z".repeat(50_000) });
    expect(result(policy, input, "t/r")).toEqual({ ...want, data: [`round ${round}`] });
    policy.setData({});
  }
});

test("inputs with many elements at many depths parse whole (the parse stack grows and unwinds)", async () => {
  const policy = await load(`package t\n\nr := [count(input.wide), input.wide[999], count(input.obj), input.obj.k150, input.deep, input.mixed]\n`, ["t/r"]);
  const obj = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
  let deep: unknown = ["leaf", { a: [1, 2, 3] }];
  for (let i = 0; i < 200; i++) deep = [i, deep, { i, v: [i] }];
  const mixed = { b: [[], {}, [{}], { x: [] }], a: [1, { z: 1, y: [2, 3], x: {} }, "s"], c: {} };
  const wide = Array.from({ length: 1000 }, (_, i) => ({ i, tags: [`t${i}`] }));
  expect(result(policy, { wide, obj, deep, mixed }, "t/r")).toEqual([1000, { i: 999, tags: ["t999"] }, 300, 150, deep, mixed]);
});

test("rule values are memoised past a frame's first slots, inside and outside with", async () => {
  // 150 rules: func ids run well past the 64 slots a memo frame starts with.
  const rules = Array.from({ length: 150 }, (_, i) => `r${i} := input.base + ${i}`).join("\n");
  const sum = Array.from({ length: 150 }, (_, i) => `r${i}`).join(", ");
  const policy = await load(
    `package t\n\n${rules}\n\nall := [${sum}]\n\nout := [sum(all), sum(all) + count(all), x] if {\n\tx := sum(all) with input.base as 1\n}\n`,
    ["t/out"],
  );
  const total = (base: number) => 150 * base + (149 * 150) / 2;
  for (const base of [0, 10, -3]) expect(result(policy, { base }, "t/out")).toEqual([total(base), total(base) + 150, total(1)]);
});
