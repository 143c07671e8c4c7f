/**
 * units.parse and units.parse_bytes, compiled natively: results as OPA's
 * (exact decimal arithmetic for units.parse, big.Float's 64-bit rounding
 * then truncation for units.parse_bytes), and undefined where OPA reports a
 * builtin error (non-strict mode).
 */
import { valueOfX } from "./evaluate-rego";

/** Each string of `inputs` through both builtins: [parse, parse_bytes], "undefined" for no value. */
async function parseAll(inputs: unknown[]): Promise<unknown> {
  const source = `package t
pu(s) := x if { x := units.parse(s) } else := "undefined"
pb(s) := x if { x := units.parse_bytes(s) } else := "undefined"
p := [[pu(s), pb(s)] | some s in input]`;
  return evaluate(source, inputs);
}

const evaluate = valueOfX;

test("SI and binary units; m is milli for units.parse, mega for units.parse_bytes", async () => {
  const inputs = ["12345", "10K", "10k", "10Ki", "10KI", "200M", "500m", "100mi", "300Gi", "2T", "1P", "1Pi", "1E", "1Ei", "10KB", "10kib", "1.1KiB"];
  expect(await parseAll(inputs)).toEqual([
    [12345, 12345],
    [10000, 10000],
    [10000, 10000],
    [10240, 10240],
    [10240, 10240],
    [200000000, 200000000],
    [0.5, 500000000],
    [104857600, 104857600],
    [322122547200, 322122547200],
    [2000000000000, 2000000000000],
    [1000000000000000, 1000000000000000],
    [1125899906842624, 1125899906842624],
    [1e18, 1e18],
    [1152921504606846976, 1152921504606846976],
    ["undefined", 10000],
    ["undefined", 10240],
    ["undefined", 1126],
  ]);
});

test("decimals, signs, exponents and quotes", async () => {
  const inputs = [".5K", "1.1Ki", "-3.5E2m", "1e-2", "7.8E-1", "1e3k", "+2k", '"100TI"', "0.0005K", "1e5e"];
  expect(await parseAll(inputs)).toEqual([
    [500, 500],
    [1126.4, 1126],
    [-0.35, -350000000],
    [0.01, 0],
    [0.78, 0],
    [1000000, 1000000],
    [2000, 2000],
    [109951162777600, 109951162777600],
    [0.5, 0], // 0.5 bytes, truncated
    [1e23, 1e23],
  ]);
});

test("errors are undefined: spaces, no amount, unknown unit, bad number, long exponent, non-string", async () => {
  const inputs = ["", "G", "foo", "0.0.0", ".5.2", "100 k", " 327Mi ", "10e10000000Ei", "1kk", "1b", "1e+", 5, null];
  const undef = ["undefined", "undefined"];
  expect(await parseAll(inputs)).toEqual(inputs.map(() => undef));
});

test("results print as OPA prints them: big integers in full, fractions rounded to 10 decimals", async () => {
  const source = `package t
p := json.marshal([units.parse("1m"), units.parse("1000m"), units.parse("1e21"), units.parse("1.5e-11"),
  units.parse("0.99999999995"), units.parse("123456789012345678.5"), units.parse_bytes("1000EiB"),
  units.parse_bytes("6880402404026766846648084Mi"), units.parse("6880402404026766846648084Mi")])`;
  expect(await evaluate(source, {})).toBe(
    "[0.001,1,1000000000000000000000,0,1,123456789012345678.5,1152921504606846976000," + "7214624831204771073205857157120,7214624831204771072990861328384]",
  );
});

test("results compare exactly with literals", async () => {
  const source = `package t
p := [units.parse("1.1Ki") == 1126.4, units.parse("0.0000005M") == 0.5, units.parse_bytes("1000EiB") == 1152921504606846976000]`;
  expect(await evaluate(source, {})).toEqual([true, true, true]);
});

test("units are lower-cased with Go's Unicode rules (KELVIN SIGN is k)", async () => {
  expect(await parseAll(["10\u212Ab", "1K\u0130"])).toEqual([
    ["undefined", 10000],
    [1024, 1024],
  ]);
});
