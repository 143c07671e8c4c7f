/**
 * walk (runtime module builtins/walk.ts): `bi_walk(x)` returns every
 * [path, value] pair of x as one array, the order OPA's topdown yields them:
 * the root first (path []), then depth first, arrays by index, objects and
 * sets in Rego's order, a set element being its own path segment.
 */
import { useRuntime } from "./arith-call";

const { call } = useRuntime();

test("scalars: only the root pair", () => {
  expect(call("walk", "1")).toBe("[[[], 1]]");
  expect(call("walk", "null")).toBe("[[[], null]]");
  expect(call("walk", "[]")).toBe("[[[], []]]");
});

test("nested arrays and objects, depth first", () => {
  expect(call("walk", '{"b": [true], "a": 1}')).toBe('[[[], {"a": 1, "b": [true]}], [["a"], 1], [["b"], [true]], [["b", 0], true]]');
  expect(call("walk", "[[1], 2]")).toBe("[[[], [[1], 2]], [[0], [1]], [[0, 0], 1], [[1], 2]]");
});

test("sets: the element is the path segment", () => {
  expect(call("walk", '{"x", ["y"]}')).toBe('[[[], {"x", ["y"]}], [["x"], "x"], [[["y"]], ["y"]], [[["y"], 0], "y"]]');
});

test("each pair has its own path (no sharing between siblings)", () => {
  const r = call("walk", '{"a": {"b": 1, "c": 2}}');
  expect(r).toBe('[[[], {"a": {"b": 1, "c": 2}}], [["a"], {"b": 1, "c": 2}], [["a", "b"], 1], [["a", "c"], 2]]');
});
