/**
 * The `plan/` stage: checked Program + entrypoints -> IR Policy (`ir.ts`).
 *
 * A path entrypoint (`portcullis/decision`, a package, or `data` itself)
 * yields one binding {"result": value} when defined; a query entrypoint yields
 * one binding per solution, keyed by the query's own (non-wildcard) vars.
 */
import type { Program } from "../check";
import type { Policy } from "./ir";
import { Planner, type Entrypoint } from "./planner";

export type { Entrypoint } from "./planner";
export { printPolicy } from "./print";

export interface PlanOptions {
  /** Dispatch rules through the rule index (rule-index.ts). */
  ruleIndex?: boolean;
  /** `false` plans no TrailStmt (../trail.ts): the module records no decision trail. */
  trail?: boolean;
}

export function plan(program: Program, entrypoints: Entrypoint[], options: PlanOptions = {}): Policy {
  return new Planner(program, options.ruleIndex ?? false, { trail: options.trail }).policy(entrypoints);
}
