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
 *   readTrafficDb("var/portcullis.db", "2026-08-23")
 *   await readTrafficPg(process.env.PORTCULLIS_DATABASE_URL, "2026-08-23")
 *   importJsonLog(text, templates, (id) => "admin")
 */
import * as fs from "node:fs";
import { openDatabase, type ActorClass } from "../../db";
import { openPgStore } from "../../db/pg";
import type { TrafficRow } from "../../db/traffic";

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

/** Reads the counts since `since` (YYYY-MM-DD) from a service database; absent or older files give a note, not an error. */
export function readTrafficDb(file: string, since: string): TrafficSource {
  if (!fs.existsSync(file)) return { observations: [], from: [], notes: [`no traffic database at ${file}`] };
  let db;
  try {
    db = openDatabase(file, { readonly: true });
  } catch (err) {
    return { observations: [], from: [], notes: [`traffic database ${file} unreadable: ${err instanceof Error ? err.message : String(err)}`] };
  }
  try {
    return { observations: db.traffic.summary({ since }).map(observationOf), from: [file], notes: [] };
  } finally {
    db.close();
  }
}

/**
 * The same counts from a PostgreSQL data store, as the service role (the
 * counts are no tenant's rows); an unreachable database gives a note, not
 * an error, like a missing file. The URL is reported without credentials.
 */
export async function readTrafficPg(url: string, since: string): Promise<TrafficSource> {
  const where = describeDatabase(url);
  let store;
  try {
    store = await openPgStore({ url });
  } catch (err) {
    return { observations: [], from: [], notes: [`traffic database ${where} unreadable: ${err instanceof Error ? err.message : String(err)}`] };
  }
  try {
    return { observations: (await store.traffic.summary({ since })).map(observationOf), from: [where], notes: [] };
  } finally {
    await store.close();
  }
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
function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "<invalid database URL>";
  }
}

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

/** Imports the API's JSON log lines; lines that are not request events are skipped and counted in a note. */
export function importJsonLog(text: string, templates: string[], classOf?: (actorId: string) => ActorClass | undefined, label = "log"): TrafficSource {
  const match = templateMatcher(templates);
  const sums = new Map<string, Observation>();
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
    const m = match(e.path);
    const template = m ? m.template : e.status < 400 ? e.path : "(unmatched)";
    const version = typeof e.version === "string" ? e.version : (m?.version ?? "");
    const actor = typeof e.actor === "string" ? e.actor : "anonymous";
    const actorClass: ActorClass = actor === "anonymous" ? "anonymous" : (classOf?.(actor) ?? "member");
    const at = typeof e.time === "string" && !Number.isNaN(Date.parse(e.time)) ? new Date(e.time).toISOString() : new Date(0).toISOString();
    const key = [e.method, template, version, e.status, actorClass].join("\u0000");
    const prev = sums.get(key);
    if (prev) {
      prev.count++;
      if (at > prev.lastSeen) prev.lastSeen = at;
    } else {
      sums.set(key, { method: e.method, template, version, status: e.status, actorClass, count: 1, lastSeen: at, probe: false });
    }
  }
  const notes = skipped > 0 ? [`${label}: ${skipped} line(s) were not API request events and were skipped`] : [];
  return { observations: [...sums.values()], from: [label], notes };
}
