/** Regular expressions (RE2 syntax) and glob matching. */
import { specs, type BuiltinSpec } from "./spec";

export const REGEX: BuiltinSpec[] = [
  ...specs(2, ["regex.match", "regex.split", "regex.globs_match"]),
  ...specs(1, ["regex.is_valid"]),
  ...specs(3, ["regex.replace", "regex.find_n", "regex.find_all_string_submatch_n", "glob.match"]),
  ...specs(4, ["regex.template_match"]),
  ...specs(1, ["glob.quote_meta"]),
];
