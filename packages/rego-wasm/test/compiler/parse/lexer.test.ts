/** The lexer: token kinds, whitespace/newline flags, positions, literals, errors. */
import { lex, unescapeJson } from "../../../compiler/parse/lexer";
import { CompileErrors } from "../../../compiler/errors";

const kinds = (src: string): string[] => lex(src, "f.rego").map((t) => t.kind);

function lexError(src: string): string {
  try {
    lex(src, "f.rego");
  } catch (e) {
    if (e instanceof CompileErrors) return e.message;
    throw e;
  }
  throw new Error("expected a lex error");
}

describe("lex", () => {
  it("cuts operators greedily and knows the v1 keywords", () => {
    expect(kinds("a:=b==c!=d<=e>=f<g>h=i:j")).toEqual([
      "ident",
      ":=",
      "ident",
      "==",
      "ident",
      "!=",
      "ident",
      "<=",
      "ident",
      ">=",
      "ident",
      "<",
      "ident",
      ">",
      "ident",
      "=",
      "ident",
      ":",
      "ident",
      "eof",
    ]);
    expect(kinds("if contains in every some not with as else default import package null true false x")).toEqual([
      "if",
      "contains",
      "in",
      "every",
      "some",
      "not",
      "with",
      "as",
      "else",
      "default",
      "import",
      "package",
      "null",
      "true",
      "false",
      "ident",
      "eof",
    ]);
    expect(kinds("__local0__ _ x1")).toEqual(["ident", "ident", "ident", "eof"]);
  });

  it("flags whitespace and newlines before a token, comments included", () => {
    const toks = lex("a.b [c]\nd # note\ne", "f.rego");
    expect(toks.map((t) => [t.text, t.ws, t.nl])).toEqual([
      ["a", false, false],
      [".", false, false],
      ["b", false, false],
      ["[", true, false],
      ["c", false, false],
      ["]", false, false],
      ["d", true, true],
      ["e", true, true],
      ["", false, false],
    ]);
  });

  it("positions tokens at 1-based row and column, counting code points", () => {
    const toks = lex('x\n  "é😀" y\n\tz', "f.rego");
    expect(toks.map((t) => [t.text, t.row, t.col])).toEqual([
      ["x", 1, 1],
      ['"é😀"', 2, 3],
      ["y", 2, 8],
      ["z", 3, 2],
      ["", 3, 3],
    ]);
  });

  it("keeps number text and decodes strings", () => {
    const toks = lex('1 2.50 3e10 4E-2 "a\\tb\\u0041" `r\\n`', "f.rego");
    expect(toks.slice(0, 4).map((t) => t.text)).toEqual(["1", "2.50", "3e10", "4E-2"]);
    expect(toks[4].value).toBe("a\tbA");
    expect(toks[5].value).toBe("r\\n");
  });

  it("decodes surrogate pairs, replaces lone surrogates like Go's JSON decoder", () => {
    expect(unescapeJson("\\ud83d\\ude00")).toBe("😀");
    expect(unescapeJson("\\ud800x")).toBe("\uFFFDx");
    expect(unescapeJson("\\u12")).toBeNull();
    expect(unescapeJson("\\x")).toBeNull();
  });

  it("reports scanner errors at the token, as rego_parse_error", () => {
    expect(lexError('x := "abc')).toBe("f.rego:1:6: rego_parse_error: non-terminated string");
    expect(lexError('x := "a\\qb"')).toBe("f.rego:1:6: rego_parse_error: illegal escape sequence");
    expect(lexError("x := 0a2b")).toBe("f.rego:1:6: rego_parse_error: illegal number format");
    expect(lexError("x := 1.")).toBe("f.rego:1:6: rego_parse_error: expected fraction");
    expect(lexError("x := 1e")).toBe("f.rego:1:6: rego_parse_error: expected exponent");
    expect(lexError("\n  x ! y")).toBe("f.rego:2:5: rego_parse_error: illegal ! character");
    expect(lexError("x := `abc")).toBe("f.rego:1:6: rego_parse_error: non-terminated string");
  });
});
