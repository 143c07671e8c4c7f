/**
 * JSON builtins (runtime modules builtins/json.ts and json-patch.ts):
 * marshalling as Go's encoding/json does it, unmarshal/is_valid, json.filter,
 * json.remove and json.patch. The jsonpatch family's suites (the RFC 6902
 * examples and json-patch-tests, as embedded in OPA's conformance case) run
 * straight from the YAML below, with the pass rule of that case's policy.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { conformanceFamilyDir } from "../../../compiler/conformance/cases";
import { useRuntime } from "./arith-call";

const c = useRuntime();
const { call } = c;
/** JSON string literal of s as Rego text. */
const q = (s: string): string => JSON.stringify(s);

test("json.marshal", () => {
  expect(call("json.marshal", '[{"foo": {1, 2, 3}}]')).toBe(q('[{"foo":[1,2,3]}]'));
  expect(call("json.marshal", '{"b": 1, "a": null, 2: true, [1]: "x"}')).toBe(q('{"2":true,"[1]":"x","a":null,"b":1}'));
  expect(call("json.marshal", "{10: 1, 9: 2}")).toBe(q('{"10":1,"9":2}')); // Go sorts the key strings
  expect(call("json.marshal", q('<a&b>\u2028\n\t\u0001"\\'))).toBe(q('"\\u003ca\\u0026b\\u003e\\u2028\\n\\t\\u0001\\"\\\\"'));
  expect(call("json.marshal", q("é\u{1F600}"))).toBe(q('"é\u{1F600}"'));
  expect(call("json.marshal", "1.5")).toBe(q("1.5"));
});

test("json.marshal copies strings of every length exactly (short copies by hand, long ones in bulk)", () => {
  // Lengths around the 8-byte steps and the 64-byte switch, with an escape at the start, middle or end.
  for (let len = 0; len <= 140; len += len < 20 ? 1 : 7) {
    const plain = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(4).slice(0, len);
    for (const value of [plain, `<${plain}`, `${plain.slice(0, len >> 1)}"${plain.slice(len >> 1)}`, `${plain}\n`]) {
      const text = JSON.stringify(value).replace(/</g, "\\u003c");
      expect(call("json.marshal", q(value))).toBe(q(text));
      expect(call("json.marshal", `{${q(value)}: [${q(value)}, ${q(plain)}]}`)).toBe(q(`{${text}:[${text},${JSON.stringify(plain)}]}`));
    }
  }
});

test("json.marshal_with_options", () => {
  const v = "[1234567890, 2000000, 1000000000]";
  expect(call("json.marshal_with_options", v, '{"indent": "  "}')).toBe(q("[\n  1234567890,\n  2000000,\n  1000000000\n]"));
  expect(call("json.marshal_with_options", v, "{}")).toBe(q("[1234567890,2000000,1000000000]"));
  expect(call("json.marshal_with_options", v, '{"pretty": true}')).toBe(q("[\n\t1234567890,\n\t2000000,\n\t1000000000\n]"));
  expect(call("json.marshal_with_options", v, '{"pretty": false, "prefix": "NO!", "indent": "BAD!"}')).toBe(q("[1234567890,2000000,1000000000]"));
  expect(call("json.marshal_with_options", '{"foo": "bar", "bar": "baz"}', '{"prefix": "JSON => "}')).toBe(
    q('JSON => {\nJSON => \t"bar": "baz",\nJSON => \t"foo": "bar"\nJSON => }'),
  );
  expect(call("json.marshal_with_options", "[]", '{"indent": "    ", "prefix": "---"}')).toBe(q("---[]"));
  expect(call("json.marshal_with_options", "[[[]], {}]", '{"indent": " "}')).toBe(q("[\n [\n  []\n ],\n {}\n]"));
  expect(call("json.marshal_with_options", "[]", '{"indent": "    ", "include_winning_lottery_numbers": true}')).toBeUndefined();
  expect(call("json.marshal_with_options", "[]", '{"pretty": 1}')).toBeUndefined();
  expect(call("json.marshal_with_options", "[]", '{"indent": 1}')).toBeUndefined();
});

