/**
 * From a reconciled draft and its probes to the finished record: class and
 * flags, owner, risk, next test, last seen, and the findings it raises.
 *
 *   const { record, findings } = classify(draft, facts);
 *
 * Classes (the first that applies is `class`; all are in `flags`):
 *   schema-discovered           only schemas know it (no route, no edge, no traffic)
 *   shadow                      undocumented but active (served, exposed at the edge, or used)
 *   hidden-parameter behaviour  answers differently to a parameter no published schema declares
 *   legacy-version              under a Deprecated/Zombie/Retired/Unknown version, or deprecated in a schema
 *   client-specific             under a client alias (versions.json `client`)
 *   debug/diagnostic            diagnostic audience or a debug-looking path
 *   documented                  in the published OpenAPI and served
 */
import type { Draft } from "./reconcile";
import { computeRisk } from "./risk";
import type { AuthResult, Finding, InventoryRecord, RecordClass, VersionLifecycle } from "./types";

const ACTIVE_SOURCES = ["deployed", "registry", "code", "traffic", "gateway"] as const;
const DEBUG_PATH = /(^|\/)(debug|diag|diagnostics?|metrics|pprof|trace|actuator|_internal|health|status)(\/|$|\.)/i;

export interface ClassifyFacts {
  auth: AuthResult | null;
  /** For operations no record declares: the registry template that answered the probe instead (`/invoices/{invoice_id}` for `/invoices/export-all`). */
  answeredBy?: string;
  /** A GET answered 2xx with an undeclared security-relevant parameter. */
  hiddenParamAccepted: boolean;
  lifecycle: Map<string, VersionLifecycle>;
  /** Parity defects naming this record's route (and version, when versioned). */
  parityDefects: number;
  trafficMeasured: boolean;
  now: Date;
}

const NO_PROBE: AuthResult = {
  anonymous: { status: 0, problem: null, verdict: "error" },
  member: { status: 0, problem: null, verdict: "error" },
  summary: "not probed (no HTTP route to call)",
};

function nextTest(cls: RecordClass, d: Draft, auth: AuthResult): string {
  switch (cls) {
    case "schema-discovered":
      return "remove the operation from the schema or implement it with a registry record; re-probe: the path must stay 404";
    case "shadow":
      return "declare it in the registry as documented (or remove it); then probe anonymous, member and a cross-tenant id";
    case "hidden-parameter behaviour":
      return "declare the parameter or refuse it; re-probe with debug/include/fields as member and anonymous";
    case "legacy-version":
      return "rerun parity (authorization, fields, input) against the current version; measure traffic until under the removal threshold";
    case "client-specific":
      return "parity of the client alias against the default version for every persona";
    case "debug/diagnostic":
      return auth.anonymous.verdict === "allowed"
        ? "check the anonymous answer discloses nothing beyond liveness"
        : "verify staff only: anonymous and member must stay denied";
    default:
      if (d.record?.idParam || d.record?.idField) return "object-level authorization: the id of another tenant's row as member must answer 404";
      if (d.method !== "GET") return "protected-field and role-escalation submissions as member must answer 403";
      return "field projection per role: member, support and admin see only their fields";
  }
}

export function classify(d: Draft, facts: ClassifyFacts): { record: InventoryRecord; findings: Finding[] } {
  const probed = facts.auth ?? NO_PROBE;
  const auth = facts.answeredBy ? { ...probed, summary: `${probed.summary}; answered by the route of ${facts.answeredBy}, not by this operation` } : probed;
  // An answer from another route's template proves nothing about this operation.
  const probedLive = facts.auth !== null && !facts.answeredBy && [auth.anonymous, auth.member].some((o) => o.verdict !== "absent" && o.verdict !== "error");
  const active = ACTIVE_SOURCES.some((s) => d.sources.has(s)) || probedLive;
  const documented = d.sources.has("openapi") && active;
  const schemaOnly = d.method === "GRAPHQL" || !active;
  const version = facts.lifecycle.get(d.version);
  const diagnostic = d.record?.audience === "diagnostic" || DEBUG_PATH.test(d.endpoint);
  const published = d.params.get("openapi") ?? [];
  const undeclaredInSchema = documented && (d.record?.params ?? []).some((p) => !published.includes(p.name));
  const hidden = facts.hiddenParamAccepted || undeclaredInSchema;
  const legacy = (version !== undefined && version.state !== "Current") || (d.deprecated && !d.sources.has("registry"));

  const flags: RecordClass[] = [];
  if (schemaOnly) flags.push("schema-discovered");
  if (!schemaOnly && !documented) flags.push("shadow");
  if (hidden) flags.push("hidden-parameter behaviour");
  if (legacy) flags.push("legacy-version");
  if (version?.client) flags.push("client-specific");
  if (diagnostic) flags.push("debug/diagnostic");
  if (documented) flags.push("documented");
  // A diagnostic route is named for what it is; its being undocumented stays a flag and a finding.
  const order: RecordClass[] = [
    "schema-discovered",
    "hidden-parameter behaviour",
    "legacy-version",
    "client-specific",
    "debug/diagnostic",
    "shadow",
    "documented",
  ];
  const primary = flags.includes("shadow") && !diagnostic ? "shadow" : (order.find((c) => flags.includes(c)) ?? "shadow");

  const owner = d.record?.owner ?? "";
  const subject = `${d.method} ${d.endpoint}`;
  const findings: Finding[] = [];
  const find = (kind: Finding["kind"], detail: string) => findings.push({ id: `${kind}:${subject}`, kind, subject, detail });
  if (flags.includes("shadow")) find("shadow-route", `undocumented but active (sources: ${[...d.sources].join(", ")})`);
  if (d.sources.has("gateway") && !documented)
    find("gateway-undocumented", `the edge gateway routes it (${d.where.filter((w) => w.includes("#")).join(", ")}) but no published schema documents it`);
  if (schemaOnly) find("schema-orphan", `published by ${d.where.join(", ")} but no route serves it (probe: ${auth.summary})`);
  if (active && !owner) find("owner-missing", "no registry record names an owner");
  if (d.direct && !d.record) find("code-unregistered", `registered directly with Express at ${d.where.join(", ")}, outside the route registry`);
  if (hidden)
    find(
      "hidden-parameter",
      facts.hiddenParamAccepted
        ? "answered 2xx to an undeclared security-relevant parameter"
        : "the registry accepts parameters the published schema does not declare",
    );

  const risk = computeRisk({
    anonymousAllowed: auth.anonymous.verdict === "allowed",
    documented,
    active,
    ownerMissing: active && !owner,
    lastSeen: d.lastSeen,
    trafficMeasured: facts.trafficMeasured,
    now: facts.now,
    parityDefects: facts.parityDefects,
    versionState: version?.state ?? null,
    gatewayUndocumented: d.sources.has("gateway") && !documented,
    schemaOnly,
    hiddenParameter: hidden,
    unregisteredCode: d.direct && !d.record,
  });

  const record: InventoryRecord = {
    endpoint: d.endpoint,
    method: d.method,
    version: d.version,
    routeId: d.record?.id ?? null,
    sources: [...d.sources].sort(),
    documented,
    auth,
    owner: owner || "(none)",
    risk,
    nextTest: nextTest(primary, d, auth),
    class: primary,
    flags,
    lastSeen: d.lastSeen ?? (facts.trafficMeasured ? "never (no traffic recorded)" : "not measured (no traffic source)"),
    traffic: d.traffic,
    where: d.where,
  };
  return { record, findings };
}
