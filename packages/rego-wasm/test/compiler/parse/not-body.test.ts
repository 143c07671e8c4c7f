/**
 * `import future.keywords.not` (OPA v1.17): accepted, and enables negated
 * bodies `not { a; b }`, true when the body has no solution. Plain `not expr`
 * keeps its meaning: an expression whose nested calls are undefined is
 * negated as a whole (undefined operands make `not` succeed).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";

async function evaluate(source: string, input: unknown): Promise<unknown> {
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query: "x = data.negation.p" }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return policy.evaluate(input, "q");
}

const header = "package negation\nimport future.keywords.not\n";

test("not over a composite expression, with the import", async () => {
  const source = `${header}default p := false\np if {\n\tnot input.x + input.y == input.z\n}`;
  expect(await evaluate(source, { x: 1, y: 2, z: 3 })).toEqual([{ x: false }]);
  expect(await evaluate(source, { x: 1, y: 2, z: 0 })).toEqual([{ x: true }]);
  expect(await evaluate(source, {})).toEqual([{ x: true }]);
});

test("not { body }: true when some expression of the body fails", async () => {
  const source = `${header}default p := false\np if {\n\tnot { input.a; input.b }\n}`;
  expect(await evaluate(source, { a: true, b: false })).toEqual([{ x: true }]);
  expect(await evaluate(source, { a: true, b: true })).toEqual([{ x: false }]);
  expect(await evaluate(source, {})).toEqual([{ x: true }]);
});

test("not { body } sees outer vars and keeps its own local", async () => {
  const source = `${header}p contains r if {\n\tsome r in input.roles\n\tnot {\n\t\tx := input.banned[_]\n\t\tx == r\n\t}\n}`;
  expect(await evaluate(source, { roles: ["a", "b", "c"], banned: ["b"] })).toEqual([{ x: ["a", "c"] }]);
});

test("import future.keywords enables it too; a set after not is still a term", async () => {
  expect(await evaluate("package negation\nimport future.keywords\np if not { input.a; input.b }", { a: true })).toEqual([{ x: true }]);
  expect(await evaluate(`${header}p if not {1, 2} == {1}`, {})).toEqual([{ x: true }]);
});

test("without the import, not { ... } is not a body", () => {
  expect(() => compile([{ file: "t.rego", source: "package negation\np if not { input.a; input.b }" }], { entrypoints: ["negation/p"] })).toThrow(
    /rego_parse_error/,
  );
});

test("not { body } with ...: the modifier applies to the whole negated body", async () => {
  const source = `${header}default p := false\np if {\n\tnot { input.x == 1 } with input as {"x": 2}\n}`;
  expect(await evaluate(source, { x: 1 })).toEqual([{ x: true }]);
  const stays = `${header}default p := false\np if {\n\tnot { input.x == 1 } with input as {"x": 1}\n}`;
  expect(await evaluate(stays, { x: 2 })).toEqual([{ x: false }]);
});
