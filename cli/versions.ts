/**
 * `portcullis versions`: the version lifecycle table, from measured facts:
 * api/versions/versions.json (owner, declared state, sunset, removal plan,
 * blocker), a live `GET /api/{version}/health` probe of every declared and
 * commonly guessed version, counted traffic over the removal window, and the
 * parity check between reachable versions; and who still calls the
 * Deprecated and Zombie versions (per actor and client, over the removal
 * window, from the database's `version_callers`: the SQLite file --db
 * names, else the PostgreSQL database PORTCULLIS_DATABASE_URL names, else
 * var/portcullis.db).
 *
 *   portcullis versions [--json | --html FILE] [--base-url URL] [--db FILE] [--log FILE ...] [--bundle FILE] [--key FILE]
 *
 * --json adds each version's requests per day over the removal window
 * (`trend`, inventory/versions/trend.ts); --html FILE writes the lifecycle
 * page (inventory/report/lifecycle-html.ts): versions on a timeline with
 * their sunsets and that trend.
 *
 * Targets and traffic sources as for `portcullis inventory`.
 */
import { ROUTES } from "../api/registry/routes";
import { loadVersions } from "../api/versions";
import * as fs from "node:fs";
import * as path from "node:path";
import { lifecycleHtml, type LifecycleReport } from "../inventory/report/lifecycle-html";
import { stderrProgress } from "../inventory/report/progress";
import { readVersionTrend } from "../inventory/versions/trend";
import { versionsTable } from "../inventory/report/table";
import { assessVersions } from "../inventory/versions";
import { readDeclared, DEFAULT_REMOVAL } from "../inventory/versions/lifecycle";
import { callersTable, readVersionCallers } from "../inventory/versions/callers";
import { DEFAULT_DB_FILE } from "../db";
import { one, parseArgs, UsageError } from "./args";
import { auditStore } from "./audit-store";
import { loadTraffic, openTarget } from "./inventory";

export const VERSIONS_USAGE = "versions [--json | --html FILE] [--base-url URL] [--db FILE] [--log FILE ...] [--bundle FILE] [--key FILE]";

export async function versionsCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: { "--base-url": "baseUrl", "--html": "html", "--db": "db", "--log": "log", "--bundle": "bundle", "--key": "key" },
    switches: { "--json": "json" },
  });
  if (args.positionals.length > 0) throw new UsageError(`versions takes no positional arguments (got ${args.positionals.join(" ")})`);
  const html = one(args, "html");
  if (html !== undefined && args.switches.has("json")) throw new UsageError("--json and --html are alternatives");
  const now = new Date();
  const traffic = await loadTraffic(args, now);
  const declared = readDeclared(loadVersions());
  const windowDays = (declared.removal ?? DEFAULT_REMOVAL).window_days;
  const since = new Date(now.getTime() - windowDays * 86_400_000).toISOString().slice(0, 10);
  // Callers and trend from the store the traffic came from (--db, else PORTCULLIS_DATABASE_URL, else the default file).
  const store = auditStore(one(args, "db"), DEFAULT_DB_FILE);
  const { callers, notes: callerNotes } = await readVersionCallers(store, since);
  const target = await openTarget(args);
  let assessment;
  try {
    assessment = await assessVersions(target, {
      declared,
      routes: ROUTES,
      traffic: traffic.from.length > 0 ? traffic.observations : null,
      now,
      progress: stderrProgress(),
    });
  } finally {
    await target.close();
  }
  const { lifecycle, parity } = assessment;
  if (args.switches.has("json") || html !== undefined) {
    const trend = await readVersionTrend(store, since, now.toISOString().slice(0, 10));
    const report: LifecycleReport = {
      generatedAt: now.toISOString(),
      target: target.label,
      versions: lifecycle,
      parity: parity.defects,
      callers,
      trend,
      notes: [...new Set([...traffic.notes, ...callerNotes, ...trend.notes])],
    };
    if (html === undefined) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
    else {
      fs.mkdirSync(path.dirname(path.resolve(html)), { recursive: true });
      fs.writeFileSync(html, lifecycleHtml(report));
      console.error(`portcullis: wrote ${html} (${lifecycle.length} versions)`);
    }
    return 0;
  }
  process.stdout.write(versionsTable(lifecycle));
  const ready = lifecycle.filter((v) => v.readyToRemove).map((v) => v.name);
  process.stdout.write(`\nReady to remove: ${ready.length > 0 ? ready.join(", ") : "none"}\nParity defects: ${parity.defects.length}\n`);
  for (const d of parity.defects) process.stdout.write(`  ${d.route} as ${d.persona}: ${d.aspect} differs between ${d.versions.join(" and ")}: ${d.detail}\n`);
  process.stdout.write(`\nWho still calls deprecated versions (last ${windowDays} days):\n`);
  process.stdout.write(callers.length > 0 ? callersTable(callers) : `  nobody${callerNotes.length > 0 ? ` measured (${callerNotes.join("; ")})` : ""}\n`);
  return 0;
}
