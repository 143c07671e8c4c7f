/**
 * The rule index (compiler/plan/rule-index.ts): rules picked by a lookup
 * on the input must answer exactly what trying each rule in turn answers,
 * which is OPA's evaluation. Each expected value below is written from
 * OPA's rules of evaluation (complete rules conflict on two values, partial
 * sets collect every body, `else` takes the first body that holds, Rego
 * equality has 1 == 1.0 and "1" != 1, an undefined ref fails the
 * expression), not from this compiler's output. Every policy runs through
 * @open-policy-agent/opa-wasm, and the plan is checked to contain the
 * Switch it is meant to exercise, so no case passes by not being indexed.
 * A last test compares indexed and unindexed compilations of generated
 * rule sets on generated inputs.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import type { Block, Policy, SwitchStmt } from "../../../compiler/plan/ir";

interface Compiled {
  policy: Policy;
  /** The query's result set; an abort is thrown as an Error carrying the runtime's message. */
  eval(input?: unknown): unknown;
  /** Like eval, with the input given as JSON text (number spellings such as 1.0 kept). */
  evalText(text: string): unknown;
}

async function build(source: string, query: string, ruleIndex = true): Promise<Compiled> {
  const { wasm, policy } = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query }], ruleIndex });
  const sdk = await loadPolicy(wasm);
  sdk.setData({});
  const run = (input: ArrayBuffer | undefined): unknown => {
    try {
      return sdk.evaluate(input as ArrayBuffer, "q");
    } catch (e) {
      throw new Error((e as { message?: string }).message ?? String(e), { cause: e });
    }
  };
  const text = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;
  return {
    policy,
    eval: (input) => run(input === undefined ? undefined : text(JSON.stringify(input))),
    evalText: (s) => run(text(s)),
  };
}

/** `x` of the query `x = data.t.<rule>`, or "undefined". */
async function ruleValue(c: Compiled, input?: unknown): Promise<unknown> {
  const rs = c.eval(input) as Array<{ x: unknown }>;
  return rs.length === 0 ? "undefined" : rs[0]!.x;
}

/** Every Switch of the policy's functions, nested ones included. */
function switches(policy: Policy): SwitchStmt[] {
  const out: SwitchStmt[] = [];
  const walk = (blocks: Block[]): void => {
    for (const b of blocks) {
      for (const s of b.stmts) {
        if (s.type === "Switch") {
          out.push(s);
          walk(s.cases.map((c) => c.block));
        } else if (s.type === "Block") walk(s.blocks);
        else if (s.type === "Scan" || s.type === "Not") walk([s.block]);
      }
    }
  };
  for (const f of policy.funcs) walk(f.blocks);
  return out;
}

function routeTable(n: number): string {
  const rules = Array.from({ length: n }, (_, i) => `allow if {\n\tinput.method == "GET"\n\tinput.path == "/r/${i}"\n\t"reader" in input.roles\n}`);
  return `package t\n\ndefault allow := false\n\n${rules.join("\n\n")}\n`;
}

test("a route table: the lookup picks the route's rule; anything else falls to the default", async () => {
  const c = await build(routeTable(200), "x = data.t.allow");
  const [sw, ...rest] = switches(c.policy);
  expect(rest).toEqual([]);
  expect(sw!.cases).toHaveLength(200);
  const req = (path: unknown, extra: object = {}) => ({ method: "GET", path, roles: ["reader"], ...extra });
  expect(await ruleValue(c, req("/r/0"))).toBe(true);
  expect(await ruleValue(c, req("/r/117"))).toBe(true);
  expect(await ruleValue(c, req("/r/199"))).toBe(true);
  // The rule's other expressions still decide: the lookup only filters.
  expect(await ruleValue(c, req("/r/117", { roles: ["writer"] }))).toBe(false);
  expect(await ruleValue(c, req("/r/117", { method: "POST" }))).toBe(false);
  expect(await ruleValue(c, req("/r/200"))).toBe(false);
  // Only a string equals a string: no number, array or object value picks a route.
  expect(await ruleValue(c, req(117))).toBe(false);
  expect(await ruleValue(c, req(["/r/117"]))).toBe(false);
  expect(await ruleValue(c, req({ p: "/r/117" }))).toBe(false);
  // Undefined refs: no path, no input document at all.
  expect(await ruleValue(c, { method: "GET", roles: ["reader"] })).toBe(false);
  expect(await ruleValue(c, undefined)).toBe(false);
  expect(await ruleValue(c, "not an object")).toBe(false);
});

