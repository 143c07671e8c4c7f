/**
 * `decisions --id ID --explain`: the trail the decision RECORDED (event
 * `custom.trail`, pdp/trail.ts), read back from the log alone: the rule body
 * that decided, then the bodies it depended on, each with its source line
 * (from the bundle that decided, when it is at hand) and the input values
 * it read (from the logged input). The same Explanation feeds the text
 * (formatExplanation) and the HTML page (report/explain-html.ts).
 *
 * Nothing is evaluated again: this is what the PDP recorded when it decided.
 * `--bundle FILE` adds the deeper re-evaluation (./explain.ts).
 */
import * as fs from "node:fs";
import { readBundle } from "@portcullis/rego-wasm";
import type { DecisionEntry } from "../pdp/log/store/query";
import type { TrailEntry } from "../pdp/trail";
import { printable } from "./events";

/** One rule body of the trail, with what the log and the bundle say about it. */
export interface ExplainedBody {
  rule: string;
  /** `file:line` as recorded. */
  at: string;
  kind?: "else" | "default";
  /** True for the body that gave the decision its value. */
  deciding: boolean;
  /** The line at `at` in the bundle's sources; undefined when they are not at hand. */
  source?: string;
  /** The input values it read, from the logged input; `masked` when the log's mask touched that path. */
  reads: Array<{ path: string; value: string; masked: boolean }>;
  /** Rules it read of which no body succeeded. */
  failed: string[];
}

export interface Explanation {
  decisionId: string;
  timestamp: string;
  revision: string | null;
  path: string | null;
  /** The recorded answer: `allow 200 allowed`, `deny 403 role_required`, or what the API refused with. */
  answer: string;
  /** What the client finally got (`GET /invoices/x -> 400 forbidden_key`), when the request's outcome is logged. */
  answered?: string;
  /** Why there is no trail to show, when there is none (a refusal, a PDP error, a bundle without trail). */
  noTrail?: string;
  trail: ExplainedBody[];
  /** Where the source lines come from, or why they are not shown. */
  sources: string;
}

/** Source text by file, from a bundle of the decision's revision. */
export type Sources = Map<string, string[]>;

/**
 * The sources of the bundle in `file` when it is the decision's revision,
 * else a note saying why no source line is shown.
 */
export function sourcesFor(file: string, revision: string | null): { sources: Sources | null; note: string } {
  if (!fs.existsSync(file)) return { sources: null, note: `source lines not shown: no bundle at ${file} (give the one that decided with --bundle)` };
  let bundle;
  try {
    bundle = readBundle(fs.readFileSync(file));
  } catch (err) {
    return { sources: null, note: `source lines not shown: ${file} is not a bundle (${(err as Error).message})` };
  }
  if (bundle.manifest.revision !== (revision ?? "")) {
    return {
      sources: null,
      note: `source lines not shown: ${file} is revision ${JSON.stringify(bundle.manifest.revision)}, the decision was made by ${JSON.stringify(revision)}`,
    };
  }
  const sources: Sources = new Map();
  const utf8 = new TextDecoder();
  for (const [name, bytes] of bundle.files) if (name.endsWith(".rego")) sources.set(name.replace(/^\/+/, ""), utf8.decode(bytes).split("\n"));
  return { sources, note: `source lines from ${file} (revision ${JSON.stringify(bundle.manifest.revision)})` };
}

