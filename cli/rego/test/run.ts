/**
 * Running test rules on a loaded policy as OPA's tester does, one entrypoint
 * each, and what the host learns while they run:
 *
 * - `internal.probe(id)` (instrumented compilations, see
 *   packages/rego-wasm/compiler/instrument.ts): the probe is hit (coverage); the last
 *   expression of the test's own body that was reached is the failing one
 *   when the test fails; and past the test's deadline the probe throws, which
 *   aborts the evaluation (`--timeout`: Wasm cannot be interrupted otherwise,
 *   so an evaluation stuck in one builtin call runs until that call returns);
 * - `internal.test_case(parts)`: a parameterized test reached that case.
 *
 * A test passes when its value is `true`; a parameterized one (a partial
 * object) when every case reached has the value `true` (OPA's sub-results).
 *
 * `print()` output is the test's own (OPA's `output`): the SDK writes what
 * the module prints with console.log, its only channel, so console.log is
 * taken over while a test evaluates, and given back after.
 */
import type { LoadedPolicy } from "@open-policy-agent/opa-wasm";
import type { EvaluationClock, Probe } from "@portcullis/rego-wasm";
import { TEST_CASE_BUILTIN, type TestRule } from "./discover";

export interface SubResult {
  name: string;
  fail: boolean;
  sub: Map<string, SubResult>;
}

export interface TestResult {
  test: TestRule;
  outcome: "pass" | "fail" | "error" | "skip";
  durationNs: number;
  /** Why it failed (`undefined`, `got false`) or the error's message. */
  detail?: string;
  errorCode?: string;
  /** The last expression of the test's own body that evaluation reached, for a failed test. */
  failedAt?: Probe["loc"];
  subResults?: Map<string, SubResult>;
  bench?: { n: number; totalNs: number };
  /** What the test printed (`print()`), one line per call. */
  output?: string;
}

class TestTimeout extends Error {}

interface Current {
  test: TestRule;
  deadline: bigint;
  lastExpr: Probe | undefined;
  cases: unknown[][];
}

export class TestRunner {
  /** Every probe id hit by any test so far (coverage). */
  readonly hits = new Set<number>();
  private current: Current | null = null;

  constructor(
    private readonly policy: LoadedPolicy,
    private readonly clock: EvaluationClock,
    private readonly probes: Probe[] | undefined,
    private readonly timeoutNs: bigint,
  ) {}

  /** The host functions the test compilation calls; give them to the policy's loader. */
  static hostFunctions(runner: () => TestRunner): Record<string, (...args: unknown[]) => unknown> {
    return {
      "internal.probe": (id) => runner().probe(id as number),
      [TEST_CASE_BUILTIN]: (parts) => {
        runner().current?.cases.push(Array.isArray(parts) ? parts : [parts]);
        return true;
      },
    };
  }

  private probe(id: number): true {
    this.hits.add(id);
    const cur = this.current;
    if (cur) {
      const p = this.probes?.[id];
      if (p && p.kind === "expr" && p.topLevel && p.rulePath === cur.test.entrypoint) cur.lastExpr = p;
      if (process.hrtime.bigint() > cur.deadline) throw new TestTimeout();
    }
    return true;
  }