test("a partial set collects every body that holds, indexed or not, in any run", async () => {
  const c = await build(
    `package t
reasons contains "a1" if input.kind == "a"
reasons contains "a2" if { input.kind == "a"; input.level > 1 }
reasons contains "b" if input.kind == "b"
reasons contains "any" if input.level > 0
reasons contains "a3" if input.kind == "a"
reasons contains x if { input.kind == "c"; some x in input.extra }
`,
    "x = data.t.reasons",
  );
  // Two runs of comparisons around the rule that compares nothing.
  expect(switches(c.policy)).toHaveLength(2);
  expect(await ruleValue(c, { kind: "a", level: 2 })).toEqual(["a1", "a2", "a3", "any"]);
  expect(await ruleValue(c, { kind: "a", level: 1 })).toEqual(["a1", "a3", "any"]);
  expect(await ruleValue(c, { kind: "b", level: 0 })).toEqual(["b"]);
  expect(await ruleValue(c, { kind: "c", level: 1, extra: ["u", "v"] })).toEqual(["any", "u", "v"]);
  expect(await ruleValue(c, { kind: "z", level: 1 })).toEqual(["any"]);
  // A partial set with no body holding is the empty set, never undefined.
  expect(await ruleValue(c, {})).toEqual([]);
});

test("complete rules: two values among the picked bodies still conflict; equal values do not", async () => {
  const c = await build(
    `package t
p := 1 if input.x == "a"
p := 2 if input.x == "a"
p := 3 if input.x == "b"
p := 3 if input.x == "b"
p := 4 if input.x == "c"
`,
    "x = data.t.p",
  );
  expect(switches(c.policy)).toHaveLength(1);
  await expect(ruleValue(c, { x: "a" })).rejects.toThrow(/eval_conflict_error: complete rules must not produce multiple outputs/);
  expect(await ruleValue(c, { x: "b" })).toBe(3);
  expect(await ruleValue(c, { x: "c" })).toBe(4);
  expect(await ruleValue(c, { x: "d" })).toBe("undefined");
});

test("partial objects: keys from the picked bodies merge, a key given two values conflicts", async () => {
  const c = await build(
    `package t
o[k] := 1 if { input.t == "x"; k := "one" }
o[k] := 2 if { input.t == "x"; k := "two" }
o[k] := 3 if { input.t == "y"; k := "one" }
o[k] := 4 if { input.t == "z"; k := "one" }
o[k] := 5 if { input.t == "z"; k := "one" }
`,
    "x = data.t.o",
  );
  expect(switches(c.policy)).toHaveLength(1);
  expect(await ruleValue(c, { t: "x" })).toEqual({ one: 1, two: 2 });
  expect(await ruleValue(c, { t: "y" })).toEqual({ one: 3 });
  await expect(ruleValue(c, { t: "z" })).rejects.toThrow(/eval_conflict_error: object keys must be unique/);
  expect(await ruleValue(c, { t: "w" })).toEqual({});
});

test("else chains keep their order; a chain with a body that compares nothing always runs", async () => {
  const source = `package t
grade := "gold" if input.tier == "g"
else := "silver" if input.tier == "s"
else := "bronze" if input.tier == "b"

grade := "custom" if input.tier == "c"

label := "first" if input.n == 1
else := "fallback"

label := "second" if input.n == 2
label := "third" if input.n == 3
`;
  const grade = await build(source, "x = data.t.grade");
  // The chain runs under each of its three constants.
  expect(switches(grade.policy).map((s) => s.cases.length)).toEqual([4]);
  expect(await ruleValue(grade, { tier: "g" })).toBe("gold");
  expect(await ruleValue(grade, { tier: "s" })).toBe("silver");
  expect(await ruleValue(grade, { tier: "b" })).toBe("bronze");
  expect(await ruleValue(grade, { tier: "c" })).toBe("custom");
  expect(await ruleValue(grade, { tier: "x" })).toBe("undefined");

  const label = await build(source, "x = data.t.label");
  // Only the last two rules are indexed: the chain's last body compares nothing.
  expect(switches(label.policy).map((s) => s.cases.length)).toEqual([2]);
  expect(await ruleValue(label, { n: 1 })).toBe("first");
  // The chain yields "fallback" whenever n is not 1, so a second rule holding conflicts with it.
  await expect(ruleValue(label, { n: 2 })).rejects.toThrow(/eval_conflict_error/);
  await expect(ruleValue(label, { n: 3 })).rejects.toThrow(/eval_conflict_error/);
  expect(await ruleValue(label, { n: 4 })).toBe("fallback");
  expect(await ruleValue(label, {})).toBe("fallback");
});

