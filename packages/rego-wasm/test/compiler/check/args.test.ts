/**
 * Function arguments share the body's declaration frame, as in OPA's
 * rewriteLocalVars (v1/ast/compile.go: the args are inserted as `argVar` in
 * the frame the body's `:=` / `some` declare into; rewriteDeclaredVar then
 * reports "arg x redeclared"). Closures open a new frame and may shadow.
 */
import { check } from "../../../compiler/check";
import { CompileErrors } from "../../../compiler/errors";
import { parseModule } from "../../../compiler/parse";

function errorsOf(source: string): string[] {
  try {
    check([parseModule(source, "m.rego")]);
  } catch (e) {
    if (e instanceof CompileErrors) return e.errors.map((x) => x.message);
    throw e;
  }
  return [];
}

test("`:=` may not re-declare a function argument", () => {
  expect(errorsOf("package t\nf(x) if { x := 1 }")).toEqual(["m.rego:2:11: rego_compile_error: arg x redeclared"]);
  // Args inside patterns count as well, and the else branch shares the args.
  expect(errorsOf('package t\nf([a, {"k": b}]) := 1 if { b := 2 }')).toEqual(["m.rego:2:28: rego_compile_error: arg b redeclared"]);
  expect(errorsOf("package t\nf(x) := 1 if { false } else := 2 if { x := 3 }")).toEqual(["m.rego:2:39: rego_compile_error: arg x redeclared"]);
});

test("`some` may not re-declare one either", () => {
  // Reported at the `some`, as OPA does (decl.Loc()).
  expect(errorsOf("package t\nf(x) if { some x; x == 1 }")).toEqual(["m.rego:2:11: rego_compile_error: arg x redeclared"]);
  expect(errorsOf("package t\nf(x) if { some x in [1] }")).toEqual(["m.rego:2:11: rego_compile_error: arg x redeclared"]);
});

test("closures may shadow an argument; unification with it is fine", () => {
  expect(errorsOf("package t\nf(x) := [x | x := 1]")).toEqual([]);
  expect(errorsOf("package t\nf(x) := y if { y := [x | some x in [1]] }")).toEqual([]);
  expect(errorsOf("package t\nf(x) if { every x in [1] { x > 0 } }")).toEqual([]);
  expect(errorsOf("package t\nf(x) if { x = 1 }")).toEqual([]);
  // Other rules' vars are not args.
  expect(errorsOf("package t\np if { x := 1; x == 1 }")).toEqual([]);
});
