/**
 * How the runner reads a case's expectations, in the order OPA's Wasm test
 * run does: want_result first (no error allowed, even beside a strict-only
 * error), then a strict-only error (undefined in Wasm), then the error code.
 */
import type { ConformanceCase } from "../../../compiler/conformance/cases";
import { runCase } from "../../../compiler/conformance/run";

function kase(over: Partial<ConformanceCase>): ConformanceCase {
  return {
    file: "t.yaml",
    family: "t",
    note: "t/case",
    query: "data.t.p = x",
    modules: ['package t\np[k] := v if { some k; v := {"a": 1, "b": 0}[k]; 1 / v }'],
    sortBindings: false,
    strictError: false,
    ...over,
  };
}

test("want_result wins over a strict-only error: the non-strict result is compared", async () => {
  const c = kase({ wantResult: [{ x: { a: 1 } }], wantErrorCode: "eval_builtin_error", wantError: "divide by zero", strictError: true });
  expect(await runCase(c)).toMatchObject({ passed: true });
  expect(await runCase({ ...c, wantResult: [] })).toMatchObject({ passed: false });
});

test("a strict-only error without want_result expects undefined", async () => {
  const c = kase({ modules: ["package t\np := 1 / 0"], wantErrorCode: "eval_builtin_error", strictError: true });
  expect(await runCase(c)).toMatchObject({ passed: true });
});

test("want_error_code without strict_error expects the error", async () => {
  const c = kase({ modules: ["package t\np := 1\np := 2"], wantErrorCode: "eval_conflict_error" });
  expect(await runCase(c)).toMatchObject({ passed: true });
  expect(await runCase({ ...c, modules: ["package t\np := 1"] })).toMatchObject({ passed: false });
});
