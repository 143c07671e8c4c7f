/**
 * Builtins only the host can run (network, crypto): dispatched through
 * `opa_builtinN`, as OPA's own Wasm compiler does. Listing them lets policies
 * call them (with a host that supplies them, e.g. npm SDK `customBuiltins`)
 * and mock them with `with http.send as ...`.
 */
import { specs, type BuiltinSpec } from "./spec";

export const HOST: BuiltinSpec[] = [
  ...specs(1, ["http.send"], { host: true, nondeterministic: true }),
  // Public-key JWT verification (node:crypto in ../host/jwt/), as OPA's Wasm target leaves it to the host.
  ...specs(2, ["io.jwt.decode_verify"], { host: true }),
  ...specs(
    2,
    [
      "io.jwt.verify_rs256",
      "io.jwt.verify_rs384",
      "io.jwt.verify_rs512",
      "io.jwt.verify_ps256",
      "io.jwt.verify_ps384",
      "io.jwt.verify_ps512",
      "io.jwt.verify_es256",
      "io.jwt.verify_es384",
      "io.jwt.verify_es512",
      "io.jwt.verify_eddsa",
    ],
    { host: true },
  ),
  // X.509 certificates, CSRs and private keys parsed by the host (../host/x509/). Not offered:
  // crypto.x509.parse_and_verify_certificates(_with_options), until chains are verified exactly as Go
  // does (name constraints, policies): a verifier laxer than OPA's would accept chains OPA refuses.
  ...specs(1, ["crypto.x509.parse_certificates", "crypto.x509.parse_certificate_request", "crypto.x509.parse_rsa_private_key", "crypto.parse_private_keys"], {
    host: true,
  }),
  ...specs(2, ["crypto.x509.parse_keypair"], { host: true }),
  // GraphQL parsing and validation (gqlparser's, as OPA uses it) run in the host (../host/graphql/).
  ...specs(1, ["graphql.parse_query", "graphql.parse_schema", "graphql.schema_is_valid"], { host: true }),
  ...specs(2, ["graphql.parse", "graphql.parse_and_verify", "graphql.is_valid"], { host: true }),
  // No random source in Wasm; the host caches answers per evaluation (see ../host/random.ts).
  ...specs(2, ["rand.intn"], { host: true, nondeterministic: true }),
  ...specs(1, ["uuid.rfc4122"], { host: true, nondeterministic: true }),
  // Facts about the host process; the host decides what it discloses (see ../host/index.ts).
  ...specs(0, ["opa.runtime"], { host: true }),
];
