/**
 * The version lifecycle from measured facts: what api/versions/versions.json
 * declares (owner, state, sunset, removal plan, and the inventory's
 * extension fields `blocker`, `client`, `removal`), checked against live
 * probes, counted traffic and the parity result.
 *
 *   const lifecycle = buildLifecycle({ catalog, probes, traffic, defects, now });
 *
 * Rules:
 * - a version declared Retired (or Zombie) that still answers is a Zombie;
 * - a version nobody declared (or declared Unknown) that answers a probe or
 *   shows traffic is Unknown;
 * - removal is never "ready" on a guess: only a Deprecated or Zombie version
 *   past its sunset, whose traffic was MEASURED over the window and is at or
 *   below the threshold, is ready to remove. A ready version that still
 *   answers is overdue (a `removal-due` finding).
 *
 * Health checks (`/health`, `/api/{version}/health`) are not usage: uptime
 * monitors and the inventory's own version probes call them, and they would
 * keep every version "in use" (and make every guessed name look used).
 */
import * as fs from "node:fs";
import { stateAt, VERSIONS_FILE, type VersionCatalog, type VersionRecord } from "../../api/versions";
import type { Observation } from "../sources/traffic";
import type { ParityDefect, VersionLifecycle } from "../types";
import type { VersionProbe } from "./probe";
import { dataFile } from "../../config/data-file";

export interface VersionExtension {
  blocker?: string;
  client?: string | null;
}

export interface RemovalPolicy {
  window_days: number;
  max_requests: number;
}

export const DEFAULT_REMOVAL: RemovalPolicy = { window_days: 30, max_requests: 10 };

/** versions.json as the inventory reads it: the API's catalogue plus the inventory's extension fields. */
export interface DeclaredVersions extends VersionCatalog {
  versions: Array<VersionRecord & VersionExtension>;
  removal?: RemovalPolicy;
}

/** Reads the extension fields of versions.json next to the validated catalogue (same file, not a fork). */
export function readDeclared(catalog: VersionCatalog, file = VERSIONS_FILE): DeclaredVersions {
  const raw = JSON.parse(fs.readFileSync(dataFile(file), "utf8")) as DeclaredVersions;
  const ext = new Map(raw.versions.map((v) => [v.name, v]));
  return {
    ...catalog,
    removal: raw.removal ?? DEFAULT_REMOVAL,
    versions: catalog.versions.map((v) => ({ ...v, blocker: ext.get(v.name)?.blocker, client: ext.get(v.name)?.client ?? null })),
  };
}

export interface LifecycleInput {
  declared: DeclaredVersions;
  probes: VersionProbe[];
  /** null when no traffic source was available: nothing is measured, nothing is ready. */
  traffic: Observation[] | null;
  defects: ParityDefect[];
  /** Versions the parity checker compared. */
  compared: string[];
  now: Date;
}

export const isHealthCheck = (template: string) => template === "/health" || template.endsWith("/{version}/health");

const answers = (p: VersionProbe | undefined) => p !== undefined && (p.result === "live" || p.result === "redirected");

export function buildLifecycle(input: LifecycleInput): VersionLifecycle[] {
  const removal = input.declared.removal ?? DEFAULT_REMOVAL;
  const since = new Date(input.now.getTime() - removal.window_days * 86_400_000).toISOString();
  const probes = new Map(input.probes.map((p) => [p.name, p]));
  const realTraffic = (input.traffic ?? []).filter((o) => !o.probe && !isHealthCheck(o.template) && o.lastSeen >= since);
  const names = new Set<string>(input.declared.versions.map((v) => v.name));
  for (const p of input.probes) if (answers(p)) names.add(p.name);
  for (const o of realTraffic) if (o.version) names.add(o.version);

  const out: VersionLifecycle[] = [];
  for (const name of [...names].sort()) {
    const d = input.declared.versions.find((v) => v.name === name);
    const probe = probes.get(name) ?? { name, path: `/api/${name}/health`, status: 0, result: "unknown" as const };
    const obs = realTraffic.filter((o) => o.version === name);
    const requests = input.traffic === null ? null : obs.reduce((n, o) => n + o.count, 0);
    const lastSeen = obs.reduce<string | null>((m, o) => (m === null || o.lastSeen > m ? o.lastSeen : m), null);
    const live = answers(probe);

    let state: VersionLifecycle["state"];
    if (!d || d.state === "Unknown") state = "Unknown";
    else if (d.state === "Retired") state = live ? "Zombie" : "Retired";
    // Past its sunset the API answers 410 whatever versions.json still says (api/versions stateAt):
    // a version that no longer answers is Retired, not a live Deprecated or Zombie one.
    // One that still answers past its sunset keeps its declared state (and may be removal-due).
    else if (stateAt(d, input.now.getTime()) === "Retired" && !live) state = "Retired";
    else state = d.state;

    const defects = input.defects.filter((x) => x.versions.includes(name));
    const parity = defects.length > 0 ? "defects" : input.compared.includes(name) ? "ok" : "not compared";
    const blockers: string[] = [];
    const sunsetPassed = d?.sunset ? Date.parse(d.sunset) <= input.now.getTime() : false;
    const removable = state === "Deprecated" || state === "Zombie";
    if (removable) {
      if (!d?.sunset) blockers.push("no sunset date declared");
      else if (!sunsetPassed) blockers.push(`sunset ${d.sunset.slice(0, 10)} not reached`);
      if (requests === null) blockers.push("traffic not measured (no traffic source)");
      else if (requests > removal.max_requests)
        blockers.push(`${requests} requests in ${removal.window_days} days, above the threshold of ${removal.max_requests}`);
    }
    if (!d) blockers.push("not declared in versions.json: find an owner or refuse it");
    if (d && d.state === "Retired" && live) blockers.push(`declared Retired but ${probe.path} answers ${probe.status}`);
    if (parity === "defects") blockers.push(`${defects.length} parity defect(s)`);
    if (d?.blocker && !d.blocker.startsWith("none")) blockers.push(d.blocker);
    const ready = removable && sunsetPassed && requests !== null && requests <= removal.max_requests;

    out.push({
      name,
      owner: d?.owner ?? "(none)",
      client: d?.client ?? null,
      declared: d?.state ?? null,
      state,
      sunset: d?.sunset ?? null,
      removalPlan: d?.removal_plan ?? "(none declared)",
      probe: { path: probe.path, status: probe.status, result: probe.result },
      traffic: { window_days: removal.window_days, requests, last_seen: lastSeen },
      parity,
      blocker: blockers.length > 0 ? blockers.join("; ") : "none",
      readyToRemove: ready,
    });
  }
  return out;
}
