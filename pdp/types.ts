/**
 * The policy decision point's contract: what the API asks, what the PDP
 * answers, and what lands in the decision log. Shared by pdp/ (decide, bundle
 * loading), pdp/log/ (decision log) and the API.
 */
import type { RecordedTrail } from "./trail";

/** The authenticated caller, built only from the verified token and the users table. */
export interface Actor {
  /** `anonymous` for requests without a valid token. */
  id: string;
  tenant: string | null;
  roles: string[];
}

/** PDP input: built only from trusted server-side context. */
export interface DecisionInput {
  actor: Actor;
  /** read, list, export, create, update, delete, approve, refund, publish, invite, suspend, ... */
  action: string;
  resource: { type: string; id?: string; tenant?: string; owner?: string };
  route: { id: string; method: string; version: string };
  /** Field names the request tries to set (property-level checks on writes). */
  fields?: { submitted: string[] };
  /** Names of the query parameters present. */
  params?: string[];
}

/** The row filter the API must query through: WHERE tenant_id = ? [AND owner_id = ?]. */
export interface DecisionScope {
  tenant_id?: string;
  owner_id?: string;
}

/** The policy's answer (data.portcullis.decision), validated by the PDP. */
export interface Decision {
  allow: boolean;
  /** HTTP status the API answers with when denied (401, 403, 404, ...); 200 when allowed. */
  status: number;
  reason: string;
  /** Read-only: a validated decision may be shared, frozen, by every call that got the same result (pdp/validate.ts). */
  scope: Readonly<DecisionScope>;
  fields: { readonly read: readonly string[]; readonly write: readonly string[] };
}

/** A decision as the API receives it: with its identity on the record. */
export interface RecordedDecision extends Decision {
  decisionId: string;
  /** Revision of the bundle that decided ("" when no bundle is active). */
  revision: string;
}

/** Request context for the log: who asked, which request. */
export interface DecisionContext {
  /** Client address, `ip:port`. */
  requestedBy?: string;
  /** Per-instance request counter. */
  reqId?: number;
  /**
   * The id for this decision when the caller minted it already (the API
   * mints one per request, with newDecisionId, so a refusal made before the
   * PDP is asked and the decision itself carry the same id). Must be fresh:
   * the decision log keeps the first event of a repeated id. Default: a new id.
   */
  decisionId?: string;
}

/** One decision-log event in OPA's shape (see shared/design/decision-log-format.md). */
export interface DecisionEvent {
  decision_id: string;
  labels: Record<string, string>;
  timestamp: string;
  path?: string;
  input?: unknown;
  result?: unknown;
  bundles?: Record<string, { revision: string }>;
  requested_by?: string;
  req_id?: number;
  metrics?: Record<string, number>;
  erased?: string[];
  masked?: string[];
  error?: { code: string; message: string };
  /**
   * OPA's optional extras: here, the decision's trail (`trail`: the rule
   * body that decided and the bodies it depended on, pdp/trail.ts), a
   * refusal made before any policy was evaluated, and why masking failed,
   * when it did.
   */
  custom?: Record<string, unknown>;
}

/**
 * Evaluates another entrypoint of the bundle that decided (the mask and drop
 * policies); undefined when the result set is empty. An ArrayBuffer input is
 * taken as JSON text (the SDK's convention), so one encoding can serve
 * several evaluations.
 */
export type PolicyEvaluator = (entrypoint: string, input: unknown) => unknown;

/**
 * A loaded bundle's identity and bytes: what a decision log running in
 * another thread (pdp/log worker) needs to load its own copy of the
 * deciding policy, once per distinct bundle.
 */
export interface BundleRef {
  /** `<revision>@<sha256 of the bytes>`. */
  key: string;
  bytes: Uint8Array;
}

