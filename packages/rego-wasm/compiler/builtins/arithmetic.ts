/** Operators, comparison, arithmetic, numbers and bits. */
import { specs, type BuiltinSpec } from "./spec";

export const ARITHMETIC: BuiltinSpec[] = [
  // Infix operators are calls to these (see ../ast.ts).
  ...specs(2, ["equal", "neq", "lt", "lte", "gt", "gte"]),
  ...specs(2, ["plus", "minus", "mul", "div", "rem"]),
  ...specs(1, ["abs", "round", "ceil", "floor", "to_number"]),
  ...specs(2, ["numbers.range"]),
  ...specs(3, ["numbers.range_step"]),
  ...specs(2, ["bits.and", "bits.or", "bits.xor", "bits.lsh", "bits.rsh"]),
  ...specs(1, ["bits.negate"]),
  ...specs(2, ["format_int"]),
];
