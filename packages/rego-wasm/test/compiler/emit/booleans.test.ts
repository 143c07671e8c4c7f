/**
 * Booleans in emitted code: true, false and null are the runtime's
 * singletons, read from globals, and an Equal/NotEqual right after the
 * MakeBoolean of one operand compares addresses instead of calling
 * rt_equal. Checked on the emitted code (which runtime helpers it calls)
 * and through evaluation against Rego's equality for every kind of value.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import { emitFunc, type EmitContext } from "../../../compiler/emit/emit";
import type { Func, Stmt } from "../../../compiler/plan/ir";

/** The runtime helpers the emitted body of `stmts` calls (locals 0..5 available). */
function helpersCalled(stmts: Stmt[]): Set<string> {
  const called = new Set<string>();
  const ctx: EmitContext = {
    rt: (name) => {
      called.add(name);
      return 0;
    },
    callee: () => ({ index: 0, prefix: [], builtin: false }),
    string: () => ({ ptr: 0, len: 0 }),
    message: () => 0,
    abort: 0,
    constant: () => 0,
    memo: { base: 0, slots: 0, funcs: 0 },
  };
  const func: Func = { name: "f", params: [0, 1], ret: 2, blocks: [{ stmts }], locals: 6, path: "data.f" };
  emitFunc(func, ctx);
  return called;
}

test("x != false and x == true right after their MakeBoolean compare addresses: no rt_bool, no rt_equal", () => {
  for (const type of ["Equal", "NotEqual"] as const) {
    for (const [a, b] of [
      [0, 3],
      [3, 0],
    ]) {
      const called = helpersCalled([
        { type: "MakeBoolean", value: type === "Equal", target: 3 },
        { type, a: a!, b: b! },
      ]);
      expect([type, a, [...called]]).toEqual([type, a, []]);
    }
  }
});

test("an Equal whose boolean was made earlier, not right before it, still calls rt_equal", () => {
  const called = helpersCalled([
    { type: "MakeBoolean", value: false, target: 3 },
    { type: "AssignVar", source: 0, target: 3 },
    { type: "NotEqual", a: 4, b: 3 },
  ]);
  expect(called).toEqual(new Set(["rt_equal"]));
  expect(helpersCalled([{ type: "MakeNull", target: 3 }])).toEqual(new Set());
});

test("== true, != false, == false and != true agree with Rego's equality for every kind of value", async () => {
  const source = `package t

r := [
	object.get(input, "x", "missing") == true,
	[1 | input.x == true],
	[1 | input.x != false],
	[1 | input.x == false],
	[1 | input.x != true],
	[1 | input.x],
	[1 | not input.x],
]
`;
  const policy = await loadPolicy(compile([{ file: "t.rego", source }], { entrypoints: ["t/r"] }).wasm);
  policy.setData({});
  const cases: Array<[unknown, unknown[]]> = [
    [true, [true, [1], [1], [], [], [1], []]],
    [false, [false, [], [], [1], [1], [], [1]]],
    [1, [false, [], [1], [], [1], [1], []]],
    [0, [false, [], [1], [], [1], [1], []]],
    ["true", [false, [], [1], [], [1], [1], []]],
    ["false", [false, [], [1], [], [1], [1], []]],
    [null, [false, [], [1], [], [1], [1], []]],
    [[false], [false, [], [1], [], [1], [1], []]],
    [{}, [false, [], [1], [], [1], [1], []]],
    [undefined, [false, [], [], [], [], [], [1]]],
  ];
  for (const [x, want] of cases) {
    const input = x === undefined ? {} : { x };
    const got = (policy.evaluate(input, "t/r") as Array<{ result: unknown }>)[0]?.result;
    expect([x, got]).toEqual([x, want]);
  }
});
