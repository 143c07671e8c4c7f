/**
 * The auditor's summary of a period: the decision log (read through
 * pdp/log/store/query.ts, like `portcullis decisions`) and the security events
 * (like `portcullis events`), counted into what the audit page draws and
 * `portcullis audit --json` prints, so the page and the JSON are one set of
 * numbers.
 *
 * Definitions (the same as the command line's):
 * - a request is DENIED when `portcullis decisions --denied` lists it: the
 *   policy refused (or was never asked: bad token, unknown version, rate
 *   limit), or the client finally got an error status (>= 400), e.g. a read
 *   the policy allowed whose scoped query found no row (404: the BOLA
 *   signal, counted apart as `no_row_in_scope`); every other request is
 *   ALLOWED;
 * - requests of verified test runs (the matrix, the inventory's probes) are
 *   left out by default and counted (`test_run_requests_left_out`);
 *   `testRuns: "include"` counts them, `{ only: id }` reads one run;
 * - the service's own start-up policy probe (one anonymous decision per
 *   route, route version "startup-check", no HTTP request: api/registry/check.ts)
 *   is no one's request: left out and counted (`startup_checks_left_out`).
 *
 * The caller reads both stores (SQLite or PostgreSQL, cli/audit.ts) with
 * auditQueries(): this module only counts.
 *
 *   const q = auditQueries({ since, testRuns: "exclude" });
 *   const summary = auditSummary({ decisions: await readDecisions(file, q.decisions), events: await readEvents(db, q.events), since, now: new Date() });
 */
import type { SecurityEventFilter } from "../db/security-events";
import { MAX_EVENTS_LIMIT } from "../db/security-events";
import type { SecurityEventRow } from "../db/types";
import type { DecisionEntry, DecisionQuery } from "../pdp/log/store/query";

/** Kinds of security events that point at object-level probing: the BOLA/enumeration timeline. */
export const BOLA_KINDS = ["cross_tenant_id", "cross_owner_id", "enumeration"] as const;

export const DEFAULT_AUDIT_LIMIT = 100_000;
const TOP = 10;

export interface AuditOptions {
  /** What auditQueries().decisions read, newest first. */
  decisions: DecisionEntry[];
  /** What auditQueries().events read. */
  events: SecurityEventRow[];
  /** Log timestamp text (parseSince) or undefined: from the oldest entry read. */
  since?: string;
  now: Date;
  testRuns?: "exclude" | "include" | { only: string };
  /** Most decisions read (newest first); more in the window is reported as truncated. */
  limit?: number;
  sources?: { decisions: string; events: string };
}

export interface Bucket {
  start: string;
  allowed: number;
  denied: number;
}

export interface BolaBucket {
  start: string;
  cross_tenant_id: number;
  cross_owner_id: number;
  enumeration: number;
  /** Decisions the policy allowed whose scoped query found no row (404): the decision log's side of BOLA. */
  no_row_in_scope: number;
}

export interface AuditSummary {
  generated_at: string;
  window: { since: string | null; until: string; bucket: "hour" | "day" };
  sources: { decisions: string; events: string } | null;
  test_runs: "exclude" | "include" | { only: string };
  decisions: {
    total: number;
    allowed: number;
    denied: number;
    no_row_in_scope: number;
    distinct_actors_denied: number;
    test_run_requests_left_out: number;
    startup_checks_left_out: number;
    /** True when the window holds more decisions than `limit`: the oldest were not read. */
    truncated: boolean;
    limit: number;
    revisions: string[];
  };
  over_time: Bucket[];
  denied_by_route: Array<{ route: string; count: number; reasons: Record<string, number> }>;
  denied_by_actor: Array<{ actor: string; count: number }>;
  denial_reasons: Array<{ reason: string; count: number }>;
  events: {
    total: number;
    /** True when the store returned its maximum (MAX_EVENTS_LIMIT): older events in the window were not read. */
    truncated: boolean;
    by_kind: Array<{ kind: string; count: number }>;
  };
  bola: {
    timeline: BolaBucket[];
    /** The newest BOLA/enumeration events, for the table under the timeline. */
    recent: Array<{
      at: string;
      kind: string;
      actor: string;
      tenant: string | null;
      route: string;
      decision_id: string | null;
      detail: Record<string, unknown>;
    }>;
  };
}

