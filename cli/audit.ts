/**
 * `portcullis audit`: the auditor's report over a period, from the decision
 * log and the security events (report/audit.ts).
 *
 *   portcullis audit [--decisions FILE] [--db FILE] [--since 7d|2026-11-21T14:00:00Z]
 *                    [--test-run ID | --include-test-runs] [--limit N] [--json | --html FILE]
 *
 * --decisions: the SQLite decision log; --db: the SQLite service database
 * holding the security events. Each store is chosen as `decisions` and
 * `events` choose theirs (cli/audit-store.ts): the file named, else
 * PostgreSQL when PORTCULLIS_DATABASE_URL is set, else var/decisions.db and
 * var/portcullis.db; files are opened read-only. Requests of verified test runs are left out
 * unless --include-test-runs (or --test-run ID for one run). --json prints
 * the summary the page draws; --html writes the page; otherwise a few lines
 * of headline numbers.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_DB_FILE } from "../db";
import { DEFAULT_DECISIONS_DB } from "../pdp/log";
import { parseSince } from "../pdp/log/store/query";
import { auditQueries, auditSummary, DEFAULT_AUDIT_LIMIT, type AuditOptions, type AuditSummary } from "../report/audit";
import { auditHtml } from "../report/audit-html";
import { one, parseArgs, UsageError } from "./args";
import { auditStore } from "./audit-store";
import { readDecisions } from "./decisions";
import { readEvents } from "./events";

export const AUDIT_USAGE =
  "audit [--decisions FILE] [--db FILE] [--since 7d|2026-11-21T14:00:00Z] [--test-run ID | --include-test-runs] [--limit N] [--json | --html FILE]";

export async function auditCommand(argv: string[], now: Date = new Date()): Promise<number> {
  const args = parseArgs(argv, {
    values: { "--decisions": "decisions", "--db": "db", "--since": "since", "--test-run": "testRun", "--limit": "limit", "--html": "html" },
    switches: { "--json": "json", "--include-test-runs": "includeTestRuns" },
  });
  if (args.positionals.length > 0) throw new UsageError(`audit takes no positional arguments (got ${args.positionals.join(" ")})`);
  const html = one(args, "html");
  if (html !== undefined && args.switches.has("json")) throw new UsageError("--json and --html are alternatives");
  const testRun = one(args, "testRun");
  if (testRun !== undefined && args.switches.has("includeTestRuns")) throw new UsageError("--test-run and --include-test-runs exclude each other");
  const limitText = one(args, "limit");
  const limit = limitText === undefined ? DEFAULT_AUDIT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, got ${limitText}`);
  const sinceText = one(args, "since");
  const since = sinceText === undefined ? undefined : parseSince(sinceText, now);
  const decisionsFlag = one(args, "decisions");
  const eventsFlag = one(args, "db");
  const stores = [auditStore(decisionsFlag, DEFAULT_DECISIONS_DB), auditStore(eventsFlag, DEFAULT_DB_FILE)];
  // Opening a missing file read-only would fail with SQLite's terse message: name the file instead.
  for (const store of stores) if (store.kind === "sqlite" && !fs.existsSync(store.file)) throw new UsageError(`no such file: ${store.file}`);
  const testRuns: AuditOptions["testRuns"] = testRun !== undefined ? { only: testRun } : args.switches.has("includeTestRuns") ? "include" : "exclude";
  const queries = auditQueries({ since, testRuns, limit });
  const summary = auditSummary({
    decisions: await readDecisions(decisionsFlag, queries.decisions),
    events: await readEvents(eventsFlag, queries.events),
    since,
    now,
    limit,
    testRuns,
    sources: { decisions: label(stores[0]), events: label(stores[1]) },
  });
  if (args.switches.has("json")) console.log(JSON.stringify(summary, null, 2));
  else if (html !== undefined) {
    fs.mkdirSync(path.dirname(path.resolve(html)), { recursive: true });
    fs.writeFileSync(html, auditHtml(summary));
    console.error(
      `portcullis: wrote ${html} (${summary.decisions.total} decisions, ${summary.decisions.denied} denied, ${summary.events.total} security events)`,
    );
  } else console.log(textSummary(summary));
  return 0;
}

function label(store: ReturnType<typeof auditStore>): string {
  return store.kind === "sqlite" ? store.file : "PostgreSQL (PORTCULLIS_DATABASE_URL)";
}

function textSummary(s: AuditSummary): string {
  const d = s.decisions;
  return [
    `${d.total} requests: ${d.allowed} allowed, ${d.denied} denied (${d.no_row_in_scope} allowed by the policy but no row in scope) by ${d.distinct_actors_denied} actors` +
      (d.test_run_requests_left_out > 0 ? `; ${d.test_run_requests_left_out} test-run requests left out` : ""),
    `most denied routes: ${
      s.denied_by_route
        .slice(0, 5)
        .map((r) => `${r.route} (${r.count})`)
        .join(", ") || "none"
    }`,
    `most denied actors: ${
      s.denied_by_actor
        .slice(0, 5)
        .map((a) => `${a.actor} (${a.count})`)
        .join(", ") || "none"
    }`,
    `security events: ${s.events.total}${s.events.by_kind.length > 0 ? ` (${s.events.by_kind.map((k) => `${k.kind} ${k.count}`).join(", ")})` : ""}`,
    "the page: portcullis audit --html FILE; every number: --json",
  ].join("\n");
}
