/**
 * Risk of one inventory record, computed from facts and explained: each
 * fact that applies adds points and a reason in words, so an auditor can
 * check the arithmetic and a reviewer can dispute a fact, not a number.
 *
 *   computeRisk({ anonymousAllowed: true, documented: false, ... })
 *   // { score: 5, level: "high", reasons: ["reachable without authentication and not documented as public (+3)", ...] }
 *
 * Levels: 0-1 low, 2-3 medium, 4-5 high, 6+ critical.
 */
import type { Risk, RiskLevel, VersionLifecycleState } from "./types";

export interface RiskFacts {
  anonymousAllowed: boolean;
  documented: boolean;
  /** Served, exposed at the edge, or seen in traffic. */
  active: boolean;
  ownerMissing: boolean;
  /** null when traffic was not measured. */
  lastSeen: string | null | undefined;
  trafficMeasured: boolean;
  now: Date;
  parityDefects: number;
  versionState: VersionLifecycleState | null;
  gatewayUndocumented: boolean;
  schemaOnly: boolean;
  hiddenParameter: boolean;
  unregisteredCode: boolean;
}

const DAY_MS = 86_400_000;
export const STALE_DAYS = 90;

function level(score: number): RiskLevel {
  if (score >= 6) return "critical";
  if (score >= 4) return "high";
  if (score >= 2) return "medium";
  return "low";
}

export function computeRisk(f: RiskFacts): Risk {
  const reasons: string[] = [];
  let score = 0;
  const add = (points: number, why: string) => {
    score += points;
    reasons.push(`${why} (+${points})`);
  };
  if (f.anonymousAllowed) {
    if (f.documented) add(1, "reachable without authentication (documented as public)");
    else add(3, "reachable without authentication and not documented as public");
  }
  if (f.active && !f.documented) add(2, "undocumented but active");
  if (f.ownerMissing) add(3, "no owner");
  if (f.active && f.trafficMeasured) {
    const stale = !f.lastSeen || f.now.getTime() - Date.parse(f.lastSeen) > STALE_DAYS * DAY_MS;
    if (stale) add(1, `no traffic for ${STALE_DAYS} days (dead route or unknown clients)`);
  }
  if (f.parityDefects > 0) add(3, `${f.parityDefects} security-parity defect(s) against other versions`);
  if (f.versionState === "Zombie" || f.versionState === "Unknown") add(3, `served under a ${f.versionState} version`);
  else if (f.versionState === "Deprecated") add(1, "served under a Deprecated version");
  if (f.gatewayUndocumented) add(2, "exposed at the edge gateway without documentation");
  if (f.schemaOnly) add(1, "published in a schema but served by no route: clients may call it");
  if (f.hiddenParameter) add(2, "behaviour changes with a parameter the published schema does not declare");
  if (f.unregisteredCode) add(3, "registered in code outside the route registry (no record, no policy check)");
  return { score, level: level(score), reasons: reasons.length > 0 ? reasons : ["no risk fact applies"] };
}
