/**
 * `portcullis events`: how an auditor reads the security events store.
 *
 *   portcullis events [--db FILE] [--kind K] [--actor ID] [--since T]
 *                     [--limit N] [--json]
 *
 * Reads the SQLite file `--db` names, else PostgreSQL when
 * PORTCULLIS_DATABASE_URL is set (the security events of every instance),
 * else var/portcullis.db (cli/audit-store.ts).
 *
 * Default: a table, newest first (time, kind, actor, tenant, route, decision
 * id, detail). --json prints one event per line (ready for jq). The database
 * is opened read-only: reading the evidence never creates or changes it.
 *
 * Event text can come from attackers (a forged parameter ends up in detail),
 * so the table escapes control and bidi characters: a terminal escape
 * sequence in the log must not repaint the auditor's screen.
 */
import { DEFAULT_DB_FILE, openDatabase, type SecurityEventRow } from "../db";
import { openPgStore } from "../db/pg";
import { DEFAULT_EVENTS_LIMIT, MAX_EVENTS_LIMIT, type SecurityEventFilter } from "../db/security-events";
import { one, parseArgs, UsageError } from "./args";
import { auditStore } from "./audit-store";

export const EVENTS_USAGE =
  "events [--db FILE] [--kind K] [--actor ID] [--since 2h|2026-11-21T14:00:00Z] [--test-run ID | --exclude-test-runs] [--limit N] [--json]";

export async function eventsCommand(argv: string[], now: Date = new Date()): Promise<number> {
  const args = parseArgs(argv, {
    values: { "--db": "db", "--kind": "kind", "--actor": "actor", "--since": "since", "--limit": "limit", "--test-run": "testRun" },
    switches: { "--json": "json", "--exclude-test-runs": "excludeTestRuns" },
  });
  if (args.positionals.length > 0) throw new UsageError(`events takes no positional arguments (got ${args.positionals.join(" ")})`);
  const limitText = one(args, "limit");
  const limit = limitText === undefined ? DEFAULT_EVENTS_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_LIMIT)
    throw new UsageError(`--limit must be an integer from 1 to ${MAX_EVENTS_LIMIT}, got ${limitText}`);
  const sinceText = one(args, "since");
  const testRun = one(args, "testRun");
  if (testRun !== undefined && args.switches.has("excludeTestRuns")) throw new UsageError("--test-run and --exclude-test-runs exclude each other");

  const events = await readEvents(one(args, "db"), {
    kind: one(args, "kind"),
    actorId: one(args, "actor"),
    since: sinceText === undefined ? undefined : parseSince(sinceText, now),
    testRun,
    excludeTestRuns: args.switches.has("excludeTestRuns"),
    limit,
  });
  if (args.switches.has("json")) {
    // printable() keeps the line valid JSON: the characters it escapes can only occur inside strings.
    for (const event of events) console.log(printable(JSON.stringify(event)));
  } else {
    console.log(formatEvents(events, limit));
  }
  return 0;
}

/** From the store auditStore picks (--db, else PostgreSQL when PORTCULLIS_DATABASE_URL is set, else the default file). */
export async function readEvents(dbFlag: string | undefined, filter: SecurityEventFilter): Promise<SecurityEventRow[]> {
  const source = auditStore(dbFlag, DEFAULT_DB_FILE);
  if (source.kind === "postgres") {
    const store = await openPgStore({ url: source.url });
    try {
      return await store.securityEvents.query(filter);
    } finally {
      await store.close();
    }
  }
  const db = openDatabase(source.file, { readonly: true });
  try {
    return db.securityEvents.query(filter);
  } finally {
    db.close();
  }
}

/** `--since`: a duration back from now (`90s`, `15m`, `2h`, `7d`) or a date/time; a date-time without a zone is UTC. */
export function parseSince(text: string, now: Date = new Date()): string {
  const duration = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (duration) {
    const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as "s" | "m" | "h" | "d"];
    return new Date(now.getTime() - Number(duration[1]) * unitMs).toISOString();
  }
  const zoned = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(text) ? `${text}Z` : text;
  const date = /^\d{4}-\d{2}-\d{2}/.test(zoned) ? new Date(zoned) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--since ${JSON.stringify(text)}: expected a duration (15m, 2h, 7d) or an RFC 3339 time`);
  return date.toISOString();
}

const HEADERS = ["TIME (UTC)", "KIND", "ACTOR", "TENANT", "ROUTE", "DECISION ID", "TEST RUN", "DETAIL"];
/** Detail is cut in the table to keep one event per line; --json has it whole. */
const DETAIL_WIDTH = 80;

export function formatEvents(events: SecurityEventRow[], limit: number): string {
  if (events.length === 0) return "no security events match";
  const rows = events.map((e) =>
    [
      e.at.replace("T", " "),
      e.kind,
      e.actor_id,
      e.tenant_id ?? "-",
      e.route_id,
      e.decision_id ?? "-",
      e.test_run ?? "-",
      clip(JSON.stringify(e.detail), DETAIL_WIDTH),
    ].map(printable),
  );
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  const footer = events.length === limit ? `(newest ${limit} shown; --limit N for more)` : `${events.length} event${events.length === 1 ? "" : "s"}`;
  return [line(HEADERS), ...rows.map(line), footer].join("\n");
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, width - 1) + "…";
}

/** Control, DEL/C1 and bidi-override characters shown as \u escapes instead of reaching the terminal. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}
