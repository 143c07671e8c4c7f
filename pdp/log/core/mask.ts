/**
 * Masking and dropping as policy, the way OPA does it: the deciding bundle's
 * `system/log/drop` and `system/log/mask` rules get the WHOLE event as input
 * (so the request input is at input.input).
 *
 *   drop true         -> the event is not logged (the caller counts it)
 *   mask set members  -> "/pointer" erases; {op: remove|upsert, path, value}
 *                        removes or sets; erased/masked list what changed
 *
 * Both policies see the unmasked event, as in OPA. Failing safe: when either
 * policy fails (throws, or returns something malformed) the event is still
 * logged, with its input fully erased, and the error is reported. Whatever
 * the policy did, a last pass erases any field NAMED like a credential
 * (token, password, secret, authorization, ...): defence in depth for a
 * bundle without a mask policy, or one that forgot a field.
 */
import type { DecisionEvent, PolicyEvaluator } from "../../types";
import { DecisionLogError, messageOf } from "./errors";
import { formatPointer, parsePointer, removeAt, upsertAt } from "./pointer";

export const DEFAULT_MASK_ENTRYPOINT = "system/log/mask";
export const DEFAULT_DROP_ENTRYPOINT = "system/log/drop";

/** An event as logged: OPA's `custom` field carries why masking failed, when it did. */
export type LogEvent = DecisionEvent & { custom?: Record<string, unknown> };

/**
 * Dropped, or the event to log with its JSON text. `event` may be the
 * caller's draft itself when nothing was masked (its text is the snapshot);
 * sinks serialise or copy what they keep at write time.
 */
export type MaskOutcome = { dropped: true } | { dropped: false; event: LogEvent; json: string; error?: DecisionLogError };

export interface MaskOptions {
  maskEntrypoint: string;
  dropEntrypoint: string;
}

type MaskRule = { op: "remove"; parts: string[] } | { op: "upsert"; parts: string[]; value: unknown };

/** Field names never written to a log, whatever the mask policy says. */
const CREDENTIAL_NAME = /passw(or)?d|passphrase|secret|token|authori[sz]ation|api[-_]?key|cookie|credential|private[-_]?key/i;

const utf8 = new TextEncoder();

/**
 * Decides whether to log the event and masks it; never throws. `draft` is
 * the event as built (it may share objects with the PDP and is never
 * edited); `json` is its JSON text, the snapshot. Like OPA (plugins/logs
 * Log: drop, then mask, on one input value), drop runs first, mask only for
 * kept events, and both policies get the SAME encoded text of the whole,
 * unmasked event. When the mask policy changes nothing and the text names
 * no credential-like field (the common case), the event is logged as it
 * is, without parsing a copy or serialising it again.
 */
export function maskAndDrop(draft: LogEvent, json: string, evaluate: PolicyEvaluator | null, options: MaskOptions): MaskOutcome {
  let error: DecisionLogError | undefined;
  let rules: MaskRule[] = [];
  if (evaluate) {
    try {
      // The SDK takes an ArrayBuffer as JSON text: one encoding for both policies.
      const input = bytesOf(json);
      if (shouldDrop(input, evaluate, options.dropEntrypoint)) return { dropped: true };
      rules = parseRules(evaluateOrThrow(evaluate, options.maskEntrypoint, input, "mask_eval_error"));
    } catch (err) {
      error = err instanceof DecisionLogError ? err : new DecisionLogError("mask_eval_error", messageOf(err));
    }
  }
  // CREDENTIAL_NAME matches only letters, "-" and "_", which JSON never escapes: a key it would
  // erase shows verbatim in the text, so no match in the text means redaction has nothing to do.
  if (!error && rules.length === 0 && !CREDENTIAL_NAME.test(json)) return { dropped: false, event: draft, json };
  // Something to change: work on a copy parsed from the snapshot, never on the PDP's objects.
  const event = JSON.parse(json) as LogEvent;
  if (!error) {
    try {
      applyRules(event, rules);
    } catch (err) {
      error = err instanceof DecisionLogError ? err : new DecisionLogError("mask_eval_error", messageOf(err));
    }
  }
  if (error) eraseInput(event, error);
  redactCredentials(event);
  const text = JSON.stringify(event);
  return error ? { dropped: false, event, json: text, error } : { dropped: false, event, json: text };
}

