/** Semantic version builtins (OPA v1/topdown/semver.go). */
import { specs, type BuiltinSpec } from "./spec";

export const SEMVER: BuiltinSpec[] = [...specs(1, ["semver.is_valid"]), ...specs(2, ["semver.compare"])];
