/**
 * Version discovery by probing: `GET /api/{version}/health` for every
 * declared version, every version seen in traffic or schemas, and the
 * prefixes attackers and old clients commonly guess.
 *
 *   const results = await probeVersions(target, ["v1", "v2"]);
 *   // [{ name: "v1", path: "/api/v1/health", status: 200, result: "live" }, ...]
 *
 * Reading: 2xx live, 3xx redirected, 401/403/410/451 denied (410 is how a
 * retired version is refused), anything else unknown (nothing answers).
 */
import { probe } from "../probe";
import type { Target } from "../target";
import type { ProbeResult } from "../types";

export const GUESSED_VERSIONS = [
  "v0",
  "v1",
  "v2",
  "v3",
  "v4",
  "v5",
  "beta",
  "alpha",
  "legacy",
  "old",
  "internal",
  "mobile",
  "partner",
  "test",
  "dev",
  "staging",
  "preview",
  "next",
  "latest",
  "canary",
  "private",
];

export interface VersionProbe {
  name: string;
  path: string;
  status: number;
  result: ProbeResult;
}

export function probeResult(status: number): ProbeResult {
  if (status >= 200 && status < 300) return "live";
  if (status >= 300 && status < 400) return "redirected";
  if (status === 401 || status === 403 || status === 410 || status === 451) return "denied";
  return "unknown";
}

export async function probeVersions(target: Target, names: Iterable<string>, onEach?: () => void): Promise<VersionProbe[]> {
  const out: VersionProbe[] = [];
  for (const name of [...new Set(names)].sort()) {
    const path = `/api/${encodeURIComponent(name)}/health`;
    const r = await probe(target, { method: "GET", path, persona: "anonymous" });
    out.push({ name, path, status: r.status, result: probeResult(r.status) });
    onEach?.();
  }
  return out;
}
