/**
 * The security events store: suspicious patterns the API notices (a denied
 * cross-tenant read, a forbidden parameter, a burst of 404s on ids), kept as
 * audit evidence. Append-only: the table's triggers refuse UPDATE and DELETE,
 * and this module offers neither.
 *
 * `detail` is caller-supplied and may carry attacker-controlled text; it is
 * stored as JSON (parameter-bound) and capped in size, so one request cannot
 * bloat the log. Readers must treat it as untrusted when displaying it.
 *
 * The API records events as requests finish, with recordLater(): it only
 * checks and holds the event, and a timer writes what is held in one
 * transaction, off every request's path (write-behind.ts). While another
 * connection holds the write lock they stay held; only a full buffer loses
 * events, and counts them. record() writes at once (in the caller's
 * transaction, when there is one).
 */
import { checkLimit } from "./sql";
import type { Prepare } from "./sql";
import { DbInputError, type SecurityEventRow } from "./types";
import { writeBehind, type WriteBehindStats } from "./write-behind";

export interface SecurityEventInput {
  kind: string;
  actorId: string;
  tenantId: string | null;
  routeId: string;
  detail: Record<string, unknown>;
  decisionId?: string;
  /** The verified test run of the request (never a client's claim). */
  testRun?: string | null;
}

export interface SecurityEventFilter {
  kind?: string;
  actorId?: string;
  /** Only events of this verified test run. */
  testRun?: string;
  /** Leave out every event of a verified test run. */
  excludeTestRuns?: boolean;
  /** Only events at or after this instant (any form Date parses, e.g. 2026-11-21T14:00:00Z). */
  since?: string;
  /** Newest N (default 100, at most 1000). */
  limit?: number;
}

export interface SecurityEventsRepository {
  /** Writes the event now (inside the caller's transaction, if any). */
  record(event: SecurityEventInput): void;
  /** Newest first; events held by recordLater are written first when they can be. */
  query(filter: SecurityEventFilter): SecurityEventRow[];
}

/** The SQLite repository's write-behind side, for events recorded on a request's way out (api/security/monitor.ts). */
export interface HeldSecurityEvents {
  /** Checks the event and holds it (time stamped now) for a write a moment later, on a timer; throws only on a bad event. */
  recordLater(event: SecurityEventInput): void;
  /** Writes the held events now (one transaction); throws, keeping them, when it cannot. */
  flush(): void;
  /** flush() that keeps a failure in stats() instead of throwing; true when nothing is left held. */
  flushQuietly(): boolean;
  /** Events held in memory and not yet written, and those lost to a full buffer. */
  stats(): WriteBehindStats;
}

export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 1000;
/** Larger details are replaced by a marker: evidence that something big came, not the payload itself. */
export const MAX_DETAIL_BYTES = 8192;

const COLUMNS = "id, at, kind, actor_id, tenant_id, route_id, decision_id, test_run, detail";

/**
 * Evidence should not be lost to a formality: over-long text is clipped (and
 * marked) rather than refused; only a missing value, a programming error, throws.
 */
export function requiredText(value: unknown, what: string, max = 200): string {
  if (typeof value !== "string" || value === "") throw new DbInputError("invalid_input", `${what} must be a non-empty string`);
  return value.length <= max ? value : value.slice(0, max - 1) + "…";
}

export function optionalText(value: unknown, what: string): string | null {
  return value === undefined || value === null || value === "" ? null : requiredText(value, what);
}

export function filterText(value: unknown, what: string): string {
  if (typeof value !== "string") throw new DbInputError("invalid_input", `${what} must be a string`);
  return value;
}

export function detailJson(detail: unknown): string {
  if (typeof detail !== "object" || detail === null || Array.isArray(detail)) throw new DbInputError("invalid_input", "detail must be an object");
  let json: string;
  try {
    json = JSON.stringify(detail);
  } catch {
    // Cycles or BigInt: keep the event, lose the detail, say so.
    return JSON.stringify({ unserializable: true });
  }
  const bytes = Buffer.byteLength(json);
  return bytes > MAX_DETAIL_BYTES ? JSON.stringify({ truncated: true, bytes }) : json;
}

