/**
 * rand.intn and uuid.rfc4122: host builtins (a Wasm module has no random
 * source) answered by EvaluationClock, which, as OPA, keeps one answer per
 * arguments within an evaluation and draws afresh at each `tick()`.
 *
 * Randomness checks draw from ranges of at least 2^40 values, so a chance
 * collision that would fail them has probability below 1e-10.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../compiler";
import { EvaluationClock } from "../../compiler/host";

const BIG = 2 ** 40;

/** An evaluator of `x = data.t.p`: each call is one evaluation (tick, then evaluate). */
async function evaluator(source: string): Promise<(input?: unknown) => unknown> {
  const wasm = compile([{ file: "r.rego", source }], { entrypoints: [{ name: "q", query: "x = data.t.p" }] }).wasm;
  const clock = new EvaluationClock();
  const policy = await loadPolicy(wasm, undefined, clock.builtins());
  policy.setData({});
  return (input: unknown = {}) => {
    clock.tick();
    const rs = policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q") as Array<{ x: unknown }>;
    return rs.length ? rs[0]!.x : undefined;
  };
}

async function once(source: string, input?: unknown): Promise<unknown> {
  return (await evaluator(source))(input);
}

describe("rand.intn", () => {
  test("the same (str, |n|) gives the same value within one evaluation, across rules too", async () => {
    const source = `package t
a := rand.intn("k", ${BIG})
b := rand.intn("k", ${BIG})
p := {
  "rands": count({rand.intn("k", ${BIG}) | numbers.range(1, 50)[_]}),
  "rules": a == b,
  "negated": rand.intn("k", -${BIG}) == a,
}`;
    expect(await once(source)).toEqual({ rands: 1, rules: true, negated: true });
  });

  test("other arguments draw other values", async () => {
    const keys = await once(`package t\np := count({rand.intn(sprintf("k%d", [i]), ${BIG}) | some i in numbers.range(1, 20)})`);
    expect(keys).toBe(20);
    const bounds = await once(`package t\np := count({rand.intn("k", ${BIG} + i) | some i in numbers.range(1, 20)})`);
    expect(bounds).toBe(20);
  });

  test("each evaluation draws afresh", async () => {
    const run = await evaluator(`package t\np := rand.intn("k", ${BIG})`);
    const values = [run(), run(), run()];
    expect(new Set(values).size).toBe(3);
  });

  test("values lie in [0, |n|); n = 0 gives 0", async () => {
    const source = `package t
p := {
  "small": {rand.intn(sprintf("k%d", [i]), 3) | some i in numbers.range(1, 200)},
  "negative": {rand.intn(sprintf("k%d", [i]), -3) | some i in numbers.range(1, 200)},
  "one": rand.intn("k", 1),
  "zero": rand.intn("k", 0),
}`;
    const r = (await once(source)) as Record<string, unknown>;
    // 200 draws from 3 values miss one with probability below 1e-34.
    expect(r.small).toEqual([0, 1, 2]);
    expect(r.negative).toEqual([0, 1, 2]);
    expect(r.one).toBe(0);
    expect(r.zero).toBe(0);
  });

  test("bounds beyond 2^48 (randomInt's limit) up to int64 work", async () => {
    const run = await evaluator(`package t\np := rand.intn("k", input.n)`);
    for (const n of [2 ** 48 - 1, 2 ** 48, 2 ** 50, 2 ** 62, -(2 ** 62)]) {
      const v = run({ n }) as number;
      expect(Number.isInteger(v)).toBe(true);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(Math.abs(n));
    }
  });

  test("a non-integer or out-of-int64 n, or a non-string str, is an error: undefined", async () => {
    const run = await evaluator(`package t\np := rand.intn(input.s, input.n)`);
    expect(run({ s: "k", n: 1.5 })).toBeUndefined();
    expect(run({ s: "k", n: "5" })).toBeUndefined();
    expect(run({ s: "k", n: 2 ** 64 })).toBeUndefined();
    expect(run({ s: 1, n: 5 })).toBeUndefined();
    expect(run({ s: "k", n: 1 })).toBe(0);
  });

  test("`with` mocks it by value or by function", async () => {
    const source = `package t
f(_, n) := n * 10
p := [a, b, c] if {
  a := rand.intn("k", 5) with rand.intn as 7
  b := rand.intn("k", 5) with rand.intn as f
  c := rand.intn("k", 1)
}`;
    expect(await once(source)).toEqual([7, 50, 0]);
  });
});

describe("uuid.rfc4122", () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test("a version 4 UUID, the same for the same key within one evaluation", async () => {
    const source = `package t
a := uuid.rfc4122("k")
p := {"uuids": {uuid.rfc4122("k") | numbers.range(1, 50)[_]}, "rule": a, "other": uuid.rfc4122("j")}`;
    const r = (await once(source)) as { uuids: string[]; rule: string; other: string };
    expect(r.uuids).toEqual([r.rule]);
    expect(r.rule).toMatch(V4);
    expect(r.other).toMatch(V4);
    expect(r.other).not.toBe(r.rule);
  });

  test("each evaluation draws afresh; any value is a key at run time, as in OPA", async () => {
    const run = await evaluator(`package t\np := uuid.rfc4122(input.key)`);
    const values = [run({ key: "k" }), run({ key: "k" }), run({ key: 1 })];
    expect(new Set(values).size).toBe(3);
    for (const v of values) expect(v).toMatch(V4);
  });

  test("`with` mocks it", async () => {
    expect(await once(`package t\np := u if u := uuid.rfc4122("k") with uuid.rfc4122 as "fixed"`)).toBe("fixed");
  });
});
