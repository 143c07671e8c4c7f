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
 * the rest of the chain. summary() and close() write the pending counts
 * first; a reader in another process sees them at most a second late.
 *
 * Requests of a verified test run (the inventory's probes, a matrix run:
 * a `Portcullis-Test-Run` credential signed with the instance's key,
 * api/identity/test-run.ts) are counted apart (`probe = 1`) so test
 * traffic never keeps a version "in use"; a client cannot claim it.
 */
import type { Prepare } from "./sql";
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
  /** Writes the counts summed in memory (one transaction). */
  flush(): void;
  /** One row per day and key since `since` (YYYY-MM-DD, inclusive), probes included (filter on `probe`). Kept per day so a reader can window the counts exactly. */
  summary(filter?: { since?: string }): TrafficRow[];
}

const TEXT_MAX = 200;

export function text(value: string, what: string, max = TEXT_MAX): string {
  if (typeof value !== "string" || value.length > max) throw new DbInputError("invalid_input", `${what} must be a string of at most ${max} characters`);
  return value;
}

export const FLUSH_INTERVAL_MS = 1000;
export const MAX_PENDING_KEYS = 500;

/** Counts summed in memory for one key: (day, method, template, version, status, actor class, probe). */
export interface PendingCount {
  params: [string, string, string, string, number, ActorClass, number];
  count: number;
  lastSeen: string;
}

/** Checks a hit and adds it to the counts summed in memory (shared by the SQLite and PostgreSQL repositories). */
export function addHit(pending: Map<string, PendingCount>, hit: TrafficHit, now: () => Date): void {
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
  const key = JSON.stringify(params);
  const entry = pending.get(key);
  if (entry) {
    entry.count += hit.n ?? 1;
    if (lastSeen > entry.lastSeen) entry.lastSeen = lastSeen;
  } else pending.set(key, { params, count: hit.n ?? 1, lastSeen });
}

export function trafficRepository(
  prepare: Prepare,
  transaction: <T>(fn: () => T) => T,
  now: () => Date = () => new Date(),
): TrafficRepository {
  const pending = new Map<string, PendingCount>();
  let timer: NodeJS.Timeout | undefined;

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const rows = [...pending.values()];
    pending.clear();
    const upsert = prepare(
      `INSERT INTO traffic_counts (day, method, template, version, status, actor_class, probe, count, last_seen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (day, method, template, version, status, actor_class, probe)
       DO UPDATE SET count = count + excluded.count, last_seen = max(last_seen, excluded.last_seen)`,
    );
    transaction(() => {
      for (const row of rows) upsert.run(...row.params, row.count, row.lastSeen);
    });
  }

  function flushQuietly(): void {
    try {
      flush();
    } catch {
      // Best-effort measurement: a closed or busy database loses this second's counts, never a request.
    }
  }

  return {
    count(hit) {
      addHit(pending, hit, now);
      if (pending.size >= MAX_PENDING_KEYS) flushQuietly();
      else if (!timer) timer = setTimeout(flushQuietly, FLUSH_INTERVAL_MS).unref();
    },

    flush,

    summary(filter = {}) {
      flush();
      const since = filter.since ?? "0000-00-00";
      return prepare(
        `SELECT day, method, template, version, status, actor_class, probe, count, last_seen
         FROM traffic_counts WHERE day >= ?
         ORDER BY template, method, version, status, day`,
      ).all(text(since, "since", 10)) as TrafficRow[];
    },
  };
}
