/**
 * Which Dots read a constant input path once per memo frame
 * (compiler/emit/input-refs.ts), and that policies reading the same input
 * refs from many rules, inside and outside `with`, answer as before.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import { inputRefPaths } from "../../../compiler/emit/input-refs";
import type { Block, DotStmt, Stmt } from "../../../compiler/plan/ir";

const block = (...stmts: Stmt[]): Block => ({ stmts });
const str = (index: number, target: number): Stmt => ({ type: "MakeString", index, target });
const dot = (source: number, key: number, target: number): DotStmt => ({ type: "Dot", source, key, target });
const paths = (...blocks: Block[]) => [...inputRefPaths(blocks).values()];

test("a chain of string keys from the input is one path per Dot; rule bodies may reuse its locals", () => {
  const body = () => block({ type: "IsDefined", source: 0 }, str(3, 2), dot(0, 2, 4), str(5, 5), dot(4, 5, 6));
  expect(paths(body(), body())).toEqual(["/3", "/3/5", "/3", "/3/5"]);
});

test("no path when a local in the chain can hold anything else, the input is written, or the function opens a with", () => {
  // The key local also holds another string; the source local is reset; a number key.
  expect(paths(block(str(3, 2), dot(0, 2, 4)), block(str(4, 2), dot(0, 2, 6)))).toEqual([]);
  expect(paths(block(str(3, 2), dot(0, 2, 4), { type: "ResetLocal", target: 4 }, str(5, 5), dot(4, 5, 6)))).toEqual(["/3"]);
  expect(paths(block({ type: "MakeNumberInt", value: 0, target: 2 }, dot(0, 2, 4)))).toEqual([]);
  // Not the input: data (local 1), or a local dotted from both.
  expect(paths(block(str(3, 2), dot(1, 2, 4)))).toEqual([]);
  expect(paths(block(str(3, 2), dot(0, 2, 4)), block(str(3, 2), dot(1, 2, 4), str(5, 5), dot(4, 5, 6)))).toEqual(["/3"]);
  // Input written, or a with in the function.
  expect(paths(block({ type: "AssignVar", source: 1, target: 0 }, str(3, 2), dot(0, 2, 4)))).toEqual([]);
  expect(paths(block(str(3, 2), dot(0, 2, 4), { type: "MemoPush" }, { type: "MemoPop" }))).toEqual([]);
});

test("input refs read by many rules answer as before, inside and outside with, defined or not", async () => {
  const source = `package t

a := input.x.y

g := input.x.y

missing if not input.x.z

h := [w, z] if {
	v := input.x
	w := [v.y, g, a] with input.x as {"y": 9}
	z := [g, a, v.y]
}

k := [a, g, input.x.y, m] if true

m := r if r := input.x.y with input as {"x": {"y": 3}}

p := [input.x.y, q] if true

q := r if r := [input.x.y, a] with input.x.y as 4
`;
  const policy = await loadPolicy(compile([{ file: "t.rego", source }], { entrypoints: ["t/h", "t/k", "t/p", "t/missing", "t/a"] }).wasm);
  policy.setData({});
  const result = (input: unknown, entrypoint: string) => (policy.evaluate(input, entrypoint) as Array<{ result: unknown }>)[0]?.result;
  for (const [y, z] of [
    [1, 1],
    [2, undefined],
  ]) {
    const input = { x: z === undefined ? { y } : { y, z } };
    expect(result(input, "t/h")).toEqual([
      [y, 9, 9],
      [y, y, y],
    ]);
    expect(result(input, "t/k")).toEqual([y, y, y, 3]);
    expect(result(input, "t/p")).toEqual([y, [4, 4]]);
    expect(result(input, "t/missing")).toBe(z === undefined ? true : undefined);
  }
  // No input, and an input without x: every ref undefined, nothing left over from the evaluation before.
  expect(result(undefined, "t/a")).toBeUndefined();
  expect(result({ w: 1 }, "t/a")).toBeUndefined();
  expect(result({ x: { y: 5 } }, "t/a")).toBe(5);
});
