/**
 * Observed traffic for the route inventory: request counts per UTC day,
 * method, route TEMPLATE (never the raw path: ids and probing would make the
 * table grow without bound), version, status and actor class. Written by the
 * API's count-traffic step, read by `portcullis inventory` and `versions`.
 *
 *   db.traffic.count({ method: "GET", template: "/api/{version}/users/me", version: "v1", status: 200, actorClass: "member" });
 *   db.traffic.summary({ since: "2026-08-23" });   // one row per day and key
 *
 * Counts are summed in memory and written in one transaction per second (or
 * per 500 distinct keys), not one write per request: the count-traffic step
 * runs on every request, and a synchronous upsert each time cost more than
 * the rest of the chain. The writes happen on timers (write-behind.ts), never
 * on a request's path; while they fail (another process holds the write
 * lock) the counts stay in memory and are written later. summary() and
 * close() write the pending counts first; a reader in another process sees
 * them at most a second late.
 *
 * Requests of a verified test run (the inventory's probes, a matrix run:
 * a `Portcullis-Test-Run` credential signed with the instance's key,
 * api/identity/test-run.ts) are counted apart (`probe = 1`) so test
 * traffic never keeps a version "in use"; a client cannot claim it.
 */
import type { Prepare } from "./sql";
import { writeBehind, type WriteBehindStats } from "./write-behind";
import { DbInputError } from "./types";

export type ActorClass = "anonymous" | "member" | "admin" | "support";
export const ACTOR_CLASSES: readonly ActorClass[] = ["anonymous", "member", "admin", "support"];

export interface TrafficHit {
  method: string;
  template: string;
  /** "" when the request named no version the chain resolved. */
  version: string;
  status: number;
  actorClass: ActorClass;
  probe?: boolean;
  /** Defaults to now; imports from access logs pass the line's time. */
  at?: Date;
  /** How many requests this hit stands for (log imports aggregate). */
  n?: number;
}

export interface TrafficRow {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  method: string;
  template: string;
  version: string;
  status: number;
  actor_class: ActorClass;
  probe: number;
  count: number;
  last_seen: string;
}

export interface TrafficRepository {
  count(hit: TrafficHit): void;
  /** Writes the counts summed in memory (one transaction); throws, keeping them, when it cannot. */
  flush(): void;
  /** flush() that keeps a failure in stats() instead of throwing; true when nothing is left held. */
  flushQuietly(): boolean;
  /** Requests counted in memory and not yet written, and those lost to a full buffer. */
  stats(): WriteBehindStats;
  /** One row per day and key since `since` (YYYY-MM-DD, inclusive), probes included (filter on `probe`). Kept per day so a reader can window the counts exactly. */
  summary(filter?: { since?: string }): TrafficRow[];
}

const TEXT_MAX = 200;

export function text(value: string, what: string, max = TEXT_MAX): string {
  if (typeof value !== "string" || value.length > max) throw new DbInputError("invalid_input", `${what} must be a string of at most ${max} characters`);
  return value;
}

export const FLUSH_INTERVAL_MS = 1000;
/** Written at once when this many distinct keys are held. */
export const MAX_PENDING_KEYS = 500;
/**
 * The most distinct keys held while writes fail (a lock held elsewhere, a
 * full disk). Keys are per day, method, template, version, status and actor
 * class, so this is days of real traffic; beyond it new keys are dropped
 * and counted (stats().dropped).
 */
export const MAX_HELD_KEYS = 20_000;

/** Counts summed in memory for one key: (day, method, template, version, status, actor class, probe). */
export interface PendingCount {
  params: [string, string, string, string, number, ActorClass, number];
  count: number;
  lastSeen: string;
}

/** Checks a hit: its key and its count (shared by the SQLite and PostgreSQL repositories). */
export function hitEntry(hit: TrafficHit, now: () => Date): [string, PendingCount] {
  const at = hit.at ?? now();
  if (!ACTOR_CLASSES.includes(hit.actorClass)) throw new DbInputError("invalid_input", `unknown actor class ${hit.actorClass}`);
  // One ISO formatting per hit: the day is its first ten characters.
  const lastSeen = at.toISOString();
  const params: PendingCount["params"] = [
    lastSeen.slice(0, 10),
    text(hit.method, "method", 10),
    text(hit.template, "template"),
    text(hit.version, "version", 40),
    hit.status,
    hit.actorClass,
    hit.probe ? 1 : 0,
  ];
  return [JSON.stringify(params), { params, count: hit.n ?? 1, lastSeen }];
}

/** Adds a count to the one held for the same key. */
export function mergeCount(held: PendingCount, entry: PendingCount): void {
  held.count += entry.count;
  if (entry.lastSeen > held.lastSeen) held.lastSeen = entry.lastSeen;
}

export function trafficRepository(prepare: Prepare, transaction: <T>(fn: () => T) => T, now: () => Date = () => new Date()): TrafficRepository {
  const buffer = writeBehind<PendingCount>({
    intervalMs: FLUSH_INTERVAL_MS,
    flushAtKeys: MAX_PENDING_KEYS,
    maxKeys: MAX_HELD_KEYS,
    weight: (entry) => entry.count,
    write(rows) {
      const upsert = prepare(
        `INSERT INTO traffic_counts (day, method, template, version, status, actor_class, probe, count, last_seen)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (day, method, template, version, status, actor_class, probe)
         DO UPDATE SET count = count + excluded.count, last_seen = max(last_seen, excluded.last_seen)`,
      );
      transaction(() => {
        for (const row of rows) upsert.run(...row.params, row.count, row.lastSeen);
      });
    },
  });
  return {
    count(hit) {
      const [key, entry] = hitEntry(hit, now);
      buffer.add(key, entry, mergeCount);
    },

    flush: buffer.flush,
    flushQuietly: buffer.flushQuietly,
    stats: buffer.stats,

    summary(filter = {}) {
      // What is held is written first when it can be; a lock held elsewhere does not stop the read.
      buffer.flushQuietly();
      const since = filter.since ?? "0000-00-00";
      return prepare(
        `SELECT day, method, template, version, status, actor_class, probe, count, last_seen
         FROM traffic_counts WHERE day >= ?
         ORDER BY template, method, version, status, day`,
      ).all(text(since, "since", 10)) as TrafficRow[];
    },
  };
}
