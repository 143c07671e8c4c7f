/**
 * Which policy rules the matrix's cells exercised: each cell's decision
 * input, as the instance's decision log recorded it, evaluated again on an
 * instrumented compilation (packages/rego-wasm/compiler/instrument.ts) of the policy
 * sources the active bundle carries. A rule definition (each body, each
 * `else`, each default, each function clause) is reached when its body
 * succeeded for some cell (its head probe fired): it produced a value in
 * some cell's decision. A rule no cell reaches is authorization logic the
 * matrix never tested: a finding.
 *
 *   const coverage = await ruleCoverage(bundleBytes, cellInputs);
 *
 * Only the rules under the decision entrypoint's top-level package count
 * (`portcullis/...`): the decision log's mask and drop policies are not
 * the matrix's business. Findings do not fail the run (the matrix's exit
 * code stays about the answers): they are listed in the JSON, the terminal
 * report and the HTML page.
 */
import { loadInstrumented } from "@portcullis/rego-wasm";
import { DEFAULT_ENTRYPOINT } from "../pdp";
import type { DecisionEntry } from "../pdp/log/store/query";

export interface RuleRef {
  /** The rule's path, dotted (`data.portcullis.fields.readable`). */
  rule: string;
  file: string;
  row: number;
}

export interface RuleCoverage {
  revision: string;
  entrypoint: string;
  /** Cells whose recorded decision input was evaluated. */
  inputs: number;
  /** Cells without one: not applicable, refused before the policy, or not found in the decision log. */
  cells_without_input: number;
  /** Evaluations that failed on the instrumented policy (each also means the coverage is partial). */
  errors: number;
  rules: number;
  reached: number;
  unreached: RuleRef[];
}

export async function ruleCoverage(
  bundleBytes: Uint8Array,
  inputs: unknown[],
  cellsWithoutInput: number,
  entrypoint = DEFAULT_ENTRYPOINT,
): Promise<RuleCoverage> {
  const policy = await loadInstrumented(bundleBytes, entrypoint);
  const hits = new Set<number>();
  let errors = 0;
  for (const input of inputs) {
    try {
      for (const p of policy.evaluate(input).heads) hits.add(p.id);
    } catch {
      errors++;
    }
  }
  const top = entrypoint.split("/")[0];
  const heads = policy.probes.filter((p) => p.kind === "head" && (p.rulePath === top || p.rulePath.startsWith(`${top}/`)));
  const unreached = heads
    .filter((p) => !hits.has(p.id))
    .map((p) => ({ rule: `data.${p.rulePath.replace(/\//g, ".")}`, file: p.loc.file, row: p.loc.row }))
    .sort((a, b) => a.file.localeCompare(b.file) || a.row - b.row);
  return {
    revision: policy.revision,
    entrypoint,
    inputs: inputs.length,
    cells_without_input: cellsWithoutInput,
    errors,
    rules: heads.length,
    reached: heads.length - unreached.length,
    unreached,
  };
}

/** The recorded input of each cell's decision (by Decision-Id); cells the policy did not decide count apart. */
export function cellInputs(cells: Array<{ decision_id: string | null }>, entries: DecisionEntry[]): { inputs: unknown[]; without: number } {
  const byId = new Map(entries.map((e) => [e.decision_id, e]));
  const inputs: unknown[] = [];
  for (const c of cells) {
    const event = c.decision_id === null ? undefined : byId.get(c.decision_id)?.event;
    if (event && event.custom?.policy_evaluated !== false && event.input !== undefined) inputs.push(event.input);
  }
  return { inputs, without: cells.length - inputs.length };
}
