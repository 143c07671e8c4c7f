/**
 * `portcullis inventory`: the route inventory (inventory/), reconciled from
 * the router, the registry, the gateway config, the schemas, the code and
 * the traffic, with live probes of every route and version.
 *
 *   portcullis inventory [--base-url URL] [--json | --html FILE] [--check]
 *                        [--db FILE] [--log FILE ...] [--bundle FILE] [--key FILE]
 *                        [--gateway FILE] [--schemas DIR] [--code DIR] [--acks FILE]
 *
 * Without --base-url the real app is started in process on an ephemeral
 * 127.0.0.1 port (temp SQLite, var/bundle.tar.gz, a temp dev key), so CI
 * needs no server. Traffic comes from --db, else from the PostgreSQL
 * database PORTCULLIS_DATABASE_URL names (a cluster's instances count into
 * it together), else from var/portcullis.db when it exists (the counts
 * `portcullis serve` keeps), and from any --log files of
 * the API's JSON request lines (their actors classed by the users table of
 * that same store). Progress goes to stderr; the report to
 * stdout (table, or --json), or to --html FILE. --check exits 1 when any
 * finding is unacknowledged (inventory/acknowledgements.yaml) or an
 * acknowledgement has expired. --gateway, --schemas, --code and --acks
 * replace the repository's inputs (inventory/gateway/kong.yaml,
 * inventory/schemas/, api/, inventory/acknowledgements.yaml).
 */
import * as fs from "node:fs";
import { ROUTES } from "../api/registry/routes";
import { DEFAULT_BUNDLE_FILE } from "../config";
import { DEFAULT_DB_FILE, type ActorClass } from "../db";
import { runInventory } from "../inventory";
import { inventoryHtml } from "../inventory/report/html";
import { stderrProgress } from "../inventory/report/progress";
import { inventoryTable } from "../inventory/report/table";
import { readCounts, type CountsStoreRef } from "../inventory/sources/store";
import { auditStore } from "./audit-store";
import { countRequestEvents, readTraffic, requestEvents, type TrafficSource } from "../inventory/sources/traffic";
import { remoteTarget, startInProcess, type Target } from "../inventory/target";
import { one, parseArgs, UsageError, type ParsedArgs } from "./args";

export const INVENTORY_USAGE =
  "inventory [--base-url URL] [--json | --html FILE] [--check] [--db FILE] [--log FILE ...] [--bundle FILE] [--key FILE] [--gateway FILE] [--schemas DIR] [--code DIR] [--acks FILE]";

/**
 * Traffic over the last 90 days (the staleness horizon) from the service's
 * store (--db, else PORTCULLIS_DATABASE_URL, else the default file:
 * inventory/sources/store.ts) and access logs, whose actors are classed by
 * the users table of that same store.
 */
export async function loadTraffic(args: ParsedArgs, now: Date, env: NodeJS.ProcessEnv = process.env): Promise<TrafficSource> {
  const since = new Date(now.getTime() - 90 * 86_400_000).toISOString().slice(0, 10);
  const explicitDb = one(args, "db");
  const store = auditStore(explicitDb, DEFAULT_DB_FILE, env);
  const out: TrafficSource = { observations: [], from: [], notes: [] };
  // The default file, when there is none, is not a source anyone asked for: no note.
  if (store.kind === "postgres" || explicitDb !== undefined || fs.existsSync(store.file)) {
    const t = await readTraffic(store, since);
    out.observations.push(...t.observations);
    out.from.push(...t.from);
    out.notes.push(...t.notes);
  }
  const logs = (args.values.get("log") ?? []).map((file) => ({ file, log: requestEvents(fs.readFileSync(file, "utf8")) }));
  if (logs.length > 0) {
    const classes = await actorClasses(store, new Set(logs.flatMap(({ log }) => log.events.map((e) => e.actor))));
    const templates = [...new Set(ROUTES.flatMap((r) => r.paths))];
    for (const { file, log } of logs) {
      const t = countRequestEvents(log, templates, classes && ((id) => classes.get(id)), file);
      out.observations.push(...t.observations.filter((o) => o.lastSeen.slice(0, 10) >= since));
      out.from.push(...t.from);
      out.notes.push(...t.notes);
    }
  }
  return out;
}

/** Actor id -> class through the store's users table; undefined when there is no store to ask (every actor then counts as a member). */
async function actorClasses(store: CountsStoreRef, ids: Set<string>): Promise<Map<string, ActorClass> | undefined> {
  ids.delete("anonymous");
  const got = await readCounts(store, "users table", async (s) => {
    const classes = new Map<string, ActorClass>();
    for (const id of ids) {
      const role = (await s.users.findIdentity(id))?.role;
      if (role === "admin" || role === "support" || role === "member") classes.set(id, role);
    }
    return classes;
  });
  return "note" in got ? undefined : got.value;
}

export async function openTarget(args: ParsedArgs): Promise<Target> {
  const baseUrl = one(args, "baseUrl");
  if (baseUrl !== undefined) {
    if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`--base-url must be an http(s) URL, got ${baseUrl}`);
    return remoteTarget(baseUrl, one(args, "key"));
  }
  return startInProcess({ bundleFile: one(args, "bundle") ?? DEFAULT_BUNDLE_FILE });
}

export async function inventoryCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: {
      "--base-url": "baseUrl",
      "--html": "html",
      "--db": "db",
      "--log": "log",
      "--bundle": "bundle",
      "--key": "key",
      "--gateway": "gateway",
      "--schemas": "schemas",
      "--code": "code",
      "--acks": "acks",
    },
    switches: { "--json": "json", "--check": "check" },
  });
  if (args.positionals.length > 0) throw new UsageError(`inventory takes no positional arguments (got ${args.positionals.join(" ")})`);
  const html = one(args, "html");
  if (html !== undefined && args.switches.has("json")) throw new UsageError("--json and --html are alternatives");
  const now = new Date();
  const traffic = await loadTraffic(args, now);
  const target = await openTarget(args);
  let result;
  try {
    result = await runInventory({
      target,
      traffic,
      now,
      progress: stderrProgress(),
      gatewayFile: one(args, "gateway"),
      schemasDir: one(args, "schemas"),
      codeDir: one(args, "code"),
      acknowledgementsFile: one(args, "acks"),
    });
  } finally {
    await target.close();
  }
  if (args.switches.has("json")) process.stdout.write(JSON.stringify(result, null, 2) + "\n");
  else if (html !== undefined) {
    fs.writeFileSync(html, inventoryHtml(result));
    console.error(`portcullis: wrote ${html} (${result.records.length} records, ${result.failing.length} unacknowledged findings)`);
  } else process.stdout.write(inventoryTable(result));

  if (!args.switches.has("check")) return 0;
  if (result.failing.length === 0) {
    console.error(`inventory check passed: ${result.findings.length} finding(s), all acknowledged`);
    return 0;
  }
  console.error(`inventory check FAILED: ${result.failing.length} unacknowledged finding(s):`);
  for (const f of result.failing) console.error(`  ${f.id}: ${f.detail}`);
  return 1;
}
