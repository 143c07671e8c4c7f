/**
 * glob.match / glob.quote_meta: OPA's globmatch conformance cases plus
 * gobwas/glob syntax details (escapes, nested alternatives, ranges,
 * separators, and the malformed patterns OPA's glob_test.go pins).
 */
import { regexCaller, Caller } from "./regex-call";

let c: Caller;
beforeAll(async () => {
  c = await regexCaller();
});
afterEach(() => c.rt.reset());

const glob = (p: unknown, d: unknown, s: unknown) => c.call("glob.match", p, d, s);

// [pattern, delimiters, input, expected] from testdata/v1/globmatch
const CONFORMANCE: [string, string[] | null, string, boolean][] = [
  ["*.github.com", ["."], "api.github.com", true],
  ["api.**.com", ["."], "api.github.com", true],
  ["api.**.com", ["."], "api.cdn.github.com", true],
  ["*:github:com", [":"], "api:github:com", true],
  ["*.github.com", ["."], "api.not-github.com", false],
  ["[abc]at", [], "cat", true],
  ["[abc]at", [], "fat", false],
  ["[!abc]at", [], "fat", true],
  ["[!abc]at", [], "cat", false],
  ["[a-c]at", [], "bat", true],
  ["[a-c]at", [], "fat", false],
  ["[!a-c]at", [], "bat", false],
  ["[!a-c]at", [], "fat", true],
  ["?at", [], "fat", true],
  ["?at", [], "at", false],
  ["?at", ["f"], "bat", true],
  ["?at", ["f"], "fat", false],
  ["{cat,bat,[fr]at}", [], "cat", true],
  ["{cat,bat,[fr]at}", [], "bat", true],
  ["{cat,bat,[fr]at}", [], "fat", true],
  ["{cat,bat,[fr]at}", [], "rat", true],
  ["{cat,bat,[fr]at}", [], "at", false],
  ["*", ["."], "foo", true],
  ["*", [], "foo", true],
  ["*", ["."], "foo.bar", false],
  ["*", [], "foo.bar", false],
  ["*", null, "foo.bar", true],
  ["foo*", null, "foo.bar", true],
  ["*.github.com", ["."], "api.example.com", false],
];

describe("conformance cases", () => {
  test.each(CONFORMANCE)("glob.match(%j, %j, %j) = %j", (p, d, s, want) => {
    expect(glob(p, d, s)).toBe(want);
  });
  test("same pattern twice in one evaluation (cache)", () => {
    expect(glob("*.github.com", ["."], "api.github.com")).toBe(true);
    expect(glob("*.github.com", ["."], "api.github.com")).toBe(true);
    expect(glob("*.github.com", [":"], "api.github.com")).toBe(true);
    expect(glob("*.github.com", ["."], "a.b.github.com")).toBe(false);
  });
});

describe("gobwas syntax", () => {
  test("super glob crosses separators, single star does not", () => {
    expect(glob("**", ["."], "a.b.c")).toBe(true);
    expect(glob("a.**", ["."], "a.")).toBe(true);
    expect(glob("*hub.com", null, "api.cdn.github.com")).toBe(true);
    expect(glob("*.github.com", [], "api.cdn.github.com")).toBe(false);
    expect(glob("a*b", ["/", "."], "a/b")).toBe(false);
    expect(glob("a*b", ["/", "."], "axxb")).toBe(true);
  });
  test("character classes ignore separators", () => {
    expect(glob("a[.]b", ["."], "a.b")).toBe(true);
    expect(glob("a[!x]b", ["."], "a.b")).toBe(true);
    expect(glob("a?b", ["."], "a.b")).toBe(false);
    expect(glob("[a-c][!x-z]", [], "cz")).toBe(false);
    expect(glob("[\\]]", [], "]")).toBe(true);
    expect(glob("[!!]", [], "a")).toBe(true);
    expect(glob("[!!]", [], "!")).toBe(false);
  });
  test("escapes and literal metacharacters", () => {
    expect(glob("\\*", [], "*")).toBe(true);
    expect(glob("\\*", [], "a")).toBe(false);
    expect(glob("a\\{b\\}", [], "a{b}")).toBe(true);
    expect(glob("a}b,c", [], "a}b,c")).toBe(true);
    expect(glob("a]", [], "a]")).toBe(true);
    expect(glob("(.+)$", [], "(.+)$")).toBe(true);
    expect(glob("(.+)$", [], "ab")).toBe(false);
  });
  test("alternatives nest and may be empty", () => {
    expect(glob("{a,{b,c}d}", [], "cd")).toBe(true);
    expect(glob("{a,{b,c}d}", [], "c")).toBe(false);
    expect(glob("x{,y}", [], "x")).toBe(true);
    expect(glob("x{,y}", [], "xy")).toBe(true);
    expect(glob("{*.com,*.org}", ["."], "a.org")).toBe(true);
  });
  test("unicode", () => {
    expect(glob("?", [], "é")).toBe(true);
    expect(glob("?", [], "😀")).toBe(true);
    expect(glob("??", [], "😀")).toBe(false);
    expect(glob("*", ["😀"], "a😀b")).toBe(false);
    expect(glob("[😀-😂]", [], "😁")).toBe(true);
  });
  test("malformed patterns and operands are undefined", () => {
    // The patterns OPA's glob_test.go pins as compile errors:
    expect(glob("{a,b", [], "b")).toBeUndefined(); // unclosed `{`
    expect(glob("a\\", null, "abc")).toBeUndefined(); // trailing backslash
    expect(glob("\\", null, "abc")).toBeUndefined();
    expect(glob("[abc", null, "abc")).toBeUndefined(); // unexpected end of input
    expect(glob("[a\\", null, "a")).toBeUndefined();
    expect(glob("{a,{b}", [], "b")).toBeUndefined();
    expect(glob("[", [], "a")).toBeUndefined();
    expect(glob("[]", [], "a")).toBeUndefined();
    expect(glob("[!]", [], "a")).toBeUndefined();
    expect(glob("[a-]", [], "a")).toBeUndefined();
    expect(glob("[c-a]", [], "b")).toBeUndefined();
    expect(glob("[a-cx]", [], "b")).toBeUndefined();
    expect(glob(1, [], "a")).toBeUndefined();
    expect(glob("a", "x", "a")).toBeUndefined();
    expect(glob("a", ["ab"], "a")).toBeUndefined();
    expect(glob("a", [1], "a")).toBeUndefined();
    expect(glob("a", [], 1)).toBeUndefined();
  });
});

describe("glob.quote_meta", () => {
  test("escapes * ? \\ [ ] { }", () => {
    expect(c.call("glob.quote_meta", "*.github.com")).toBe("\\*.github.com");
    expect(c.call("glob.quote_meta", "{foo*}[?]\\")).toBe("\\{foo\\*\\}\\[\\?\\]\\\\");
    expect(c.call("glob.quote_meta", "a,b!-c")).toBe("a,b!-c");
    expect(c.call("glob.quote_meta", 1)).toBeUndefined();
  });
  test("a quoted pattern matches its text", () => {
    const q = c.call("glob.quote_meta", "a*b?[c]{d}") as string;
    expect(glob(q, [], "a*b?[c]{d}")).toBe(true);
    expect(glob(q, [], "axb?[c]{d}")).toBe(false);
  });
});