test("json.unmarshal and json.is_valid", () => {
  expect(call("json.unmarshal", q('[{"foo":[1,2,3]}]'))).toBe('[{"foo": [1, 2, 3]}]');
  expect(call("json.unmarshal", q(' {"a": 1, "a": 2} '))).toBe('{"a": 2}');
  expect(call("json.unmarshal", q("[1,2,3"))).toBeUndefined();
  expect(call("json.unmarshal", q("[1] x"))).toBeUndefined();
  expect(call("json.unmarshal", "1")).toBeUndefined();
  expect(call("json.is_valid", q('{"json": "ok"}'))).toBe("true");
  expect(call("json.is_valid", q("plainstring"))).toBe("false");
  expect(call("json.is_valid", q("{"))).toBe("false");
  expect(call("json.is_valid", "1")).toBe("false");
});

test("json.filter", () => {
  const doc = '{"a": {"b": {"c": 7, "d": 8}}, "e": 9}';
  expect(call("json.filter", doc, '{"a/b/c"}')).toBe('{"a": {"b": {"c": 7}}}');
  expect(call("json.filter", doc, '["a/b/c", "e"]')).toBe('{"a": {"b": {"c": 7}}, "e": 9}');
  expect(call("json.filter", doc, '{["a", "b", "c"], ["e"]}')).toBe('{"a": {"b": {"c": 7}}, "e": 9}');
  expect(call("json.filter", '{"a": {"b": 7}}', '{"a", "a/b"}')).toBe('{"a": {"b": 7}}');
  expect(call("json.filter", '{"a": [{"b": 7, "c": 8}, {"d": 9}]}', '{"a/0/b", "a/1"}')).toBe('{"a": [{"b": 7}, {"d": 9}]}');
  expect(call("json.filter", '{"a": {"x~y": 1, "p/q": 2, "z": 3}}', '["/a/x~0y", "a/p~1q"]')).toBe('{"a": {"p/q": 2, "x~y": 1}}');
  expect(call("json.filter", '{"a": {1, 2, 3}}', '[["a", 2]]')).toBe('{"a": {2}}');
  expect(call("json.filter", '{"a": 7}', "set()")).toBe("{}");
  expect(call("json.filter", "[1]", '["a"]')).toBeUndefined();
  expect(call("json.filter", '{"a": 7}', '"a"')).toBeUndefined();
  expect(call("json.filter", '{"a": 7}', "[1]")).toBeUndefined();
});

test("json.remove", () => {
  expect(call("json.remove", '{"a": {"b": {"c": 7, "d": 8}}, "e": 9}', '{"a/b/c"}')).toBe('{"a": {"b": {"d": 8}}, "e": 9}');
  expect(call("json.remove", '{"a": {"b": 7}, "e": 9}', '["a", "a/b"]')).toBe('{"e": 9}');
  expect(call("json.remove", '{"a": [{"b": 7, "c": 8}, {"d": 9}, 3]}', '{"a/0/b", "a/1"}')).toBe('{"a": [{"c": 8}, 3]}');
  expect(call("json.remove", '{"a": {1, 2}}', '[["a", 1]]')).toBe('{"a": {2}}');
  expect(call("json.remove", '{"a": 1}', "[]")).toBe('{"a": 1}');
  expect(call("json.remove", "[1]", '["0"]')).toBeUndefined();
});

test("json.patch basics", () => {
  expect(call("json.patch", '{"a": 1}', '[{"op": "add", "path": "/b", "value": 2}]')).toBe('{"a": 1, "b": 2}');
  expect(call("json.patch", '{"a": [1, 2]}', '[{"op": "add", "path": "/a/-", "value": 3}]')).toBe('{"a": [1, 2, 3]}');
  expect(call("json.patch", '{"a": [1, 2]}', '[{"op": "add", "path": ["a", 0], "value": 0}]')).toBe('{"a": [0, 1, 2]}');
  expect(call("json.patch", '{"a": [1, 2]}', '[{"op": "add", "path": "/a/3", "value": 3}]')).toBeUndefined();
  expect(call("json.patch", '{"a": [1, 2]}', '[{"op": "remove", "path": "/a/01"}]')).toBeUndefined();
  expect(call("json.patch", '{"a": 1}', '[{"op": "replace", "path": "", "value": [1]}]')).toBe("[1]");
  expect(call("json.patch", '{"a": 1}', '[{"op": "remove", "path": ""}]')).toBeUndefined();
  expect(call("json.patch", "1", '[{"op": "test", "path": "", "value": 1}]')).toBe("1");
  expect(call("json.patch", '{"a": 1}', '[{"op": "copy", "from": "/a", "path": "/b"}, {"op": "test", "path": "/b", "value": 1}]')).toBe('{"a": 1, "b": 1}');
  expect(call("json.patch", '{"a": 1}', '[{"op": "move", "from": "/a", "path": "/a/b"}]')).toBeUndefined();
  expect(call("json.patch", '{"a": 1}', "[1]")).toBeUndefined();
  expect(call("json.patch", '{"a": 1}', '{"op": "add"}')).toBeUndefined();
});