  run(test: TestRule): TestResult {
    if (test.skip) return { test, outcome: "skip", durationNs: 0 };
    const start = process.hrtime.bigint();
    const cur: Current = { test, deadline: start + this.timeoutNs, lastExpr: undefined, cases: [] };
    this.current = cur;
    const printed: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void printed.push(args.join(" "));
    let rs: Array<{ result: unknown }>;
    const output = () => (printed.length > 0 ? { output: printed.map((l) => `${l}\n`).join("") } : {});
    try {
      this.clock.tick();
      rs = this.policy.evaluate(undefined, test.entrypoint) as Array<{ result: unknown }>;
    } catch (err) {
      const durationNs = Number(process.hrtime.bigint() - start);
      if (err instanceof TestTimeout) {
        return {
          test,
          outcome: "error",
          durationNs,
          errorCode: "eval_cancel_error",
          detail: `timed out after ${formatNs(Number(this.timeoutNs))} (--timeout)`,
          ...output(),
        };
      }
      return { test, outcome: "error", durationNs, errorCode: "eval_error", detail: messageOf(err), ...output() };
    } finally {
      this.current = null;
      console.log = log;
    }
    const durationNs = Number(process.hrtime.bigint() - start);
    const failed = (detail: string, extra: Partial<TestResult> = {}): TestResult => ({
      test,
      outcome: "fail",
      durationNs,
      detail,
      failedAt: cur.lastExpr?.loc,
      ...output(),
      ...extra,
    });
    if (rs.length === 0) return failed("undefined");
    const value = rs[0]!.result;
    if (test.parameterized) {
      const { fail, results } = subResults(value, cur.cases);
      return fail ? failed("a case failed", { subResults: results }) : { test, outcome: "pass", durationNs, subResults: results, ...output() };
    }
    return value === true ? { test, outcome: "pass", durationNs, ...output() } : failed(`got ${JSON.stringify(value)}`);
  }

  /**
   * `--bench`: the test run repeatedly, as Go's testing.Benchmark does: more
   * runs each round until the runs take a second. A test that does not pass
   * on its first run is reported as that run's result.
   */
  bench(test: TestRule): TestResult {
    const first = this.run(test);
    if (first.outcome !== "pass") return first;
    const goalNs = 1e9;
    let n = 1;
    for (;;) {
      const log = console.log;
      console.log = () => undefined; // print() output was the first run's
      const start = process.hrtime.bigint();
      try {
        for (let i = 0; i < n; i++) {
          this.clock.tick();
          this.policy.evaluate(undefined, test.entrypoint);
        }
      } finally {
        console.log = log;
      }
      const totalNs = Number(process.hrtime.bigint() - start);
      if (totalNs >= goalNs || n >= 1e9) return { ...first, bench: { n, totalNs } };
      const predicted = totalNs === 0 ? n * 100 : Math.ceil((goalNs * 1.2 * n) / totalNs);
      n = Math.max(n + 1, Math.min(predicted, n * 100));
    }
  }
}

/** OPA's subResults: the value's cases, then each case reached but absent from it, failed. */
function subResults(value: unknown, cases: unknown[][]): { fail: boolean; results: Map<string, SubResult> } {
  const results = new Map<string, SubResult>();
  let fail = false;
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const sr = subResult(k, v);
      results.set(k, sr);
      fail ||= sr.fail;
    }
  }
  for (const parts of cases) fail = update(results, parts.map(caseName), 0) || fail;
  return { fail, results };
}

function subResult(name: string, v: unknown): SubResult {
  if (isObject(v)) {
    const { fail, results } = subResults(v, []);
    return { name, fail, sub: results };
  }
  return { name, fail: v !== true, sub: new Map() };
}

/** Marks the case at `path` failed unless the value already holds it; true when it (or a case under it) failed. */
function update(results: Map<string, SubResult>, path: string[], i: number): boolean {
  if (i >= path.length) return true;
  let entry = results.get(path[i]!);
  if (!entry) {
    entry = { name: path[i]!, fail: true, sub: new Map() };
    results.set(path[i]!, entry);
  }
  if (i === path.length - 1) return entry.fail;
  const fail = update(entry.sub, path, i + 1);
  if (fail) entry.fail = true;
  return fail;
}

/** A case's name: a string as it is, anything else as JSON (OPA's termToString). */
function caseName(part: unknown): string {
  return typeof part === "string" ? part : JSON.stringify(part);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null && "message" in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** A duration as Go prints one: `412.5µs`, `1.234567ms`, `2.5s`. */
export function formatNs(ns: number): string {
  if (ns < 1e3) return `${ns}ns`;
  if (ns < 1e6) return `${trim(ns / 1e3)}µs`;
  if (ns < 1e9) return `${trim(ns / 1e6)}ms`;
  return `${trim(ns / 1e9)}s`;
}

function trim(x: number): string {
  return String(Number(x.toFixed(6)));
}
