/**
 * String builtins (runtime/assembly/builtins/strings-search.ts, strings-split.ts, strings-edit.ts):
 * expectations from OPA's conformance cases (strings, trim*) and Go's
 * strings package semantics.
 */
import { useStringsRuntime, rego } from "./strings-call";

const s = useStringsRuntime();

describe("concat", () => {
  test("array and set", () => {
    expect(s.call("concat", "/", ["", "foo", "bar", "0", "baz"])).toBe("/foo/bar/0/baz");
    expect(s.call("concat", ",", rego('{"3", "1", "2"}'))).toBe("1,2,3");
    expect(s.call("concat", ",", [])).toBe("");
    expect(s.call("concat", ",", ["x"])).toBe("x");
  });
  test("type errors are undefined", () => {
    expect(s.call("concat", ",", ["a", 1])).toBeUndefined();
    expect(s.call("concat", 1, ["a"])).toBeUndefined();
    expect(s.call("concat", ",", "ab")).toBeUndefined();
  });
});

describe("contains, startswith, endswith", () => {
  test("basics", () => {
    expect(s.call("contains", "abcdefgh", "defg")).toBe(true);
    expect(s.call("contains", "abcdefgh", "ac")).toBe(false);
    expect(s.call("startswith", "abcdefgh", "abcd")).toBe(true);
    expect(s.call("startswith", "abcdefgh", "bcd")).toBe(false);
    expect(s.call("endswith", "abcdefgh", "fgh")).toBe(true);
    expect(s.call("endswith", "abcdefgh", "fg")).toBe(false);
    expect(s.call("contains", "abc", 1)).toBeUndefined();
  });
});

describe("indexof, indexof_n", () => {
  test("code point indices", () => {
    expect(s.call("indexof", "abcdefgh", "cde")).toBe(2);
    expect(s.call("indexof", "abcabcabcdefgh", "cde")).toBe(8);
    expect(s.call("indexof", "abcdefgh", "xyz")).toBe(-1);
    expect(s.call("indexof", "μx", "x")).toBe(1);
    expect(s.call("indexof", "μ", "μμ")).toBe(-1);
    expect(s.call("indexof", "skön var våren", "vår")).toBe(9);
    expect(s.call("indexof", "🍧🍨🧁🍰🍮", "🍮")).toBe(4);
    expect(s.call("indexof", "🍧🍨🧁🍰🍮", "🍧🍨🧁🍰🍮")).toBe(0);
  });
  test("empty needle is an error", () => {
    expect(s.call("indexof", "abc", "")).toBeUndefined();
    expect(s.call("indexof_n", "abc", "")).toBeUndefined();
  });
  test("all matches, overlapping", () => {
    expect(s.call("indexof_n", "dogcat", "cat")).toEqual([3]);
    expect(s.call("indexof_n", "dogcatdogcat", "cat")).toEqual([3, 9]);
    expect(s.call("indexof_n", "dogcat", "rabbit")).toEqual([]);
    expect(s.call("indexof_n", "😇😀😇😀😇😀", "😀")).toEqual([1, 3, 5]);
    expect(s.call("indexof_n", "😇😀😇😀😇😀", "😂")).toEqual([]);
    expect(s.call("indexof_n", "aaa", "aa")).toEqual([0, 1]);
  });
});

describe("strings.count", () => {
  test("Go strings.Count", () => {
    expect(s.call("strings.count", "cheese", "e")).toBe(3);
    expect(s.call("strings.count", "hello hello hello world", "hello")).toBe(3);
    expect(s.call("strings.count", "dummy", "x")).toBe(0);
    expect(s.call("strings.count", "dummy", "")).toBe(6);
    expect(s.call("strings.count", "", "")).toBe(1);
    expect(s.call("strings.count", "", "x")).toBe(0);
    expect(s.call("strings.count", "11111", "11")).toBe(2);
    expect(s.call("strings.count", "11111", "11111")).toBe(1);
    expect(s.call("strings.count", "😀😀", "")).toBe(3);
  });
});

describe("substring", () => {
  test("code points", () => {
    expect(s.call("substring", "abcdefgh", 2, 3)).toBe("cde");
    expect(s.call("substring", "åäö", 0, 2)).toBe("åä");
    expect(s.call("substring", "abcdefgh", 2, -1)).toBe("cdefgh");
    expect(s.call("substring", "aåäö", 2, -1)).toBe("äö");
    expect(s.call("substring", "abcdefgh", 2, 10000)).toBe("cdefgh");
    expect(s.call("substring", "abcdefghåäö", 2, 10000)).toBe("cdefghåäö");
    expect(s.call("substring", "aaa", 3, -1)).toBe("");
    expect(s.call("substring", "åäö", 4, -1)).toBe("");
    expect(s.call("substring", "a😀b", 1, 1)).toBe("😀");
    expect(s.call("substring", "", 0, 1)).toBe("");
  });
  test("negative offset and fractions are errors", () => {
    expect(s.call("substring", "aaa", -1, -1)).toBeUndefined();
    expect(s.call("substring", "åäö", -1, -1)).toBeUndefined();
    expect(s.call("substring", "aaa", 1.5, 1)).toBeUndefined();
    expect(s.call("substring", "aaa", 1, 0.5)).toBeUndefined();
  });
});

