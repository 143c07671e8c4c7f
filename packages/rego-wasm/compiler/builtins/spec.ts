import type { DeclaredType } from "./declared-types";

/** One builtin function as the compiler sees it. */
export interface BuiltinSpec {
  /** Dotted name as written in Rego: `object.get`, `plus` (the `+` operator). */
  name: string;
  /** Number of operands (the optional output operand not counted). */
  arity: number;
  /** Dispatched to the host via opa_builtinN instead of compiled natively. */
  host?: boolean;
  /** A host-declared builtin's operand types (see ./declared-types.ts); catalogue builtins have none. */
  args?: DeclaredType[];
  /** Non-deterministic (time.now_ns, ...): same value within one evaluation. */
  nondeterministic?: boolean;
  /**
   * A relation (OPA: `walk`): the call yields many results. The native export
   * returns them all as one array; the planner iterates over it, unifying
   * each element with the output argument (`walk(x, [path, value])`).
   */
  relation?: boolean;
  /**
   * OPA answers `false`, not an error, when the first operand is not a
   * string (yaml.is_valid). Checked in the policy before a host call, so a
   * host implementation that answers otherwise (the npm SDK's: undefined)
   * cannot change the result.
   */
  falseForNonString?: boolean;
  /**
   * io.jwt.encode_sign(_raw): the runtime validates and signs with HMAC
   * keys itself; for the public-key algorithms it answers
   * [alg, signing input, key] and the planner has the host sign
   * (JWS_SIGN_HOST_BUILTIN, node:crypto), as OPA's Wasm target leaves
   * public-key cryptography to the host.
   */
  jwsSignedByHost?: boolean;
}

/** The host builtin that signs a JWS signing input with a private JWK (compiler/host/jwt/). */
export const JWS_SIGN_HOST_BUILTIN = "internal.jws_sign";

export function specs(arity: number, names: string[], extra: Partial<BuiltinSpec> = {}): BuiltinSpec[] {
  return names.map((name) => ({ name, arity, ...extra }));
}
