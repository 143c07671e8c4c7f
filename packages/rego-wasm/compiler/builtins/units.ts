/** units.parse and units.parse_bytes (runtime/assembly/builtins/units.ts). */
import { specs, type BuiltinSpec } from "./spec";

export const UNITS: BuiltinSpec[] = [...specs(1, ["units.parse", "units.parse_bytes"])];