describe("split, strings.split_n", () => {
  test("split", () => {
    expect(s.call("split", "", ".")).toEqual([""]);
    expect(s.call("split", "test", "")).toEqual(["t", "e", "s", "t"]);
    expect(s.call("split", "", "")).toEqual([]);
    expect(s.call("split", "foo", ".")).toEqual(["foo"]);
    expect(s.call("split", "foo.bar.baz", ".")).toEqual(["foo", "bar", "baz"]);
    expect(s.call("split", "a..b.", ".")).toEqual(["a", "", "b", ""]);
    expect(s.call("split", "😀x😀", "")).toEqual(["😀", "x", "😀"]);
  });
  test("split_n", () => {
    const d = "a.b.c.d";
    expect(s.call("strings.split_n", d, ".", 2)).toEqual(["a", "b"]);
    expect(s.call("strings.split_n", d, ".", 1)).toEqual(["a"]);
    expect(s.call("strings.split_n", d, ".", 4)).toEqual(["a", "b", "c", "d"]);
    expect(s.call("strings.split_n", d, ".", 10)).toEqual(["a", "b", "c", "d"]);
    expect(s.call("strings.split_n", d, ".", 0)).toEqual([]);
    expect(s.call("strings.split_n", d, ".", -2)).toEqual(["c", "d"]);
    expect(s.call("strings.split_n", d, ".", -1)).toEqual(["d"]);
    expect(s.call("strings.split_n", d, ".", -4)).toEqual(["a", "b", "c", "d"]);
    expect(s.call("strings.split_n", d, ".", -10)).toEqual(["a", "b", "c", "d"]);
    expect(s.call("strings.split_n", "abc", ".", 2)).toEqual(["abc"]);
    expect(s.call("strings.split_n", "abc", ".", -2)).toEqual(["abc"]);
    expect(s.call("strings.split_n", "", ".", 2)).toEqual([""]);
    expect(s.call("strings.split_n", "abc", "", 2)).toEqual(["a", "b"]);
    expect(s.call("strings.split_n", "abc", "", -2)).toEqual(["b", "c"]);
    expect(s.call("strings.split_n", "a.b.c", ".", 1.5)).toBeUndefined();
    expect(s.call("strings.split_n", "alice;alice@example.com;admin;active", ";", 2)).toEqual(["alice", "alice@example.com"]);
  });
});

describe("replace, strings.replace_n", () => {
  test("replace", () => {
    expect(s.call("replace", "", "hi", "bye")).toBe("");
    expect(s.call("replace", "foo.bar", ".", ",")).toBe("foo,bar");
    expect(s.call("replace", "foo.bar.baz", ".", ",")).toBe("foo,bar,baz");
    expect(s.call("replace", "foo...bar", "..", ",,")).toBe("foo,,.bar");
    expect(s.call("replace", "ab", "", "-")).toBe("-a-b-");
    expect(s.call("replace", "", "", "-")).toBe("-");
    // Go's generic Replacer steps over bytes after an empty match, splitting
    // "é" (C3 A9); the stray bytes read back as U+FFFD.
    expect(s.call("replace", "é", "", "-")).toBe("-\ufffd-\ufffd-");
  });
  test("replace_n: NewReplacer, smaller key first at equal positions", () => {
    expect(s.call("strings.replace_n", { "<": "&lt;", ">": "&gt;" }, "<a>")).toBe("&lt;a&gt;");
    expect(s.call("strings.replace_n", { a: "1", ab: "2" }, "abc")).toBe("1bc");
    expect(s.call("strings.replace_n", { ab: "x", b: "y" }, "abb")).toBe("xy");
    expect(s.call("strings.replace_n", { a: "b", b: "a" }, "ab")).toBe("ba");
    expect(s.call("strings.replace_n", {}, "ab")).toBe("ab");
    expect(s.call("strings.replace_n", { "": "-", b: "B" }, "ab")).toBe("-a-B-");
    expect(s.call("strings.replace_n", { a: 1 }, "ab")).toBeUndefined();
    expect(s.call("strings.replace_n", rego('{1: "x"}'), "ab")).toBeUndefined();
  });
});

