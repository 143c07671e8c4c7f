/**
 * sprintf and format_int (runtime/assembly/builtins/sprintf.ts, sprintf-verbs.ts,
 * strconv-format.ts): OPA passes integers as Go ints (or *big.Int), other numbers as
 * float64, strings as strings and everything else as its Rego text, so the
 * expectations below are Go fmt.Sprintf's output for those Go values.
 */
import { useStringsRuntime, rego } from "./strings-call";

const s = useStringsRuntime();
const f = (format: string, args: string): unknown => s.call("sprintf", format, rego(args));

describe("sprintf: conformance cases", () => {
  test("strings/sprintf", () => {
    expect(f("hi", "[]")).toBe("hi");
    expect(f("hi %s", '["there"]')).toBe("hi there");
    expect(f("hi %02d", "[5]")).toBe("hi 05");
    expect(f("hi %02X.%02X", "[127, 1]")).toBe("hi 7F.01");
    expect(f("hi %.2f", "[3.1415]")).toBe("hi 3.14");
    expect(f("hi %v", "[2e308]")).toBe("hi 2e308");
    expect(f("hi %s", "[true]")).toBe("hi true");
    expect(f("hi %v", '[["there", 5, 3.14]]')).toBe('hi ["there", 5, 3.14]');
  });
  test("sprintf/big_int", () => {
    expect(f("%s", "[123456789123456789123]")).toBe("123456789123456789123");
    expect(f("%s", "[1208925819614629174706175]")).toBe("1208925819614629174706175");
  });
});

describe("sprintf: Go's argument types", () => {
  test("ints", () => {
    expect(f("%d", "[42]")).toBe("42");
    expect(f("%v", "[-7]")).toBe("-7");
    expect(f("%5d|%-5d|%05d", "[1, 2, -42]")).toBe("    1|2    |-0042");
    expect(f("%+d % d", "[5, 5]")).toBe("+5  5");
    expect(f("%x %X %#x %o %#o %O %b %#b", "[255, 255, 255, 8, 8, 8, 5, 5]")).toBe("ff FF 0xff 10 010 0o10 101 0b101");
    expect(f("%x", "[-255]")).toBe("-ff");
    expect(f("%.3d|%.0d|%6.3d", "[7, 0, -7]")).toBe("007||  -007");
    expect(f("%c%c %q %U %#U", "[72, 105, 65, 128512, 65]")).toBe("Hi 'A' U+1F600 U+0041 'A'");
    expect(f("%d", "[9223372036854775807]")).toBe("9223372036854775807");
    expect(f("%s", "[9223372036854775807]")).toBe("%!s(int=9223372036854775807)");
    expect(f("%s", "[5]")).toBe("%!s(int=5)");
    // fmt prints the bad verb's operand with the directive's flags (%.2d)
    expect(f("%.2f", "[1]")).toBe("%!f(int=01)");
    expect(f("%t", "[1]")).toBe("%!t(int=1)");
  });
  test("big ints (*big.Int's own Format)", () => {
    expect(f("%d %v %x %X", "[18446744073709551617, 18446744073709551617, 18446744073709551617, 18446744073709551617]")).toBe(
      "18446744073709551617 18446744073709551617 10000000000000001 10000000000000001",
    );
    expect(f("%s", "[9223372036854775808]")).toBe("9223372036854775808");
    expect(f("%25d|%-22d|%022d", "[-9223372036854775809, 9223372036854775808, 9223372036854775808]")).toBe(
      "     -9223372036854775809|9223372036854775808   |0009223372036854775808",
    );
    expect(f("%f", "[18446744073709551617]")).toBe("%!f(big.Int=18446744073709551617)");
  });
  test("floats", () => {
    expect(f("%v %v %v", "[1.5, 0.000001, 123456789.5]")).toBe("1.5 1e-06 1.234567895e+08");
    expect(f("%v", "[0.1]")).toBe("0.1");
    expect(f("%f|%.1f|%.0f|%.0f", "[0.5, 0.25, 2.5, 3.5]")).toBe("0.500000|0.2|2|4");
    expect(f("%.2f %.1f %.1f", "[2.675, 0.35, 0.45]")).toBe("2.67 0.3 0.5");
    expect(f("%e %E %.2e %+.2e", "[1234.5678, 0.5, 0.000123456, 12345.678]")).toBe("1.234568e+03 5.000000E-01 1.23e-04 +1.23e+04");
    expect(f("%g %g %g %.3g %G", "[0.5, 100000.5, 1000000.5, 3.14159, 1e-10]")).toBe("0.5 100000.5 1.0000005e+06 3.14 1E-10");
    expect(f("%08.3f|%-8.2f|%+.1f|% .1f", "[-3.14159, 2.5, 2.5, 2.5]")).toBe("-003.142|2.50    |+2.5| 2.5");
    expect(f("%6.2f%%", "[12.3456]")).toBe(" 12.35%");
    expect(f("%x %X %b", "[1.5, -0.75, 0.5]")).toBe("0x1.8p+00 -0X1.8P-01 4503599627370496p-53");
    expect(f("%#g %#.3g", "[1.5, 2.5]")).toBe("1.50000 2.50");
    expect(f("%d", "[1.5]")).toBe("%!d(float64=1.5)");
    expect(f("%s", "[0.25]")).toBe("%!s(float64=0.25)");
  });
  test("strings", () => {
    expect(f("%5s|%-5s|%.3s", '["ab", "cd", "abcdef"]')).toBe("   ab|cd   |abc");
    expect(f("%3s|", '["åäö😀"]')).toBe("åäö😀|");
    expect(f("%6s|", '["åä😀"]')).toBe("   åä😀|");
    expect(f("%x % x %#x %X", '["hi", "hi", "hi", "é"]')).toBe("6869 68 69 0x6869 C3A9");
    expect(f("%q %+q %#q %#v", '["a\\"b\\n", "é", "x", "y"]')).toBe('"a\\"b\\n" "\\u00e9" `x` "y"');
    expect(f("%d", '["a"]')).toBe("%!d(string=a)");
    expect(f("%t", "[true]")).toBe("%!t(string=true)");
  });
  test("other values print as Rego text", () => {
    expect(f("%v %v %v", '[null, {"a": 1}, {1, 2}]')).toBe('null {"a": 1} {1, 2}');
    expect(f("%s", "[set()]")).toBe("set()");
    expect(f("%v", '[[1, "x", [true]]]')).toBe('[1, "x", [true]]');
  });
  test("errors and directives", () => {
    expect(f("%d %d", "[1]")).toBe("1 %!d(MISSING)");
    expect(f("%d", '[1, 2, "a"]')).toBe("1%!(EXTRA int=2, string=a)");
    expect(f("100%%", "[]")).toBe("100%");
    expect(f("abc%", "[]")).toBe("abc%!(NOVERB)");
    expect(f("%z", "[1]")).toBe("%!z(int=1)");
    expect(f("%[2]d %[1]d", "[1, 2]")).toBe("2 1");
    expect(f("%[3]d", "[1, 2]")).toBe("%!d(BADINDEX)");
    expect(f("%*d|%-*d|%.*f", "[5, 42, 4, 7, 1, 3.14159]")).toBe("   42|7   |3.1");
    expect(f("%*d", '["x", 1]')).toBe("%!(BADWIDTH)1");
    expect(f("%T %T %T %T", '[1, 1.5, "s", [1]]')).toBe("int float64 string string");
    expect(f("%5t", "[3]")).toBe("%!t(int=    3)");
  });
  test("type errors are undefined", () => {
    expect(s.call("sprintf", 1, [])).toBeUndefined();
    expect(s.call("sprintf", "%d", 1)).toBeUndefined();
    expect(s.call("sprintf", "%d", rego("{1}"))).toBeUndefined();
  });
});

