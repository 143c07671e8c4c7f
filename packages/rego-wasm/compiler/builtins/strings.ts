/** String builtins. */
import { specs, type BuiltinSpec } from "./spec";

export const STRINGS: BuiltinSpec[] = [
  ...specs(2, ["concat", "contains", "startswith", "endswith", "split", "indexof", "indexof_n", "sprintf"]),
  ...specs(1, ["lower", "upper", "trim_space", "strings.reverse"]),
  ...specs(2, ["trim", "trim_left", "trim_right", "trim_prefix", "trim_suffix", "strings.count"]),
  ...specs(2, ["strings.any_prefix_match", "strings.any_suffix_match"]),
  ...specs(3, ["replace", "substring", "strings.split_n"]),
  ...specs(2, ["strings.replace_n"]),
  // A note for OPA's tracer; a compiled policy has none, so it is just true (runtime builtins/trace.ts).
  ...specs(1, ["trace"]),
  // Go text/template (runtime builtins/go-template/)
  ...specs(2, ["strings.render_template"]),
  // what template strings are lowered to (parse/template.ts)
  ...specs(1, ["internal.template_string"]),
];