test('numbers compare as Rego does: 1 == 1.0 == 1e0, "1" != 1, exact beyond 2^53', async () => {
  const c = await build(
    `package t
kind := "one" if input.n == 1
kind := "two" if input.n == 2.0
kind := "string one" if input.n == "1"
kind := "big" if input.n == 100000000000000000000001
kind := "half" if input.n == 0.5
kind := "minus" if input.n == -3
`,
    "x = data.t.kind",
  );
  expect(switches(c.policy)[0]!.cases).toHaveLength(6);
  const kind = async (json: string) => {
    const rs = c.evalText(`{"n": ${json}}`) as Array<{ x: unknown }>;
    return rs.length === 0 ? "undefined" : rs[0]!.x;
  };
  expect(await kind("1")).toBe("one");
  expect(await kind("1.0")).toBe("one");
  expect(await kind("1e0")).toBe("one");
  expect(await kind("10e-1")).toBe("one");
  expect(await kind("2")).toBe("two");
  expect(await kind("2.000")).toBe("two");
  expect(await kind('"1"')).toBe("string one");
  expect(await kind('"2"')).toBe("undefined");
  expect(await kind("100000000000000000000001")).toBe("big");
  expect(await kind("100000000000000000000000")).toBe("undefined");
  expect(await kind("0.50")).toBe("half");
  expect(await kind("5e-1")).toBe("half");
  expect(await kind("-3.0")).toBe("minus");
  expect(await kind("3")).toBe("undefined");
  expect(await kind("true")).toBe("undefined");
  expect(await kind("[1]")).toBe("undefined");
});

test("literals Rego finds equal share one case, whatever their spelling", async () => {
  const c = await build(
    `package t
s contains "int" if input.n == 1
s contains "decimal" if input.n == 1.0
s contains "exponent" if input.n == 0.1e1
s contains "two" if input.n == 2
`,
    "x = data.t.s",
  );
  expect(switches(c.policy)[0]!.cases).toHaveLength(2);
  expect(await ruleValue(c, { n: 1 })).toEqual(["decimal", "exponent", "int"]);
  expect(await ruleValue(c, { n: 2 })).toEqual(["two"]);
});

test('booleans and null are keys of their own: true != "true", null != missing', async () => {
  const c = await build(
    `package t
mode := "on" if input.flag == true
mode := "off" if input.flag == false
mode := "unset" if input.flag == null
mode := "text" if input.flag == "true"
`,
    "x = data.t.mode",
  );
  expect(switches(c.policy)[0]!.cases).toHaveLength(4);
  expect(await ruleValue(c, { flag: true })).toBe("on");
  expect(await ruleValue(c, { flag: false })).toBe("off");
  expect(await ruleValue(c, { flag: null })).toBe("unset");
  expect(await ruleValue(c, { flag: "true" })).toBe("text");
  expect(await ruleValue(c, { flag: 0 })).toBe("undefined");
  expect(await ruleValue(c, {})).toBe("undefined");
});

