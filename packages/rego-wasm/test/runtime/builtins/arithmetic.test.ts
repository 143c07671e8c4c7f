/**
 * Comparison, arithmetic, numbers.* and bits.* builtins (runtime modules
 * builtins/compare.ts, arithmetic.ts, bits.ts). Expectations follow OPA's
 * topdown semantics and the conformance families arithmetic, numbersrange,
 * bits*, comparisonexpr; undefined stands for OPA's errors (non-strict mode).
 */
import { useRuntime } from "./arith-call";

const { call } = useRuntime();

test("comparisons follow the total order and yield booleans", () => {
  expect(call("equal", "1", "1.0")).toBe("true");
  expect(call("neq", "[1]", "{1}")).toBe("true");
  expect(call("lt", "1", '"a"')).toBe("true"); // number < string
  expect(call("lt", "null", "false")).toBe("true");
  expect(call("gt", "{1}", '{"a": 1}')).toBe("true"); // set > object
  expect(call("lte", '"a"', '"a"')).toBe("true");
  expect(call("gte", "[1, 2]", "[1, 2, 0]")).toBe("false");
  expect(call("lt", '"\uffff"', '"\u{1F600}"')).toBe("true"); // code point order, not UTF-16
});

test("plus, minus, mul", () => {
  expect(call("plus", "1", "2")).toBe("3");
  expect(call("plus", "49649733057", "1")).toBe("49649733058"); // OPA bug 2469
  expect(call("plus", "1", "2.5")).toBe("3.5");
  expect(call("plus", "1.5", "2.5")).toBe("4");
  expect(call("plus", '"a"', "1")).toBeUndefined();
  expect(call("minus", "3", "4")).toBe("-1");
  expect(call("minus", "{1, 2, 3}", "{2, 4}")).toBe("{1, 3}");
  expect(call("minus", "{1}", "{1}")).toBe("set()");
  expect(call("minus", "{1}", "1")).toBeUndefined();
  expect(call("minus", "1", "{1}")).toBeUndefined();
  expect(call("mul", "2.5", "2")).toBe("5");
  expect(call("mul", "0", "-1")).toBe("0"); // no negative zero
});

test("div and rem", () => {
  expect(call("div", "6", "3")).toBe("2");
  expect(call("div", "1", "4")).toBe("0.25");
  expect(call("div", "1e109", "1e100")).toBe("1000000000");
  expect(call("div", "1", "0")).toBeUndefined(); // divide by zero
  expect(call("div", "1", "0.0")).toBeUndefined();
  expect(call("rem", "7", "4")).toBe("3");
  expect(call("rem", "-7", "4")).toBe("-3"); // truncated, like big.Int.Rem
  expect(call("rem", "10", "18446744073709551616")).toBe("10");
  expect(call("rem", "1", "0")).toBeUndefined(); // modulo by zero
  expect(call("rem", "1.5", "1")).toBeUndefined(); // modulo on floating-point number
  expect(call("rem", "4", "2.0")).toBe("0"); // 2.0 is an integer
});

test("integers stay exact beyond 2^53 (OPA's big integers)", () => {
  expect(call("plus", "18446744073709551617", "1")).toBe("18446744073709551618");
  expect(call("minus", "18446744073709551617", "1")).toBe("18446744073709551616");
  expect(call("mul", "18446744073709551617", "2")).toBe("36893488147419103234");
  expect(call("plus", "123456789012345678901234567890", "1")).toBe("123456789012345678901234567891");
  expect(call("minus", "-18446744073709551617", "1")).toBe("-18446744073709551618");
  expect(call("plus", "9007199254740992", "1")).toBe("9007199254740993");
  expect(call("mul", "4294967296", "4294967297")).toBe("18446744078004518912");
  expect(call("plus", "18446744073709551617", "0.5")).toBe("18446744073709552000"); // a fraction: f64
  expect(call("rem", "18446744073709551617", "18446744073709551616")).toBe("1");
  expect(call("rem", "-18446744073709551617", "10")).toBe("-7");
  expect(call("rem", "100", "-18446744073709551616")).toBe("100");
  expect(call("rem", "5", "55340232221128654848")).toBe("5");
  expect(call("rem", "18446744073709551617", "0")).toBeUndefined();
  expect(call("neq", "28857836529306024611913", "28857836529306024611912")).toBe("true");
  expect(call("lt", "28857836529306024611912", "28857836529306024611913")).toBe("true");
  expect(call("equal", "18446744073709551616", "18446744073709551616")).toBe("true");
});

