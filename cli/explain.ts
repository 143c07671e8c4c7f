/**
 * `decisions --id ID --explain --bundle FILE`, the deeper mode after the
 * recorded trail (./explain-trail.ts): which rule decided, and on what,
 * evaluated again. The logged input is evaluated again on an instrumented compilation
 * of the Rego sources inside the bundle that decided (its revision must be
 * the one the decision names), and the evaluation must reproduce the
 * logged result: otherwise (a masked input, another policy) the trail is
 * printed under a warning that it is not the recorded decision's.
 *
 * The trail: the body of the entrypoint's rule that produced the value
 * (rule name, file:line, its source line), then every rule body that
 * succeeded on the way, in the order they did, each with the input values
 * its reached expressions read.
 *
 * What it adds to the recorded trail: every rule body that succeeded on
 * the way (not only those the deciding body read), the expressions reached,
 * and a check that the logged input still gives the logged result.
 */
import * as fs from "node:fs";
import { type InstrumentedBundle, loadInstrumented, type Probe } from "@portcullis/rego-wasm";
import type { DecisionEntry } from "../pdp/log/store/query";
import { UsageError } from "./args";
import { printable } from "./events";

export async function explainDecision(entry: DecisionEntry, bundleFile: string): Promise<string> {
  const event = entry.event;
  const head = `decision ${entry.decision_id} at ${entry.timestamp}`;
  if (event === null) return `${head}: no decision event is logged for this id (dropped by the drop policy, or lost): nothing to explain`;
  if (event.custom?.policy_evaluated === false || !event.path) {
    return `${head}: refused before the policy was asked, no rule decided: ${printable(JSON.stringify(event.custom?.refusal ?? {}))}`;
  }
  let policy: InstrumentedBundle;
  try {
    policy = await loadInstrumented(fs.readFileSync(bundleFile), event.path);
  } catch (err) {
    throw new UsageError(`--bundle ${bundleFile}: ${(err as Error).message}`);
  }
  if (policy.revision !== (entry.revision ?? "")) {
    throw new UsageError(
      `--bundle ${bundleFile} is revision ${JSON.stringify(policy.revision)}; the decision was made by ${JSON.stringify(entry.revision)}: give that bundle`,
    );
  }
  const masked = [...(event.erased ?? []), ...(event.masked ?? [])].filter((p) => p.startsWith("/input"));
  const { result, heads, reached } = policy.evaluate(event.input);
  const same = canonical(result) === canonical(event.result);
  const lines = [
    `${head}, bundle revision ${policy.revision}, ${event.path}`,
    `recorded: ${entry.allowed ? "allow" : "deny"} ${entry.status ?? "-"} ${entry.reason ?? "-"}`,
  ];
  if (!same)
    lines.push(
      `WARNING: evaluated again, the logged input does NOT give the logged result${masked.length > 0 ? ` (masked input: ${masked.join(" ")})` : ""}: this trail is not the recorded decision's`,
    );
  else if (masked.length > 0) lines.push(`note: the logged input is masked (${masked.join(" ")}); it still gives the logged result`);
  const entrypoint = heads.filter((p) => p.rulePath === event.path);
  lines.push(
    "decided by:",
    ...(entrypoint.length > 0 ? entrypoint.map((p) => rule(p, policy, reached, event.input)) : ["  (no body of the rule succeeded: the result set is empty)"]),
  );
  const trail = heads.filter((p) => p.rulePath !== event.path);
  if (trail.length > 0) lines.push("on the way (rule bodies that succeeded, in order):", ...trail.map((p) => rule(p, policy, reached, event.input)));
  return lines
    .flatMap((l) => l.split("\n"))
    .map(printable)
    .join("\n");
}

/** One rule body: its name, file:line, source line, and the input values its reached expressions read. */
function rule(p: Probe, policy: InstrumentedBundle, reached: Probe[], input: unknown): string {
  const source = policy.sources.get(p.loc.file)?.split("\n") ?? [];
  const out = [`  data.${p.rulePath.replace(/\//g, ".")}  ${p.loc.file}:${p.loc.row}`, `    ${p.loc.row} | ${(source[p.loc.row - 1] ?? "").trim()}`];
  const refs = new Set<string>();
  for (const e of reached) {
    if (e.rulePath !== p.rulePath || !e.topLevel) continue;
    for (const m of (source[e.loc.row - 1] ?? "").matchAll(/\binput(\.[A-Za-z_][A-Za-z0-9_]*)+/g)) refs.add(m[0]);
  }
  for (const ref of [...refs].sort()) out.push(`    reads ${ref} = ${JSON.stringify(valueAt(input, ref.split(".").slice(1))) ?? "undefined"}`);
  return out.join("\n");
}

function valueAt(value: unknown, path: string[]): unknown {
  let v = value;
  for (const key of path) v = v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(",")}}`;
}