test("json.patch on sets (jsonpatch/set)", () => {
  expect(call("json.patch", '{"foo": {"a", "b", "c"}}', '[{"op": "remove", "path": "foo/b"}]')).toBe('{"foo": {"a", "c"}}');
  expect(call("json.patch", '{"foo": {"a", "b", "c"}}', '[{"op": "add", "path": "foo/d", "value": "d"}]')).toBe('{"foo": {"a", "b", "c", "d"}}');
  expect(call("json.patch", '{"foo": {"a", "b", "c"}}', '[{"op": "add", "path": "foo/d", "value": "e"}]')).toBeUndefined();
  expect(call("json.patch", '{"foo": {"a", "b"}, "bar": {"c", "d"}}', '[{"op": "move", "from": "foo/a", "path": "bar/a"}]')).toBe(
    '{"bar": {"a", "c", "d"}, "foo": {"b"}}',
  );
  expect(call("json.patch", "{[1]}", '[{"op": "add", "path": [[1], 1], "value": 2}]')).toBe("{[1, 2]}");
  expect(call("json.patch", '{[0], "a"}', '[{"op": "add", "path": [[0], 1], "value": 1}, {"op": "add", "path": [[0, 1], 2], "value": 3}]')).toBe(
    '{"a", [0, 1, 3]}',
  );
  expect(call("json.patch", "[1, 2, 3]", '[{"op": "add", "path": "1.2", "value": "foo"}]')).toBeUndefined();
});

// ------------------------------------------------------------ the json-patch-tests suites

interface PatchCase {
  comment?: string;
  doc?: unknown;
  patch?: unknown[];
  expected?: unknown;
  error?: string;
  opa_disabled?: boolean;
}

const SUITE = `${conformanceFamilyDir("jsonpatch")}/json-patch-tests.yaml`;
const yamlCase = parse(readFileSync(SUITE, "utf8")).cases[0] as { modules: string[]; want_result: unknown[] };
/** The `cases := [...]` literal of each suite module, as Rego text. */
const suites = yamlCase.modules
  .filter((m) => m.startsWith("package json_patch_cases."))
  .map((m) => [/^package (\S+)/.exec(m)![1], m.slice(m.indexOf("cases := ") + "cases := ".length)] as [string, string]);

describe("conformance: jsonpatch/json_patch_tests", () => {
  test("the case expects every suite case to pass", () => {
    expect(suites.length).toBe(2);
    expect(yamlCase.want_result).toEqual([{ x: {} }]);
  });
  test.each(suites)("%s", (_name, text) => {
    const rt = c.rt;
    const cases = rt.json(rt.rego(text)) as PatchCase[];
    const failed: string[] = [];
    cases.forEach((t, i) => {
      if (t.opa_disabled) return;
      // The policy patches with [p | p = t.patch[_]]: a missing patch list is [].
      const r = rt.call("bi_json_patch", rt.value(t.doc ?? null), rt.value(t.patch ?? []));
      const got = r === 0 ? undefined : rt.json(r);
      const docDefined = t.doc !== undefined;
      let pass: boolean;
      if (t.expected !== undefined) pass = docDefined && JSON.stringify(sortKeys(got)) === JSON.stringify(sortKeys(t.expected));
      else if (t.error !== undefined) pass = r === 0;
      else pass = r !== 0;
      if (!pass) failed.push(`${i}: ${t.comment ?? ""} -> ${JSON.stringify(got)}`);
    });
    expect(failed).toEqual([]);
  });
});

/** Deep copy with object keys sorted, for order-insensitive comparison. */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
