/**
 * Template strings (`$"..{expr}.."` and the raw `` $`..` ``, OPA v1.12): the
 * parser lowers them to internal.template_string over the set of each
 * embedded expression's values; the runtime renders the parts.
 */
import { resultSet } from "./evaluate-rego";
import { compile } from "../../compiler";

const evaluate = resultSet;

const value = async (rego: string, input: unknown = {}): Promise<unknown> =>
  ((await evaluate(`package t\n${rego}`, input)) as Array<{ x: unknown }>).map((r) => r.x);

test("text, scalars and values: strings bare, everything else as Rego text", async () => {
  expect(await value('p := $"a {"b"} {1e3} {true} {null} {[1, "x"]} {{"k": set()}} {{2, 1}}"')).toEqual(['a b 1e3 true null [1, "x"] {"k": set()} {1, 2}']);
  expect(await value('p := $""')).toEqual([""]);
});

test("escapes: \\{ and \\} are literal braces, string escapes apply; the raw form spans lines", async () => {
  expect(await value('p := $"\\{1} \\{{2}\\} \\t\\u00e9"')).toEqual(["{1} {2} \t\u00e9"]);
  expect(await value("p := $`a\n{1 + 1}\\n\\{x}`")).toEqual(["a\n2\\n{x}"]);
});

test("undefined expressions render <undefined>; vars, refs, calls, with and nesting", async () => {
  expect(await value('p := $"{input.a} {input.b} {count(input.b)}"', { b: [1, 2] })).toEqual(["<undefined> [1, 2] 2"]);
  expect(await value('p := [s | some i in [1, 2]; s := $"<{i}>"]')).toEqual([["<1>", "<2>"]]);
  expect(await value('a := input.a\np := $"{a with input.a as 5} {$"[{a}]"}"')).toEqual(["5 [<undefined>]"]);
});

test("a template string as a function argument is computed after the body binds its vars", async () => {
  expect(await value('f($"{x}-{input.y}") := 1 if x := "a"\np := [f("a-b"), 2]', { y: "b" })).toEqual([[1, 2]]);
  expect(await value('f($"{x}") := 1 if x := "a"\np := f("b")')).toEqual([]);
});

test("a query may hold template strings", async () => {
  expect(await evaluate("package t", {}, 'y = 42; x = $"v={y}"')).toEqual([{ x: "v=42", y: 42 }]);
});

test("an expression with several values is an eval_conflict_error", async () => {
  // The SDK rethrows opa_abort's message as a string.
  await expect(evaluate('package t\np := $"{input.xs[_]}"', { xs: [1, 2] })).rejects.toMatch(
    "eval_conflict_error: template-strings must not produce multiple outputs",
  );
  expect(await value('p := $"{input.xs[_]}"', { xs: [1] })).toEqual(["1"]);
});

test("parse and safety errors", () => {
  const err = (rego: string): string => {
    try {
      compile([{ file: "t.rego", source: `package t\n${rego}` }], { entrypoints: [{ name: "q", query: "x = data.t.p" }] });
    } catch (e) {
      return String(e);
    }
    return "no error";
  };
  expect(err('p := $"{x = 1}"')).toContain("t.rego:2:9: rego_parse_error: unexpected unification ('=') in template-string expression");
  expect(err('p := $"{x := 1}"')).toContain("unexpected assignment (':=') in template-string expression");
  expect(err('p := $"{not true}"')).toContain("unexpected negation ('not') in template-string expression");
  expect(err('p := $"{1 2}"')).toContain("expected } to end template string expression");
  expect(err('p := $"abc')).toContain("t.rego:2:6: rego_parse_error: non-terminated string");
  expect(err('p := $"{y}"')).toContain("rego_unsafe_var_error: var y is unsafe");
});
