/**
 * The route inventory, as one visible pipeline:
 *
 *   sources (registry, router, gateway, schemas, code, traffic)
 *     -> versions (probes, parity, lifecycle) -> reconcile -> auth probes
 *     -> classify + risk -> findings -> acknowledgements
 *
 *   const target = await startInProcess({ bundleFile: "var/bundle.tar.gz" });
 *   const result = await runInventory({ target });
 *   result.failing   // what `portcullis inventory --check` fails on
 *
 * Every input has a default in the repository (inventory/gateway/kong.yaml,
 * inventory/schemas/, api/ sources, inventory/acknowledgements.yaml,
 * api/versions/versions.json); tests plant faults by passing their own.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ROUTES } from "../api/registry/routes";
import type { RouteRecord } from "../api/registry/types";
import { loadVersions } from "../api/versions";
import { applyAcknowledgements, readAcknowledgements } from "./acknowledgements";
import { classify } from "./classify";
import { authProbe, concretePath, outcome, probe } from "./probe";
import { reconcile, type Draft } from "./reconcile";
import { silentProgress, type Progress } from "./report/progress";
import { scanCode } from "./sources/code";
import { deployedSightings, registrySightings } from "./sources/deployed";
import { readGateway } from "./sources/gateway";
import { readGraphqlSchemas } from "./sources/graphql";
import { readArchivedOpenApi, sightingsFromOpenApi } from "./sources/openapi";
import { templateMatcher, type TrafficSource } from "./sources/traffic";
import type { Target } from "./target";
import type { AuthResult, Finding, InventoryResult, Sighting } from "./types";
import { assessVersions } from "./versions";
import { readDeclared, type DeclaredVersions } from "./versions/lifecycle";

/** The repository root, from source (inventory/) or compiled (dist/inventory/) code. */
export const REPO_ROOT = ((): string => {
  const up = path.resolve(__dirname, "..");
  return path.basename(up) === "dist" ? path.dirname(up) : up;
})();

export interface InventoryOptions {
  target: Target;
  gatewayFile?: string;
  schemasDir?: string;
  codeDir?: string;
  acknowledgementsFile?: string;
  declared?: DeclaredVersions;
  routes?: RouteRecord[];
  /** Observed traffic; null or absent when no source was available (nothing is then "ready to remove"). */
  traffic?: TrafficSource | null;
  now?: Date;
  progress?: Progress;
}

function describe(auth: AuthResult["anonymous"]): string {
  return `${auth.status}${auth.problem ? ` ${auth.problem}` : ""} (${auth.verdict})`;
}

async function probeDraft(target: Target, d: Draft): Promise<AuthResult | null> {
  if (d.method === "GRAPHQL" || d.method === "*" || d.endpoint.includes("*")) return null;
  const p = concretePath(d.endpoint, d.version === "*" ? null : d.version);
  const anonymous = outcome(await authProbe(target, d.method, p, "anonymous"));
  const member = outcome(await authProbe(target, d.method, p, "member"));
  return { anonymous, member, summary: `anonymous: ${describe(anonymous)}; member: ${describe(member)}` };
}

