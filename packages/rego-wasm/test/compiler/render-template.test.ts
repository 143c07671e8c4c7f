/**
 * strings.render_template: Go's text/template over the vars converted to Go
 * values (numbers as json.Number), compiled natively (runtime
 * builtins/go-template/). Errors are undefined.
 */
import { valueOfX } from "./evaluate-rego";

async function render(tpl: string, vars: unknown): Promise<unknown> {
  return valueOfX("package t\np := strings.render_template(input.t, input.v)", { t: tpl, v: vars });
}

test.each([
  ["{{.a}} {{.n}} {{.f}} {{.b}} {{.z}}", { a: "s", n: 2023, f: 1.5, b: true, z: null }, "s 2023 1.5 true <no value>"],
  ["{{.}}", { m: { y: 1, x: [1, "a", null] } }, "map[m:map[x:[1 a <nil>] y:1]]"],
  ["{{.a.b}}", { a: { b: "deep" } }, "deep"],
  ["{{range $k, $v := .m}}{{$k}}={{$v}};{{end}}", { m: { b: 2, a: 1 } }, "a=1;b=2;"],
  ["{{range .l}}[{{.}}]{{else}}empty{{end}}", { l: [] }, "empty"],
  ["{{range $i, $e := .l}}{{if eq $i 1}}{{break}}{{end}}{{$e}}{{end}}", { l: ["x", "y", "z"] }, "x"],
  ["a  {{- .a -}}  b", { a: "-" }, "a-b"],
  ["x{{/* note */}}y", {}, "xy"],
  ["{{$x := 1}}{{if .c}}{{$x = 2}}{{end}}{{$x}}", { c: true }, "2"],
  ["{{if not .a}}no{{else if .b}}b{{else}}c{{end}}", { a: true, b: "" }, "c"],
  ["{{with .a}}{{.}}{{else}}none{{end}}", { a: "" }, "none"],
  ['{{len .l}} {{index .l 1}} {{index .m "k"}} {{len .s}}', { l: [1, 2], m: { k: "v" }, s: "héllo" }, "2 2 v 6"],
  ['{{printf "%s-%d-%v" .s 3 .l}}', { s: "a", l: [1, 2] }, "a-3-[1 2]"],
  ['{{print 1 2 "x" 3}}|{{println .a .b}}', { a: "a", b: 1 }, "1 2x3|a 1\n"],
  [
    '{{.s | printf "%q"}} {{html .h}} {{js .h}} {{urlquery .u}}',
    { s: "q", h: "<a&'>", u: "a b/c" },
    '"q" &lt;a&amp;&#39;&gt; \\u003Ca\\u0026\\\'\\u003E a+b%2Fc',
  ],
  ['{{and .a .b}} {{or .a .b}} {{lt 1 2}} {{ge "b" "a"}} {{ne .s "x"}}', { a: 0, b: "", s: "x" }, " 0 true true false"],
  ['{{define "T"}}<{{.}}>{{end}}{{template "T" .a}}', { a: "in" }, "<in>"],
  ["{{.missing}} {{.m.x}}", { m: {} }, "<undefined> <undefined>"],
])("%s", async (tpl, vars, want) => {
  expect(await render(tpl, vars)).toBe(want);
});

test.each([
  ["{{.a.b}}", { a: "str" }], // field of a non-map
  ["{{if .a}}", { a: 1 }], // unclosed
  ["{{$y}}", {}], // undefined variable
  ["{{nofunc 1}}", {}],
  ["{{lt .n 1}}", { n: 1 }], // json.Number is a string kind: incompatible with int
  ["{{index .l 5}}", { l: [1] }],
  ["{{len 3}}", {}],
])("error: %s", async (tpl, vars) => {
  expect(await render(tpl, vars)).toBeUndefined();
});

// Inputs large enough that escaping with `out +=` per character took about a
// second and hundreds of MB (the runtime frees nothing within an evaluation).
test("html and js escapers on long input", async () => {
  const tpl = "{{html .p}}|{{html .e}}|{{js .p}}|{{js .e}}";
  const p = "‹".repeat(16000);
  const e = "<a'=".repeat(4000);
  expect(await render(tpl, { p, e })).toBe(`${p}|${"&lt;a&#39;=".repeat(4000)}|${p}|${"\\u003Ca\\'\\u003D".repeat(4000)}`);
});
