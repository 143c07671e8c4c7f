/**
 * The PDP's errors, each with a stable code callers branch on (never on the
 * message).
 *
 * Decision failures become the `reason` of a 503 deny:
 * - `policy_unavailable`: no bundle is active (none loaded yet, missing or corrupt);
 * - `policy_error`: the policy failed while evaluating (abort, bad input);
 * - `invalid_decision`: the policy answered, but not a valid decision (undefined, wrong shape).
 *
 * Bundle load failures land in `status().lastError`:
 * - `bundle_unavailable`: the file or bundle server could not be read;
 * - `bundle_invalid`: not a readable bundle, or its Wasm does not load;
 * - `memory_limit_exceeded`: the module's static data or the bundle's data
 *   needs more memory than the configured limit (the message says both sizes);
 * - `entrypoint_missing`: the bundle lacks the decision entrypoint;
 * - `smoke_failed`: the bundle loads but fails its smoke evaluation;
 * - `check_failed`: the bundle decides, but fails the owner's acceptance
 *   check (the API's: a route of the registry without a policy).
 *
 * Misconfiguration, thrown by createPdp at start-up: `config_invalid`.
 */
export type DecisionFailureCode = "policy_unavailable" | "policy_error" | "invalid_decision";
export type BundleFailureCode = "bundle_unavailable" | "bundle_invalid" | "memory_limit_exceeded" | "entrypoint_missing" | "smoke_failed" | "check_failed";
export type PdpErrorCode = DecisionFailureCode | BundleFailureCode | "config_invalid";

export class PdpError extends Error {
  constructor(
    readonly code: PdpErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "PdpError";
  }
}

/** The message of anything thrown: opa-wasm throws plain strings on abort. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "string") return err;
  if (typeof err === "object" && err !== null && typeof (err as { message?: unknown }).message === "string") {
    return (err as { message: string }).message;
  }
  return String(err);
}
