/** Queries, expressions and terms: precedence, every construct, node positions. */
import { parseQuery, parseTerm } from "../../../compiler/parse";
import { printBody, printTerm } from "../../../compiler/parse/print";
import type { Expr, Term } from "../../../compiler/ast";

const q = (src: string): string => printBody(parseQuery(src, "q.rego"));
const t = (src: string): string => printTerm(parseTerm(src, "t.rego"));

describe("operator precedence (OPA's parser.go)", () => {
  it.each([
    ["x := 1 + 2 * 3 - 4", "assign(x, minus(plus(1, mul(2, 3)), 4))"],
    ["x = a / b % c * d", "eq(x, mul(rem(div(a, b), c), d))"],
    ["a - b - c", "minus(minus(a, b), c)"],
    ["a + b == c * d", "equal(plus(a, b), mul(c, d))"],
    ["a == b != c", "neq(equal(a, b), c)"],
    ["a < b; a <= b; a > b; a >= b", "lt(a, b); lte(a, b); gt(a, b); gte(a, b)"],
    ["1 | 2 & 3", "or(1, and(2, 3))"],
    ["a | b == c", "equal(or(a, b), c)"],
    ["a & b + c", "and(a, plus(b, c))"],
    ["x in xs == true", "internal.member_2(x, equal(xs, true))"],
    ["x in xs in ys", "internal.member_2(internal.member_2(x, xs), ys)"],
    ["k, v in xs", "internal.member_3(k, v, xs)"],
    ["y := x in xs", "assign(y, internal.member_2(x, xs))"],
    ["(1 + 2) * 3", "mul(plus(1, 2), 3)"],
    ["a = b == c", "eq(a, equal(b, c))"],
  ])("%s", (src, want) => {
    expect(q(src)).toBe(want);
  });

  it("reads a minus directly on a number as part of the literal", () => {
    expect(q("x - -1")).toBe("minus(x, -1)");
    expect(q("x -1")).toBe("minus(x, 1)");
    expect(q("x := -1.5e3")).toBe("assign(x, -1.5e3)");
    expect(parseTerm("[-0.5]", "t").type).toBe("array");
  });
});

describe("terms", () => {
  it("parses scalars, keeping number text", () => {
    expect(parseTerm("null", "t")).toMatchObject({ type: "null" });
    expect(parseTerm("true", "t")).toMatchObject({ type: "boolean", value: true });
    expect(parseTerm("3.0", "t")).toMatchObject({ type: "number", value: "3.0" });
    expect(parseTerm("1e3", "t")).toMatchObject({ type: "number", value: "1e3" });
    expect(parseTerm('"a\\u00e9\\ud83d\\ude00"', "t")).toMatchObject({ type: "string", value: "aé😀" });
    expect(parseTerm("`a\\nb`", "t")).toMatchObject({ type: "string", value: "a\\nb" });
  });

  it("parses composites and comprehensions", () => {
    expect(t('{"x": {1, 2}}')).toBe('{"x": {1, 2}}');
    expect(t("set()")).toBe("set()");
    expect(t("{}")).toBe("{}");
    expect(parseTerm("{}", "t").type).toBe("object");
    expect(t("[1, 2,]")).toBe("[1, 2]");
    expect(t("[x | x := xs[_]]")).toBe("[x | assign(x, xs[_])]");
    expect(t("{x | x := 1}")).toBe("{x | assign(x, 1)}");
    expect(t("{k: v | k := 1; v := 2}")).toBe("{k: v | assign(k, 1); assign(v, 2)}");
    expect(t("{1 | 2}")).toBe("{1 | 2}");
    expect(parseTerm("{1 | 2}", "t").type).toBe("setcompr");
    expect(t("{a + 1: b | b := 1}")).toBe("{plus(a, 1): b | assign(b, 1)}");
    expect(t("[a | b, c]")).toBe("[or(a, b), c]");
    expect(t("{1 + 2, 3}")).toBe("{plus(1, 2), 3}");
    expect(t('{"a": 1 + 2, "b": x == y}')).toBe('{"a": plus(1, 2), "b": equal(x, y)}');
    expect(t("[\n  1,\n  2\n]")).toBe("[1, 2]");
  });

  it("parses refs, calls and refs whose head is a call or a composite", () => {
    expect(t('a.b[c]["d"]')).toBe("a.b[c].d");
    expect(parseTerm('a.b[c]["d"]', "t")).toMatchObject({
      type: "ref",
      terms: [
        { type: "var", name: "a" },
        { type: "string", value: "b" },
        { type: "var", name: "c" },
        { type: "string", value: "d" },
      ],
    });
    expect(t("data")).toBe("data");
    expect(parseTerm("input", "t").type).toBe("ref");
    expect(q('split(x, ".")[0]')).toBe('split(x, ".")[0]');
    expect(q("data.lib.f(x)")).toBe("data.lib.f(x)");
    expect(q('object.get(o, "k", 0)')).toBe('object.get(o, "k", 0)');
    expect(q("[1, 2][i]")).toBe("([1, 2])[i]");
    expect(q("[x | x := 1][0]")).toBe("([x | assign(x, 1)])[0]");
    expect(q("f(x).y[0]")).toBe("f(x).y[0]");
    const call = parseQuery("data.lib.f(x)", "q")[0] as Extract<Expr, { kind: "term" }>;
    expect(call.term).toMatchObject({
      type: "call",
      op: { type: "ref", terms: [{ name: "data" }, { value: "lib" }, { value: "f" }] },
      args: [{ type: "var", name: "x" }],
    });
  });

  it("continues a ref or call only without whitespace", () => {
    expect(q("a [1]")).toBe("a; [1]");
    expect(q("f (x)")).toBe("f; x");
  });

  it("reads keywords after a dot, and a keyword directly followed by . or [ , as ref segments", () => {
    expect(q("foo.not == 1")).toBe("equal(foo.not, 1)");
    expect(q("not.foo == 1")).toBe("equal(not.foo, 1)");
    expect(q("not foo.not")).toBe("not foo.not");
    expect(q("data.x.if.contains.in")).toBe("data.x.if.contains.in");
    expect(q("bar.contains.baz(1)")).toBe("bar.contains.baz(1)");
    expect(q("if.foo(1) == 1")).toBe("equal(if.foo(1), 1)");
    expect(q('null["x"]')).toBe("null.x");
    expect(q("contains(x, y)")).toBe("contains(x, y)");
  });
});