/** A decision of the start-up policy probe (api/registry/check.ts): made by the service itself, not for a request. */
export function isStartupCheck(e: DecisionEntry): boolean {
  const route = (e.event?.input as { route?: { version?: unknown } } | undefined)?.route;
  return e.outcome === null && route?.version === "startup-check";
}

export function isDenied(e: DecisionEntry): boolean {
  return e.allowed === false || (e.outcome?.status ?? 0) >= 400;
}

/** Why a denied request was denied: the policy's reason, or what the client got. */
export function denialReason(e: DecisionEntry): string {
  const notAsked = e.event?.custom?.policy_evaluated === false;
  if (e.allowed === false && !notAsked) return e.reason ?? (e.status ? `status ${e.status}` : "denied");
  if (e.outcome?.scope_found === false) return `${e.outcome.problem ?? e.outcome.status} (no row in scope)`;
  if (e.outcome) return e.outcome.problem ?? `status ${e.outcome.status}`;
  return "refused before the policy";
}

export function routeOf(e: DecisionEntry): string {
  const route = (e.event?.input as { route?: { id?: unknown } } | undefined)?.route;
  if (e.outcome?.route_id) return e.outcome.route_id;
  if (typeof route?.id === "string" && route.id !== "") return route.id;
  return e.outcome ? `${e.outcome.method} ${e.outcome.http_path} (no route)` : "(no route)";
}

/** The two reads a summary needs: test runs are filtered in the summary (to count what was left out), but one run is selected in the store. */
export function auditQueries(options: Pick<AuditOptions, "since" | "testRuns" | "limit">): { decisions: DecisionQuery; events: SecurityEventFilter } {
  const testRuns = options.testRuns ?? "exclude";
  const only = typeof testRuns === "object" ? testRuns.only : undefined;
  return {
    decisions: { since: options.since, testRun: only, limit: options.limit ?? DEFAULT_AUDIT_LIMIT },
    events: { since: options.since, testRun: only, excludeTestRuns: testRuns === "exclude", limit: MAX_EVENTS_LIMIT },
  };
}

