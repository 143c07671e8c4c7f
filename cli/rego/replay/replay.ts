/**
 * Replay: the decision log's recorded inputs evaluated again on a candidate
 * bundle, each new decision compared with the one recorded. What would this
 * policy change have answered to the traffic we actually had?
 *
 *   const report = replay(entries, engine, { failOn: ["deny-to-allow"] });
 *
 * Each decision is re-decided with the PDP's own decide() (same entrypoint
 * as recorded, same validation, the same fail-closed 503 on an error), so a
 * candidate that errors or answers malformed shows as a flip to a 503 deny,
 * exactly what serving it would have done.
 *
 * Not everything in the log can be replayed, and what cannot is counted
 * apart rather than hidden:
 * - refusals made before the policy (custom.policy_evaluated false: bad
 *   token, rate limit, unknown route...): no policy input exists;
 * - outcomes whose decision event is not in the log (dropped by the drop
 *   policy, or lost);
 * - the service's start-up policy probes (not traffic);
 * - events whose whole input was erased (mask fail-safe).
 * An event whose input (or result) the mask policy erased or overwrote in
 * part is replayed AS MASKED and marked: the policy reads "[REDACTED]" or a
 * missing member where the original request had a value, so its replayed
 * answer, flipped or not, is not trustworthy. Each one lists the pointers.
 *
 * Time-dependent rules (time.now_ns) read the clock of the replay, not of
 * the recorded decision.
 */
import { decide, type DecideDeps } from "../../../pdp/decide";
import type { Engine } from "../../../pdp/engine";
import type { DecisionEntry } from "../../../pdp/log/store/query";
import type { Decision, DecisionInput } from "../../../pdp/types";
import { isStartupCheck } from "../../../report/audit";

/** What a flip changed; `--fail-on` takes these (and `any`). */
export const FLIP_KINDS = ["deny-to-allow", "allow-to-deny", "status", "reason", "scope", "fields"] as const;
export type FlipKind = (typeof FLIP_KINDS)[number];

/** A decision as compared: the policy's answer without its identity. */
export type Answer = Pick<Decision, "allow" | "status" | "reason" | "scope" | "fields">;

export interface FlipExample {
  decision_id: string;
  timestamp: string;
  actor: string;
  recorded_revision: string | null;
  before: Answer;
  after: Answer;
  /** Pointers the mask policy erased or overwrote in this event's input or result (empty: replayed as recorded). */
  masked: string[];
}

/** Flips of one kind on one route, for one set of roles, from one reason to another. */
export interface FlipGroup {
  /** The most telling change (an allow flip, else the first of status, reason, scope, fields). */
  kind: FlipKind;
  /** Every change these flips share. */
  changes: FlipKind[];
  route: string;
  roles: string;
  reason: { before: string; after: string };
  count: number;
  /** How many of them were replayed on a masked input or result (not trustworthy). */
  masked: number;
  /** The first few, newest first. */
  examples: FlipExample[];
}

export interface ReplayReport {
  candidate: { revision: string; source: string };
  /** Decision-log entries read (the newest `limit` since `since`). */
  read: number;
  since: string | null;
  limit: number;
  /** The read hit the limit: older decisions were not replayed. */
  truncated: boolean;
  replayed: number;
  unchanged: number;
  flips: number;
  /** Replayed on a masked input or result, flipped or not: their answers are not trustworthy. */
  masked: { replayed: number; flips: number };
  not_replayable: { refused_before_policy: number; not_logged: number; startup_checks: number; input_erased: number };
  /** Flips counted by every change they carry (a flip may count under several). */
  by_kind: Record<FlipKind, number>;
  /** How many replayed decisions each recorded bundle revision made. */
  recorded_revisions: Record<string, number>;
  groups: FlipGroup[];
  fail_on: { kinds: string[]; matched: number; failed: boolean };
}

export interface ReplayOptions {
  source: string;
  since?: string;
  limit: number;
  failOn?: string[];
  /** Examples kept per group (default 3). */
  examples?: number;
}

export function parseFailOn(text: string): string[] {
  const kinds = text
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  for (const k of kinds) {
    if (k !== "any" && !(FLIP_KINDS as readonly string[]).includes(k))
      throw new Error(`--fail-on: unknown kind ${JSON.stringify(k)} (one or more of ${[...FLIP_KINDS, "any"].join(", ")})`);
  }
  if (kinds.length === 0) throw new Error("--fail-on needs at least one kind");
  return kinds;
}

/** The candidate's decisions are compared, never recorded: a log that keeps nothing, a logger that says nothing. */
const UNLOGGED: Omit<DecideDeps, "entrypoint"> = { log: { record: () => undefined, flush: async () => undefined }, logger: () => undefined };

