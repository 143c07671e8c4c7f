/**
 * Time builtins, compiled natively (runtime/assembly/builtins/time/)
 * except time.now_ns.
 *
 * time.now_ns is a host builtin: OPA's Wasm ABI gives the module no clock
 * import, so the host supplies it (the PDP, or a `customBuiltins` entry for the
 * npm SDK, e.g. `{ "time.now_ns": () => Date.now() * 1e6 }`). OPA fixes it for
 * the whole evaluation (`nondeterministic`): the policy code must ask the host
 * at most once per evaluation and reuse that value for every call.
 */
import { specs, type BuiltinSpec } from "./spec";

export const TIME: BuiltinSpec[] = [
  ...specs(0, ["time.now_ns"], { host: true, nondeterministic: true }),
  ...specs(1, ["time.parse_rfc3339_ns", "time.date", "time.clock", "time.weekday"]),
  ...specs(2, ["time.parse_ns", "time.diff"]),
  ...specs(1, ["time.parse_duration_ns"]),
  ...specs(4, ["time.add_date"]),
  ...specs(1, ["time.format"]),
];