/** Normalises `since` to the stored form (ISO with milliseconds, UTC) so text comparison is time comparison. */
export function normaliseSince(since: string): string {
  const date = /^\d{4}-\d{2}-\d{2}/.test(since) ? new Date(since) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw new DbInputError("invalid_input", `since ${JSON.stringify(since)} is not a date/time`);
  return date.toISOString();
}

/** Written this long after an event is recorded (and retried at this pace while writes fail). */
export const EVENTS_FLUSH_INTERVAL_MS = 200;
/** The most events held while writes fail; beyond it events are dropped and counted (stats().dropped). */
export const MAX_HELD_EVENTS = 10_000;

export type EventParams = [
  at: string,
  kind: string,
  actorId: string,
  tenantId: string | null,
  routeId: string,
  decisionId: string | null,
  testRun: string | null,
  detail: string,
];

/** An event checked and stamped `at`, as the INSERT's parameters (shared by the SQLite and PostgreSQL repositories). */
export function eventParams(event: SecurityEventInput, at: Date): EventParams {
  return [
    at.toISOString(),
    requiredText(event.kind, "kind", 100),
    requiredText(event.actorId, "actorId"),
    optionalText(event.tenantId, "tenantId"),
    requiredText(event.routeId, "routeId"),
    optionalText(event.decisionId, "decisionId"),
    optionalText(event.testRun, "testRun"),
    detailJson(event.detail),
  ];
}

export function securityEventsRepository(
  prepare: Prepare,
  transaction: <T>(fn: () => T) => T,
  options: { readonly?: boolean; now?: () => Date } = {},
): SecurityEventsRepository & HeldSecurityEvents {
  const now = options.now ?? (() => new Date());
  const buffer = writeBehind<EventParams>({
    intervalMs: EVENTS_FLUSH_INTERVAL_MS,
    maxKeys: MAX_HELD_EVENTS,
    write(events) {
      const insert = prepare(
        `INSERT INTO security_events (at, kind, actor_id, tenant_id, route_id, decision_id, test_run, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      transaction(() => {
        for (const event of events) insert.run(...event);
      });
    },
  });
  let sequence = 0;
  const checked = (event: SecurityEventInput): EventParams => eventParams(event, now());
  return {
    record(event) {
      prepare(`INSERT INTO security_events (at, kind, actor_id, tenant_id, route_id, decision_id, test_run, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
        ...checked(event),
      );
    },

    recordLater(event) {
      // Refused at once rather than held for a write that can never happen.
      if (options.readonly) throw new DbInputError("invalid_input", "attempt to write a readonly database");
      buffer.add(String(++sequence), checked(event));
    },

    flush: buffer.flush,
    flushQuietly: buffer.flushQuietly,
    stats: buffer.stats,

    query(filter) {
      buffer.flushQuietly();
      const where: string[] = [];
      const params: unknown[] = [];
      // Each condition is a fixed text; only the values vary, as parameters.
      if (filter.kind !== undefined) {
        where.push("kind = ?");
        params.push(filterText(filter.kind, "kind"));
      }
      if (filter.actorId !== undefined) {
        where.push("actor_id = ?");
        params.push(filterText(filter.actorId, "actorId"));
      }
      if (filter.testRun !== undefined) {
        where.push("test_run = ?");
        params.push(filterText(filter.testRun, "testRun"));
      }
      if (filter.excludeTestRuns) where.push("test_run IS NULL");
      if (filter.since !== undefined) {
        where.push("at >= ?");
        params.push(normaliseSince(filterText(filter.since, "since")));
      }
      const limit = filter.limit === undefined ? DEFAULT_EVENTS_LIMIT : checkLimit(filter.limit, MAX_EVENTS_LIMIT);
      const sql = `SELECT ${COLUMNS} FROM security_events${where.length > 0 ? " WHERE " + where.join(" AND ") : ""} ORDER BY at DESC, id DESC LIMIT ?`;
      const rows = prepare(sql).all(...params, limit) as Array<Omit<SecurityEventRow, "detail"> & { detail: string }>;
      return rows.map((row) => ({ ...row, detail: JSON.parse(row.detail) as Record<string, unknown> }));
    },
  };
}
