/**
 * API versions: the lifecycle records (versions.json, data in the repo) and
 * how a request names its version.
 *
 *   const v = resolveVersion(catalog, { path: "v1", header: undefined, accept: "application/json" });
 *   // -> { ok: true, version: {...v1} } | { ok: false, problem: "unknown_version" | ... }
 *
 * A request names its version in at most three ways: the `/api/{version}/`
 * path prefix, the `Api-Version` header, or `Accept:
 * application/vnd.portcullis.<v>+json`. When several are given they must
 * agree (a mismatch is 400 version_conflict, so no layer can pick a laxer
 * version than another). None given: the default version.
 *
 * Serving: Current, Deprecated and Zombie versions are served, all through
 * the SAME chain and policy; Deprecated and Zombie answer with Deprecation
 * (RFC 9745, `@<unix seconds>`) and Sunset (RFC 8594, HTTP-date) headers.
 * Retired versions are 410; Unknown-state and unlisted names are 404.
 *
 * Versions retire by themselves: the state that counts is the state AT a
 * given time (`stateAt`): once its `sunset` has passed, a version is Retired
 * whatever versions.json still says, so nobody has to remember to edit the
 * file on the day. Every answer about a retired or deprecated version names
 * its successor (`successor`, else the default version).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { dataFile } from "../../config/data-file";

export type VersionState = "Current" | "Deprecated" | "Zombie" | "Unknown" | "Retired";

export interface VersionRecord {
  name: string;
  owner: string;
  state: VersionState;
  /** RFC 3339; when the deprecation took effect. */
  deprecated_at: string | null;
  /** RFC 3339; when the version stops being served. */
  sunset: string | null;
  removal_plan: string;
  /** The version its clients move to (default: the catalogue's default version). */
  successor?: string;
}

export interface VersionCatalog {
  default: string;
  versions: VersionRecord[];
}

export const VERSIONS_FILE = path.join(__dirname, "versions.json");

const STATES: VersionState[] = ["Current", "Deprecated", "Zombie", "Unknown", "Retired"];

/** Reads and validates the catalogue; a malformed file fails start-up. */
export function loadVersions(file = VERSIONS_FILE): VersionCatalog {
  const raw = JSON.parse(fs.readFileSync(dataFile(file), "utf8")) as VersionCatalog;
  const names = new Set<string>();
  for (const v of raw.versions) {
    if (!/^[a-z][a-z0-9]*$/.test(v.name)) throw new Error(`versions.json: bad version name ${JSON.stringify(v.name)}`);
    if (names.has(v.name)) throw new Error(`versions.json: duplicate version ${v.name}`);
    names.add(v.name);
    if (!STATES.includes(v.state)) throw new Error(`versions.json: ${v.name} has unknown state ${JSON.stringify(v.state)}`);
    if (!v.owner) throw new Error(`versions.json: ${v.name} has no owner`);
    for (const d of [v.deprecated_at, v.sunset]) {
      if (d !== null && Number.isNaN(Date.parse(d))) throw new Error(`versions.json: ${v.name} has a bad date ${d}`);
    }
    if ((v.state === "Deprecated" || v.state === "Zombie") && (v.deprecated_at === null || v.sunset === null)) {
      throw new Error(`versions.json: ${v.name} is ${v.state} but lacks deprecated_at or sunset`);
    }
  }
  for (const v of raw.versions) {
    if (v.successor !== undefined && (v.successor === v.name || !names.has(v.successor))) {
      throw new Error(`versions.json: ${v.name} names an unknown successor ${JSON.stringify(v.successor)}`);
    }
  }
  const def = raw.versions.find((v) => v.name === raw.default);
  if (!def || def.state !== "Current") throw new Error(`versions.json: default version ${raw.default} must exist and be Current`);
  return raw;
}

/**
 * The version's state at `now` (ms since the epoch): past its sunset, a
 * version that was still served is Retired. Unknown stays Unknown (never
 * served either way).
 */
export function stateAt(v: VersionRecord, now: number): VersionState {
  if (v.state !== "Unknown" && v.sunset !== null && Date.parse(v.sunset) <= now) return "Retired";
  return v.state;
}

