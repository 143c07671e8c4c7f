/**
 * The policy decision point's contract: what the API asks, what the PDP
 * answers, and what lands in the decision log. Shared by pdp/ (decide, bundle
 * loading), pdp/log/ (decision log) and the API.
 */

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
  scope: DecisionScope;
  fields: { read: string[]; write: string[] };
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
  /** Decision path in slash form, e.g. `portcullis/decision`. */
  path: string;
  input: DecisionInput;
  /** The raw policy result (omitted when undefined). */
  result?: unknown;
  /**
   * The JSON texts of `input` and `result` exactly as evaluated, when the
   * engine had them: the log's snapshot embeds them instead of serialising
   * both again. Absent means: serialise the objects.
   */
  inputJson?: string;
  resultJson?: string;
  /** Revision of the bundle that decided ("" when none was active). */
  revision: string;
  context: DecisionContext;
  /** Nanoseconds spent evaluating the policy. */
  evalNs: number;
  /** Why the PDP denied on its own (no bundle, evaluation error, invalid result). */
  error?: { code: string; message: string };
  /** The deciding bundle's evaluator for data.system.log.mask / .drop; null when no bundle is active. */
  evaluate: PolicyEvaluator | null;
  /** The bundle behind `evaluate` (set by the PDP), so a log in a worker can evaluate mask/drop there; absent for other evaluators. */
  bundle?: BundleRef | null;
}

/**
 * The decision log (implemented by pdp/log): builds OPA-shaped events, masks
 * and drops them by policy, and hands them to its sinks. `record` never
 * throws and never waits for I/O.
 */
export interface DecisionLog {
  record(record: DecisionRecord): void;
  /** Writes out everything buffered (graceful shutdown). */
  flush(): Promise<void>;
}
