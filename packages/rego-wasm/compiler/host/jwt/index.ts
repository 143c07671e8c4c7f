/**
 * JWT builtins the host computes with node:crypto (public-key cryptography
 * is out of reach of the AssemblyScript runtime; OPA's own Wasm target
 * leaves these to the host too): io.jwt.verify_rs256/384/512,
 * verify_ps256/384/512, verify_es256/384/512, verify_eddsa,
 * io.jwt.decode_verify, and the public-key signatures of
 * io.jwt.encode_sign(_raw). Semantics are OPA's (v1/topdown/tokens.go).
 *
 * Every error OPA raises (a malformed token or key, a bad constraint, a
 * non-numeric "exp") makes the call undefined: the function returns
 * `undefined`, which the SDK hands to the module as "no value". That is what
 * the native builtins do, as Wasm has no strict builtin-error mode.
 *
 * One job per file: token.ts (sections, base64url, header; the error type),
 * keys.ts (PEM and JWK verification keys), verify.ts (the verify_*
 * builtins), decode-verify.ts (io.jwt.decode_verify's constraints),
 * sign.ts (encode_sign's public-key signatures).
 */
import { JWS_SIGN_HOST_BUILTIN } from "../../builtins/spec";
import { decodeVerify } from "./decode-verify";
import { jwsSign } from "./sign";
import { guarded, type HostFn } from "./token";
import { verifyBuiltins } from "./verify";

/** The host JWT builtins; `now` gives the evaluation's time.now_ns, decode_verify's default "time". */
export function jwtBuiltins(now: () => number): Record<string, HostFn> {
  return {
    ...verifyBuiltins(),
    "io.jwt.decode_verify": (jwt, constraints) => guarded(() => decodeVerify(jwt, constraints, now())),
    [JWS_SIGN_HOST_BUILTIN]: jwsSign,
  };
}
