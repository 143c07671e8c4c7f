/** UUID builtins (OPA v1/topdown/uuid.go); uuid.rfc4122 is not offered. */
import { specs, type BuiltinSpec } from "./spec";

export const UUID: BuiltinSpec[] = specs(1, ["uuid.parse"]);