test("with input: the lookup reads the replaced input, and the outer one again outside the with", async () => {
  const c = await build(
    `package t
allowed if input.path == "/a"
allowed if input.path == "/c"
allowed if input.path == "/d"

via_with if allowed with input as {"path": "/d"}
via_field if allowed with input.path as "/c"
refused_with if allowed with input as {"path": "/nowhere"}
both if {
	allowed
	not allowed with input as {"path": "/nowhere"}
	allowed with input.path as "/d"
}
r_parts := {"via_with": via_with, "via_field": via_field, "both": both}
`,
    "x = data.t.r_parts",
  );
  expect(switches(c.policy).length).toBeGreaterThan(0);
  expect(await ruleValue(c, { path: "/a" })).toEqual({ via_with: true, via_field: true, both: true });
  // The outer input matches no route: only the bodies under a replaced input hold.
  expect(await ruleValue(c, { path: "/zz" })).toEqual("undefined");
  const parts = await build(
    `package t
allowed if input.path == "/a"
allowed if input.path == "/c"
allowed if input.path == "/d"
via_with if allowed with input as {"path": "/d"}
via_field if allowed with input.path as "/c"
refused_with if allowed with input as {"path": "/nowhere"}
outer if allowed
`,
    "a = data.t.via_with; b = data.t.via_field; not data.t.refused_with; not data.t.outer",
  );
  expect(parts.eval({ path: "/zz" })).toEqual([{ a: true, b: true }]);
  expect(parts.eval({ path: "/a" })).toEqual([]);
});

test("a comparison after a print, a rule reference or a with is not used: those still run", async () => {
  const log = jest.spyOn(console, "log").mockImplementation(() => {});
  try {
    const c = await build(
      `package t
p if { print("one"); input.x == "a" }
p if { print("two"); input.x == "b" }
p if { input.x == "c"; print("three") }
p if { input.x == "d"; print("four") }
`,
      "x = data.t.p",
    );
    // Only the last two compare before anything observable.
    expect(switches(c.policy).map((s) => s.cases.length)).toEqual([2]);
    expect(await ruleValue(c, { x: "c" })).toBe(true);
    expect(log.mock.calls.map((a) => a[0])).toEqual(["one", "two", "three"]);
  } finally {
    log.mockRestore();
  }

  // q conflicts whenever input.y holds: each body of p evaluates q before its comparison.
  const q = await build(
    `package t
q := 1 if input.y
q := 2 if input.y
p if { q; input.x == "a" }
p if { q; input.x == "b" }
`,
    "x = data.t.p",
  );
  expect(switches(q.policy)).toEqual([]);
  await expect(ruleValue(q, { x: "z", y: true })).rejects.toThrow(/eval_conflict_error/);

  const w = await build(
    `package t
p if input.x == "a" with input.x as "a"
p if input.x == "b" with input.x as "b"
`,
    "x = data.t.p",
  );
  expect(switches(w.policy)).toEqual([]);
  expect(await ruleValue(w, { x: "z" })).toBe(true);

  // A with before the comparison: it may route a call to a replacement (a host builtin, a function), so nothing after it counts.
  const before = await build(
    `package t
p if { input.y == 1 with input.y as 1; input.x == "a" }
p if { input.y == 1 with input.y as 1; input.x == "b" }
`,
    "x = data.t.p",
  );
  expect(switches(before.policy)).toEqual([]);
  expect(await ruleValue(before, { x: "b" })).toBe(true);
  expect(await ruleValue(before, { x: "c" })).toBe("undefined");

  // Host builtins (here the clock) may throw in the host: a comparison after one is not used either.
  const host = compile([{ file: "t.rego", source: `package t\np if { time.now_ns() > 0; input.x == "a" }\np if { time.now_ns() > 0; input.x == "b" }\n` }], {
    entrypoints: ["t/p"],
  });
  expect(switches(host.policy)).toEqual([]);
});