/** What the PDP hands to the decision log for every decision, allow or deny, exactly once. */
export interface DecisionRecord {
  decisionId: string;
  /** Decision path in slash form, e.g. `portcullis/decision` ("" for a refusal: no policy was asked). */
  path: string;
  input: DecisionInput | RefusalInput;
  /** The raw policy result (omitted when undefined). */
  result?: unknown;
  /**
   * The JSON texts of `input` and `result` exactly as evaluated, when the
   * engine had them: the log's snapshot embeds them instead of serialising
   * both again. Absent means: serialise the objects.
   */
  inputJson?: string;
  /**
   * Instead of `inputJson`, for a log that says it copies them
   * (DecisionLog.copiesBinaryInput): the input's bytes in the binary input
   * encoding, as the policy read them (the engine's binary path). A view on
   * the policy's memory, valid only until record() returns: the log copies
   * them there and makes the input's text from its copy off the request
   * path (@portcullis/rego-wasm binaryInputJson): the same text as `inputJson`.
   */
  inputBinary?: Uint8Array;
  resultJson?: string;
  /** Revision of the bundle that decided ("" when none was active). */
  revision: string;
  context: DecisionContext;
  /** Nanoseconds spent evaluating the policy. */
  evalNs: number;
  /** Why the PDP denied on its own (no bundle, evaluation error, invalid result). */
  error?: { code: string; message: string };
  /**
   * Which rule body decided and the bodies it depended on, as the module
   * recorded them (pdp/trail.ts); absent when the bundle records no trail.
   * The event carries it as `custom.trail`.
   */
  trail?: RecordedTrail;
  /** The deciding bundle's evaluator for data.system.log.mask / .drop; null when no bundle is active. */
  evaluate: PolicyEvaluator | null;
  /** The bundle behind `evaluate` (set by the PDP), so a log in a worker can evaluate mask/drop there; absent for other evaluators. */
  bundle?: BundleRef | null;
  /**
   * Set when NO policy was evaluated: the API refused the request before
   * asking (bad token, unknown version, rate limit, no such route, ...).
   * The event then has no `result` and no `bundles`, and says so in
   * `custom` (`policy_evaluated: false`, `refusal`): see pdp/log/README.md.
   */
  refusal?: Refusal;
}

/**
 * The input of a refusal made before the policy was asked: the decision
 * input's shape, with what the API had learnt by then (`null` for the
 * route, action and resource when no route matched).
 */
export interface RefusalInput {
  actor: Actor;
  action: string | null;
  resource: DecisionInput["resource"] | null;
  route: { id: string; method: string; version: string } | null;
  fields?: { submitted: string[] };
  params?: string[];
}

/** A refusal the API made before the policy was asked. */
export interface Refusal {
  /** The chain step that refused: `authenticate`, `resolve-route`, `rate-limit`, `route`, ... */
  stage: string;
  status: number;
  /** The problem code answered (type `urn:portcullis:problem:<code>`). */
  problem: string;
}

/**
 * How a request ended, recorded by the API when its response is finished
 * (or abandoned), under the request's decision id. The decision log stores
 * it beside the decision (pdp/log `outcomes`), so an auditor sees the
 * policy's answer AND what the client got: a read the policy allowed whose
 * scoped query found no row is a 404 refusal, not a 200.
 */
export interface RequestOutcome {
  decisionId: string;
  method: string;
  /** The HTTP path, without the query string. */
  path: string;
  routeId: string | null;
  version: string | null;
  actorId: string;
  status: number;
  /** The problem code answered; null for a success. */
  problem: string | null;
  /**
   * For a request that named one object by id and was allowed: whether the
   * query through the decision's scope found it (false: answered 404 although
   * the policy allowed). null when no scoped lookup by id ran.
   */
  scopeFound: boolean | null;
  /** The verified test run the request belongs to (api/identity/test-run.ts); null for ordinary traffic. */
  testRun: string | null;
  /** The connection closed before the response was complete. */
  aborted: boolean;
}

/**
 * The decision log (implemented by pdp/log): builds OPA-shaped events, masks
 * and drops them by policy, and hands them to its sinks. `record` never
 * throws and never waits for I/O.
 */
export interface DecisionLog {
  record(record: DecisionRecord): void;
  /**
   * True when record() copies `record.inputBinary` before it returns (the
   * decision log of pdp/log does): decide() then evaluates on the binary
   * input path and hands over the bytes the policy read instead of the
   * input's JSON text. Any other log gets the text.
   */
  readonly copiesBinaryInput?: boolean;
  /** Stores a request's outcome beside its decision (a log without it keeps decisions only). Never throws or waits. */
  recordOutcome?(outcome: RequestOutcome): void;
  /** Writes out everything buffered (graceful shutdown). */
  flush(): Promise<void>;
}