describe("trim family", () => {
  test("trim", () => {
    expect(s.call("trim", "", ".")).toBe("");
    expect(s.call("trim", "foo.bar...", ".")).toBe("foo.bar");
    expect(s.call("trim", "...foo.bar", ".")).toBe("foo.bar");
    expect(s.call("trim", "...foo.bar...", ".fr")).toBe("oo.ba");
    expect(s.call("trim", "...foo.bar...", ".o")).toBe("foo.bar");
    expect(s.call("trim", "¡¡¡foo, bar!!!", "!¡")).toBe("foo, bar");
    expect(s.call("trim", "¡¡¡foo, bar!!!", "i")).toBe("¡¡¡foo, bar!!!");
    expect(s.call("trim", "😀a😀", "😀")).toBe("a");
  });
  test("left, right, prefix, suffix", () => {
    expect(s.call("trim_left", "¡¡¡foo, bar!!!", "!¡")).toBe("foo, bar!!!");
    expect(s.call("trim_left", "!!!foo, bar¡¡¡", "¡")).toBe("!!!foo, bar¡¡¡");
    expect(s.call("trim_right", "¡¡¡foo, bar!!!", "!¡")).toBe("¡¡¡foo, bar");
    expect(s.call("trim_right", "!!!foo, bar¡¡¡", "!")).toBe("!!!foo, bar¡¡¡");
    expect(s.call("trim_prefix", "¡¡¡foo, bar!!!", "¡¡¡foo")).toBe(", bar!!!");
    expect(s.call("trim_prefix", "¡¡¡foo, bar!!!", "¡¡¡bar")).toBe("¡¡¡foo, bar!!!");
    expect(s.call("trim_suffix", "foo.bar", ".bar")).toBe("foo");
    expect(s.call("trim_suffix", "foo.bar", ".baz")).toBe("foo.bar");
  });
  test("trim_space: Go unicode.IsSpace", () => {
    expect(s.call("trim_space", " \t\n foo, bar \n\t\r\n")).toBe("foo, bar");
    expect(s.call("trim_space", "foo, bar")).toBe("foo, bar");
    expect(s.call("trim_space", "\u00a0\u2003x\u3000\u0085")).toBe("x");
    expect(s.call("trim_space", "\u200bx")).toBe("\u200bx"); // zero width space is not white space
    expect(s.call("trim_space", 1)).toBeUndefined();
  });
});

describe("lower, upper, strings.reverse", () => {
  test("simple case mapping as Go", () => {
    expect(s.call("lower", "AbCdEf")).toBe("abcdef");
    expect(s.call("upper", "AbCdEf")).toBe("ABCDEF");
    expect(s.call("upper", "straße")).toBe("STRAßE"); // no special casing
    expect(s.call("lower", "İ")).toBe("i");
    expect(s.call("lower", "ΟΔΟΣ")).toBe("οδοσ"); // no final sigma
    expect(s.call("upper", "ǆ")).toBe("Ǆ");
    expect(s.call("upper", "ⓐ𐐨")).toBe("Ⓐ𐐀");
    expect(s.call("lower", 1)).toBeUndefined();
  });
  test("reverse by code point", () => {
    expect(s.call("strings.reverse", "bar")).toBe("rab");
    expect(s.call("strings.reverse", "2️⃣")).toBe("⃣️2");
    expect(s.call("strings.reverse", "1\u{1F600}\u{1D6FE}")).toBe("\u{1D6FE}\u{1F600}1");
    expect(s.call("strings.reverse", "")).toBe("");
    expect(s.call("strings.reverse", 123)).toBeUndefined();
    expect(s.call("strings.reverse", { bar: "baz" })).toBeUndefined();
  });
});

describe("strings.any_prefix_match, any_suffix_match", () => {
  const strs = ["a/b/c", "a/b/d", "e/f/g"];
  test("prefix", () => {
    expect(s.call("strings.any_prefix_match", strs, ["a/", "d/"])).toBe(true);
    expect(s.call("strings.any_prefix_match", strs, ["f/", "d/"])).toBe(false);
    expect(s.call("strings.any_prefix_match", strs, ["d/", "e/f/g"])).toBe(true);
    expect(s.call("strings.any_prefix_match", ["aa/bb/cc"], ["a/b"])).toBe(false);
    expect(s.call("strings.any_prefix_match", [], ["a/b"])).toBe(false);
    expect(s.call("strings.any_prefix_match", strs, [])).toBe(false);
    expect(s.call("strings.any_prefix_match", strs, "a/")).toBe(true);
    expect(s.call("strings.any_prefix_match", "a/b/c", ["g/", "d/"])).toBe(false);
    expect(s.call("strings.any_prefix_match", rego('{"a/b/c", "e/f/g"}'), rego('{"e/"}'))).toBe(true);
  });
  test("suffix", () => {
    expect(s.call("strings.any_suffix_match", strs, ["/c", "/a"])).toBe(true);
    expect(s.call("strings.any_suffix_match", strs, ["/f", "/a"])).toBe(false);
    expect(s.call("strings.any_suffix_match", ["aa/bb/cc"], ["b/cc"])).toBe(true);
    expect(s.call("strings.any_suffix_match", "a/b/g", ["/c", "/a"])).toBe(false);
  });
  test("type errors", () => {
    expect(s.call("strings.any_prefix_match", [1, 2, 3], ["f/"])).toBeUndefined();
    expect(s.call("strings.any_prefix_match", 1, ["f/"])).toBeUndefined();
    expect(s.call("strings.any_suffix_match", strs, [1, 2])).toBeUndefined();
    expect(s.call("strings.any_suffix_match", strs, 1)).toBeUndefined();
  });
});
