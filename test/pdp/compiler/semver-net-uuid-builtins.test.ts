/**
 * semver.*, net.cidr_* and uuid.parse, compiled natively into the runtime:
 * results, undefined (OPA's errors, non-strict mode) and the edge cases of
 * OPA's parsers (SemVer 2.0.0, Go's net.ParseCIDR/ParseIP).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../pdp/compiler";

/** Evaluates `p` of `package t` with the input; [] when undefined. */
async function evaluate(body: string, input: unknown = {}): Promise<unknown> {
  const source = `package t\n${body}`;
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query: "x = data.t.p" }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q");
}

/** f(arg) for every input arg, each answer or "undefined". */
async function each(call: string, args: unknown[]): Promise<unknown> {
  const result = await evaluate(`p := [r | some a in input.args; r := answer(a)]\nanswer(a) := r if r := ${call}\nelse := "undefined"`, { args });
  return (result as Array<{ x: unknown }>)[0]!.x;
}

describe("semver", () => {
  test("is_valid: SemVer 2.0.0 strictly, a leading v allowed, false for non-strings", async () => {
    const valid = ["0.0.0", "1.2.3", "v1.2.3", "1.2.3-0", "1.2.3-0a", "1.2.3-alpha.1-x", "1.2.3+01", "1.2.3-rc.1+build.5", "9223372036854775807.0.0"];
    const invalid = ["1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.03", "1.2.3-01", "1.2.3-alpha.01", "1.2.3-", "1.2.3+", "1.2.3-a..b", "1.2.3+a_b", "V1.2.3", "vv1.2.3", " 1.2.3", "1.2.x", "9223372036854775808.0.0", ""];
    expect(await each("semver.is_valid(a)", valid)).toEqual(valid.map(() => true));
    expect(await each("semver.is_valid(a)", invalid)).toEqual(invalid.map(() => false));
    expect(await each("semver.is_valid(a)", [1, null, ["1.2.3"]])).toEqual([false, false, false]);
  });

  test("compare: precedence by numbers, then pre-release identifiers; build metadata ignored", async () => {
    const pairs = [
      ["1.0.0", "2.0.0"], ["2.0.0", "1.0.0"], ["1.10.0", "1.9.0"], ["1.2.3", "1.2.3"],
      ["1.0.0-alpha", "1.0.0"], ["1.0.0", "1.0.0-alpha"],
      ["1.0.0-alpha", "1.0.0-alpha.1"], ["1.0.0-alpha.1", "1.0.0-alpha.beta"], ["1.0.0-alpha.beta", "1.0.0-beta"],
      ["1.0.0-beta.2", "1.0.0-beta.11"], ["1.0.0-beta.11", "1.0.0-rc.1"], ["1.0.0-rc.1", "1.0.0"],
      ["1.2.3+01", "1.2.3+2"], ["v1.2.3", "1.2.3"], ["1.0.0-A", "1.0.0-a"],
    ];
    expect(await each("semver.compare(a[0], a[1])", pairs)).toEqual([-1, 1, 1, 0, -1, 1, -1, -1, -1, -1, -1, -1, 0, 0, -1]);
  });

  test("compare: undefined (an error in OPA) for invalid versions and non-strings", async () => {
    const pairs = [["1", "1.0.0"], ["1.2.3", "1.2.3-01"], ["1.2.3-", "1.2.3"], [1, "1.0.0"], ["1.0.0", null]];
    expect(await each("semver.compare(a[0], a[1])", pairs)).toEqual(pairs.map(() => "undefined"));
  });
});