export function explainRecorded(entry: DecisionEntry, sources: Sources | null, sourcesNote: string): Explanation {
  const event = entry.event;
  const base = {
    decisionId: entry.decision_id,
    timestamp: entry.timestamp,
    revision: entry.revision,
    path: entry.path,
    answer: `${entry.allowed ? "allow" : "deny"} ${entry.status ?? "-"} ${entry.reason ?? "-"}`,
    trail: [] as ExplainedBody[],
    sources: sourcesNote,
    ...(entry.outcome
      ? { answered: `${entry.outcome.method} ${entry.outcome.http_path} -> ${entry.outcome.status}${entry.outcome.problem ? ` ${entry.outcome.problem}` : ""}` }
      : {}),
  };
  if (event === null) return { ...base, answer: "not logged", noTrail: "no decision event is logged for this id (dropped by the drop policy, or lost)" };
  const custom = (event.custom ?? {}) as { policy_evaluated?: unknown; refusal?: unknown; trail?: unknown };
  if (custom.policy_evaluated === false || !event.path) {
    return { ...base, noTrail: `refused before the policy was asked, no rule decided: ${JSON.stringify(custom.refusal ?? {})}` };
  }
  if (event.error) return { ...base, noTrail: `the PDP denied on its own (${event.error.code}: ${event.error.message}): no rule decided` };
  if (!Array.isArray(custom.trail) || custom.trail.length === 0) {
    return { ...base, noTrail: "the event carries no trail (its bundle was compiled without one, or by another compiler): use --bundle to evaluate it again" };
  }
  const decisionRule = event.path.replace(/\//g, ".");
  const touched = [...(event.erased ?? []), ...(event.masked ?? [])];
  const trail = (custom.trail as TrailEntry[]).map((t): ExplainedBody => {
    const [file, row] = splitAt(String(t.at));
    const line = sources?.get(file)?.[row - 1];
    return {
      rule: String(t.rule),
      at: String(t.at),
      ...(t.kind ? { kind: t.kind } : {}),
      deciding: t.rule === decisionRule || String(t.rule).startsWith(`${decisionRule}.`),
      ...(line === undefined ? {} : { source: line.trim() }),
      reads: (t.reads ?? []).map((p) => readOf(event.input, String(p), touched)),
      failed: (t.failed ?? []).map(String),
    };
  });
  return { ...base, trail };
}

/** `dir/file.rego:12` -> ["dir/file.rego", 12]. */
function splitAt(at: string): [string, number] {
  const i = at.lastIndexOf(":");
  return i < 0 ? [at, 0] : [at.slice(0, i), Number(at.slice(i + 1))];
}

const VALUE_LIMIT = 200;

function readOf(input: unknown, path: string, touched: string[]): { path: string; value: string; masked: boolean } {
  const keys = path.split(".").slice(1);
  let v: unknown = input;
  for (const k of keys) v = v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
  const text = v === undefined ? "undefined" : JSON.stringify(v);
  const value = text.length > VALUE_LIMIT ? `${text.slice(0, VALUE_LIMIT)}… (${text.length} characters)` : text;
  const pointer = `/input${keys.map((k) => `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")}`;
  const masked = touched.some((p) => p === pointer || pointer.startsWith(`${p}/`) || p.startsWith(`${pointer}/`));
  return { path, value, masked };
}

export function formatExplanation(e: Explanation): string {
  const lines = [
    `decision ${e.decisionId} at ${e.timestamp}${e.revision ? `, bundle revision ${e.revision}` : ""}${e.path ? `, ${e.path}` : ""}`,
    `recorded: ${e.answer}`,
  ];
  if (e.answered !== undefined) lines.push(`the client got: ${e.answered}`);
  if (e.noTrail !== undefined) lines.push(e.noTrail);
  else {
    lines.push(`recorded trail (${e.sources}):`);
    const deciding = e.trail.filter((b) => b.deciding);
    const rest = e.trail.filter((b) => !b.deciding);
    lines.push("decided by:", ...deciding.map(formatBody));
    if (rest.length > 0) lines.push("depends on (rule bodies that succeeded, each read by one above it):", ...rest.map(formatBody));
  }
  return lines
    .flatMap((l) => l.split("\n"))
    .map(printable)
    .join("\n");
}

function formatBody(b: ExplainedBody): string {
  const kind = b.kind === "else" ? "  (else branch)" : b.kind === "default" ? "  (default)" : "";
  const [, row] = splitAt(b.at);
  const out = [`  data.${b.rule}  ${b.at}${kind}`];
  if (b.source !== undefined) out.push(`    ${row} | ${b.source}`);
  for (const r of b.reads) out.push(`    reads ${r.path} = ${r.value}${r.masked ? "  (masked in the log)" : ""}`);
  for (const f of b.failed) out.push(`    no body of data.${f} succeeded`);
  return out.join("\n");
}
