/**
 * Source "traffic": what the service actually answered, per method, route
 * template, version, status and actor class.
 *
 * Two inputs, one shape (`Observation`):
 * - the counts the API's count-traffic step keeps (db/traffic.ts), read
 *   from the service's SQLite file (read-only), or from its PostgreSQL
 *   database, where every instance of a cluster adds to the same rows;
 * - an access log to import: the API's own JSON log lines (one object per
 *   line, `event: "http.request"`, as api/middleware/log.ts writes them:
 *   `time`, `method`, `path`, `version`, `actor`, `status`). We chose these
 *   over the combined log format because they carry the resolved version
 *   and the actor; a combined log carries neither. Paths are mapped to the
 *   registry's templates; the actor id is mapped to its class through the
 *   user table when one is given (otherwise non-anonymous actors count as
 *   members). A successful answer on a path no template matches is kept
 *   under its raw path: exactly the shadow signal the inventory is for.
 *
 *   await readTraffic({ kind: "sqlite", file: "var/portcullis.db" }, "2026-08-23")
 *   await readTraffic({ kind: "postgres", url: process.env.PORTCULLIS_DATABASE_URL }, "2026-08-23")
 *   importJsonLog(text, templates, (id) => "admin")
 */
import type { ActorClass } from "../../db";
import type { TrafficRow } from "../../db/traffic";
import { readCounts, type CountsStoreRef } from "./store";

export interface Observation {
  method: string;
  template: string;
  version: string;
  status: number;
  actorClass: ActorClass;
  count: number;
  lastSeen: string;
  probe: boolean;
}

export interface TrafficSource {
  observations: Observation[];
  /** Where the counts came from, for the report; empty when no traffic source was available. */
  from: string[];
  notes: string[];
}

/**
 * Reads the counts since `since` (YYYY-MM-DD) from the store `ref` names
 * (./store.ts: a SQLite file, read-only, or the PostgreSQL database every
 * instance counts into, as the service role); a missing or unreadable store
 * is a note, not an error.
 */
export async function readTraffic(ref: CountsStoreRef, since: string): Promise<TrafficSource> {
  const got = await readCounts(ref, "traffic database", (store) => store.traffic.summary({ since }));
  if ("note" in got) return { observations: [], from: [], notes: [got.note] };
  return { observations: got.value.map(observationOf), from: [got.from], notes: [] };
}

function observationOf(r: TrafficRow): Observation {
  return {
    method: r.method,
    template: r.template,
    version: r.version,
    status: r.status,
    actorClass: r.actor_class,
    count: r.count,
    lastSeen: r.last_seen,
    probe: r.probe === 1,
  };
}

/** `postgres://user:pw@host:5432/db?x` -> `postgres://host:5432/db`: safe for a report. */
/** Matches a concrete path to the most specific template (literal segments before parameters). */
export function templateMatcher(templates: string[]): (p: string) => { template: string; version?: string } | undefined {
  const compiled = templates.map((t) => {
    const names: string[] = [];
    const source = t
      .split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)
      .map((part) => {
        const m = /^\{(.+)\}$/.exec(part);
        if (m) {
          names.push(m[1]);
          return "([^/]+)";
        }
        return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      })
      .join("");
    return { t, names, re: new RegExp(`^${source}$`) };
  });
  return (p) => {
    // Literal templates first: /invoices/export is not an invoice id.
    for (const c of [...compiled].sort((a, b) => a.names.length - b.names.length)) {
      const m = c.re.exec(p);
      if (!m) continue;
      const vi = c.names.indexOf("version");
      return { template: c.t, version: vi >= 0 ? m[vi + 1] : undefined };
    }
    return undefined;
  };
}

/** One request event of the API's JSON log (api/middleware/log.ts), as read from a line. */
export interface RequestEvent {
  method: string;
  path: string;
  status: number;
  version?: string;
  actor: string;
  time?: string;
}

/** The request events of a JSON log, and how many lines were something else (not JSON, not a request event). */
export function requestEvents(text: string): { events: RequestEvent[]; skipped: number } {
  const events: RequestEvent[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      skipped++;
      continue;
    }
    if (e.event !== "http.request" || typeof e.method !== "string" || typeof e.path !== "string" || typeof e.status !== "number") {
      skipped++;
      continue;
    }
    events.push({
      method: e.method,
      path: e.path,
      status: e.status,
      version: typeof e.version === "string" ? e.version : undefined,
      actor: typeof e.actor === "string" ? e.actor : "anonymous",
      time: typeof e.time === "string" ? e.time : undefined,
    });
  }
  return { events, skipped };
}

/** Counts a log's request events per method, template, version, status and actor class (unknown actors count as members). */
export function countRequestEvents(
  log: { events: RequestEvent[]; skipped: number },
  templates: string[],
  classOf?: (actorId: string) => ActorClass | undefined,
  label = "log",
): TrafficSource {
  const match = templateMatcher(templates);
  const sums = new Map<string, Observation>();
  for (const e of log.events) {
    const m = match(e.path);
    const template = m ? m.template : e.status < 400 ? e.path : "(unmatched)";
    const version = e.version ?? m?.version ?? "";
    const actorClass: ActorClass = e.actor === "anonymous" ? "anonymous" : (classOf?.(e.actor) ?? "member");
    const at = e.time !== undefined && !Number.isNaN(Date.parse(e.time)) ? new Date(e.time).toISOString() : new Date(0).toISOString();
    const key = [e.method, template, version, e.status, actorClass].join("\u0000");
    const prev = sums.get(key);
    if (prev) {
      prev.count++;
      if (at > prev.lastSeen) prev.lastSeen = at;
    } else {
      sums.set(key, { method: e.method, template, version, status: e.status, actorClass, count: 1, lastSeen: at, probe: false });
    }
  }
  const notes = log.skipped > 0 ? [`${label}: ${log.skipped} line(s) were not API request events and were skipped`] : [];
  return { observations: [...sums.values()], from: [label], notes };
}

/** Imports the API's JSON log lines; lines that are not request events are skipped and counted in a note. */
export function importJsonLog(text: string, templates: string[], classOf?: (actorId: string) => ActorClass | undefined, label = "log"): TrafficSource {
  return countRequestEvents(requestEvents(text), templates, classOf, label);
}
