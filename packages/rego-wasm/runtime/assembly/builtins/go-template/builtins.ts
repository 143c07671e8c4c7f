/**
 * strings.render_template(template, vars): Go's text/template, as OPA runs it
 * (v1/topdown/template.go). OPA parses the template, converts the vars object
 * to Go values by decoding its Rego text as JSON with UseNumber (so numbers
 * are json.Number: a string kind that prints as its text, and strings that
 * strconv.Quote escapes in a non-JSON way, object keys that are not strings
 * and sets fail), and executes it (see MISSING for missing keys). Every parse or exec
 * error is a builtin error, i.e. undefined here: this module signals errors
 * by throwing nothing but returning null through the `failed` flag.
 *
 * Supported: text, actions, trim markers, comments, fields and chains,
 * variables (:= and =), pipelines, parenthesised pipelines, if/else if/
 * else, with/else with/else, range (arrays, objects in key order, ints,
 * $i, $v :=, else, break, continue), define/template/block, literals, and
 * the functions and, or, not, eq, ne, lt, le, gt, ge, len, index, slice,
 * print, printf, println, html, js, urlquery.
 *
 * Modules: values.ts (Go values, `failed`), lex.ts, parse.ts, exec.ts and
 * funcs.ts (comparisons and escapers of the functions).
 */

import { Value, StrV, T_STRING, T_OBJECT } from "../../value";
import { failed, toGo } from "./values";
import { K_EOF, lex } from "./lex";
import { Node, Parser } from "./parse";
import { Exec } from "./exec";

export function bi_strings_render_template(a: Value | null, b: Value | null): Value | null {
  if (a === null || a.kind != T_STRING || b === null || b.kind != T_OBJECT) return null;
  failed = false;
  const data = toGo(b);
  if (failed) return null;
  const parser = new Parser(lex(changetype<StrV>(a).value));
  if (failed) return null;
  const root = new Array<Node>();
  const end = parser.list(root);
  if (failed || end != "" || parser.peek().kind != K_EOF) return null;
  const ex = new Exec(parser.defs);
  ex.push("$", data);
  ex.walkList(data, root);
  if (failed) return null;
  return new StrV(ex.out.join(""));
}