describe("expressions", () => {
  it("parses not, with, some, every", () => {
    expect(q("not a.b[c] with input.x as 1 with data.f as g")).toBe("not a.b[c] with input.x as 1 with data.f as g");
    expect(q("x with count as f")).toBe("x with count as f");
    expect(q("some x, y")).toBe("some x, y");
    expect(q("some x in xs")).toBe("some x in xs");
    expect(q("some k, [a, b] in xs")).toBe("some k, [a, b] in xs");
    expect(q("every k, v in xs { k == v }")).toBe("every k, v in xs { equal(k, v) }");
    expect(q("every x in [1, 2] {\n  x > 0\n  x < 3\n}")).toBe("every x in [1, 2] { gt(x, 0); lt(x, 3) }");
    const some = parseQuery("some k, v in xs", "q")[0];
    expect(some).toMatchObject({ kind: "somein", key: { name: "k" }, value: { name: "v" }, collection: { type: "var", name: "xs" } });
    const every = parseQuery("every x in xs { true }", "q")[0];
    expect(every).toMatchObject({ kind: "every", key: null, value: { name: "x" }, domain: { name: "xs" } });
  });

  it("splits a query on newlines and semicolons", () => {
    expect(q("data.a.p[x] = z; data.b.q = y")).toBe("eq(data.a.p[x], z); eq(data.b.q, y)");
    expect(q("x := 1\ny := [x,\n  2]\n\nz = y")).toBe("assign(x, 1); assign(y, [x, 2]); eq(z, y)");
    expect(q("__local0__ = 1")).toBe("eq(__local0__, 1)");
  });

  it("treats [1, 2] = [a, b] and [a, b] := arr as eq / assign", () => {
    expect(q("[a, b] := arr")).toBe("assign([a, b], arr)");
    expect(q('{"k": v} = o')).toBe('eq({"k": v}, o)');
  });
});

describe("positions", () => {
  it("locates every node at its first character", () => {
    const body = parseQuery("x := 1\n  not f(a, [b])", "q.rego");
    expect(body[0].loc).toEqual({ file: "q.rego", row: 1, col: 1 });
    const assign = (body[0] as Extract<Expr, { kind: "term" }>).term as Extract<Term, { type: "call" }>;
    expect(assign.op.loc).toEqual({ file: "q.rego", row: 1, col: 3 });
    expect(assign.args[1].loc).toEqual({ file: "q.rego", row: 1, col: 6 });
    expect(body[1].loc).toEqual({ file: "q.rego", row: 2, col: 3 });
    const call = (body[1] as Extract<Expr, { kind: "term" }>).term as Extract<Term, { type: "call" }>;
    expect(call.loc).toEqual({ file: "q.rego", row: 2, col: 7 });
    expect(call.args[0].loc).toEqual({ file: "q.rego", row: 2, col: 9 });
    const arr = call.args[1] as Extract<Term, { type: "array" }>;
    expect(arr.loc.col).toBe(12);
    expect(arr.items[0].loc.col).toBe(13);
  });

  it("locates ref segments and infix calls (at their left operand)", () => {
    const ref = parseTerm("a.b[c]", "t") as Extract<Term, { type: "ref" }>;
    expect(ref.terms.map((x) => x.loc.col)).toEqual([1, 3, 5]);
    const [e] = parseQuery("  1 + 2", "q");
    expect((e as Extract<Expr, { kind: "term" }>).term.loc).toEqual({ file: "q", row: 1, col: 3 });
  });
});