test("functions: scalar argument patterns pick the rules; outputs for the same arguments still must agree", async () => {
  const source = `package t
f("a") := "A" if input.m == "GET"
f("b") := "B"
f("c") := "C" if input.m == "POST"
f(x) := "any" if x == "d"
f(1) := "one"
f(1.0) := "one"
g("x") := 1
g("y") := 2
g(y) := 3 if y == "x"
calls contains [arg, v] if {
	some arg in ["a", "b", "c", "d", "z", "1", 1, 1.0, true]
	v := f(arg)
}
`;
  const c = await build(source, "x = data.t.calls");
  // f's first three rules: one lookup on the argument; the rest in turn.
  expect(switches(c.policy).map((s) => s.cases.length)).toEqual([3]);
  expect(await ruleValue(c, { m: "GET" })).toEqual([
    [1, "one"],
    ["a", "A"],
    ["b", "B"],
    ["d", "any"],
  ]);
  expect(await ruleValue(c, { m: "POST" })).toEqual([
    [1, "one"],
    ["b", "B"],
    ["c", "C"],
    ["d", "any"],
  ]);
  const gx = await build(source, 'x = data.t.g("x")');
  await expect(ruleValue(gx, {})).rejects.toThrow(/functions must not produce multiple outputs for same inputs/);
  const gy = await build(source, 'x = data.t.g("y")');
  expect(await ruleValue(gy, {})).toBe(2);

  const h = await build(
    `package t
h("GET", "/a") := 1
h("GET", "/b") := 2
h("POST", "/a") := 3
h(_, "/c") := 4
calls contains [m, p, v] if {
	some m in ["GET", "POST", "PUT"]
	some p in ["/a", "/b", "/c"]
	v := h(m, p)
}
`,
    "x = data.t.calls",
  );
  // The path tells the rules apart most; within "/a", the method.
  expect(switches(h.policy).map((s) => s.cases.length)).toEqual([3, 2]);
  expect(await ruleValue(h, {})).toEqual([
    ["GET", "/a", 1],
    ["GET", "/b", 2],
    ["GET", "/c", 4],
    ["POST", "/a", 3],
    ["POST", "/c", 4],
    ["PUT", "/c", 4],
  ]);
});

test("nested lookups: within a route, the method picks among the route's rules", async () => {
  const methods = ["GET", "PUT", "DELETE"];
  const rules: string[] = [];
  for (let i = 0; i < 20; i++) for (const m of methods) rules.push(`verb := "${m.toLowerCase()}-${i}" if { input.path == "/r/${i}"; input.method == "${m}" }`);
  const c = await build(
    `package t
${rules.join("\n")}
`,
    "x = data.t.verb",
  );
  const sw = switches(c.policy);
  expect(sw[0]!.cases).toHaveLength(20);
  expect(sw.filter((s) => s.cases.length === 3)).toHaveLength(20);
  expect(await ruleValue(c, { path: "/r/7", method: "PUT" })).toBe("put-7");
  expect(await ruleValue(c, { path: "/r/19", method: "DELETE" })).toBe("delete-19");
  expect(await ruleValue(c, { path: "/r/7", method: "PATCH" })).toBe("undefined");
  expect(await ruleValue(c, { method: "GET" })).toBe("undefined");
});

/** A small seeded generator (mulberry32), so a failure names a reproducible seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REFS = ["input.a", "input.b", "input.c.d"];
const CONSTANTS = ['"x"', '"y"', '"z"', "1", "1.0", "2", '"1"', "true", "false", "null"];
const INPUT_VALUES = ['"x"', '"y"', '"z"', "1", "1.0", "2", '"1"', "true", "false", "null", "[1]", '{"d": "x"}', "0.5"];

/** A body: comparisons in either order, with other expressions, effects among them, around them. */
function generatedBody(pick: <T>(xs: T[]) => T, rnd: () => number, label: string): string {
  const exprs: string[] = [];
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.55) exprs.push(rnd() < 0.8 ? `${pick(REFS)} == ${pick(CONSTANTS)}` : `${pick(CONSTANTS)} = ${pick(REFS)}`);
    else if (r < 0.65) exprs.push(`not ${pick(REFS)} == ${pick(CONSTANTS)}`);
    else if (r < 0.72) exprs.push(`some v${i} in [1, 2]`);
    else if (r < 0.8) exprs.push(`print("${label}")`);
    else if (r < 0.86) exprs.push("helper");
    else if (r < 0.92) exprs.push(`${pick(REFS)} == ${pick(CONSTANTS)} with input.a as ${pick(CONSTANTS)}`);
    else exprs.push(`count([1]) == 1`);
  }
  return exprs.join("; ");
}

