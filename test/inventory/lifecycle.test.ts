/**
 * The version lifecycle from measured facts (versions.json as shipped,
 * probe results, traffic) and the removal rule: only a Deprecated or Zombie
 * version past its sunset whose traffic was measured at or below the
 * threshold is ready to remove; one that is ready and still answers is a
 * removal-due finding. Plus risk arithmetic.
 */
import { loadVersions } from "../../api/versions";
import { runInventory } from "../../inventory";
import { computeRisk } from "../../inventory/risk";
import type { Observation } from "../../inventory/sources/traffic";
import { startInProcess } from "../../inventory/target";
import { buildLifecycle, readDeclared } from "../../inventory/versions/lifecycle";
import { probeResult, type VersionProbe } from "../../inventory/versions/probe";
import { bundleFile } from "./cli-helper";

const declared = readDeclared(loadVersions());
const NOW = new Date("2027-02-05T12:00:00Z");
const live = (name: string, status = 200): VersionProbe => ({ name, path: `/api/${name}/health`, status, result: probeResult(status) });
const use = (version: string, count: number, probe = false): Observation => ({
  method: "GET",
  template: "/api/{version}/users/me",
  version,
  status: 200,
  actorClass: "member",
  count,
  lastSeen: "2027-02-01T00:00:00.000Z",
  probe,
});

test("versions.json carries the removal policy and the inventory's extension fields", () => {
  expect(declared.removal).toEqual({ window_days: 30, max_requests: 10 });
  expect(declared.versions.find((v) => v.name === "partner")?.client).toBe("partner-integrations");
  expect(declared.versions.every((v) => typeof v.blocker === "string")).toBe(true);
});

test("ready to remove only when past the sunset and measured under the threshold", () => {
  const probes = ["v1", "v2", "beta", "old", "mobile", "partner"].map((n) => live(n)).concat([live("legacy", 410)]);
  const traffic = [use("beta", 3), use("beta", 900, true), use("old", 50), use("v1", 7)];
  const v = new Map(buildLifecycle({ declared, probes, traffic, defects: [], compared: ["v1", "v2"], now: NOW }).map((x) => [x.name, x]));
  expect(v.get("beta")).toMatchObject({ state: "Deprecated", readyToRemove: true, traffic: { requests: 3, window_days: 30 } });
  expect(v.get("old")).toMatchObject({ state: "Zombie", readyToRemove: false });
  expect(v.get("old")?.blocker).toMatch(/50 requests in 30 days, above the threshold of 10/);
  expect(v.get("v1")).toMatchObject({ readyToRemove: false, parity: "ok" });
  expect(v.get("v1")?.blocker).toMatch(/sunset 2027-03-31 not reached/);
  expect(v.get("legacy")).toMatchObject({ state: "Retired", probe: { result: "denied" } });
  expect(v.get("mobile")?.parity).toBe("not compared");

  const unmeasured = buildLifecycle({ declared, probes, traffic: null, defects: [], compared: [], now: NOW });
  expect(unmeasured.filter((x) => x.readyToRemove)).toEqual([]);
  expect(unmeasured.find((x) => x.name === "beta")?.blocker).toMatch(/traffic not measured/);
});

test("declared Retired but live is a Zombie; undeclared but live is Unknown", () => {
  const v = new Map(
    buildLifecycle({ declared, probes: [live("legacy"), live("v3"), live("v4", 404)], traffic: [], defects: [], compared: [], now: NOW }).map((x) => [
      x.name,
      x,
    ]),
  );
  expect(v.get("legacy")).toMatchObject({ declared: "Retired", state: "Zombie" });
  expect(v.get("v3")).toMatchObject({ declared: null, state: "Unknown", owner: "(none)" });
  expect(v.has("v4")).toBe(false);
});

/** A day before every sunset of versions.json: a target on this clock still serves old, beta and v1. */
const BEFORE_SUNSETS = () => Date.parse("2026-11-15T00:00:00Z");

test("a version ready to remove that still answers is a removal-due finding", async () => {
  // A deployment still answering past the sunsets (its clock, or a copy of the API that does not retire by itself).
  const target = await startInProcess({ bundleFile: bundleFile(), now: BEFORE_SUNSETS });
  try {
    const result = await runInventory({ target, now: NOW, traffic: { observations: [use("v1", 400), use("old", 2)], from: ["test"], notes: [] } });
    const ids = result.failing.map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining(["removal-due:beta", "removal-due:old"]));
    expect(ids).not.toContain("removal-due:v1");
    expect(
      result.versions
        .filter((v) => v.readyToRemove)
        .map((v) => v.name)
        .sort(),
    ).toEqual(["beta", "old"]);
    // The acknowledgements for old (2026-12-31) and beta (2027-01-31) have expired by then.
    expect(ids).toEqual(expect.arrayContaining(["acknowledgement-expired:zombie-version:old", "acknowledgement-expired:deprecated-live:beta"]));
  } finally {
    await target.close();
  }
});

test("past their sunsets the API retires old and beta by itself: Retired in the lifecycle, no finding, and their expired acknowledgements are only stale notes", async () => {
  // The app and the inventory on the same day, after old's (2026-12-31) and beta's (2027-01-31) sunsets.
  const target = await startInProcess({ bundleFile: bundleFile(), now: () => NOW.getTime() });
  try {
    const result = await runInventory({ target, now: NOW, traffic: { observations: [use("old", 2)], from: ["test"], notes: [] } });
    const v = new Map(result.versions.map((x) => [x.name, x]));
    expect(v.get("old")).toMatchObject({ declared: "Zombie", state: "Retired", probe: { status: 410 }, readyToRemove: false });
    expect(v.get("beta")).toMatchObject({ declared: "Deprecated", state: "Retired", probe: { status: 410 } });
    expect(v.get("v1")).toMatchObject({ state: "Deprecated", probe: { result: "live" } });
    const ids = result.findings.map((f) => f.id);
    for (const gone of [
      "zombie-version:old",
      "deprecated-live:beta",
      "removal-due:old",
      "acknowledgement-expired:zombie-version:old",
      "acknowledgement-expired:deprecated-live:beta",
    ])
      expect(ids).not.toContain(gone);
    expect(result.notes).toEqual(
      expect.arrayContaining([
        "stale acknowledgement (no such finding now): zombie-version:old",
        "stale acknowledgement (no such finding now): deprecated-live:beta",
      ]),
    );
  } finally {
    await target.close();
  }
});

test("risk is the sum of the facts that apply, each explained", () => {
  const base = {
    anonymousAllowed: false,
    documented: true,
    active: true,
    ownerMissing: false,
    lastSeen: "2027-02-01T00:00:00Z",
    trafficMeasured: true,
    now: NOW,
    parityDefects: 0,
    versionState: "Current" as const,
    gatewayUndocumented: false,
    schemaOnly: false,
    hiddenParameter: false,
    unregisteredCode: false,
  };
  expect(computeRisk(base)).toEqual({ score: 0, level: "low", reasons: ["no risk fact applies"] });
  const bad = computeRisk({ ...base, anonymousAllowed: true, documented: false, ownerMissing: true, lastSeen: "2026-01-01T00:00:00Z" });
  expect(bad.score).toBe(3 + 2 + 3 + 1);
  expect(bad.level).toBe("critical");
  expect(bad.reasons).toEqual([
    "reachable without authentication and not documented as public (+3)",
    "undocumented but active (+2)",
    "no owner (+3)",
    "no traffic for 90 days (dead route or unknown clients) (+1)",
  ]);
  expect(computeRisk({ ...base, parityDefects: 2 }).level).toBe("medium");
});
