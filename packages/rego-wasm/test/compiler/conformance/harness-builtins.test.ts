/**
 * The conformance runner hosts `test.sleep` as OPA's test harness does: a
 * host builtin (declared through compile()'s `hostBuiltins`) that sleeps
 * for a Go duration, synchronously, and returns null.
 */
import { parseGoDuration } from "../../../compiler/conformance/harness-builtins";
import { runCase } from "../../../compiler/conformance/run";
import type { ConformanceCase } from "../../../compiler/conformance/cases";

test("Go durations", () => {
  expect(parseGoDuration("10ms")).toBe(10);
  expect(parseGoDuration("1.5s")).toBe(1500);
  expect(parseGoDuration("2h45m")).toBe(9_900_000);
  expect(parseGoDuration("300us")).toBeCloseTo(0.3);
  expect(parseGoDuration("1µs")).toBeCloseTo(0.001);
  expect(parseGoDuration("-1m")).toBe(-60_000);
  expect(parseGoDuration(".5s")).toBe(500);
  expect(parseGoDuration("0")).toBe(0);
  for (const bad of ["", "10", "ms", "1x", "1.5", "-"]) expect(parseGoDuration(bad)).toBeNull();
});

function sleepCase(query: string, module: string): ConformanceCase {
  return { file: "t.yaml", family: "time", note: "sleep", query, modules: [module], wantResult: [{ x: true }], sortBindings: false, strictError: false };
}

test("test.sleep sleeps, returns null, and time.now_ns stays fixed within the evaluation", async () => {
  const module = 'package t\np if {\n\ttime.now_ns(t0)\n\tx := test.sleep("30ms")\n\tx == null\n\ttime.now_ns(t1)\n\tt0 == t1\n}';
  const started = Date.now();
  const r = await runCase(sleepCase("data.t.p = x", module));
  expect(r).toMatchObject({ passed: true, reason: "" });
  expect(Date.now() - started).toBeGreaterThanOrEqual(25);
});

test("a bad duration sleeps for nothing (OPA's harness ignores the parse error)", async () => {
  const r = await runCase(sleepCase("data.t.p = x", 'package t\np if test.sleep("soon") == null'));
  expect(r).toMatchObject({ passed: true });
});
