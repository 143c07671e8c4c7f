/**
 * trace(note): true for a string note (the compiled policy has no tracer to
 * hand it to), undefined for any other operand, as OPA's non-strict type error.
 */
import { valueOfX } from "./evaluate-rego";

test("trace is true for a string note, also one built at evaluation time", async () => {
  expect(await valueOfX('package t\np if {\n\ttrace("checking")\n\tx := input.n\n\ttrace(sprintf("n=%v", [x]))\n}', { n: 3 })).toBe(true);
});

test("trace of a non-string is undefined, and so is the rule", async () => {
  expect(await valueOfX("package t\np if trace(input.n)", { n: 3 })).toBeUndefined();
  expect(await valueOfX("package t\np if trace(input.missing)")).toBeUndefined();
});
