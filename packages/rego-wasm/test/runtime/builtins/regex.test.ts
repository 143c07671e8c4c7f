/**
 * regex.* builtins: OPA's conformance cases (regexmatch, regexfind,
 * regexisvalid, regexreplace, regexmatchtemplate) and Go regexp (RE2)
 * semantics: syntax accepted/rejected, leftmost-first matches, submatches,
 * empty-match rules, ReplaceAllString expansion, Split, Unicode.
 */
import { regexCaller, Caller } from "./regex-call";

let c: Caller;
beforeAll(async () => {
  c = await regexCaller();
});
afterEach(() => c.rt.reset());

const match = (p: string, s: string) => c.call("regex.match", p, s);
const find = (p: string, s: string, n = -1) => c.call("regex.find_n", p, s, n);
const sub = (p: string, s: string, n = -1) => c.call("regex.find_all_string_submatch_n", p, s, n);
const valid = (p: unknown) => c.call("regex.is_valid", p);

describe("conformance cases", () => {
  test("regexmatch", () => {
    expect(match("^[a-z]+\\[[0-9]+\\]$", "foo[1]")).toBe(true);
    expect(match("^$", "")).toBe(true);
    expect(match("", "")).toBe(true);
    expect(match("", "x")).toBe(true);
    expect(match("^$", "something")).toBe(false);
    expect(match("$^[[[", "something")).toBeUndefined();
  });
  test("regexfind", () => {
    expect(find("a.", "paranormal")).toEqual(["ar", "an", "al"]);
    expect(find("a.", "paranormal", 2)).toEqual(["ar", "an"]);
    expect(find("a.", "paranormal", 0)).toEqual([]);
    expect(find("^a.", "abacadaeaf")).toEqual(["ab"]);
    expect(find(".$", "abacadaeaf")).toEqual(["f"]);
    expect(find("[abcdef]{2}", "abacadaeaf")).toEqual(["ab", "ac", "ad", "ae", "af"]);
    expect(find("bork", "paranormal")).toEqual([]);
  });
  test("regexisvalid", () => {
    expect(valid(10)).toBe(false);
    expect(valid("++")).toBe(false);
    expect(valid(".+")).toBe(true);
  });
  test("regexreplace", () => {
    const rep = (s: string, p: string, v: string) => c.call("regex.replace", s, p, v);
    expect(rep("-wy-wxxy-", "w(x*)y", "0")).toBe("-0-0-");
    expect(rep("foo", "(foo)", "$1$1")).toBe("foofoo");
    expect(rep("foo", "[", "$1")).toBeUndefined();
    expect(rep("foo", "^[a-z]", "F")).toBe("Foo");
    expect(rep("foo", "^[a-z]$", "F")).toBe("foo");
    expect(rep("foo", "^[a-z]+$", "M")).toBe("M");
    expect(rep("foo", "[a-z]$", "F")).toBe("foF");
    expect(rep("foo", "x[a-z]$", "F")).toBe("foo");
    expect(rep("foo bar", "[a-z]", "_")).toBe("___ ___");
    expect(rep("foo barx", "[a-z]{3}", "_")).toBe("_ _x");
    expect(rep("foo barx", "[a-z]{2}", "_")).toBe("_o __");
  });
  test("regexmatchtemplate", () => {
    expect(c.call("regex.template_match", "urn:foo:{.*}", "urn:foo:bar:baz", "{", "}")).toBe(true);
    expect(c.call("regex.template_match", "urn:foo:<.*>", "urn:foo:bar:baz", "<", ">")).toBe(true);
  });
});