/** Served right now (Current, Deprecated or Zombie, sunset not passed). One argument: safe to pass to Array#filter. */
export function isServable(v: VersionRecord): boolean {
  return isServableAt(v, Date.now());
}

export function isServableAt(v: VersionRecord, now: number): boolean {
  const state = stateAt(v, now);
  return state === "Current" || state === "Deprecated" || state === "Zombie";
}

/**
 * Published in /openapi.json at `now`: Current and Deprecated versions.
 * Zombie versions are served (their unowned clients keep working until the
 * sunset) but never offered to new clients.
 */
export function isPublishedAt(v: VersionRecord, now: number): boolean {
  const state = stateAt(v, now);
  return state === "Current" || state === "Deprecated";
}

/**
 * The servable version clients of `v` should move to: its `successor`,
 * followed while that one is no longer servable, else the default version.
 */
export function successorOf(catalog: VersionCatalog, v: VersionRecord, now: number): VersionRecord | undefined {
  const seen = new Set<string>([v.name]);
  let next = catalog.versions.find((x) => x.name === (v.successor ?? catalog.default));
  while (next && !isServableAt(next, now) && !seen.has(next.name)) {
    seen.add(next.name);
    const name: string = next.successor ?? catalog.default;
    next = catalog.versions.find((x) => x.name === name);
  }
  return next && isServableAt(next, now) && next.name !== v.name ? next : undefined;
}

export type VersionResolution =
  | { ok: true; version: VersionRecord }
  | { ok: false; problem: "unknown_version" | "version_conflict" | "not_acceptable"; named?: string }
  /** The record of the retired version, so the answer can name its sunset and successor. */
  | { ok: false; problem: "version_retired"; named: string; version: VersionRecord };

const VENDOR_TYPE = /^application\/vnd\.portcullis\.([a-z0-9]+)\+json$/i;

/** The version named by an Accept header, if any; "" when Accept names only a foreign vendor type. */
export function versionFromAccept(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(",")) {
    const type = part.split(";")[0].trim();
    const m = VENDOR_TYPE.exec(type);
    if (m) return m[1].toLowerCase();
  }
  return undefined;
}

const CONFLICT = Symbol("version conflict");

/** The version named so far and one more name (absent or empty: none), in lower case; CONFLICT when they differ. */
function agree(sofar: string | undefined | typeof CONFLICT, name: string | undefined): string | undefined | typeof CONFLICT {
  if (name === undefined || name === "" || sofar === CONFLICT) return sofar;
  const lower = name.toLowerCase();
  return sofar === undefined || sofar === lower ? lower : CONFLICT;
}

export function resolveVersion(
  catalog: VersionCatalog,
  named: { path?: string; header?: string; accept?: string },
  now: number = Date.now(),
): VersionResolution {
  // The names given (path, header, Accept), in letter case: all must agree. No arrays: this runs on every request.
  let given = agree(undefined, named.path);
  given = agree(given, named.header?.trim());
  given = agree(given, versionFromAccept(named.accept));
  if (given === CONFLICT) return { ok: false, problem: "version_conflict" };
  const name = given ?? catalog.default;
  const version = catalog.versions.find((v) => v.name === name);
  if (!version || version.state === "Unknown") return { ok: false, problem: "unknown_version", named: name };
  if (stateAt(version, now) === "Retired") return { ok: false, problem: "version_retired", named: name, version };
  return { ok: true, version };
}

/** What a Current version adds: nothing (one shared object, not one per request). */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Deprecation / Sunset headers for a served version (none for Current ones). */
export function lifecycleHeaders(v: VersionRecord): Readonly<Record<string, string>> {
  if (v.state !== "Deprecated" && v.state !== "Zombie") return NO_HEADERS;
  const headers: Record<string, string> = {};
  if (v.deprecated_at) headers.Deprecation = `@${Math.floor(Date.parse(v.deprecated_at) / 1000)}`;
  if (v.sunset) headers.Sunset = new Date(v.sunset).toUTCString();
  return headers;
}
