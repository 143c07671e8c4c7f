/**
 * An infix term before `|` in `[...]` / `{...}`, such as `[x * 2 | x := 1]`.
 *
 * OPA's parser (v1/ast/parser.go parseArray / parseSetOrObject / parseObject)
 * tries a comprehension only when a *single* term (`parseTerm`, no infix
 * operators) is directly followed by `|`. After `x` comes `*`, so it backs up
 * and reads the items as infix terms, where `|` is set union: `x * 2 | x` is
 * one item, and the `:=` after it is a syntax error. OPA rejects these inputs
 * and so do we, with OPA's messages; an infix *key* of an object
 * comprehension is accepted, as in OPA.
 */
import { CompileErrors } from "../../../compiler/errors";
import { parseModule } from "../../../compiler/parse";
import { printTerm } from "../../../compiler/parse/print";

function errorsOf(body: string): string[] {
  try {
    parseModule(`package t\np if {\n\ty := ${body}\n}`, "m.rego");
  } catch (e) {
    if (e instanceof CompileErrors) return e.errors.map((x) => x.message);
    throw e;
  }
  throw new Error("expected a parse error");
}

function valueOf(body: string): string {
  const m = parseModule(`package t\np := ${body}`, "m.rego");
  return printTerm(m.rules[0]!.head.value!);
}

test("array, set and object comprehensions with an infix head term are rejected as in OPA", () => {
  expect(errorsOf("[x * 2 | x := 1]")).toEqual(['m.rego:3:18: rego_parse_error: unexpected assign token: expected "," or "]"']);
  expect(errorsOf("{x + 1 | x := 1}")).toEqual(["m.rego:3:18: rego_parse_error: unexpected assign token: non-terminated set"]);
  expect(errorsOf('{"k": x + 1 | x := 1}')).toEqual(["m.rego:3:23: rego_parse_error: unexpected assign token: non-terminated object"]);
});

test("as a rule value, OPA also reports the missing value term", () => {
  let messages: string[] = [];
  try {
    parseModule("package t\np := [x * 2 | x := 1]", "m.rego");
  } catch (e) {
    messages = (e as CompileErrors).errors.map((x) => x.message);
  }
  expect(messages).toEqual([
    'm.rego:2:17: rego_parse_error: unexpected assign token: expected "," or "]"',
    "m.rego:2:17: rego_parse_error: unexpected assign token: expected rule value term (e.g., p := <VALUE> { ... })",
  ]);
});

test("without a declaration after `|`, the same text is one item: a set union", () => {
  expect(valueOf("[x * 2 | xs[x]]")).toBe(valueOf("[or(mul(x, 2), xs[x])]"));
  expect(valueOf("{x * 2 | xs[x]}")).toBe(valueOf("{or(mul(x, 2), xs[x])}"));
});

test("a single term before `|` is a comprehension; an infix object key is accepted", () => {
  expect(valueOf("[y | y := 1]")).toMatch(/^\[y \| /);
  expect(valueOf("{x * 2: y | y := 1; x := 2}")).toMatch(/^\{mul\(x, 2\): y \| /);
  // Parenthesised, an infix head is a single term: the usual way to write it.
  expect(valueOf("[(x * 2) | x := 1]")).toMatch(/\| /);
});
