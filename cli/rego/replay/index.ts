/**
 * `rego replay`: what a candidate bundle would have answered to the logged
 * traffic (replay.ts), before it ships.
 *
 *   portcullis rego replay --bundle CANDIDATE.tar.gz [--db FILE] [--since T] [--limit N]
 *                          [--json] [--html FILE] [--fail-on deny-to-allow,...]
 *
 * Reads the decision log as `decisions` does (--db FILE, else PostgreSQL
 * when PORTCULLIS_DATABASE_URL is set, else var/decisions.db), the newest
 * --limit decisions (default 100 000) since --since. The candidate is
 * loaded as the PDP loads a bundle (Engine.load). Prints a summary and the
 * flips grouped by route, role and reason (--json: the report as one JSON
 * object); --html FILE also writes the page. Exit 1 when a flip matches
 * --fail-on (deny-to-allow, allow-to-deny, status, reason, scope, fields,
 * any; comma-separated), masked ones included: a gate does not wave through
 * a flip it cannot vouch for.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Engine } from "../../../pdp/engine";
import { parseSince } from "../../../pdp/log/store/query";
import { one, parseArgs, UsageError } from "../../args";
import { readDecisions } from "../../decisions";
import { format, html } from "./format";
import { parseFailOn, replay } from "./replay";

export const DEFAULT_REPLAY_LIMIT = 100_000;

export async function replayCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: { "--bundle": "bundle", "-b": "bundle", "--db": "db", "--since": "since", "--limit": "limit", "--html": "html", "--fail-on": "failOn" },
    switches: { "--json": "json" },
  });
  if (args.positionals.length > 0) throw new UsageError(`rego replay takes no positional arguments (got ${args.positionals.join(" ")})`);
  const bundle = one(args, "bundle");
  if (bundle === undefined) throw new UsageError("rego replay needs --bundle CANDIDATE.tar.gz");
  const limitText = one(args, "limit");
  const limit = limitText === undefined ? DEFAULT_REPLAY_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, got ${limitText}`);
  const failOnText = one(args, "failOn");
  let failOn: string[] = [];
  try {
    if (failOnText !== undefined) failOn = parseFailOn(failOnText);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const sinceText = one(args, "since");
  const since = sinceText === undefined ? undefined : parseSince(sinceText);

  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(bundle);
  } catch (err) {
    throw new UsageError(`--bundle ${bundle}: ${(err as Error).message}`);
  }
  let engine: Engine;
  try {
    engine = await Engine.load(bytes, bundle);
  } catch (err) {
    // Exit 2, not 1: a candidate that does not load is not a policy change that failed the gate.
    throw new UsageError(`--bundle ${bundle}: ${(err as Error).message}`);
  }
  const entries = await readDecisions(one(args, "db"), { since, limit });
  const report = replay(entries, engine, { source: bundle, since, limit, failOn });

  const htmlFile = one(args, "html");
  if (htmlFile !== undefined) {
    fs.mkdirSync(path.dirname(path.resolve(htmlFile)), { recursive: true });
    fs.writeFileSync(htmlFile, html(report));
  }
  console.log(args.switches.has("json") ? JSON.stringify(report) : format(report));
  return report.fail_on.failed ? 1 : 0;
}
