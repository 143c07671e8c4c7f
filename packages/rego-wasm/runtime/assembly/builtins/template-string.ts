/**
 * internal.template_string: the builtin template strings (`$"a {x} b"`) are
 * lowered to (see compiler/parse/template.ts). Its one operand is an
 * array of parts, joined without separator, as OPA's topdown renders them
 * (v1/topdown/template_string.go, which shares print()'s operand rules):
 * - a string as is; a number, boolean or null as its Rego text;
 * - a set holds an embedded expression's values: none renders `<undefined>`,
 *   one renders that value (a string as is, anything else as Rego text),
 *   more than one is an eval_conflict_error, since a template string has
 *   exactly one value.
 */

import { Value, StrV, T_ARRAY, T_BOOLEAN, T_NULL, T_NUMBER, T_SET, T_STRING, asArr, asSet, asStr } from "../value";
import { toRegoText } from "../json";
import { hostAbort } from "../host";

function text(v: Value): string {
  return v.kind == T_STRING ? asStr(v).value : toRegoText(v);
}

export function bi_internal_template_string(a: Value | null): Value | null {
  if (a === null || a.kind != T_ARRAY) return null;
  const parts = asArr(a).items;
  // Parts joined once: `out +=` would copy the text so far per part.
  const out = new Array<string>();
  for (let i = 0; i < parts.length; i++) {
    const p = unchecked(parts[i]);
    const kind = p.kind;
    if (kind == T_STRING || kind == T_NUMBER || kind == T_BOOLEAN || kind == T_NULL) {
      out.push(text(p));
    } else if (kind == T_SET) {
      const values = asSet(p).items;
      if (values.length == 0) out.push("<undefined>");
      else if (values.length == 1) out.push(text(unchecked(values[0])));
      else hostAbort("eval_conflict_error: template-strings must not produce multiple outputs");
    } else {
      // Only a direct call can pass a collection here; lowered template strings never do.
      hostAbort("eval_internal_error: illegal argument type: " + (kind == T_ARRAY ? "array" : "object"));
    }
  }
  return new StrV(out.join(""));
}
