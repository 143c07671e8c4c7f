/**
 * `portcullis decisions`: how an auditor reads the decision log.
 *
 *   portcullis decisions [--db FILE] [--actor ID] [--denied] [--since T]
 *                        [--path P] [--id DECISION_ID] [--limit N] [--json]
 *
 * Default: a table, newest first (time, decision id, actor, path,
 * allowed/denied with status and reason, bundle revision). --json prints the
 * full logged events, one JSON object per line (ready for jq).
 */
import { DEFAULT_DECISIONS_DB } from "../pdp/log";
import { openForRead } from "../pdp/log/store";
import { DEFAULT_QUERY_LIMIT, parseSince, queryDecisions, type DecisionEntry, type DecisionQuery } from "../pdp/log/query";
import { one, parseArgs, UsageError } from "./args";

export const DECISIONS_USAGE =
  "decisions [--db FILE] [--actor ID] [--denied] [--since 2h|2026-11-21T14:00:00Z] [--path P] [--id DECISION_ID] [--limit N] [--json]";

export async function decisionsCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: { "--db": "db", "--actor": "actor", "--since": "since", "--path": "path", "--id": "id", "--limit": "limit" },
    switches: { "--denied": "denied", "--json": "json" },
  });
  if (args.positionals.length > 0) throw new UsageError(`decisions takes no positional arguments (got ${args.positionals.join(" ")})`);
  const limitText = one(args, "limit");
  const limit = limitText === undefined ? DEFAULT_QUERY_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, got ${limitText}`);
  const since = one(args, "since");
  const query: DecisionQuery = {
    actor: one(args, "actor"),
    denied: args.switches.has("denied"),
    since: since === undefined ? undefined : parseSince(since),
    path: one(args, "path"),
    id: one(args, "id"),
    limit,
  };

  const db = openForRead(one(args, "db") ?? DEFAULT_DECISIONS_DB);
  try {
    const entries = queryDecisions(db, query);
    if (args.switches.has("json")) {
      for (const entry of entries) console.log(JSON.stringify(entry.event));
    } else {
      console.log(formatTable(entries, limit));
    }
  } finally {
    db.close();
  }
  return 0;
}

const HEADERS = ["TIME (UTC)", "DECISION ID", "ACTOR", "PATH", "DECISION", "REVISION"];

export function formatTable(entries: DecisionEntry[], limit: number): string {
  if (entries.length === 0) return "no decisions match";
  const rows = entries.map((e) => [
    // Millisecond precision reads well; the full timestamp is in --json.
    e.timestamp.replace(/^(.{19})(\.\d{1,3})?\d*Z$/, "$1$2Z").replace("T", " "),
    e.decision_id,
    e.actor_id ?? "-",
    e.path ?? "-",
    describe(e),
    e.revision ?? "-",
  ]);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  const footer = entries.length === limit ? `(newest ${limit} shown; --limit N for more)` : `${entries.length} decision${entries.length === 1 ? "" : "s"}`;
  return [line(HEADERS), ...rows.map(line), footer].join("\n");
}

/** `allowed 200 allowed`, `denied 403 role_required`, `denied pdp_error` (no status when the PDP failed). */
function describe(e: DecisionEntry): string {
  const erased = e.event.erased?.includes("/input") ? " [input erased]" : "";
  return [e.allowed ? "allowed" : "denied", e.status ?? "", e.reason ?? ""].filter((p) => p !== "").join(" ") + erased;
}
