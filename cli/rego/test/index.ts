/**
 * `rego test`: runs the `test_` rules of the given files and directories as
 * `opa test` does (./discover.ts), each compiled as an entrypoint and
 * evaluated through @open-policy-agent/opa-wasm with the host builtins the
 * PDP gives a policy (plus --capabilities / --builtins ones).
 *
 *   rego test [-v] [-r REGEX] [--format pretty|json] [--timeout 5s] [--bench] [-z]
 *             [--coverage] [--threshold N] [--junit FILE] [--v0-compatible] <files or dirs>
 *
 * --junit FILE also writes the results as JUnit XML for CI (./junit.ts),
 * whatever is printed.
 *
 * Exit 0 when every test passed and none was skipped (`-z`: skipped ones
 * allowed), 1 otherwise or below the coverage threshold, 2 on a usage error.
 *
 * Tests run on an instrumented compilation (packages/rego-wasm/compiler/instrument.ts):
 * that is what reports coverage, the failing expression and timeouts; the
 * bundles `rego build` writes are compiled without it. `--bench` measures
 * the uninstrumented compilation, what the PDP would run.
 */
import { catalogueFor, compileModules, EvaluationClock, type HostBuiltinDecl, loadSizedPolicy, type Module, parseModule } from "@portcullis/rego-wasm";
import { maxMemoryPages, one, parseArgs, syntaxVersion, UsageError } from "../../args";
import { collectPolicyInputs } from "../../files";
import { CUSTOM_BUILTIN_FLAGS, customBuiltins, hostFunctions } from "../custom-builtins";
import { writeJUnit } from "../../../report/junit";
import { coverageReport } from "./coverage";
import { prepareTests, TEST_CASE_BUILTIN } from "./discover";
import { regoTestJUnit } from "./junit";
import { jsonResults, prettyLines, summaryLine, tally } from "./report";
import { TestRunner, type TestResult } from "./run";

export async function testCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    switches: {
      "-v": "verbose",
      "--verbose": "verbose",
      "--v0-compatible": "v0",
      "--bench": "bench",
      "--coverage": "coverage",
      "-c": "coverage",
      "--exit-zero-on-skipped": "skipZero",
      "-z": "skipZero",
    },
    values: {
      "--max-memory-pages": "maxMemoryPages",
      "-r": "run",
      "--run": "run",
      "--format": "format",
      "-f": "format",
      "--timeout": "timeout",
      "--threshold": "threshold",
      "--junit": "junit",
      ...CUSTOM_BUILTIN_FLAGS,
    },
  });
  if (args.positionals.length === 0) throw new UsageError("no policy files or directories given");
  const verbose = args.switches.has("verbose");
  const bench = args.switches.has("bench");
  const threshold = thresholdOf(args);
  // As in OPA, a threshold above 0 asks for coverage.
  const coverage = args.switches.has("coverage") || (threshold ?? 0) > 0;
  const format = one(args, "format") ?? "pretty";
  if (format !== "pretty" && format !== "json") throw new UsageError(`--format must be pretty or json, got ${format}`);
  if (bench && coverage) throw new UsageError("--bench and --coverage cannot be combined (a benchmark runs the uninstrumented policy)");
  const filter = filterOf(one(args, "run"));
  const timeoutNs = durationNs(one(args, "timeout") ?? (bench ? "30s" : "5s"));

  const { sources, data } = collectPolicyInputs(args.positionals);
  const custom = await customBuiltins(args);
  const regoVersion = syntaxVersion(args);
  const hostBuiltins: HostBuiltinDecl[] = [...custom.decls, { name: TEST_CASE_BUILTIN, arity: 1 }];
  const catalogue = catalogueFor({ hostBuiltins, instrument: true, capabilities: custom.capabilities });
  const modules: Module[] = sources.map((s) => parseModule(s.source, s.file, catalogue, s.regoVersion ?? regoVersion));
  const tests = prepareTests(modules).filter((t) => !filter || filter.test(`${t.pkg}.${t.name}`));
  const runnable = tests.filter((t) => !t.skip);

  let results: TestResult[];
  let runner: TestRunner | undefined;
  let probes;
  if (runnable.length === 0) {
    results = tests.map((test) => ({ test, outcome: "skip", durationNs: 0 }));
  } else {
    const compiled = compileModules(modules, {
      entrypoints: runnable.map((t) => t.entrypoint),
      regoVersion,
      hostBuiltins,
      capabilities: custom.capabilities,
      instrument: !bench,
    });
    probes = compiled.probes;
    const clock = new EvaluationClock();
    const builtins = {
      ...hostFunctions(
        custom,
        clock,
        compiled.policy.hostBuiltins.map((b) => b.name),
      ),
      ...TestRunner.hostFunctions(() => runner!),
    };
    const policy = await loadSizedPolicy(compiled.wasm, data, { maxPages: maxMemoryPages(args), builtins });
    runner = new TestRunner(policy, clock, probes, timeoutNs);
    results = tests.map((t) => (bench ? runner!.bench(t) : runner!.run(t)));
  }

  const counts = tally(results);
  // OPA exits non-zero on skipped tests too, unless told not to (-z).
  const ok = counts.failed === 0 && (counts.skipped === 0 || args.switches.has("skipZero"));
  const sourceLine = (file: string, row: number) => modules.find((m) => m.file === file)?.source.split("\n")[row - 1];
  const junit = one(args, "junit");
  if (junit !== undefined) writeJUnit(junit, regoTestJUnit(results, sourceLine));
  if (format === "json" && !coverage) {
    console.log(JSON.stringify(jsonResults(results), null, 2));
    return ok ? 0 : 1;
  }
  if (coverage) {
    // OPA prints the coverage report alone, and only when no test failed.
    if (counts.failed > 0) {
      for (const line of prettyLines(
        results.filter((r) => r.outcome === "fail" || r.outcome === "error"),
        verbose,
        sourceLine,
      ))
        console.log(line);
      console.error(summaryLine(counts));
      return 1;
    }
    const report = coverageReport(
      modules.map((m) => m.file),
      probes ?? [],
      runner?.hits ?? new Set(),
    );
    console.log(JSON.stringify(report, null, 2));
    console.error(summaryLine(counts));
    if (threshold !== undefined && report.coverage < threshold) {
      console.error(`Code coverage threshold not met: got ${report.coverage.toFixed(2)} instead of ${threshold.toFixed(2)}`);
      return 1;
    }
    return ok ? 0 : 1;
  }
  for (const line of prettyLines(results, verbose, sourceLine)) console.log(line);
  console.log(summaryLine(counts));
  return ok ? 0 : 1;
}

function thresholdOf(args: ReturnType<typeof parseArgs>): number | undefined {
  const text = one(args, "threshold");
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`--threshold must be a percentage from 0 to 100, got ${text}`);
  return n;
}

function filterOf(pattern: string | undefined): RegExp | undefined {
  if (pattern === undefined) return undefined;
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new UsageError(`--run: invalid regular expression: ${(err as Error).message}`);
  }
}

const UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** A Go duration (`5s`, `250ms`, `1m30s`) in nanoseconds, as `opa test --timeout` takes it. */
export function durationNs(text: string): bigint {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) throw new UsageError(`--timeout must be a duration like 5s or 250ms, got ${text}`);
  const ns = parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]!]!, 0);
  if (ns <= 0) throw new UsageError(`--timeout must be positive, got ${text}`);
  return BigInt(Math.round(ns));
}
