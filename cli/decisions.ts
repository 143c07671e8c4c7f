/**
 * `portcullis decisions`: how an auditor reads the decision log.
 *
 * Reads the SQLite file `--db` names, else PostgreSQL when
 * PORTCULLIS_DATABASE_URL is set (every instance's decisions), else
 * var/decisions.db (cli/audit-store.ts).
 *
 *   portcullis decisions [--db FILE] [--actor ID] [--denied] [--since T]
 *                        [--path P] [--id DECISION_ID] [--test-run ID]
 *                        [--exclude-test-runs] [--limit N] [--json]
 *
 * Default: a table, newest first: time, decision id, actor, the request
 * (method and path), route id, version, the policy's answer, what the client
 * finally got, bundle revision. The policy's answer reads `allowed 200 ...`,
 * `denied 403 role_required`, or `not asked` for a refusal made before the
 * policy (bad token, unknown version, rate limit...). The outcome reads
 * `404 not_found (no row in scope)`, `200`, or `none` when the request never
 * finished (the process stopped). --json prints each logged event (OPA's
 * shape) with an `outcome` member, one JSON object per line (ready for jq).
 * --explain (with --id): which rule decided and on what, as the decision
 * recorded it (its trail, ./explain-trail.ts), with the source lines of the
 * bundle that decided when it is at hand (--bundle FILE, else the one the
 * service runs, PORTCULLIS_BUNDLE or var/bundle.tar.gz, when it is that
 * revision). With --bundle, the logged
 * input is also evaluated again on an instrumented compilation of that
 * bundle (./explain.ts): every body that succeeded on the way and the
 * expressions reached. --html FILE writes the recorded trail as a page.
 */
import * as fs from "node:fs";
import { DEFAULT_BUNDLE_FILE } from "../config/settings";
import { explanationPage } from "../report/explain-html";
import { createPool } from "../db/pg/pool";
import { DEFAULT_DECISIONS_DB } from "../pdp/log";
import { DecisionLogError } from "../pdp/log/core/errors";
import { openForRead } from "../pdp/log/store/sqlite-store";
import { DEFAULT_QUERY_LIMIT, parseSince, queryDecisions, queryDecisionsPg, type DecisionEntry, type DecisionQuery } from "../pdp/log/store/query";
import { one, parseArgs, UsageError } from "./args";
import { auditStore } from "./audit-store";
import { explainDecision } from "./explain";
import { explainRecorded, formatExplanation, sourcesFor } from "./explain-trail";
import { printable } from "./events";

export const DECISIONS_USAGE =
  "decisions [--db FILE] [--actor ID] [--denied] [--since 2h|2026-11-21T14:00:00Z] [--path /http/path|route.id|decision/path] [--id DECISION_ID] [--test-run ID | --exclude-test-runs] [--limit N] [--json] [--explain [--bundle FILE] [--html FILE]]";

