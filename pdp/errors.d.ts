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
export declare class PdpError extends Error {
    readonly code: PdpErrorCode;
    constructor(code: PdpErrorCode, message: string);
}
/** The message of anything thrown: opa-wasm throws plain strings on abort. */
export declare function messageOf(err: unknown): string;
