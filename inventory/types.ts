/**
 * The route inventory's vocabulary: what each source says it saw
 * (`Sighting`), the reconciled record per (method, endpoint, version), the
 * version lifecycle record, and the findings `--check` fails on.
 *
 * Endpoints are path templates in the registry's OpenAPI form
 * (`/invoices/{invoice_id}`); a versioned template is expanded per version
 * (`/api/v1/users/me`, version v1). Unversioned templates negotiate their
 * version by header, so their record's version is "*".
 */

export type SourceName = "deployed" | "registry" | "gateway" | "openapi" | "openapi-archive" | "graphql" | "code" | "traffic";

/** One source saw one operation. */
export interface Sighting {
  source: SourceName;
  method: string;
  /** Template with a literal version where the source named one (`/api/v1/users/me`) or `{version}`. */
  path: string;
  /** Where exactly: file:line, gateway route name, operationId, GraphQL field. */
  where: string;
  deprecated?: boolean;
  /** Query parameter names this source declares for the operation. */
  params?: string[];
}

export type RecordClass =
  "documented" | "shadow" | "legacy-version" | "client-specific" | "hidden-parameter behaviour" | "schema-discovered" | "debug/diagnostic";

export type RiskLevel = "low" | "medium" | "high" | "critical";

export interface Risk {
  score: number;
  level: RiskLevel;
  /** Each fact that raised the score, in words. */
  reasons: string[];
}

/** What one persona got from a probe: status, problem code, and the allow/deny reading of it. */
export interface ProbeOutcome {
  status: number;
  problem: string | null;
  /** allowed (2xx, or a guard's 400 after the PDP allowed), denied (401/403/404 from the policy), absent (route_not_found), gone (410), error. */
  verdict: "allowed" | "denied" | "absent" | "gone" | "limited" | "error";
}

export interface AuthResult {
  anonymous: ProbeOutcome;
  member: ProbeOutcome;
  summary: string;
}

export interface InventoryRecord {
  endpoint: string;
  method: string;
  version: string;
  /** Route id from the registry, or null for operations no record declares. */
  routeId: string | null;
  sources: SourceName[];
  documented: boolean;
  auth: AuthResult;
  owner: string;
  risk: Risk;
  nextTest: string;
  class: RecordClass;
  /** Every class that applies; `class` is the most important one. */
  flags: RecordClass[];
  /** ISO time of the last counted request, or "never (no traffic recorded)". */
  lastSeen: string;
  /** Requests counted in the traffic window (probes excluded). */
  traffic: number;
  where: string[];
}

export type VersionLifecycleState = "Current" | "Deprecated" | "Zombie" | "Unknown" | "Retired";

export type ProbeResult = "live" | "redirected" | "denied" | "unknown";

export interface VersionLifecycle {
  name: string;
  owner: string;
  /** The client a client-specific alias serves (versions.json `client`), else null. */
  client: string | null;
  /** What versions.json declares (null for versions found only by probe or traffic). */
  declared: VersionLifecycleState | null;
  /** The state the facts support: a declared-retired version that answers is a Zombie; an undeclared one that answers or has traffic is Unknown. */
  state: VersionLifecycleState;
  sunset: string | null;
  removalPlan: string;
  probe: { path: string; status: number; result: ProbeResult };
  /** Requests counted over the window, probes excluded; null when no traffic source was available. */
  traffic: { window_days: number; requests: number | null; last_seen: string | null };
  parity: "ok" | "defects" | "not compared";
  blocker: string;
  readyToRemove: boolean;
}

export type FindingKind =
  | "shadow-route"
  | "gateway-undocumented"
  | "schema-orphan"
  | "owner-missing"
  | "zombie-version"
  | "unknown-version"
  | "deprecated-live"
  | "removal-due"
  | "parity-defect"
  | "hidden-parameter"
  | "code-unregistered"
  | "acknowledgement-expired";

export interface Finding {
  /** Stable id an acknowledgement names: `<kind>:<subject>`, e.g. `shadow-route:GET /metrics`. */
  id: string;
  kind: FindingKind;
  subject: string;
  detail: string;
  acknowledged?: { owner: string; reason: string; expires: string };
}

export interface ParityDefect {
  route: string;
  persona: string;
  aspect: "authentication" | "authorization" | "fields" | "input" | "validation" | "rate-limit" | "logging";
  versions: [string, string];
  detail: string;
}

export interface InventoryResult {
  generatedAt: string;
  target: string;
  records: InventoryRecord[];
  versions: VersionLifecycle[];
  parity: ParityDefect[];
  findings: Finding[];
  /** Findings not covered by a valid acknowledgement: what `--check` fails on. */
  failing: Finding[];
  notes: string[];
}
