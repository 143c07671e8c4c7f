/** UUID builtins (OPA v1/topdown/uuid.go); uuid.rfc4122 is a host builtin (./host.ts). */
import { specs, type BuiltinSpec } from "./spec";

export const UUID: BuiltinSpec[] = specs(1, ["uuid.parse"]);
