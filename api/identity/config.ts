/**
 * Identity configuration: which issuer, audience, algorithms and keys a
 * token must match. From the environment for `portcullis serve`:
 *
 *   PORTCULLIS_JWT_ISSUER     expected `iss` (default urn:portcullis:dev)
 *   PORTCULLIS_JWT_AUDIENCE   expected `aud` (default portcullis-api)
 *   PORTCULLIS_JWKS_URL       the IdP's key set; when unset, the dev key under var/
 *   PORTCULLIS_JWT_ALGORITHMS comma-separated (default ES256 for the dev key, RS256,ES256 for a JWKS)
 */
export const DEV_ISSUER = "urn:portcullis:dev";
export const DEV_AUDIENCE = "portcullis-api";

export interface IdentityConfig {
  issuer: string;
  audience: string;
  algorithms: string[];
  /** Remote key set; absent: the local dev key file. */
  jwksUrl?: string;
  devKeyFile: string;
  /** Allowed clock skew in seconds. */
  clockToleranceSec: number;
}

export function identityConfigFromEnv(env: NodeJS.ProcessEnv, devKeyFile: string): IdentityConfig {
  const jwksUrl = env.PORTCULLIS_JWKS_URL || undefined;
  const algorithms = (env.PORTCULLIS_JWT_ALGORITHMS ?? (jwksUrl ? "RS256,ES256" : "ES256"))
    .split(",").map((a) => a.trim()).filter((a) => a !== "");
  // alg "none" is never accepted, whatever the configuration says.
  if (algorithms.some((a) => a.toLowerCase() === "none") || algorithms.length === 0) {
    throw new Error("PORTCULLIS_JWT_ALGORITHMS must list signature algorithms (and never none)");
  }
  return {
    issuer: env.PORTCULLIS_JWT_ISSUER || DEV_ISSUER,
    audience: env.PORTCULLIS_JWT_AUDIENCE || DEV_AUDIENCE,
    algorithms,
    jwksUrl,
    devKeyFile,
    clockToleranceSec: 30,
  };
}
