/**
 * Aggregates, type predicates, membership, sets, arrays and objects
 * (runtime modules builtins/aggregates.ts, types.ts, member.ts, sets.ts,
 * arrays.ts, objects.ts). Expectations follow OPA's topdown semantics and
 * the conformance families aggregates, typebuiltin, sets, union, array,
 * objectget, objectkeys, objectremove*, objectfilter*, objectunion, subset;
 * the subset family's cases are also run straight from the YAML below.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { conformanceFamilyDir } from "../../../compiler/conformance/cases";
import { useRuntime } from "./arith-call";

const c = useRuntime();
const { call } = c;

test("count", () => {
  expect(call("count", "[1, 2]")).toBe("2");
  expect(call("count", '{"a": 1}')).toBe("1");
  expect(call("count", "{1, 2, 3}")).toBe("3");
  expect(call("count", '"a\u{1F600}é"')).toBe("3"); // code points
  expect(call("count", "1")).toBeUndefined();
});

test("sum, product, max, min", () => {
  expect(call("sum", "[1, 2, 3.5]")).toBe("6.5");
  expect(call("sum", "{1, 2}")).toBe("3");
  expect(call("sum", "[]")).toBe("0");
  expect(call("sum", '[1, "a"]')).toBeUndefined();
  expect(call("sum", "[9223372036854775807, 1]")).toBe("9223372036854775808");
  expect(call("sum", "{9223372036854775807, 1, 2}")).toBe("9223372036854775810");
  expect(call("sum", "[-9223372036854775808, -1]")).toBe("-9223372036854775809");
  expect(call("product", "[18446744073709551617, 2]")).toBe("36893488147419103234");
  expect(call("product", "[1.5, 2]")).toBe("3");
  expect(call("product", "[2, 3, 4]")).toBe("24");
  expect(call("product", "set()")).toBe("1");
  expect(call("max", '[1, "a", null]')).toBe('"a"');
  expect(call("min", '[1, "a", null]')).toBe("null");
  expect(call("max", "{1, 2}")).toBe("2");
  expect(call("max", "[]")).toBeUndefined();
  expect(call("min", "set()")).toBeUndefined();
  expect(call("max", '"ab"')).toBeUndefined();
});

test("sort, all, any", () => {
  expect(call("sort", '[3, "a", null, [1], 1]')).toBe('[null, 1, 3, "a", [1]]');
  expect(call("sort", "{3, 1}")).toBe("[1, 3]");
  expect(call("sort", '{"a": 1}')).toBeUndefined();
  expect(call("all", "[true, true]")).toBe("true");
  expect(call("all", "[true, 1]")).toBe("false");
  expect(call("all", "[]")).toBe("true");
  expect(call("any", "{false, true}")).toBe("true");
  expect(call("any", "[]")).toBe("false");
  expect(call("any", "1")).toBeUndefined();
});

test("type predicates and type_name", () => {
  const samples: [string, string][] = [
    ["null", "null"],
    ["true", "boolean"],
    ["1.5", "number"],
    ['"x"', "string"],
    ["[1]", "array"],
    ['{"a": 1}', "object"],
    ["{1}", "set"],
  ];
  for (const [v, name] of samples) {
    expect(call("type_name", v)).toBe(`"${name}"`);
    for (const [, other] of samples) expect(call(`is_${other}`, v)).toBe(String(other === name));
  }
});

test("internal.member_2 and internal.member_3", () => {
  expect(call("internal.member_2", "2", "[1, 2]")).toBe("true");
  expect(call("internal.member_2", "2", "{1, 2}")).toBe("true");
  expect(call("internal.member_2", "2", '{"a": 2}')).toBe("true");
  expect(call("internal.member_2", '"a"', '{"a": 2}')).toBe("false"); // values, not keys
  expect(call("internal.member_2", "1", '"1"')).toBe("false");
  expect(call("internal.member_3", '"a"', "2", '{"a": 2}')).toBe("true");
  expect(call("internal.member_3", "1", '"y"', '["x", "y"]')).toBe("true");
  expect(call("internal.member_3", "0", '"y"', '["x", "y"]')).toBe("false");
  expect(call("internal.member_3", '"1"', '"y"', '["x", "y"]')).toBe("false");
  expect(call("internal.member_3", "1", "1", "{1}")).toBe("true");
  expect(call("internal.member_3", "1", "2", "{1}")).toBe("false");
  expect(call("internal.member_3", "0", "1", "1")).toBe("false");
});

test("and, or, intersection, union", () => {
  expect(call("and", "{1, 2, 3}", "{2, 3, 4}")).toBe("{2, 3}");
  expect(call("or", "{1, 3}", "{2, 3}")).toBe("{1, 2, 3}");
  expect(call("and", "{1}", "[1]")).toBeUndefined();
  expect(call("intersection", "{{1, 2}, {2, 3}}")).toBe("{2}");
  expect(call("intersection", "set()")).toBe("set()");
  expect(call("union", "{{1, 2}, {2, 3}, set()}")).toBe("{1, 2, 3}");
  expect(call("union", "set()")).toBe("set()");
  expect(call("union", "{[1]}")).toBeUndefined();
  expect(call("intersection", "[{1}]")).toBeUndefined();
});

test("array builtins", () => {
  expect(call("array.concat", "[1, 2]", "[3]")).toBe("[1, 2, 3]");
  expect(call("array.concat", "[1]", "{2}")).toBeUndefined();
  expect(call("array.slice", "[1, 2, 3, 4]", "1", "3")).toBe("[2, 3]");
  expect(call("array.slice", "[1, 2, 3]", "-5", "10")).toBe("[1, 2, 3]");
  expect(call("array.slice", "[1, 2, 3]", "2", "1")).toBe("[]");
  expect(call("array.slice", "[1, 2, 3]", "5", "9")).toBe("[]");
  expect(call("array.slice", "[1, 2, 3]", "0.5", "1")).toBeUndefined();
  expect(call("array.reverse", "[1, [2], 3]")).toBe("[3, [2], 1]");
  expect(call("array.flatten", "[[[1], [2, 3, []]], [[4, 5]]]")).toBe("[[1], [2, 3, []], [4, 5]]");
  expect(call("array.flatten", '[[1, 2], "string", [3, {"a": "b"}], 4.5, [6, [7, 8]]]')).toBe('[1, 2, "string", 3, {"a": "b"}, 4.5, 6, [7, 8]]');
  expect(call("array.flatten", "42")).toBeUndefined();
});

test("object.get", () => {
  expect(call("object.get", '{"a": 1}', '"a"', "0")).toBe("1");
  expect(call("object.get", '{"a": 1}', '"b"', "0")).toBe("0");
  expect(call("object.get", '{"a": {"b": [10, {"c": 3}]}}', '["a", "b", 1, "c"]', "0")).toBe("3");
  expect(call("object.get", '{"a": {"b": [10]}}', '["a", "b", "0"]', '"d"')).toBe('"d"');
  expect(call("object.get", '{"a": {1, 2}}', '["a", 2]', "0")).toBe("2");
  expect(call("object.get", '{"a": 1}', "[]", "0")).toBe('{"a": 1}');
  expect(call("object.get", '{["a"]: 1}', '["a"]', "0")).toBe("0"); // an array key is a path
  expect(call("object.get", "[1]", "0", "0")).toBeUndefined();
});

test("object.keys, remove, filter", () => {
  expect(call("object.keys", '{"b": 1, 1: 2}')).toBe('{1, "b"}');
  expect(call("object.keys", "[1]")).toBeUndefined();
  expect(call("object.remove", '{"a": 1, "b": 2, 3: 4}', '["a", 3]')).toBe('{"b": 2}');
  expect(call("object.remove", '{"a": 1, "b": 2}', '{"b"}')).toBe('{"a": 1}');
  expect(call("object.remove", '{"a": 1, "b": 2}', '{"b": 0}')).toBe('{"a": 1}');
  expect(call("object.remove", '{"a": 1}', '"a"')).toBeUndefined();
  expect(call("object.filter", '{"a": 1, "b": 2, 3: 4}', '["a", 3, "z"]')).toBe('{3: 4, "a": 1}');
  expect(call("object.filter", '{"a": {"x": 1}, "b": 2}', '{"a": 0}')).toBe('{"a": {"x": 1}}');
  expect(call("object.filter", "[1]", '["a"]')).toBeUndefined();
});

test("object.union and object.union_n", () => {
  expect(call("object.union", '{"a": 1, "b": {"c": 1, "d": 2}}', '{"b": {"c": 3}, "e": 5}')).toBe('{"a": 1, "b": {"c": 3, "d": 2}, "e": 5}');
  expect(call("object.union", '{"a": {"b": 1}}', '{"a": 2}')).toBe('{"a": 2}');
  expect(call("object.union", '{"a": 2}', '{"a": {"b": 1}}')).toBe('{"a": {"b": 1}}');
  expect(call("object.union", '{"a": 1}', "[1]")).toBeUndefined();
  expect(call("object.union_n", "[]")).toBe("{}");
  expect(call("object.union_n", '[{"a": {"b": 2}}, {"a": 4}, {"a": {"c": 3}}]')).toBe('{"a": {"c": 3}}');
  expect(call("object.union_n", '[{"a": 1}, {"a": {"b": 1}}, {"a": {"c": 1}}]')).toBe('{"a": {"b": 1, "c": 1}}');
  expect(call("object.union_n", '[{"a": 1}, 2]')).toBeUndefined();
});

test("object.subset", () => {
  expect(call("object.subset", '{"a": 1, "b": {"c": [1, 2, 3], "d": {4, 5}}}', '{"b": {"c": [2, 3], "d": {4}}}')).toBe("true");
  expect(call("object.subset", "[1, 2, 3, 4]", "[2, 3]")).toBe("true");
  expect(call("object.subset", "[1, 2, 3, 4]", "[2, 4]")).toBe("false");
  expect(call("object.subset", "[1, 1, 2]", "[1, 2]")).toBe("true");
  expect(call("object.subset", "[3, 1, 2]", "{1, 2}")).toBe("true");
  expect(call("object.subset", "[1, 1]", "{1, 2}")).toBe("true"); // OPA counts duplicates in super
  expect(call("object.subset", "[]", "set()")).toBe("false"); // OPA checks after each element
  expect(call("object.subset", "{1, 2}", "{2}")).toBe("true");
  expect(call("object.subset", "{1}", "[1]")).toBeUndefined();
});

// ------------------------------------------------------------ subset family, from the YAML

interface YamlCase {
  note: string;
  modules: string[];
  want_result?: unknown[];
}

/** The value text of `name := <literal>` (up to the next blank line) in a module. */
function literal(mod: string, name: string): string {
  const m = new RegExp(`^${name} := ([\\s\\S]*?)\\n\\n`, "m").exec(mod);
  if (!m) throw new Error(`no ${name} in module`);
  return m[1];
}

describe("conformance: subset", () => {
  const dir = conformanceFamilyDir("subset");
  const cases: YamlCase[] = readdirSync(dir).flatMap((f) => parse(readFileSync(path.join(dir, f), "utf8")).cases);
  test.each(cases.map((k) => [k.note, k] as [string, YamlCase]))("%s", (_note, k) => {
    const mod = k.modules[0];
    const a = literal(mod, "A");
    const b = literal(mod, "B");
    const body = /test_result if \{([\s\S]*?)\n\}/.exec(mod)![1];
    const results: Record<string, string | undefined> = {
      AsubB: call("object.subset", a, b),
      BsubA: call("object.subset", b, a),
    };
    // Every case expects test_result to be true: each body line must hold.
    expect(k.want_result).toEqual([{ x: true }]);
    for (const raw of body.split("\n")) {
      const line = raw.replace(/#.*/, "").trim();
      if (!line) continue;
      const neg = line.startsWith("not ");
      const name = neg ? line.slice(4) : line;
      if (neg) expect(results[name] === undefined || results[name] === "false").toBe(true);
      else expect(results[name]).toBe("true");
    }
  });
});
