/**
 * Runs conformance cases: each case is compiled by our compiler and
 * evaluated THROUGH @open-policy-agent/opa-wasm (loadPolicy / setData /
 * evaluate), never through a private path, then compared with the case's
 * expectation. A case that cannot run counts as failed, never as passed.
 *
 * Expectations, in the order OPA's own Wasm test run reads them:
 * - want_result: the result set (list of bindings; [] = undefined), and no
 *   error, even when the case also names an error that only strict mode
 *   raises (strict_error): Wasm has no strict builtin-error mode;
 * - otherwise, strict_error with an expected error: the error only exists in
 *   strict mode, so the expected outcome is the empty result set;
 * - otherwise want_error_code: compilation or evaluation must fail with that
 *   code, and with want_error in the message when given.
 * Like OPA's harness, the runner hosts `test.sleep` (harness-builtins.ts).
 */
import { compile, type SyntaxVersion } from "..";
import { loadSizedPolicy } from "../bundle/memory";
import { EvaluationClock } from "../host";
import { CompileError, CompileErrors } from "../errors";
import { HARNESS_BUILTINS, harnessBuiltins } from "./harness-builtins";
import type { ConformanceCase } from "./cases";
import { sameResultSet } from "./compare";

export interface CaseResult {
  file: string;
  family: string;
  note: string;
  passed: boolean;
  /** Why it failed (empty when passed). */
  reason: string;
}

const QUERY_ENTRYPOINT = "conformance/query";

/** `regoVersion` "v0" runs a case as OPA 1.x's `--v0-compatible` does (OPA's v0 corpus). */
export async function runCase(c: ConformanceCase, runtimeWasm?: Uint8Array, regoVersion: SyntaxVersion = "v1"): Promise<CaseResult> {
  const result = (passed: boolean, reason = ""): CaseResult => ({ file: c.file, family: c.family, note: c.note, passed, reason });
  // A wanted result comes first; a strict-mode-only error cannot happen in
  // Wasm (the call is undefined instead), so without one it means undefined.
  const expectError = c.wantResult === undefined && c.wantErrorCode !== undefined && !c.strictError;
  const expected = c.wantResult ?? [];

  let actual: Array<Record<string, unknown>>;
  try {
    const sources = c.modules.map((source, i) => ({ file: `${c.note}/module${i}.rego`, source }));
    const entrypoints = [{ name: QUERY_ENTRYPOINT, query: c.query }];
    // OPA's test harness registers `test.sleep`; so does this host.
    const { wasm } = compile(sources, { entrypoints, runtimeWasm, hostBuiltins: HARNESS_BUILTINS, regoVersion });
    const clock = new EvaluationClock();
    const policy = await loadSizedPolicy(wasm, c.data ?? {}, { builtins: { ...clock.builtins(), ...harnessBuiltins() } });
    clock.tick();
    actual = policy.evaluate(inputBuffer(c), QUERY_ENTRYPOINT) as Array<Record<string, unknown>>;
  } catch (err) {
    const { code, message } = describeError(err);
    if (!expectError) return result(false, `unexpected error: ${message}`);
    if (code !== c.wantErrorCode) return result(false, `want error ${c.wantErrorCode}, got ${code ?? "uncoded"}: ${message}`);
    if (c.wantError && !message.includes(c.wantError)) return result(false, `want message "${c.wantError}", got: ${message}`);
    return result(true);
  }
  if (expectError) return result(false, `want error ${c.wantErrorCode}, got result ${JSON.stringify(actual)}`);
  if (!sameResultSet(actual, expected, c.sortBindings)) {
    return result(false, `want ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
  return result(true);
}

/**
 * The input as raw text, so the module parses it itself (as OPA does): this
 * keeps Rego-only values of `input_term` (sets) and avoids the SDK treating
 * falsy inputs (false, 0, "", null) as "no input".
 */
function inputBuffer(c: ConformanceCase): ArrayBuffer | undefined {
  const text = c.inputTerm ?? (c.input === undefined ? undefined : JSON.stringify(c.input));
  if (text === undefined) return undefined;
  const bytes = new TextEncoder().encode(text);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

const ERROR_CODE = /\b(rego_[a-z_]+_error|eval_[a-z_]+_error)\b/;

function describeError(err: unknown): { code?: string; message: string } {
  if (err instanceof CompileErrors) return { code: err.errors[0]?.code, message: err.message };
  if (err instanceof CompileError) return { code: err.code, message: err.message };
  const message = err instanceof Error ? err.message : typeof err === "object" && err !== null ? JSON.stringify(err) : String(err);
  return { code: ERROR_CODE.exec(message)?.[1], message };
}

export interface ConformanceReport {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  cases: CaseResult[];
}

export async function runCases(cases: ConformanceCase[], runtimeWasm?: Uint8Array, regoVersion: SyntaxVersion = "v1"): Promise<ConformanceReport> {
  const results: CaseResult[] = [];
  for (const c of cases) results.push(await runCase(c, runtimeWasm, regoVersion));
  const passed = results.filter((r) => r.passed).length;
  return { total: results.length, passed, failed: results.length - passed, skipped: 0, cases: results };
}

/** Pass counts per family, for the report and the issue note. */
export function familySummary(report: ConformanceReport): Array<{ family: string; passed: number; total: number }> {
  const byFamily = new Map<string, { passed: number; total: number }>();
  for (const r of report.cases) {
    const f = byFamily.get(r.family) ?? { passed: 0, total: 0 };
    f.total++;
    if (r.passed) f.passed++;
    byFamily.set(r.family, f);
  }
  return [...byFamily.entries()].map(([family, f]) => ({ family, ...f })).sort((a, b) => a.family.localeCompare(b.family));
}
