/**
 * Exact integer arithmetic beyond 2^53, compiled to real Wasm: plus, minus,
 * mul, div, rem, abs, round/ceil/floor, numbers.range(_step) and
 * sum/product compute as OPA's big.Int does once an operand or the result
 * leaves the f64-exact range, and the result keeps its digits. Results are
 * rendered with sprintf("%v") (OPA's test-arithmetic-edges.yaml does the
 * same), because the SDK's JSON.parse would round them to f64.
 */
import { valueOfX } from "./evaluate-rego";

/** p as an object of `name: expr` pairs, each rendered with sprintf("%v"); undefined entries are "undefined". */
async function show(exprs: Record<string, string>, input: unknown = {}): Promise<Record<string, string>> {
  const rules = Object.entries(exprs).map(([k, e]) => `v_${k} := sprintf("%v", [${e}]) if { true } else := "undefined"`);
  const keys = Object.keys(exprs).map((k) => `"${k}": v_${k}`);
  const source = `package t\n${rules.join("\n")}\np := {${keys.join(", ")}}`;
  return (await valueOfX(source, input)) as Record<string, string>;
}

test("plus, minus and mul cross 2^53 and 2^64 exactly", async () => {
  expect(
    await show(
      {
        plus: "9007199254740992 + 1",
        minus: "-9007199254740992 - 3",
        mul: "2147483647 * 2147483647",
        int64: "9223372036854775807 + 1",
        wide: "18446744073709551617 * 18446744073709551617",
        exponent: "1e30 + 1",
        exponent_minus: "1e30 - 1",
        back_small: "(1e30 + 7) - 1e30",
        trailing_zeros: "10.00 + 5",
        from_input: "to_number(input.n) * 10",
      },
      { n: "-9223372036854775808" },
    ),
  ).toEqual({
    plus: "9007199254740993",
    minus: "-9007199254740995",
    mul: "4611686014132420609",
    int64: "9223372036854775808",
    wide: "340282366920938463500268095579187314689",
    exponent: "1000000000000000000000000000001",
    exponent_minus: "999999999999999999999999999999",
    back_small: "7",
    trailing_zeros: "15",
    from_input: "-92233720368547758080",
  });
});

test("big integer results print in full and compare exactly", async () => {
  const source = `package t
big := 1e20 * 1e20
p := {
  "printed": json.marshal(big),
  "equal_literal": big == 1e40,
  "plus_one_differs": big + 1 != 1e40,
  "plus_one_greater": big + 1 > 1e40,
  "in_set": count({big, 1e40, big + 1}),
}`;
  expect(await valueOfX(source)).toEqual({
    printed: "10000000000000000000000000000000000000000",
    equal_literal: true,
    plus_one_differs: true,
    plus_one_greater: true,
    in_set: 2,
  });
});

test("ordinary numbers stay on f64: fractions and small integers", async () => {
  const source = `package t
p := [0.1 + 0.2, 1 + 2.5, 2.5 * 2, 7 - 10, 1.5e300 * 1.5]`;
  expect(await valueOfX(source)).toEqual([0.1 + 0.2, 3.5, 5, -3, 1.5e300 * 1.5]);
});

test("division is exact on integers when the divisor divides the dividend", async () => {
  expect(
    await show({
      big_exact: "1e30 / 1e10",
      pow64: "18446744073709551616 / 2",
      negative: "-36893488147419103234 / 2",
      inexact: "18446744073709551617 / 3",
      small: "6 / 3",
      fraction: "1 / 4",
      by_zero: "1 / 0",
      by_float_zero: "1e30 / 0.0",
    }),
  ).toEqual({
    big_exact: "100000000000000000000",
    pow64: "9223372036854775808",
    negative: "-18446744073709551617",
    inexact: "6148914691236517000", // the f64 quotient, an integer to sprintf
    small: "2",
    fraction: "0.25",
    by_zero: "undefined",
    by_float_zero: "undefined",
  });
});

test("remainder on integers of any size, with the dividend's sign; errors are undefined", async () => {
  expect(
    await show({
      pow64: "10 % 18446744073709551616",
      big_dividend: "18446744073709551617 % 18446744073709551616",
      exponent: "1e30 % 7",
      negative: "-1e30 % 7",
      negative_divisor: "17 % -5",
      integral_float: "4.0 % 3",
      fraction: "1.5 % 1",
      by_zero: "7 % 0",
      big_by_zero: "18446744073709551617 % 0",
    }),
  ).toEqual({
    pow64: "10",
    big_dividend: "1",
    exponent: "1",
    negative: "-1",
    negative_divisor: "2",
    integral_float: "1",
    fraction: "undefined",
    by_zero: "undefined",
    big_by_zero: "undefined",
  });
});

test("abs, round, ceil and floor keep big numbers exact and round the exact digits", async () => {
  expect(
    await show({
      abs_int64_min: "abs(-9223372036854775808)",
      abs_big_product: "abs(-4294967296 * 4294967296)",
      abs_float: "abs(-2.5)",
      round_big_half: "round(9007199254740993.5)",
      round_negative_half: "round(-2.5)",
      round_below_half: "round(2.49999999999999999999)",
      round_above_half: "round(0.50000000000000000001)",
      ceil_big: "ceil(9007199254740993.1)",
      floor_big_negative: "floor(-9007199254740993.5)",
      ceil_small_negative: "ceil(-0.50000000000000000001)",
      floor_small_negative: "floor(-0.50000000000000000001)",
      floor_integer: "floor(12345678901234567890)",
      round_trailing_zeros: "round(10.00)",
    }),
  ).toEqual({
    abs_int64_min: "9223372036854775808",
    abs_big_product: "18446744073709551616",
    abs_float: "2.5",
    round_big_half: "9007199254740994",
    round_negative_half: "-3",
    round_below_half: "2",
    round_above_half: "1",
    ceil_big: "9007199254740994",
    floor_big_negative: "-9007199254740994",
    ceil_small_negative: "0",
    floor_small_negative: "-1",
    floor_integer: "12345678901234567890",
    round_trailing_zeros: "10",
  });
});

test("numbers.range and range_step with bounds or steps beyond 2^53", async () => {
  const source = `package t
p := {
  "up": [sprintf("%v", [n]) | some n in numbers.range(9007199254740991, 9007199254740994)],
  "down": [sprintf("%v", [n]) | some n in numbers.range(-9007199254740992, -9007199254740994)],
  "step": [sprintf("%v", [n]) | some n in numbers.range_step(1e30, 1e30 + 10, 5)],
  "big_step": numbers.range_step(0, 10, 18446744073709551616),
  "fraction": count([1 | numbers.range(9007199254740993.5, 9007199254740995)]),
}`;
  expect(await valueOfX(source)).toEqual({
    up: ["9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994"],
    down: ["-9007199254740992", "-9007199254740993", "-9007199254740994"],
    step: ["1000000000000000000000000000000", "1000000000000000000000000000005", "1000000000000000000000000000010"],
    big_step: [0],
    fraction: 0,
  });
});

test("sum and product of big integers are exact; with a fraction they are f64", async () => {
  expect(
    await show({
      sum: "sum([9007199254740992, 1, 1])",
      product: "product([4294967296, 4294967296, 2])",
      literal: "sum([18446744073709551617, -1])",
      fraction: "sum([0.5, 1e30])",
    }),
  ).toEqual({
    sum: "9007199254740994",
    product: "36893488147419103232",
    literal: "18446744073709551616",
    fraction: "1000000000000000000000000000000",
  });
});
