/** Engine: one bundle through @open-policy-agent/opa-wasm — data, entrypoints, falsy inputs, the host clock, aborts. */
import { BinaryInputWriter, binaryInputJson } from "@portcullis/rego-wasm";
import { Engine, type EvaluationTexts } from "../../pdp/engine";
import { PdpError } from "../../pdp/errors";
import { bundleOf } from "./fixtures";

const REGO = `package t

echo := input

now := time.now_ns()

# The same now twice, with work between the two reads.
now_twice := [a, b] if {
	a := time.now_ns()
	count(numbers.range(1, 20000)) > 0
	b := time.now_ns()
}

greeting := data.config.greeting

conflict := 1 if input.boom
conflict := 2 if input.boom
`;

const entrypoints = ["t/echo", "t/now", "t/now_twice", "t/greeting", "t/conflict"];

async function engine(): Promise<Engine> {
  return Engine.load(bundleOf({ rego: [REGO], entrypoints, data: { config: { greeting: "hello" } }, revision: "e1" }), "test");
}

describe("Engine", () => {
  test("knows its revision, source, digest and entrypoints, and sees the bundle's data", async () => {
    const e = await engine();
    expect(e.revision).toBe("e1");
    expect(e.source).toBe("test");
    expect(e.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(e.entrypoints).toEqual([...entrypoints].sort());
    expect(e.evaluate("t/greeting", {})).toBe("hello");
  });

  test.each([false, 0, "", null, { a: [1] }])("passes the input %j through unchanged, falsy ones included", async (input) => {
    expect((await engine()).evaluate("t/echo", input)).toEqual(input);
  });

  test("hands back the texts it evaluated: the input as written, the result value as dumped", async () => {
    const e = await engine();
    const input = { name: "Zoë <admin>", n: [1, 2.5, -3], nested: { b: true, a: null } };
    const texts: EvaluationTexts = {};
    const value = e.evaluate("t/echo", input, texts);
    expect(texts.input).toBe(JSON.stringify(input));
    expect(texts.inputBinary).toBeUndefined();
    expect(JSON.parse(texts.result!)).toEqual(value);
    expect(value).toEqual(input);

    const undefinedResult: EvaluationTexts = {};
    expect(e.evaluate("t/conflict", {}, undefinedResult)).toBeUndefined();
    expect(undefinedResult).toEqual({ input: "{}", result: undefined });
  });

  test("with the binary input asked for, hands back the bytes the policy read (their text is the input's JSON) instead of the text", async () => {
    const e = await engine();
    const input = { name: "Zoë <admin> \ud800", n: [1, 2.5, -3, -0, 2 ** 53], nested: { b: true, a: null, u: undefined } };
    const texts: EvaluationTexts = { binaryInput: true };
    const value = e.evaluate("t/echo", input, texts);
    expect(texts.input).toBeUndefined();
    expect(binaryInputJson(texts.inputBinary!)).toBe(JSON.stringify(input));
    expect(JSON.parse(texts.result!)).toEqual(value);
    expect(value).toEqual({ name: "Zoë <admin> \ufffd", n: [1, 2.5, -3, 0, 2 ** 53], nested: { b: true, a: null } });

    const undefinedResult: EvaluationTexts = { binaryInput: true };
    expect(e.evaluate("t/conflict", {}, undefinedResult)).toBeUndefined();
    expect(binaryInputJson(undefinedResult.inputBinary!)).toBe("{}");
    expect(undefinedResult.result).toBeUndefined();

    // An input the writer declines (toJSON) keeps the JSON path: its text comes back.
    const dated = { at: new Date(0), name: "x" };
    const declined: EvaluationTexts = { binaryInput: true };
    expect(e.evaluate("t/echo", dated, declined)).toEqual({ at: "1970-01-01T00:00:00.000Z", name: "x" });
    expect(declined.input).toBe(JSON.stringify(dated));
    expect(declined.inputBinary).toBeUndefined();
  });

  test("a remembered result hands back its own text: results one byte apart, each seen twice, each with its exact text", async () => {
    const e = await engine();
    for (let round = 0; round < 2; round++) {
      for (const owner of ["u_alice", "u_alicf", "u_Alice"]) {
        const texts: EvaluationTexts = { binaryInput: true };
        const value = e.evaluate("t/echo", { owner, roles: ["member"] }, texts);
        expect(value).toEqual({ owner, roles: ["member"] });
        expect(texts.result).toBe(`{"owner":"${owner}","roles":["member"]}`);
      }
    }
  });

  test("trails remembered by their id bytes: two trails of the same length, seen in turn, each stay their own", async () => {
    const rego = `package tr

d := "a" if {
	input.a
} else := "b" if {
	input.b
}
`;
    const e = await Engine.load(bundleOf({ rego: [rego], entrypoints: ["tr/d"], revision: "tr1" }), "test");
    expect(e.recordsTrail).toBe(true);
    const trailOf = (input: object) => {
      const texts: EvaluationTexts = {};
      const value = e.evaluate("tr/d", input, texts);
      return { value, kinds: texts.trail?.entries.map((entry) => entry.kind ?? "body") };
    };
    for (let round = 0; round < 3; round++) {
      expect(trailOf({ a: true })).toEqual({ value: "a", kinds: ["body"] });
      expect(trailOf({ b: true })).toEqual({ value: "b", kinds: ["else"] });
    }
  });

  test("boolean and undefined results (read without JSON.parse) are right on both paths, texts included", async () => {
    const e = await engine();
    for (const value of [true, false]) {
      const texts: EvaluationTexts = {};
      expect(e.evaluate("t/echo", value, texts)).toBe(value);
      expect(texts.result).toBe(String(value)); // a result code: its text all the same
      // An ArrayBuffer input takes the context path (the decision log's mask/drop).
      expect(e.evaluate("t/echo", new TextEncoder().encode(JSON.stringify(value)).buffer)).toBe(value);
    }
    expect(e.evaluate("t/conflict", new TextEncoder().encode("{}").buffer)).toBeUndefined();
    // The next evaluation after a shared boolean result set still parses a fresh one.
    expect(e.evaluate("t/echo", { allow: true })).toEqual({ allow: true });
  });

  test("inputs reach the policy whole: astral characters, lone surrogates (as U+FFFD) and inputs larger than memory", async () => {
    const e = await engine();
    expect(e.evaluate("t/echo", { s: "Zoë 😀 \ud800!" })).toEqual({ s: "Zoë 😀 \ufffd!" });
    const big = { names: Array.from({ length: 40_000 }, (_, i) => `name-${i}-é`) }; // ~700 KB of JSON: memory grows
    expect(e.evaluate("t/echo", big)).toEqual(big);
    expect(e.evaluate("t/echo", { after: "growth" })).toEqual({ after: "growth" });
  });

  test("input goes in the binary encoding and means what its JSON means; what it leaves out takes the JSON path", async () => {
    const e = await engine();
    const write = jest.spyOn(BinaryInputWriter.prototype, "write");
    try {
      for (const input of [{ s: "Zoë 😀 \ud800!", n: [0, -0, 1.5, 2 ** 53, NaN], u: undefined }, ["a", null], "x", 7, true]) {
        write.mockClear();
        const binary = e.evaluate("t/echo", input);
        expect(write).toHaveBeenCalledTimes(1);
        expect(write.mock.results[0]?.value).toBeGreaterThan(0);
        expect(binary).toEqual(e.evaluate("t/echo", new TextEncoder().encode(JSON.stringify(input)).buffer)); // JSON text: the JSON path
      }
      // A Date (toJSON) and a class instance: the writer declines, JSON.stringify's meaning holds.
      write.mockClear();
      expect(e.evaluate("t/echo", { at: new Date(0) })).toEqual({ at: "1970-01-01T00:00:00.000Z" });
      expect(
        e.evaluate(
          "t/echo",
          new (class {
            user = "bob";
          })(),
        ),
      ).toEqual({ user: "bob" });
      expect(write.mock.results.map((r) => r.value)).toEqual([-1, -1]);
      expect(e.evaluate("t/conflict", { boom: false })).toBeUndefined();
      expect(() => e.evaluate("t/conflict", { boom: true })).toThrow(expect.objectContaining({ code: "policy_error" }));
    } finally {
      write.mockRestore();
    }
  });

  test("an undefined rule is undefined, not an error", async () => {
    expect((await engine()).evaluate("t/conflict", {})).toBeUndefined();
  });

  test("time.now_ns comes from the host clock, read per evaluation", async () => {
    const e = await engine();
    const before = Date.now() * 1e6;
    const now = e.evaluate("t/now", {}) as number;
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now() * 1e6);
    const [a, b] = e.evaluate("t/now_twice", {}) as number[];
    expect(b).toBe(a);
    expect(e.evaluate("t/now", {}) as number).toBeGreaterThanOrEqual(now);
  });

  test("an abort and an unknown entrypoint are policy_error; the engine keeps working", async () => {
    const e = await engine();
    expect(() => e.evaluate("t/conflict", { boom: true })).toThrow(PdpError);
    expect(() => e.evaluate("t/nope", {})).toThrow(expect.objectContaining({ code: "policy_error" }));
    expect(e.evaluate("t/echo", { ok: 1 })).toEqual({ ok: 1 });
  });

  test("the evaluator answers undefined for an entrypoint the bundle lacks", async () => {
    const e = await engine();
    expect(e.evaluator("system/log/mask", {})).toBeUndefined();
    expect(e.evaluator("t/greeting", {})).toBe("hello");
  });

  test("a repeated result is parsed once and shared frozen; a different input still gets its own result", async () => {
    const e = await engine();
    const first = e.evaluate("t/echo", { user: "alice", roles: ["member"] }) as { roles: string[] };
    const again = e.evaluate("t/echo", { user: "alice", roles: ["member"] });
    expect(again).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.roles)).toBe(true);
    expect(() => first.roles.push("admin")).toThrow(TypeError);
    expect(e.evaluate("t/echo", { user: "bob", roles: ["member"] })).toEqual({ user: "bob", roles: ["member"] });
    expect(e.evaluate("t/echo", { user: "alice", roles: ["member"] })).toEqual({ user: "alice", roles: ["member"] });
  });

  test("bytes that are not a bundle are bundle_invalid", async () => {
    await expect(Engine.load(Buffer.from("x"), "test")).rejects.toMatchObject({ code: "bundle_invalid" });
  });

  test("an evaluation that would grow memory past the cap fails, and later evaluations still see their input", async () => {
    // A deny-by-`not` policy: evaluated without its input it would allow. Past 2 GiB
    // of memory an input could silently fail to reach the module; the 1 GiB cap
    // makes the huge evaluation fail instead, and memory stays addressable.
    const rego = `package m
allow if not deny
deny if input.user != "admin"
deny if count(numbers.range(1, input.n)) > 0
`;
    const e = await Engine.load(bundleOf({ rego: [rego], entrypoints: ["m/allow"], revision: "m1" }), "test");
    expect(e.evaluate("m/allow", { user: "admin" })).toBe(true);
    expect(() => e.evaluate("m/allow", { user: "admin", n: 200_000_000 })).toThrow(PdpError);
    expect(e.evaluate("m/allow", { user: "bob" })).toBeUndefined();
    expect(e.evaluate("m/allow", { user: "admin" })).toBe(true);
  }, 60_000);
});