describe("format_int", () => {
  test("conformance cases", () => {
    expect(s.call("format_int", 15.5, 16)).toBe("f");
    expect(s.call("format_int", 3.1, 10)).toBe("3");
    expect(s.call("format_int", 4.1, 199)).toBeUndefined();
    const big = rego("18446744073709551617");
    const neg = rego("-18446744073709551617");
    expect(s.call("format_int", big, 16)).toBe("10000000000000001");
    expect(s.call("format_int", big, 10)).toBe("18446744073709551617");
    expect(s.call("format_int", big, 8)).toBe("2000000000000000000001");
    expect(s.call("format_int", big, 2)).toBe("1" + "0".repeat(63) + "1");
    expect(s.call("format_int", neg, 16)).toBe("-10000000000000001");
    expect(s.call("format_int", neg, 10)).toBe("-18446744073709551617");
    expect(s.call("format_int", 15.9, 16)).toBe("f");
    expect(s.call("format_int", -15.9, 16)).toBe("-f");
  });
  test("more", () => {
    expect(s.call("format_int", 255, 2)).toBe("11111111");
    expect(s.call("format_int", 8, 8)).toBe("10");
    expect(s.call("format_int", -0.5, 10)).toBe("0");
    expect(s.call("format_int", 0, 16)).toBe("0");
    expect(s.call("format_int", 1e20, 16)).toBe("56bc75e2d63100000");
    expect(s.call("format_int", rego("1.5e30"), 10)).toBe("1500000000000000000000000000000");
    expect(f("%d", "[1e30]")).toBe("1000000000000000000000000000000");
    expect(s.call("format_int", "1", 10)).toBeUndefined();
    expect(s.call("format_int", 1, "10")).toBeUndefined();
  });
});