test("abs, round, ceil, floor", () => {
  expect(call("abs", "-3")).toBe("3");
  expect(call("abs", "-3.5")).toBe("3.5");
  expect(call("round", "1.5")).toBe("2");
  expect(call("round", "2.5")).toBe("3"); // half away from zero, not to even
  expect(call("round", "-2.5")).toBe("-3");
  expect(call("round", "-1.4")).toBe("-1");
  expect(call("round", "0.49999999999999994")).toBe("0");
  expect(call("ceil", "1.01")).toBe("2");
  expect(call("ceil", "2222.2222222222")).toBe("2223");
  expect(call("ceil", "-1.99999")).toBe("-1");
  expect(call("floor", "99.99999")).toBe("99");
  expect(call("floor", "-1.001")).toBe("-2");
  expect(call("floor", "1")).toBe("1");
  expect(call("round", '"1"')).toBeUndefined();
});

test("to_number", () => {
  expect(call("to_number", "null")).toBe("0");
  expect(call("to_number", "true")).toBe("1");
  expect(call("to_number", "false")).toBe("0");
  expect(call("to_number", "-1.5")).toBe("-1.5");
  expect(call("to_number", '"10"')).toBe("10");
  expect(call("to_number", '"-3.25e2"')).toBe("-325");
  expect(call("to_number", '"+1"')).toBe("1");
  expect(call("to_number", '".5"')).toBe("0.5");
  expect(call("to_number", '"5."')).toBe("5");
  expect(call("to_number", '"007"')).toBe("7");
  expect(call("to_number", '"0x10p0"')).toBe("16");
  expect(call("to_number", '"0x1.8p1"')).toBe("3");
  expect(call("to_number", '"12345678901234567890123"')).toBe("12345678901234567890123");
  for (const bad of ['""', '"abc"', '"inf"', '"-Infinity"', '"NaN"', '"1e400"', '"1_000"', '"0x10"', '" 1"', "[]"]) {
    expect(call("to_number", bad)).toBeUndefined();
  }
});

test("numbers.range and numbers.range_step", () => {
  expect(call("numbers.range", "0", "3")).toBe("[0, 1, 2, 3]");
  expect(call("numbers.range", "3", "0")).toBe("[3, 2, 1, 0]");
  expect(call("numbers.range", "-1", "-1")).toBe("[-1]");
  expect(call("numbers.range", "0", "1.5")).toBeUndefined();
  expect(call("numbers.range", '"0"', "1")).toBeUndefined();
  expect(call("numbers.range_step", "0", "10", "3")).toBe("[0, 3, 6, 9]");
  expect(call("numbers.range_step", "10", "0", "4")).toBe("[10, 6, 2]");
  expect(call("numbers.range_step", "0", "10", "0")).toBeUndefined(); // step must be positive
  expect(call("numbers.range_step", "0", "10", "-1")).toBeUndefined();
  expect(call("numbers.range_step", "0", "10", "0.5")).toBeUndefined();
});

test("bits", () => {
  expect(call("bits.and", "42", "3")).toBe("2");
  expect(call("bits.or", "42", "3")).toBe("43");
  expect(call("bits.xor", "42", "3")).toBe("41");
  expect(call("bits.and", "-1", "5")).toBe("5");
  expect(call("bits.negate", "42")).toBe("-43");
  expect(call("bits.lsh", "1", "3")).toBe("8");
  expect(call("bits.lsh", "2147483647", "1")).toBe("4294967294");
  expect(call("bits.rsh", "-5", "1")).toBe("-3"); // arithmetic shift floors
  expect(call("bits.rsh", "-5", "3000")).toBe("-1");
  expect(call("bits.rsh", "5", "3000")).toBe("0");
  expect(call("bits.lsh", "7", "-1")).toBeUndefined(); // must be unsigned
  expect(call("bits.lsh", "7.2", "42")).toBeUndefined();
  expect(call("bits.negate", "7.2")).toBeUndefined();
  expect(call("bits.and", "1", '"1"')).toBeUndefined();
});
