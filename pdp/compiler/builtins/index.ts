/**
 * The builtin catalogue the checker and planner consult: every builtin a
 * policy may call, its arity, and whether the runtime compiles it natively
 * (export `bi_<name>`, see `../runtime-contract.ts`) or the module dispatches
 * it to the host through `opa_builtinN`. A name not listed here is a compile
 * error (rego_type_error: undefined function) at the call's position.
 */
import { ARITHMETIC } from "./arithmetic";
import { COLLECTIONS } from "./collections";
import { ENCODING } from "./encoding";
import { HOST } from "./host";
import { REGEX } from "./regex";
import { STRINGS } from "./strings";
import { TIME } from "./time";
import type { BuiltinSpec } from "./spec";

export type { BuiltinSpec } from "./spec";

const ALL: BuiltinSpec[] = [...ARITHMETIC, ...COLLECTIONS, ...STRINGS, ...ENCODING, ...REGEX, ...TIME, ...HOST];

export const BUILTINS: ReadonlyMap<string, BuiltinSpec> = new Map(ALL.map((b) => [b.name, b]));

export function lookupBuiltin(name: string): BuiltinSpec | undefined {
  return BUILTINS.get(name);
}
