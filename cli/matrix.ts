/**
 * `portcullis matrix --base-url <url>`: runs the authorization matrix
 * (matrix/authorization.yaml) against a running instance over HTTP.
 *
 *   portcullis matrix --base-url http://127.0.0.1:8080 [--json] [--html FILE] [--junit FILE] [--baseline FILE]
 *                     [--route ID ...] [--all] [--key FILE]
 *
 * Operations come from the instance's /openapi.json (its servable versions
 * and documented routes) plus this checkout's registry (undocumented and
 * internal routes): see matrix/registry.ts. Tokens are minted for the
 * personas with the instance's dev key under var/ (as `portcullis token`),
 * so this only works against an instance using the local dev key. The same
 * key signs the run's test-run credential: every request is marked with the
 * run id printed at the end (`portcullis decisions --test-run ID`, or
 * `--exclude-test-runs` to read real traffic only).
 *
 * The run CHANGES the instance's data (invoice workflow transitions,
 * invited users, moderated victim users): point it at a dev or test
 * instance, never at production.
 *
 * Prints the terminal table (or, with --json, the whole report), writes the
 * HTML page (default var/reports/matrix.html) and, with --junit, JUnit XML
 * for CI (matrix/junit.ts). Exits 0 only when no cell failed and none is
 * missing; with --baseline (a previous run's --json output, read before any
 * request is sent) it prints what changed since and exits 1 only when the
 * run is worse than the baseline (matrix/baseline.ts).
 *
 * --coverage: which policy rules the cells exercised (matrix/coverage.ts):
 * the run's decisions are read from the instance's decision log (--decisions
 * FILE, else PostgreSQL when PORTCULLIS_DATABASE_URL is set, else
 * var/decisions.db) by the run's test-run id, and evaluated on an
 * instrumented compilation of the sources in the instance's bundle
 * (--bundle, default var/bundle.tar.gz). Rules no cell reaches are listed as
 * findings; they do not change the exit code.
 */
import * as fs from "node:fs";
import { mintDevToken } from "../api/identity/mint";
import { ConfigError, loadConfig } from "../config";
import { DEFAULT_BUNDLE_FILE } from "../config/settings";
import { mintTestRunCredential, newRunId } from "../api/identity/test-run";
import { cellInputs, ruleCoverage } from "../matrix/coverage";
import { baselineText, diffBaseline, readBaseline } from "../matrix/baseline";
import { DEFAULT_HTML_REPORT, writeHtmlReport } from "../matrix/html";
import { writeMatrixJUnit } from "../matrix/junit";
import { DEFAULT_MATRIX_FILE, loadMatrix } from "../matrix/model";
import { operationsFromInstance } from "../matrix/registry";
import { terminalReport } from "../matrix/report";
import { runMatrix } from "../matrix/run";
import { flagsOf, one, parseArgs, UsageError } from "./args";
import { readDecisions } from "./decisions";
import type { DecisionEntry } from "../pdp/log/store/query";

export const MATRIX_USAGE =
  "matrix --base-url URL [--json] [--html FILE] [--junit FILE] [--baseline FILE] [--route ID ...] [--all] [--key FILE] [--matrix FILE] [--coverage [--decisions FILE] [--bundle FILE]]";

export async function matrixCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: {
      "--base-url": "base",
      "--html": "html",
      "--junit": "junit",
      "--baseline": "baseline",
      "--route": "route",
      "--key": "key",
      "--matrix": "matrix",
      "--decisions": "decisions",
      "--bundle": "bundle",
    },
    switches: { "--json": "json", "--all": "all", "--coverage": "coverage" },
  });
  if (args.positionals.length > 0) throw new UsageError(`matrix takes no positional arguments (got ${args.positionals.join(" ")})`);
  const baseUrl = one(args, "base");
  if (!baseUrl) throw new UsageError("matrix needs --base-url (e.g. http://127.0.0.1:8080)");
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`--base-url must be an http(s) URL, got ${baseUrl}`);
  const { identity } = loadConfig({ env: process.env, flags: flagsOf(args, { key: "identity.devKeyFile" }) });
  if (identity.jwksUrl)
    throw new ConfigError(
      "CONFIG_CONFLICT",
      "PORTCULLIS_JWKS_URL (identity.jwksUrl)",
      "is set: persona tokens come from that identity provider, not from the dev key",
    );

  const baselineFile = one(args, "baseline");
  // Read first: a bad baseline stops the command before the run changes anything on the instance.
  const baseline = baselineFile === undefined ? undefined : readBaseline(baselineFile);
  const matrix = loadMatrix(one(args, "matrix") ?? DEFAULT_MATRIX_FILE);
  const ops = await operationsFromInstance(baseUrl);
  const runId = newRunId("matrix");
  const credential = await mintTestRunCredential({ keyFile: identity.devKeyFile, issuer: identity.issuer, runId, ttlSec: 6 * 3600 });
  const report = await runMatrix({
    testRun: { id: runId, credential },
    baseUrl,
    matrix,
    ops,
    routes: args.values.get("route"),
    tokenFor: (subject) => mintDevToken({ subject, keyFile: identity.devKeyFile, issuer: identity.issuer, audience: identity.audience, ttlSec: 3600 }),
  });
  if (args.switches.has("coverage")) {
    const entries = await runDecisions(one(args, "decisions"), runId, report.cells);
    const { inputs, without } = cellInputs(report.cells, entries);
    report.coverage = await ruleCoverage(fs.readFileSync(one(args, "bundle") ?? DEFAULT_BUNDLE_FILE), inputs, without);
  }
  const html = writeHtmlReport(report, one(args, "html") ?? DEFAULT_HTML_REPORT);
  const junitFile = one(args, "junit");
  const junit = junitFile === undefined ? undefined : writeMatrixJUnit(report, junitFile);
  const diff = baseline && diffBaseline(report, baseline, baselineFile as string);
  if (args.switches.has("json")) console.log(JSON.stringify(diff ? { ...report, baseline: diff } : report, null, 2));
  else {
    console.log(
      [
        terminalReport(report, { allCells: args.switches.has("all") }),
        ...(diff ? ["", baselineText(diff)] : []),
        `HTML report: ${html}`,
        ...(junit ? [`JUnit XML: ${junit}`] : []),
        `Test run: ${runId} (portcullis decisions --test-run ${runId})`,
      ].join("\n"),
    );
  }
  if (diff) return diff.worse ? 1 : 0;
  return report.summary.failed === 0 && report.summary.missing === 0 ? 0 : 1;
}

/**
 * The run's decisions from the instance's log. The log writes in the
 * background (a batch every few milliseconds), and every Decision-Id the API
 * returns is stored: read again, for up to 5 s, until each cell's is there.
 */
async function runDecisions(dbFlag: string | undefined, runId: string, cells: Array<{ decision_id: string | null }>): Promise<DecisionEntry[]> {
  const wanted = cells.map((c) => c.decision_id).filter((id): id is string => id !== null);
  for (let attempt = 0; ; attempt++) {
    const entries = await readDecisions(dbFlag, { testRun: runId, limit: 1_000_000 });
    const have = new Set(entries.map((e) => e.decision_id));
    if (attempt >= 25 || wanted.every((id) => have.has(id))) return entries;
    await new Promise((r) => setTimeout(r, 200));
  }
}
