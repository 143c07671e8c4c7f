/**
 * Bad policies fail to compile with file:line:col and a stable code; a
 * conflict that only shows at evaluation time aborts with a clear message.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../compiler";
import { CompileError, CompileErrors } from "../../compiler/errors";

function compileError(source: string, entrypoint = "p/allow"): CompileError {
  try {
    compile([{ file: "policy.rego", source }], { entrypoints: [entrypoint] });
  } catch (err) {
    if (err instanceof CompileErrors) return err.errors[0];
    if (err instanceof CompileError) return err;
    throw err;
  }
  throw new Error("expected a compile error");
}

test("a syntax error names file:line:col and rego_parse_error", () => {
  const err = compileError("package p\n\nallow if {\n\tinput.x ==\n}\n");
  expect(err.code).toBe("rego_parse_error");
  expect(err.message).toMatch(/^policy\.rego:\d+:\d+: rego_parse_error: /);
  expect(err.loc.row).toBeGreaterThanOrEqual(4);
});

test("an unsafe variable names the variable and its position", () => {
  const err = compileError("package p\n\nallow if {\n\tx > 1\n}\n");
  expect(err.code).toBe("rego_unsafe_var_error");
  expect(err.message).toBe("policy.rego:4:2: rego_unsafe_var_error: var x is unsafe");
});

test("an unknown builtin names the builtin and its position", () => {
  const err = compileError("package p\n\nallow if {\n\tcrypto.no_such_thing(input.x)\n}\n");
  expect(err.code).toBe("rego_type_error");
  expect(err.message).toMatch(/^policy\.rego:4:2: rego_type_error: .*crypto\.no_such_thing/);
});

test("rules of conflicting kinds for one path are a compile error", () => {
  const err = compileError("package p\n\nallow := true\n\nallow contains 1\n");
  expect(err.code).toBe("rego_type_error");
  expect(err.message).toMatch(/^policy\.rego:\d+:1: rego_type_error: /);
});

test("a complete rule with two values aborts evaluation with eval_conflict_error", async () => {
  const { wasm } = compile([{ file: "policy.rego", source: "package p\n\nx := 1 if input.a\n\nx := 2 if input.b\n" }], {
    entrypoints: ["p/x"],
  });
  const policy = await loadPolicy(wasm);
  policy.setData({});
  expect(policy.evaluate({ a: true })).toEqual([{ result: 1 }]);
  expect(() => policy.evaluate({ a: true, b: true })).toThrow(/eval_conflict_error: complete rules must not produce multiple outputs/);
});

test("an unsafe declared var is named as written, not by its internal name", () => {
  const err = compileError("package p\n\nallow if {\n\tsome k\n\tx := k\n}\n");
  expect(err.message).toMatch(/^policy\.rego:5:2: rego_unsafe_var_error: var k is unsafe/);
  expect(err.message).not.toMatch(/__local/);
});