function bytesOf(json: string): ArrayBuffer {
  const bytes = utf8.encode(json);
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? (bytes.buffer as ArrayBuffer)
    : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

function shouldDrop(input: ArrayBuffer, evaluate: PolicyEvaluator, entrypoint: string): boolean {
  const drop = evaluateOrThrow(evaluate, entrypoint, input, "drop_eval_error");
  if (drop === undefined || typeof drop === "boolean") return drop === true;
  throw new DecisionLogError("drop_eval_error", `${entrypoint} must be a boolean, got ${typeName(drop)}`);
}

function evaluateOrThrow(evaluate: PolicyEvaluator, entrypoint: string, input: ArrayBuffer, code: "mask_eval_error" | "drop_eval_error"): unknown {
  try {
    return evaluate(entrypoint, input);
  } catch (err) {
    throw new DecisionLogError(code, `${entrypoint}: ${messageOf(err)}`);
  }
}

/** The mask rule's set (a JSON array through the Wasm ABI) into rules; undefined means no masking. */
function parseRules(result: unknown): MaskRule[] {
  if (result === undefined) return [];
  if (!Array.isArray(result)) throw new DecisionLogError("mask_invalid_result", `mask must be a set, got ${typeName(result)}`);
  return result.map((member): MaskRule => {
    if (typeof member === "string") return { op: "remove", parts: parsePointer(member) };
    if (typeof member !== "object" || member === null || Array.isArray(member)) {
      throw new DecisionLogError("mask_invalid_rule", `a mask member must be a pointer or an object, got ${typeName(member)}`);
    }
    const { op, path, value } = member as { op?: unknown; path?: unknown; value?: unknown };
    if (typeof path !== "string") throw new DecisionLogError("mask_invalid_rule", "a mask operation needs a string path");
    if (op === "remove") return { op, parts: parsePointer(path) };
    if (op === "upsert") {
      if (!("value" in member)) throw new DecisionLogError("mask_invalid_rule", `upsert of ${path} needs a value`);
      return { op, parts: parsePointer(path), value };
    }
    throw new DecisionLogError("mask_invalid_rule", `unknown mask op ${JSON.stringify(op)} (remove or upsert)`);
  });
}

/**
 * Upserts first, then removals: an erase always wins over a rewrite of the
 * same field. Removals run deepest and highest index first, so every pointer
 * means what it meant in the event the policy saw: erasing /input/params/0
 * and /input/params/1 erases those two elements. (OPA applies rules in set
 * order, where removing element 0 shifts element 1 to index 0 and the second
 * rule then erases the original element 2; we choose not to follow that.)
 */
function applyRules(event: LogEvent, rules: MaskRule[]): void {
  const root = event as unknown as Record<string, unknown>;
  for (const rule of rules) {
    if (rule.op === "upsert" && upsertAt(root, rule.parts, rule.value)) addPointer(event, "masked", formatPointer(rule.parts));
  }
  const removals = rules.filter((r) => r.op === "remove").sort((a, b) => comparePaths(b.parts, a.parts));
  for (const rule of removals) {
    if (removeAt(root, rule.parts)) addPointer(event, "erased", formatPointer(rule.parts));
  }
}

/** Path order with array indexes compared as numbers (so 10 sorts after 9), a prefix before its extensions. */
function comparePaths(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    const [x, y] = [Number(a[i]), Number(b[i])];
    if (/^\d+$/.test(a[i]) && /^\d+$/.test(b[i])) return x - y;
    return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

/** Fail safe: nothing of the request input survives; the error code says why. */
function eraseInput(event: LogEvent, error: DecisionLogError): void {
  delete event.input;
  delete event.masked;
  event.erased = ["/input"];
  // Only the code and a bounded message: an evaluation error may quote input values.
  event.custom = { ...event.custom, log_error: { code: error.code, message: error.message.slice(0, 200) } };
}

/** Erases every field of input and result whose NAME looks like a credential. */
export function redactCredentials(event: LogEvent): void {
  for (const root of ["input", "result"] as const) {
    const value = event[root];
    if (typeof value === "object" && value !== null) redactIn(event, value as Record<string, unknown> | unknown[], [root]);
  }
}

function redactIn(event: LogEvent, node: Record<string, unknown> | unknown[], at: string[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      if (typeof item === "object" && item !== null) redactIn(event, item as Record<string, unknown>, [...at, String(i)]);
    });
    return;
  }
  for (const key of Object.keys(node)) {
    if (CREDENTIAL_NAME.test(key)) {
      delete node[key];
      addPointer(event, "erased", formatPointer([...at, key]));
    } else if (typeof node[key] === "object" && node[key] !== null) {
      redactIn(event, node[key] as Record<string, unknown>, [...at, key]);
    }
  }
}

function addPointer(event: LogEvent, list: "erased" | "masked", pointer: string): void {
  const pointers = (event[list] ??= []);
  if (!pointers.includes(pointer)) pointers.push(pointer);
}

function typeName(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}
