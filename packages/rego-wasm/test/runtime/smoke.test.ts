/** Smoke test: the runtime instantiates like an OPA host would and round-trips a value. */
import { loadRuntime } from "./harness";

test("runtime loads and round-trips JSON", async () => {
  const rt = await loadRuntime();
  expect(rt.json(rt.value({ b: [1, 2.5, "x"], a: null }))).toEqual({ a: null, b: [1, 2.5, "x"] });
  expect(rt.regoText(rt.rego("{1, 2}"))).toBe("{1, 2}");
});