describe("syntax accepted and rejected as by Go's regexp/syntax (Perl flags)", () => {
  const VALID = [
    "a{,5}",
    "{",
    "a{1",
    "x{2}{,3}",
    "a{1000}",
    "(?i)abc",
    "(?i:a)",
    "(?im-s:a)",
    "(?U)a+",
    "(?)",
    "(?P<name>a)",
    "(?<name>a)",
    "\\Qa.b\\E",
    "\\Qa",
    "\\pL",
    "\\p{Greek}",
    "\\PL",
    "\\p{^L}",
    "\\P{^Lu}",
    "\\p{Any}",
    "\\pN",
    "[\\p{Lu}\\d]",
    "[[:alpha:]]",
    "[[:^digit:]]",
    "\\x{10FFFF}",
    "\\x41",
    "\\0",
    "\\01",
    "\\141",
    "[]a]",
    "[^]a]",
    "[a-]",
    "[-a]",
    "\\_",
    "\\-",
    "(?:)",
    "()",
    "|",
    "a|",
    "(|a)",
    "x*?",
    "x{2,3}?",
    "\\A\\z",
    "(?s).",
    "[\\d\\s\\w]",
    "a(?i)*",
    "[a-b-c]",
    "[\\x00-\\x{10FFFF}]",
    "\\a\\f\\t\\n\\r\\v",
    "(?i)\\p{Lu}",
    "[[:a]",
    "\\B\\b",
    "(a)(?:b)(?P<c>c)",
    "(?P<n>a)(?P<n>b)",
  ];
  const INVALID = [
    "a**",
    "a*+",
    "a??*",
    "*a",
    "+",
    "?",
    "(*)",
    "a|*",
    "{1}",
    "(?i)*",
    "a{1001}",
    "a{2,1}",
    "(a{500}){3}",
    "(?:a{1000}){2}",
    "x{2}{3}",
    "(",
    ")",
    "a)",
    "(a",
    "[a",
    "[]",
    "[z-a]",
    "\\1",
    "\\8",
    "\\Z",
    "\\C",
    "[\\b]",
    "\\p{Foo}",
    "\\pX",
    "\\p{",
    "[[:foo:]]",
    "(?P<>a)",
    "(?P<a-b>x)",
    "(?P=n)",
    "(?P>n)",
    "(?i-)",
    "(?-)",
    "(?z)",
    "(?<=a)",
    "(?!a)",
    "(?=a)",
    "\\x{110000}",
    "\\xZ1",
    "\\x{}",
    "\\x4",
    "\\",
    "a\\",
    "$^[[[",
    "++",
    "[a-\\d]",
    "\\q",
    "(?P<name",
  ];
  test.each(VALID)("valid: %s", (p) => expect(valid(p)).toBe(true));
  test.each(INVALID)("invalid: %s", (p) => expect(valid(p)).toBe(false));
  test("x{01} is a literal brace, not a count (leading zero)", () => {
    expect(valid("x{01}")).toBe(true);
    expect(match("^x{01}$", "x{01}")).toBe(true);
  });
});