export async function runInventory(options: InventoryOptions): Promise<InventoryResult> {
  const { target } = options;
  const now = options.now ?? new Date();
  const progress = options.progress ?? silentProgress;
  const routes = options.routes ?? ROUTES;
  const declared = options.declared ?? readDeclared(loadVersions());
  const notes: string[] = [];

  // 1. Static sources.
  const gatewayFile = options.gatewayFile ?? path.join(REPO_ROOT, "inventory/gateway/kong.yaml");
  progress.phase("reading sources", 1);
  const registry = registrySightings(routes);
  const sightings: Array<Sighting & { direct?: boolean }> = [
    ...(target.app ? deployedSightings(target.app) : []),
    ...readGateway(gatewayFile, path.relative(REPO_ROOT, gatewayFile)),
    ...readArchivedOpenApi(options.schemasDir ?? path.join(REPO_ROOT, "inventory/schemas")),
    ...readGraphqlSchemas(options.schemasDir ?? path.join(REPO_ROOT, "inventory/schemas")),
    ...scanCode(options.codeDir ?? path.join(REPO_ROOT, "api"), REPO_ROOT),
  ];
  const published = await probe(target, { method: "GET", path: "/openapi.json", persona: "anonymous" });
  if (published.status === 200) sightings.push(...sightingsFromOpenApi(published.json, "openapi", "/openapi.json"));
  else notes.push(`the published OpenAPI could not be read (GET /openapi.json answered ${published.status}): nothing counts as documented`);
  progress.tick();
  const traffic = options.traffic ?? null;
  if (traffic) notes.push(...traffic.notes);
  const observations = traffic && traffic.from.length > 0 ? traffic.observations : null;
  if (!observations) notes.push("no traffic source: last-seen and removal readiness are not measured");

  // 2. Versions: declared, seen in traffic or schemas, and guessed; parity between those that answer.
  const declaredNames = declared.versions.map((v) => v.name);
  const literal = sightings.map((s) => /^\/api\/(v\d+)\//.exec(s.path)?.[1]).filter((v): v is string => v !== undefined);
  const versions = await assessVersions(target, { declared, routes, traffic: observations, extraCandidates: literal, now, progress });
  const { live, expand, parity, lifecycle } = versions;
  // Traffic names are not trusted to spell versions in paths: a probe of /api/internal/health
  // must not turn the registry's /api/internal/reports/export into "version internal".
  const versionNames = new Set([...declaredNames, ...live, ...literal]);

  // 3. Reconcile and probe every record.
  const drafts = reconcile({ registry, sightings, traffic: observations, versionNames, expand });
  progress.phase("probing routes", drafts.length);
  const auths = new Map<Draft, AuthResult | null>();
  const hidden = new Set<Draft>();
  for (const d of drafts) {
    const auth = await probeDraft(target, d);
    auths.set(d, auth);
    // Without an app to introspect, a registry route that answers is what "deployed" can mean.
    if (!target.app && auth && d.record && [auth.anonymous, auth.member].some((o) => o.verdict !== "absent")) d.sources.add("deployed");
    if (auth && d.method === "GET" && auth.member.verdict === "allowed") {
      const p = concretePath(d.endpoint, d.version === "*" ? null : d.version);
      const r = await probe(target, { method: "GET", path: p, persona: "member", query: { debug: "1" } });
      if (r.status >= 200 && r.status < 300) hidden.add(d);
    }
    progress.tick();
  }
  if (!target.app) notes.push("remote target: 'deployed' means a registry route that answered a probe (no router to introspect)");

  // 4. Lifecycle, classification, findings.
  notes.push(...parity.inconclusive.map((x) => `parity inconclusive: ${x}`));
  const byName = new Map(lifecycle.map((v) => [v.name, v]));
  const registryTemplate = templateMatcher([...new Set(routes.flatMap((r) => r.paths))]);
  const records = [];
  const findings: Finding[] = [];
  for (const d of drafts) {
    const defects = parity.defects.filter(
      (x) => d.record && x.route === `${d.record.method} ${d.record.id}` && (d.version === "*" || x.versions.includes(d.version)),
    );
    const answeredBy =
      d.record || d.method === "GRAPHQL" ? undefined : registryTemplate(concretePath(d.endpoint, d.version === "*" ? null : d.version))?.template;
    const out = classify(d, {
      auth: auths.get(d) ?? null,
      answeredBy,
      hiddenParamAccepted: hidden.has(d),
      lifecycle: byName,
      parityDefects: defects.length,
      trafficMeasured: observations !== null,
      now,
    });
    records.push(out.record);
    findings.push(...out.findings);
  }
  for (const v of lifecycle) {
    const answers = v.probe.result === "live" || v.probe.result === "redirected";
    const add = (kind: Finding["kind"], detail: string) => findings.push({ id: `${kind}:${v.name}`, kind, subject: v.name, detail });
    if (v.state === "Zombie") add("zombie-version", `declared ${v.declared}, yet ${v.probe.path} answers ${v.probe.status}`);
    if (v.state === "Unknown" && (answers || (v.traffic.requests ?? 0) > 0))
      add(
        "unknown-version",
        `not declared as served, yet ${answers ? `${v.probe.path} answers ${v.probe.status}` : `${v.traffic.requests} requests were counted`}`,
      );
    if (v.state === "Deprecated" && answers) add("deprecated-live", `deprecated, still answering until its sunset ${v.sunset ?? "(none)"}`);
    if (v.readyToRemove && answers)
      add("removal-due", `past its sunset with ${v.traffic.requests} requests in ${v.traffic.window_days} days: remove it (declare Retired)`);
  }
  for (const x of parity.defects) {
    const subject = `${x.route} ${x.persona} ${x.aspect} ${x.versions.join("/")}`;
    findings.push({ id: `parity-defect:${subject}`, kind: "parity-defect", subject, detail: x.detail });
  }

  const ackFile = options.acknowledgementsFile ?? path.join(REPO_ROOT, "inventory/acknowledgements.yaml");
  const acks = applyAcknowledgements(findings, readAcknowledgements(ackFile), now);
  notes.push(...acks.stale.map((a) => `stale acknowledgement (no such finding now): ${a.finding}`));
  if (!fs.existsSync(ackFile)) notes.push(`no acknowledgements file at ${ackFile}`);
  progress.done();
  return {
    generatedAt: now.toISOString(),
    target: target.label,
    records,
    versions: lifecycle,
    parity: parity.defects,
    findings: acks.findings,
    failing: acks.failing,
    notes,
  };
}
