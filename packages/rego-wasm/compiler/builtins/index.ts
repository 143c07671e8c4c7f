/**
 * The builtin catalogue the checker and planner consult: every builtin a
 * policy may call, its arity, and whether the runtime compiles it natively
 * (export `bi_<name>`, see `../runtime-contract.ts`) or the module dispatches
 * it to the host through `opa_builtinN`. A name not listed here is a compile
 * error (rego_type_error: undefined function) at the call's position.
 *
 * One compilation sees one `Catalogue`: the fixed list below plus the
 * builtins its host declares (`compile(..., { hostBuiltins })`, like the
 * npm SDK's `customBuiltins` or OPA's test harness registering `test.sleep`).
 * The catalogue travels with the compilation (parse -> check's Program ->
 * plan), never through module-level state, so compilations with different
 * hosts can run side by side.
 */
import { ARITHMETIC } from "./arithmetic";
import { COLLECTIONS } from "./collections";
import { CRYPTO } from "./crypto";
import { ENCODING } from "./encoding";
import { HOST } from "./host";
import { NET } from "./net";
import { PROVIDERS } from "./providers";
import { REGEX } from "./regex";
import { REGO } from "./rego";
import { SEMVER } from "./semver";
import { STRINGS } from "./strings";
import { TIME } from "./time";
import { UNITS } from "./units";
import { UUID } from "./uuid";
import { invalidType, type DeclaredType } from "./declared-types";
import type { BuiltinSpec } from "./spec";

export type { BuiltinSpec } from "./spec";
export type { DeclaredType } from "./declared-types";

const ALL: BuiltinSpec[] = [
  ...ARITHMETIC,
  ...COLLECTIONS,
  ...STRINGS,
  ...ENCODING,
  ...REGEX,
  ...TIME,
  ...CRYPTO,
  ...PROVIDERS,
  ...SEMVER,
  ...NET,
  ...UUID,
  ...UNITS,
  ...REGO,
  ...HOST,
];

export const BUILTINS: ReadonlyMap<string, BuiltinSpec> = new Map(ALL.map((b) => [b.name, b]));

/** A builtin the host supplies at evaluation time (`customBuiltins[name]`). */
export interface HostBuiltinDecl {
  /** Dotted name as written in Rego (`test.sleep`). */
  name: string;
  /** Number of operands; the host function receives that many values. */
  arity: number;
  /** Each operand's declared type (OPA's capabilities `decl.args`): literal operands are checked against it. */
  args?: DeclaredType[];
  /** Same value within one evaluation, as OPA caches non-deterministic builtins. */
  nondeterministic?: boolean;
}

/** Names the compiler itself handles: a host may not take them over. */
const RESERVED = new Set(["eq", "assign", "print", "equal", "neq"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** opa_builtin0..4: the ABI has no dispatcher for more operands. */
const MAX_HOST_ARITY = 4;

export class Catalogue {
  private readonly extra = new Map<string, BuiltinSpec>();

  /**
   * The fixed catalogue plus `host` declarations. A declaration may not
   * reuse a catalogue name (the meaning of `count` must not depend on who
   * hosts the policy); bad declarations throw, naming the option.
   */
  /**
   * `allowed`: OPA's capabilities, when the caller gives them: the builtins
   * a policy may call are those listed and the host's declarations; any
   * other call is an undefined function, as in OPA (so a capabilities file
   * without `http.send` keeps it out of every policy compiled with it).
   */
  constructor(
    host: readonly HostBuiltinDecl[] = [],
    private readonly allowed?: ReadonlySet<string>,
  ) {
    for (const h of host) {
      const where = `hostBuiltins: ${JSON.stringify(h.name)}`;
      if (typeof h.name !== "string" || !NAME.test(h.name)) throw new Error(`${where} is not a builtin name (dotted identifiers)`);
      if (BUILTINS.has(h.name) || RESERVED.has(h.name)) throw new Error(`${where} is already a builtin`);
      if (this.extra.has(h.name)) throw new Error(`${where} is declared twice`);
      if (!Number.isInteger(h.arity) || h.arity < 0 || h.arity > MAX_HOST_ARITY) {
        throw new Error(`${where}: arity must be an integer from 0 to ${MAX_HOST_ARITY}, got ${h.arity}`);
      }
      if (h.args !== undefined) {
        if (h.args.length !== h.arity) throw new Error(`${where}: ${h.args.length} operand types declared for arity ${h.arity}`);
        const bad = h.args.map(invalidType).find((e) => e !== null);
        if (bad) throw new Error(`${where}: ${bad}`);
      }
      this.extra.set(h.name, { name: h.name, arity: h.arity, host: true, args: h.args, ...(h.nondeterministic ? { nondeterministic: true } : {}) });
    }
  }

  lookup(name: string): BuiltinSpec | undefined {
    return BUILTINS.get(name) ?? this.extra.get(name);
  }

  /** Whether a policy may call `name` as written (see `allowed`). */
  permits(name: string): boolean {
    return !this.allowed || this.allowed.has(name) || this.extra.has(name);
  }
}

/** The catalogue of a compilation whose host declares no builtins of its own. */
export const DEFAULT_CATALOGUE = new Catalogue();

/** Lookup in the default catalogue (no host builtins). */
export function lookupBuiltin(name: string): BuiltinSpec | undefined {
  return BUILTINS.get(name);
}
