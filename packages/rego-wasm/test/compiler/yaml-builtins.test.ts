/**
 * yaml.marshal, yaml.unmarshal and yaml.is_valid: the module dispatches them
 * to the host, where the npm SDK answers with its own JS builtins. Where
 * OPA's definition differs from the SDK's function, the policy decides
 * before asking: yaml.is_valid is false (not undefined) for a non-string.
 */
import { resultSet } from "./evaluate-rego";

const evaluate = resultSet;

test("yaml.is_valid: true or false for strings (the SDK parses them), false for every other type", async () => {
  const docs = ["a: 1", "a: {", '{"json": "ok"}', 7, null, true, [1], { a: 1 }];
  const result = await evaluate("package t\np := [x | some d in input.docs; yaml.is_valid(d, x)]", { docs });
  expect(result).toEqual([{ x: [true, false, true, false, false, false, false, false] }]);
});

test("yaml.is_valid of a non-string is false in a rule body too, and undefined operands stay undefined", async () => {
  expect(await evaluate("package t\np := x if yaml.is_valid(input.foo, x)", { foo: 1 })).toEqual([{ x: false }]);
  expect(await evaluate("package t\np := true if not yaml.is_valid(input.foo)", { foo: 1 })).toEqual([{ x: true }]);
  expect(await evaluate("package t\np := x if yaml.is_valid(input.missing, x)", { foo: 1 })).toEqual([]);
});

test("yaml.is_valid can still be mocked with `with`", async () => {
  const source = 'package t\np := [x, y] if { x := yaml.is_valid(1) with yaml.is_valid as "mocked"; y := yaml.is_valid("a: 1") }';
  expect(await evaluate(source, {})).toEqual([{ x: ["mocked", true] }]);
});

test("yaml.unmarshal and yaml.marshal round-trip through the SDK's builtins", async () => {
  const source = 'package t\np := [yaml.unmarshal("a: [1, two]"), yaml.unmarshal(yaml.marshal({"b": true}))]';
  expect(await evaluate(source, {})).toEqual([{ x: [{ a: [1, "two"] }, { b: true }] }]);
});
