/**
 * rego.metadata.chain and rego.metadata.rule. Listed so that calls to them
 * parse and resolve as builtins; the checker replaces every call by the
 * rule's annotations as a constant before planning (`../check/metadata.ts`),
 * as OPA's compiler does, so the runtime has no export for them.
 */
import { specs } from "./spec";

export const REGO = specs(0, ["rego.metadata.chain", "rego.metadata.rule"]);