export async function decisionsCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: {
      "--db": "db",
      "--actor": "actor",
      "--since": "since",
      "--path": "path",
      "--id": "id",
      "--limit": "limit",
      "--test-run": "testRun",
      "--bundle": "bundle",
      "--html": "html",
    },
    switches: { "--denied": "denied", "--json": "json", "--exclude-test-runs": "excludeTestRuns", "--explain": "explain" },
  });
  if (args.positionals.length > 0) throw new UsageError(`decisions takes no positional arguments (got ${args.positionals.join(" ")})`);
  const limitText = one(args, "limit");
  const limit = limitText === undefined ? DEFAULT_QUERY_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, got ${limitText}`);
  const testRun = one(args, "testRun");
  if (testRun !== undefined && args.switches.has("excludeTestRuns")) throw new UsageError("--test-run and --exclude-test-runs exclude each other");
  const since = one(args, "since");
  const query: DecisionQuery = {
    actor: one(args, "actor"),
    denied: args.switches.has("denied"),
    since: since === undefined ? undefined : parseSince(since),
    path: one(args, "path"),
    id: one(args, "id"),
    testRun,
    excludeTestRuns: args.switches.has("excludeTestRuns"),
    limit,
  };

  const explain = args.switches.has("explain");
  const bundle = one(args, "bundle");
  const html = one(args, "html");
  if (explain && query.id === undefined) throw new UsageError("--explain needs --id DECISION_ID");
  if (!explain && (bundle !== undefined || html !== undefined)) throw new UsageError("--bundle and --html go with --explain");
  const entries = await readDecisions(one(args, "db"), query);
  if (explain) {
    if (entries.length === 0) throw new DecisionLogError("decisions_bad_filter", `no decision ${query.id} in the log`);
    const { sources, note } = sourcesFor(bundle ?? process.env.PORTCULLIS_BUNDLE ?? DEFAULT_BUNDLE_FILE, entries[0].revision);
    const explanation = explainRecorded(entries[0], sources, note);
    console.log(formatExplanation(explanation));
    // Evaluating again needs a decision the policy made; a refusal or a missing event has nothing to evaluate.
    const evaluated = entries[0].event?.path && (entries[0].event.custom as { policy_evaluated?: unknown } | undefined)?.policy_evaluated !== false;
    if (bundle !== undefined && evaluated)
      console.log(`\nevaluated again on an instrumented compilation of ${bundle}:\n${await explainDecision(entries[0], bundle)}`);
    if (html !== undefined) fs.writeFileSync(html, explanationPage(explanation));
    return 0;
  }
  if (args.switches.has("json")) {
    // printable() keeps each line valid JSON: what it escapes can only occur inside strings.
    for (const entry of entries) console.log(printable(JSON.stringify(jsonOf(entry))));
  } else {
    console.log(formatTable(entries, limit));
  }
  return 0;
}

/** From the store auditStore picks (--db, else PostgreSQL when PORTCULLIS_DATABASE_URL is set, else the default file). */
export async function readDecisions(dbFlag: string | undefined, query: DecisionQuery): Promise<DecisionEntry[]> {
  const store = auditStore(dbFlag, DEFAULT_DECISIONS_DB);
  if (store.kind === "sqlite") {
    const db = openForRead(store.file);
    try {
      return queryDecisions(db, query);
    } finally {
      db.close();
    }
  }
  const pool = createPool({ url: store.url, max: 1 });
  try {
    return await queryDecisionsPg(pool, query);
  } catch (err) {
    if ((err as { code?: unknown }).code === "42P01")
      throw new DecisionLogError("decisions_db_missing", "no decision log in the PostgreSQL database (PORTCULLIS_DATABASE_URL): run `portcullis db migrate`");
    throw err;
  } finally {
    await pool.end();
  }
}

/** The logged event with the request's outcome beside it; without a logged event, the id and the outcome. */
function jsonOf(entry: DecisionEntry): Record<string, unknown> {
  return { ...(entry.event ?? { decision_id: entry.decision_id, decision_logged: false }), outcome: entry.outcome };
}

const HEADERS = ["TIME (UTC)", "DECISION ID", "ACTOR", "REQUEST", "ROUTE", "VERSION", "POLICY", "OUTCOME", "REVISION"];

export function formatTable(entries: DecisionEntry[], limit: number): string {
  if (entries.length === 0) return "no decisions match";
  const rows = entries.map((e) =>
    [
      // Millisecond precision reads well; the full timestamp is in --json.
      e.timestamp.replace(/^(.{19})(\.\d{1,3})?\d*Z$/, "$1$2Z").replace("T", " "),
      e.decision_id,
      e.actor_id ?? "-",
      e.outcome ? `${e.outcome.method} ${e.outcome.http_path}` : "-",
      e.outcome?.route_id ?? routeOf(e) ?? "-",
      e.outcome?.version ?? versionOf(e) ?? "-",
      policy(e),
      outcome(e),
      e.revision ?? "-",
    ].map(printable),
  );
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  const footer = entries.length === limit ? `(newest ${limit} shown; --limit N for more)` : `${entries.length} decision${entries.length === 1 ? "" : "s"}`;
  return [line(HEADERS), ...rows.map(line), footer].join("\n");
}

/**
 * The policy's answer: `allowed 200 allowed`, `denied 403 role_required`,
 * `denied pdp_error` (no status when the PDP failed), `not asked` (refused
 * before the policy), `not logged` (an outcome whose decision event is
 * absent: dropped by the drop policy, or lost).
 */
function policy(e: DecisionEntry): string {
  if (!e.event) return "not logged";
  const erased = e.event.erased?.includes("/input") ? " [input erased]" : "";
  if (e.event.custom?.policy_evaluated === false) return "not asked" + erased;
  return [e.allowed ? "allowed" : "denied", e.status ?? "", e.reason ?? ""].filter((p) => p !== "").join(" ") + erased;
}

/** What the client got: `200`, `404 not_found (no row in scope)`, `none` (never finished), with the test run when there is one. */
function outcome(e: DecisionEntry): string {
  const o = e.outcome;
  if (!o) return "none";
  const parts = [o.aborted ? `aborted${o.status ? ` ${o.status}` : ""}` : String(o.status)];
  if (o.problem) parts.push(o.problem);
  if (o.scope_found === false) parts.push("(no row in scope)");
  if (o.test_run) parts.push(`[test run ${o.test_run}]`);
  return parts.join(" ");
}

function routeOf(e: DecisionEntry): string | undefined {
  const route = (e.event?.input as { route?: { id?: unknown } } | undefined)?.route;
  return typeof route?.id === "string" && route.id !== "" ? route.id : undefined;
}

function versionOf(e: DecisionEntry): string | undefined {
  const route = (e.event?.input as { route?: { version?: unknown } } | undefined)?.route;
  return typeof route?.version === "string" && route.version !== "" ? route.version : undefined;
}