export function replay(entries: DecisionEntry[], engine: Engine, options: ReplayOptions): ReplayReport {
  const report: ReplayReport = {
    candidate: { revision: engine.revision, source: options.source },
    read: entries.length,
    since: options.since ?? null,
    limit: options.limit,
    truncated: entries.length >= options.limit,
    replayed: 0,
    unchanged: 0,
    flips: 0,
    masked: { replayed: 0, flips: 0 },
    not_replayable: { refused_before_policy: 0, not_logged: 0, startup_checks: 0, input_erased: 0 },
    by_kind: Object.fromEntries(FLIP_KINDS.map((k) => [k, 0])) as Record<FlipKind, number>,
    recorded_revisions: {},
    groups: [],
    fail_on: { kinds: options.failOn ?? [], matched: 0, failed: false },
  };
  const groups = new Map<string, FlipGroup>();
  const keep = options.examples ?? 3;

  for (const entry of entries) {
    const event = entry.event;
    if (event === null) {
      report.not_replayable.not_logged++;
      continue;
    }
    if (event.custom?.policy_evaluated === false || !event.path) {
      report.not_replayable.refused_before_policy++;
      continue;
    }
    if (isStartupCheck(entry)) {
      report.not_replayable.startup_checks++;
      continue;
    }
    const masked = [...(event.erased ?? []), ...(event.masked ?? [])].filter((p) => p.startsWith("/input") || p.startsWith("/result"));
    if (event.input === undefined || masked.includes("/input")) {
      report.not_replayable.input_erased++;
      continue;
    }
    const input = event.input as DecisionInput;
    const before = recordedAnswer(entry);
    const after = answerOf(decide(engine, { ...UNLOGGED, entrypoint: event.path }, input));
    report.replayed++;
    const revision = entry.revision ?? "";
    report.recorded_revisions[revision] = (report.recorded_revisions[revision] ?? 0) + 1;
    if (masked.length > 0) report.masked.replayed++;

    const changes = changesBetween(before, after);
    if (changes.length === 0) {
      report.unchanged++;
      continue;
    }
    report.flips++;
    if (masked.length > 0) report.masked.flips++;
    for (const c of changes) report.by_kind[c]++;
    if (report.fail_on.kinds.some((k) => k === "any" || (changes as string[]).includes(k))) report.fail_on.matched++;

    const route = input.route?.id ?? "(no route)";
    const roles = rolesOf(input);
    const key = JSON.stringify([changes, route, roles, before.reason, after.reason]);
    let group = groups.get(key);
    if (!group) {
      group = { kind: changes[0], changes, route, roles, reason: { before: before.reason, after: after.reason }, count: 0, masked: 0, examples: [] };
      groups.set(key, group);
    }
    group.count++;
    if (masked.length > 0) group.masked++;
    if (group.examples.length < keep) {
      group.examples.push({
        decision_id: entry.decision_id,
        timestamp: entry.timestamp,
        actor: entry.actor_id ?? input.actor?.id ?? "-",
        recorded_revision: entry.revision,
        before,
        after,
        masked,
      });
    }
  }
  report.fail_on.failed = report.fail_on.matched > 0;
  // The ones that open access first, then the largest.
  const rank = (g: FlipGroup) => FLIP_KINDS.indexOf(g.kind);
  report.groups = [...groups.values()].sort((a, b) => rank(a) - rank(b) || b.count - a.count || a.route.localeCompare(b.route));
  return report;
}

/**
 * The decision as recorded: the logged result when it is a valid decision,
 * else (a PDP failure, a result the mask touched) the indexed columns, which
 * hold what the API was told.
 */
function recordedAnswer(entry: DecisionEntry): Answer {
  const result = entry.event?.result as Partial<Answer> | undefined;
  const fromColumns: Answer = {
    allow: entry.allowed === true,
    status: entry.status ?? 503,
    reason: entry.reason ?? "unknown",
    scope: {},
    fields: { read: [], write: [] },
  };
  if (entry.event?.error || result === null || typeof result !== "object") return fromColumns;
  return {
    ...fromColumns,
    scope: result.scope && typeof result.scope === "object" ? result.scope : {},
    fields: { read: result.fields?.read ?? [], write: result.fields?.write ?? [] },
  };
}

function answerOf(d: Decision): Answer {
  return { allow: d.allow, status: d.status, reason: d.reason, scope: d.scope, fields: d.fields };
}

function changesBetween(before: Answer, after: Answer): FlipKind[] {
  const changes: FlipKind[] = [];
  if (before.allow !== after.allow) changes.push(after.allow ? "deny-to-allow" : "allow-to-deny");
  if (before.status !== after.status && before.allow === after.allow) changes.push("status");
  if (before.reason !== after.reason) changes.push("reason");
  if (canonical(before.scope) !== canonical(after.scope)) changes.push("scope");
  if (canonical(sorted(before.fields)) !== canonical(sorted(after.fields))) changes.push("fields");
  return changes;
}

/** Field lists compared as sets: their order carries no meaning. */
function sorted(fields: Answer["fields"]): Answer["fields"] {
  return { read: [...fields.read].sort(), write: [...fields.write].sort() };
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(value);
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(",")}}`;
}

function rolesOf(input: DecisionInput): string {
  const roles = Array.isArray(input.actor?.roles) ? input.actor.roles : [];
  if (input.actor?.id === "anonymous" && roles.length === 0) return "(anonymous)";
  return roles.length === 0 ? "(no role)" : [...roles].sort().join("+");
}
