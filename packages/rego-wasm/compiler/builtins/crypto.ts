/** Hashes, HMACs (crypto.*) and JWTs (io.jwt.*), computed natively in the runtime (public-key signatures by the host). */
import { specs, type BuiltinSpec } from "./spec";

export const CRYPTO: BuiltinSpec[] = [
  ...specs(1, ["crypto.md5", "crypto.sha1", "crypto.sha256"]),
  ...specs(2, ["crypto.hmac.md5", "crypto.hmac.sha1", "crypto.hmac.sha256", "crypto.hmac.sha512", "crypto.hmac.equal"]),
  ...specs(1, ["io.jwt.decode"]),
  ...specs(2, ["io.jwt.verify_hs256", "io.jwt.verify_hs384", "io.jwt.verify_hs512"]),
  // HMAC signatures in the runtime; RSA, ECDSA and EdDSA ones by the host (see BuiltinSpec.jwsSignedByHost).
  ...specs(3, ["io.jwt.encode_sign_raw", "io.jwt.encode_sign"], { jwsSignedByHost: true }),
];