describe("matching semantics", () => {
  test("leftmost-first alternation and greediness", () => {
    expect(find("a|ab", "ab")).toEqual(["a"]);
    expect(find("ab|a", "ab")).toEqual(["ab"]);
    expect(find("a+?", "aaa")).toEqual(["a", "a", "a"]);
    expect(find("a{2,3}", "aaaaaaa")).toEqual(["aaa", "aaa"]);
    expect(find("(?U)a+", "aaa")).toEqual(["a", "a", "a"]);
    expect(find("(?U)a+?", "aaa")).toEqual(["aaa"]);
  });
  test("empty matches: never right after a match, always advance", () => {
    expect(find("a*?", "aaa")).toEqual(["", "", "", ""]);
    expect(find("a*", "baaab")).toEqual(["", "aaa", ""]);
    expect(find("a|", "ba")).toEqual(["", "a"]);
    expect(find("", "😀é")).toEqual(["", "", ""]);
  });
  test("anchors, lines and newlines", () => {
    expect(find("(?m)^\\w+$", "ab\ncd")).toEqual(["ab", "cd"]);
    expect(find("^\\w+$", "ab\ncd")).toEqual([]);
    expect(match("a$", "a\n")).toBe(false);
    expect(match("(?m)a$", "a\n")).toBe(true);
    expect(match("a.b", "a\nb")).toBe(false);
    expect(match("(?s)a.b", "a\nb")).toBe(true);
    expect(match("[^x]", "\n")).toBe(true);
    expect(match("\\Aa", "ba")).toBe(false);
    expect(match("a\\z", "ab")).toBe(false);
  });
  test("word boundaries are ASCII", () => {
    expect(find("\\bfoo\\b", "foo foobar barfoo foo")).toEqual(["foo", "foo"]);
    expect(match("\\bé", "é")).toBe(false);
    expect(find("\\B", "ab")).toEqual([""]);
  });
  test("escapes and classes", () => {
    expect(match("^\\Qa.b\\E$", "a.b")).toBe(true);
    expect(match("^\\Qa.b\\E$", "axb")).toBe(false);
    expect(match("^\\141\\x41\\x{1F600}$", "aA😀")).toBe(true);
    expect(match("^[]a]+$", "]a]")).toBe(true);
    expect(match("^[^]a]$", "b")).toBe(true);
    expect(match("^[a-]+$", "-a")).toBe(true);
    expect(find("[[:^digit:]]", "1a2")).toEqual(["a"]);
    expect(match("\\s", "\u000b")).toBe(false);
    expect(match("[[:space:]]", "\u000b")).toBe(true);
    expect(match("^\\w+$", "héllo")).toBe(false);
    expect(match("^[\\d\\-]+$", "1-2")).toBe(true);
  });
  test("code points, not UTF-16 units", () => {
    expect(find(".", "😀é")).toEqual(["😀", "é"]);
    expect(match("^.$", "😀")).toBe(true);
    expect(match("^[😀-😂]$", "😁")).toBe(true);
    expect(match("^[^a]$", "😀")).toBe(true);
    expect(sub("(.)(.)", "😀x")).toEqual([["😀x", "😀", "x"]]);
  });
  test("Unicode classes", () => {
    expect(match("^\\pL+$", "héllo")).toBe(true);
    expect(match("^\\p{Greek}+$", "αβγ")).toBe(true);
    expect(match("\\p{Greek}", "abc")).toBe(false);
    expect(match("\\p{Lu}", "abc")).toBe(false);
    expect(match("^\\PL+$", "123")).toBe(true);
    expect(find("\\p{N}", "a1b٢c½")).toEqual(["1", "٢", "½"]);
    expect(find("\\p{Nd}", "a1b٢c½")).toEqual(["1", "٢"]);
    expect(match("^\\p{Han}+$", "漢字")).toBe(true);
    expect(match("^\\p{Cyrillic}+$", "привет")).toBe(true);
    expect(match("\\p{Zs}", "a\u00a0b")).toBe(true);
  });
  test("case folding (?i) with Go's simple folding orbits", () => {
    expect(match("(?i)straße", "STRASSE")).toBe(false);
    expect(match("(?i)k", "\u212a")).toBe(true);
    expect(match("(?i)σ", "ς")).toBe(true);
    expect(match("(?i)σ", "Σ")).toBe(true);
    expect(match("^(?i)[a-z]+$", "ABC")).toBe(true);
    expect(match("(?i)[^a]", "A")).toBe(false);
    expect(match("(?i)\\p{Lu}", "a")).toBe(true);
    expect(match("(?i)\\w", "\u017f")).toBe(true);
    expect(match("a(?i)b", "aB")).toBe(true);
    expect(match("a(?i)b", "AB")).toBe(false);
    expect(match("(?i:a)b", "AB")).toBe(false);
    expect(match("(a(?i)b)c", "aBC")).toBe(false);
    expect(match("x(?i)y|z", "Z")).toBe(true);
  });
  test.each([
    ["ß", "ẞ", true],
    ["s", "ſ", true],
    ["k", "\u212a", true],
    ["å", "\u212b", true],
    ["β", "ϐ", true],
    ["ι", "\u0345", true],
    ["ι", "\u1fbe", true],
    ["ǅ", "Ǆ", true],
    ["ǆ", "ǅ", true],
    ["ṡ", "ẛ", true],
    ["Ꭰ", "ꭰ", true],
    ["𐐀", "𐐨", true],
    ["i", "İ", false],
    ["i", "ı", false],
    ["ss", "ß", false],
  ])("(?i)%s vs %s: %s (Go's simple folding orbits)", (a, b, want) => {
    expect(match(`^(?i)${a}$`, b)).toBe(want);
    expect(match(`^(?i)${b}$`, a)).toBe(want);
    if ([...a].length == 1) expect(match(`^(?i)[${a}]$`, b)).toBe(want);
  });
  test("submatches", () => {
    expect(sub("(a)(b)?", "ab a")).toEqual([
      ["ab", "a", "b"],
      ["a", "a", ""],
    ]);
    expect(sub("(?:(a)|b)+", "ab")).toEqual([["ab", "a"]]);
    expect(sub("(a*)+", "b")).toEqual([
      ["", ""],
      ["", ""],
    ]);
    expect(sub("(a|ab)(c|bcd)(d*)", "abcd")).toEqual([["abcd", "a", "bcd", ""]]);
    expect(sub("(?P<x>a)(?P<y>b)", "ab", 1)).toEqual([["ab", "a", "b"]]);
    expect(sub("a", "aaa", 2)).toEqual([["a"], ["a"]]);
    expect(sub("a", "aaa", 0)).toEqual([]);
  });
  test("skipping ahead to a possible first character keeps the context", () => {
    expect(find("(?m)^b", "a\nb\nab")).toEqual(["b"]);
    expect(find("\\bb\\w", "ab bc b")).toEqual(["bc"]);
    expect(find("(?m)^\\d|x$", "a1\n2x\n3")).toEqual(["2", "x", "3"]);
    expect(find("😀+", "a😀😀b😀")).toEqual(["😀😀", "😀"]);
  });
  test("lone surrogates are single characters", () => {
    expect(match("^.$", "\ud800")).toBe(true);
    // (The JSON dump shows the lone surrogate as U+FFFD.)
    expect(find(".", "a\udc00b")).toEqual(["a", "\ufffd", "b"]);
  });
  test("linear time on patterns that make backtrackers explode", () => {
    const t0 = Date.now();
    expect(match("^(a*)*b$", "a".repeat(2000))).toBe(false);
    expect(match("^(x+x+)+y$", "x".repeat(2000))).toBe(false);
    expect(match("(a|aa)+$", "a".repeat(2000) + "b")).toBe(false);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe("regex.replace, regex.split", () => {
  const rep = (s: string, p: string, v: string) => c.call("regex.replace", s, p, v);
  const split = (p: string, s: string) => c.call("regex.split", p, s);
  test("empty matches as in Go's ReplaceAllString", () => {
    expect(rep("abc", "x*", "-")).toBe("-a-b-c-");
    expect(rep("aaa", "a*", "X")).toBe("X");
    expect(rep("baaac", "a*", "X")).toBe("XbXcX");
    expect(rep("", "", "X")).toBe("X");
    expect(rep("😀😀", "", "-")).toBe("-😀-😀-");
  });
  test("template expansion", () => {
    expect(rep("2024-01-15", "(?P<y>\\d+)-(?P<m>\\d+)-(?P<d>\\d+)", "${d}/${m}/$y")).toBe("15/01/2024");
    expect(rep("ab", "(a)", "$1x")).toBe("b");
    expect(rep("ab", "(a)", "${1}x")).toBe("axb");
    expect(rep("ab", "(a)", "$$1")).toBe("$1b");
    expect(rep("ab", "(a)", "$")).toBe("$b");
    expect(rep("ab", "(a)", "${1")).toBe("${1b");
    expect(rep("ab", "(a)", "$2")).toBe("b");
    expect(rep("ab", "(a)", "$01")).toBe("b");
    expect(rep("ab", "(a)(x)?", "[$2]")).toBe("[]b");
    expect(rep("ab", "(?P<x>a)", "<$x>")).toBe("<a>b");
    expect(rep("ab", "(?P<x>a)", "<$xé>")).toBe("<>b"); // é is a letter: the name is "xé"
    expect(rep("ab", "(?P<x>a)", "<$x-é>")).toBe("<a-é>b");
    expect(rep("ab", "(?P<x>z)?(?P<x>a)", "<$x>")).toBe("<a>b"); // first group of that name that matched
    expect(rep("ab", "(?P<é>a)", "x")).toBeUndefined(); // group names are ASCII word characters
  });
  test("operand errors are undefined", () => {
    expect(rep("a", "a", 1 as unknown as string)).toBeUndefined();
    expect(c.call("regex.replace", 1, "a", "b")).toBeUndefined();
    expect(match("a", 1 as unknown as string)).toBeUndefined();
    expect(c.call("regex.find_n", "a", "a", 1.5)).toBeUndefined();
    expect(c.call("regex.find_n", "a", "a", "1")).toBeUndefined();
    expect(c.call("regex.find_all_string_submatch_n", "(", "a", -1)).toBeUndefined();
  });
  test("split as Go's Split(s, -1)", () => {
    expect(split(",", "a,b,,c")).toEqual(["a", "b", "", "c"]);
    expect(split(",", "")).toEqual([""]);
    expect(split("", "")).toEqual([]);
    expect(split("", "abc")).toEqual(["a", "b", "c"]);
    expect(split("a", "xa")).toEqual(["x", ""]);
    expect(split("x*", "axbc")).toEqual(["a", "b", "c"]);
    expect(split("\\s+", " a  b ")).toEqual(["", "a", "b", ""]);
    expect(split("[", "a")).toBeUndefined();
  });
});

describe("regex.template_match", () => {
  const tm = (t: string, s: string, a = "{", b = "}") => c.call("regex.template_match", t, s, a, b);
  test("literal text is quoted, variables are anchored regexes", () => {
    expect(tm("urn:foo:{[0-9]+}", "urn:foo:123")).toBe(true);
    expect(tm("urn:foo:{[0-9]+}", "urn:foo:12a")).toBe(false);
    expect(tm("a.b{.*}", "axbc")).toBe(false);
    expect(tm("a.b{.*}", "a.bc")).toBe(true);
    expect(tm("{a|b}c", "bc")).toBe(true);
    expect(tm("x{a{2}}y", "xaay")).toBe(true);
    expect(tm("<[a-z]+>@<[a-z]+>.com", "joe@example.com", "<", ">")).toBe(true);
    // From OPA's regex_template_test.go:
    expect(tm("urn:foo.bar.com:{.*}", "urn:foo.bar.com:bar:baz")).toBe(true);
    expect(tm("urn:foo.bar.com:{.*}", "urn:foo.com:bar:baz")).toBe(false);
    expect(tm("urn:foo.bar.com:{.*}", "foobar")).toBe(false);
    expect(tm("urn:foo.bar.com:{.{1,2}}", "urn:foo.bar.com:aa")).toBe(true);
    expect(tm("urn:foo.bar.com:{.*{}", "")).toBeUndefined();
  });
  test("errors are undefined", () => {
    expect(tm("urn:{foo", "urn:foo")).toBeUndefined();
    expect(tm("urn:foo}", "urn:foo")).toBeUndefined();
    expect(tm("urn:{(}", "urn:(")).toBeUndefined();
    expect(tm("a{)(}", "a)(")).toBeUndefined();
    expect(tm("urn:{.*}", "urn:x", "{{", "}")).toBeUndefined();
    expect(tm("urn:{.*}", "urn:x", "é", "}")).toBeUndefined();
  });
});

describe("\\p names as Go 1.25 resolves them (canonicalised names, aliases)", () => {
  test("aliases, specials and canonical names", () => {
    expect(match("^\\p{Letter}+$", "héllo")).toBe(true);
    expect(match("^\\p{greek}+$", "αβγ")).toBe(true);
    expect(match("^\\p{GREEK}+$", "αβγ")).toBe(true);
    expect(match("^\\pl+$", "abc")).toBe(true);
    expect(match("^\\p{lu}$", "A")).toBe(true);
    // As in Go: a script whose name is not canonical cannot be named.
    expect(valid("\\p{Old_Italic}")).toBe(false);
    expect(valid("\\p{SignWriting}")).toBe(false);
    expect(match("^\\p{Uppercase_Letter}$", "A")).toBe(true);
    expect(match("^\\p{uppercase-letter}$", "a")).toBe(false);
    expect(match("^\\p{digit}+$", "12٣")).toBe(true);
    expect(match("^\\p{ASCII}+$", "abc~")).toBe(true);
    expect(match("(?i)\\p{ASCII}", "\u212a")).toBe(true);
    expect(match("\\p{ASCII}", "é")).toBe(false);
    expect(match("^\\p{LC}+$", "aAǅ")).toBe(true);
    expect(match("\\p{LC}", "ʰ")).toBe(false);
    expect(match("\\p{Cn}", "\u{0378}")).toBe(true);
    expect(match("\\p{Assigned}", "\u{0378}")).toBe(false);
    expect(match("^\\p{Assigned}+$", "a😀")).toBe(true);
    expect(match("^\\P{Cn}$", "a")).toBe(true);
    expect(valid("\\p{NotAThing}")).toBe(false);
    expect(valid("\\p{}")).toBe(false);
  });
});

describe("compile cache (per evaluation)", () => {
  const top = () => c.rt.call("opa_heap_ptr_get");
  test("a pattern used in a loop is compiled once", () => {
    const p = c.rt.value("^(?i)[a-z]+-\\p{N}+$");
    const s = c.rt.value("abc-123");
    c.rt.call("bi_regex_match", p, s); // compiles
    const before = top();
    for (let i = 0; i < 1000; i++) expect(c.rt.call("bi_regex_match", p, s)).not.toBe(0);
    // No recompilation: a handful of bytes per call at most (no program, no machine).
    expect((top() - before) / 1000).toBeLessThan(64);
  });
  test("survives heap rewinds, including a rewind followed by regrowth past the cache", () => {
    expect(match("^a+$", "aaa")).toBe(true);
    expect(match("^b+$", "bbb")).toBe(true);
    c.rt.reset();
    // Fill the heap well past where the cache lived before calling again.
    c.rt.value({ big: "x".repeat(200000), list: Array.from({ length: 2000 }, (_, i) => i) });
    expect(match("^a+$", "aaa")).toBe(true);
    expect(match("^b+$", "aaa")).toBe(false);
    expect(c.call("glob.match", "a*", null, "abc")).toBe(true);
    c.rt.reset();
    expect(c.call("regex.template_match", "x{[0-9]+}", "x12", "{", "}")).toBe(true);
  });
  test("more patterns than the cache holds", () => {
    for (let i = 0; i < 300; i++) expect(match(`^p${i}$`, `p${i}`)).toBe(true);
    expect(match("^p0$", "p0")).toBe(true);
  });
});
