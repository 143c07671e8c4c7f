/**
 * The version lifecycle from measured facts, as one step the inventory and
 * `portcullis versions` share: probe every declared, seen and guessed
 * version, compare every pair of reachable versions for parity, and build
 * the lifecycle records.
 *
 *   const v = await assessVersions(target, { declared, routes, traffic, now });
 *   v.lifecycle   // VersionLifecycle[]; v.parity.defects; v.expand (versions to expand {version} into)
 */
import type { RouteRecord } from "../../api/registry/types";
import { isServable } from "../../api/versions";
import { silentProgress, type Progress } from "../report/progress";
import type { Observation } from "../sources/traffic";
import type { Target } from "../target";
import type { VersionLifecycle } from "../types";
import { buildLifecycle, type DeclaredVersions } from "./lifecycle";
import { checkParity, parityWork, type ParityResult } from "./parity";
import { GUESSED_VERSIONS, probeVersions, type VersionProbe } from "./probe";

export interface VersionAssessment {
  probes: VersionProbe[];
  /** Versions whose health probe answered 2xx. */
  live: string[];
  /** Declared servable versions plus live ones: what `{version}` templates stand for. */
  expand: string[];
  parity: ParityResult;
  lifecycle: VersionLifecycle[];
}

export interface AssessOptions {
  declared: DeclaredVersions;
  routes: RouteRecord[];
  traffic: Observation[] | null;
  /** More names to probe (versions named by schemas). */
  extraCandidates?: string[];
  now: Date;
  progress?: Progress;
}

export async function assessVersions(target: Target, o: AssessOptions): Promise<VersionAssessment> {
  const progress = o.progress ?? silentProgress;
  const seen = (o.traffic ?? []).map((x) => x.version).filter((v) => v !== "");
  const candidates = new Set([...o.declared.versions.map((v) => v.name), ...GUESSED_VERSIONS, ...(o.extraCandidates ?? []), ...seen]);
  progress.phase("probing versions", candidates.size);
  const probes = await probeVersions(target, candidates, () => progress.tick());
  const live = probes.filter((p) => p.result === "live").map((p) => p.name);
  const expand = [...new Set([...o.declared.versions.filter(isServable).map((v) => v.name), ...live])].sort();

  progress.phase("checking version parity", parityWork(o.routes, live));
  const parity = await checkParity(target, o.routes, live, () => progress.tick());
  const lifecycle = buildLifecycle({ declared: o.declared, probes, traffic: o.traffic, defects: parity.defects, compared: live, now: o.now });
  return { probes, live, expand, parity, lifecycle };
}