export function auditSummary(options: AuditOptions): AuditSummary {
  const testRuns = options.testRuns ?? "exclude";
  const limit = options.limit ?? DEFAULT_AUDIT_LIMIT;
  const read = options.decisions;
  const requests = read.filter((e) => !isStartupCheck(e));
  const entries = testRuns === "exclude" ? requests.filter((e) => !e.outcome?.test_run) : requests;
  const events = options.events;

  const until = options.now.toISOString();
  const oldest = [...entries.map((e) => e.timestamp), ...events.map((e) => e.at)].sort()[0];
  const from = options.since ?? oldest ?? until;
  const bucket: "hour" | "day" = Date.parse(until) - Date.parse(from) <= 2 * 86_400_000 ? "hour" : "day";
  const keys = bucketKeys(from, until, bucket);
  const keyOf = (t: string) => (bucket === "hour" ? `${t.slice(0, 13)}:00Z` : t.slice(0, 10));

  const overTime = new Map<string, Bucket>(keys.map((k) => [k, { start: k, allowed: 0, denied: 0 }]));
  const bola = new Map<string, BolaBucket>(keys.map((k) => [k, { start: k, cross_tenant_id: 0, cross_owner_id: 0, enumeration: 0, no_row_in_scope: 0 }]));
  const byRoute = new Map<string, { count: number; reasons: Record<string, number> }>();
  const byActor = new Map<string, number>();
  const reasons = new Map<string, number>();
  let denied = 0,
    noRow = 0;
  for (const e of entries) {
    const b = overTime.get(keyOf(e.timestamp));
    if (isDenied(e)) {
      denied++;
      if (b) b.denied++;
      const reason = denialReason(e);
      const route = byRoute.get(routeOf(e)) ?? { count: 0, reasons: {} };
      route.count++;
      route.reasons[reason] = (route.reasons[reason] ?? 0) + 1;
      byRoute.set(routeOf(e), route);
      const actor = e.actor_id ?? "(unknown)";
      byActor.set(actor, (byActor.get(actor) ?? 0) + 1);
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    } else if (b) b.allowed++;
    if (e.outcome?.scope_found === false) {
      noRow++;
      const nb = bola.get(keyOf(e.timestamp));
      if (nb) nb.no_row_in_scope++;
    }
  }
  const byKind = new Map<string, number>();
  for (const ev of events) {
    byKind.set(ev.kind, (byKind.get(ev.kind) ?? 0) + 1);
    const nb = bola.get(keyOf(ev.at));
    if (nb && (BOLA_KINDS as readonly string[]).includes(ev.kind)) nb[ev.kind as (typeof BOLA_KINDS)[number]]++;
  }
  const top = <T>(m: Map<string, T>, count: (v: T) => number) => [...m].sort((a, b) => count(b[1]) - count(a[1]) || (a[0] < b[0] ? -1 : 1)).slice(0, TOP);

  return {
    generated_at: until,
    window: { since: options.since ?? null, until, bucket },
    sources: options.sources ?? null,
    test_runs: testRuns,
    decisions: {
      total: entries.length,
      allowed: entries.length - denied,
      denied,
      no_row_in_scope: noRow,
      distinct_actors_denied: byActor.size,
      test_run_requests_left_out: requests.length - entries.length,
      startup_checks_left_out: read.length - requests.length,
      truncated: read.length === limit,
      limit,
      revisions: [...new Set(entries.map((e) => e.revision).filter((r): r is string => r !== null))].sort(),
    },
    over_time: [...overTime.values()],
    denied_by_route: top(byRoute, (v) => v.count).map(([route, v]) => ({ route, count: v.count, reasons: v.reasons })),
    denied_by_actor: top(byActor, (v) => v).map(([actor, count]) => ({ actor, count })),
    denial_reasons: top(reasons, (v) => v).map(([reason, count]) => ({ reason, count })),
    events: {
      total: events.length,
      truncated: events.length === MAX_EVENTS_LIMIT,
      by_kind: [...byKind].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([kind, count]) => ({ kind, count })),
    },
    bola: {
      timeline: [...bola.values()],
      recent: events
        .filter((e) => (BOLA_KINDS as readonly string[]).includes(e.kind))
        .slice(0, 50)
        .map(recentOf),
    },
  };
}

function recentOf(e: SecurityEventRow): AuditSummary["bola"]["recent"][number] {
  return { at: e.at, kind: e.kind, actor: e.actor_id, tenant: e.tenant_id, route: e.route_id, decision_id: e.decision_id, detail: e.detail };
}

/** Every bucket from `from` to `until` (UTC hours or days), so quiet periods show as gaps, not as nothing. */
function bucketKeys(from: string, until: string, bucket: "hour" | "day"): string[] {
  const step = bucket === "hour" ? 3_600_000 : 86_400_000;
  const start = new Date(from);
  if (bucket === "hour") start.setUTCMinutes(0, 0, 0);
  else start.setUTCHours(0, 0, 0, 0);
  const keys: string[] = [];
  for (let t = start.getTime(); t <= Date.parse(until); t += step) {
    const iso = new Date(t).toISOString();
    keys.push(bucket === "hour" ? `${iso.slice(0, 13)}:00Z` : iso.slice(0, 10));
  }
  return keys;
}
