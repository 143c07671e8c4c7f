/** Time builtins. time.now_ns is fixed for the whole evaluation, as in OPA. */
import { specs, type BuiltinSpec } from "./spec";

export const TIME: BuiltinSpec[] = [
  ...specs(0, ["time.now_ns"], { nondeterministic: true }),
  ...specs(1, ["time.parse_rfc3339_ns", "time.date", "time.clock", "time.weekday"]),
  ...specs(2, ["time.parse_ns", "time.diff"]),
  ...specs(1, ["time.parse_duration_ns"]),
  ...specs(4, ["time.add_date"]),
  ...specs(1, ["time.format"]),
];