function generatedPolicy(seed: number): string {
  const rnd = prng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const lines = ["package t", "helper if input.h == 1", "helper if input.h == 1.0", "helper := false if input.h == 2"];
  const count = 3 + Math.floor(rnd() * 10);
  for (let i = 0; i < count; i++) {
    const body = generatedBody(pick, rnd, `p${i}`);
    const value = rnd() < 0.7 ? pick(['"one"', '"two"', "3"]) : "input.a";
    if (rnd() < 0.2) lines.push(`p := ${value} if { ${body} } else := "else${i}" if { ${generatedBody(pick, rnd, `e${i}`)} }`);
    else lines.push(`p := ${value} if { ${body} }`);
    lines.push(`s contains ${i} if { ${generatedBody(pick, rnd, `s${i}`)} }`);
    lines.push(`o[${pick(['"k1"', '"k2"'])}] := ${pick(["1", "2"])} if { ${generatedBody(pick, rnd, `o${i}`)} }`);
    lines.push(`f(${rnd() < 0.7 ? pick(CONSTANTS) : "x"}) := ${pick(['"one"', '"two"'])} if { ${generatedBody(pick, rnd, `f${i}`)} }`);
  }
  lines.push(`calls contains [arg, v] if { some arg in [${CONSTANTS.join(", ")}, "other"]; v := f(arg) }`);
  if (rnd() < 0.5) lines.push(`default p := "default"`);
  return lines.join("\n") + "\n";
}

function generatedInput(rnd: () => number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const fields: string[] = [];
  if (rnd() < 0.8) fields.push(`"a": ${pick(INPUT_VALUES)}`);
  if (rnd() < 0.8) fields.push(`"b": ${pick(INPUT_VALUES)}`);
  if (rnd() < 0.6) fields.push(`"c": ${rnd() < 0.8 ? `{"d": ${pick(INPUT_VALUES)}}` : pick(INPUT_VALUES)}`);
  if (rnd() < 0.5) fields.push(`"h": ${pick(["1", "2", "1.0"])}`);
  return `{${fields.join(", ")}}`;
}

/** Each document of a generated policy as its own entrypoint. */
const DOCUMENTS = ["p", "s", "o", "calls"];

interface Generated {
  policy: Policy;
  evaluate(inputText: string, doc: string): unknown;
}

async function buildGenerated(source: string, ruleIndex: boolean): Promise<Generated> {
  const entrypoints = DOCUMENTS.map((d) => ({ name: d, query: `x = data.t.${d}` }));
  const { wasm, policy } = compile([{ file: "t.rego", source }], { entrypoints, ruleIndex });
  const sdk = await loadPolicy(wasm);
  sdk.setData({});
  return { policy, evaluate: (text, doc) => sdk.evaluate(new TextEncoder().encode(text).buffer as ArrayBuffer, doc) };
}

/** The result set, or the error's message, and what print() wrote meanwhile. */
function outcome(c: Generated, inputText: string, doc: string): { result: unknown; printed: unknown[] } {
  const log = jest.spyOn(console, "log").mockImplementation(() => {});
  try {
    let result: unknown;
    try {
      result = c.evaluate(inputText, doc);
    } catch (e) {
      result = `error: ${(e as { message?: string }).message ?? String(e)}`;
    }
    return { result, printed: log.mock.calls.map((a) => a[0]) };
  } finally {
    log.mockRestore();
  }
}

test("generated rule sets answer the same with and without the index (results, conflicts, prints)", async () => {
  let indexedSwitches = 0;
  const outcomes = { values: 0, errors: 0 };
  for (let seed = 1; seed <= 40; seed++) {
    const source = generatedPolicy(seed);
    const indexed = await buildGenerated(source, true);
    const plain = await buildGenerated(source, false);
    expect(switches(plain.policy)).toEqual([]);
    indexedSwitches += switches(indexed.policy).length;
    const rnd = prng(1000 + seed);
    for (let i = 0; i < 25; i++) {
      const input = generatedInput(rnd);
      for (const doc of DOCUMENTS) {
        const want = outcome(plain, input, doc);
        outcomes[typeof want.result === "string" ? "errors" : "values"]++;
        // Labelled, so a failure shows the seed, the input and the document.
        expect({ seed, input, doc, ...outcome(indexed, input, doc) }).toEqual({ seed, input, doc, ...want });
      }
    }
  }
  // The generated sets exercise the index, and mostly answer values, not conflicts.
  expect(indexedSwitches).toBeGreaterThan(80);
  expect(outcomes.values).toBeGreaterThan(outcomes.errors);
});
